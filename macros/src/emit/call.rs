//! The `Tool` impl: gates 2–3 on the arguments, 4–5 on each resource, the
//! tool's checks, then the function with the context and state injected.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ReturnType;
use syn::spanned::Spanned;

use crate::model::{Param, ToolFn};

pub(crate) fn emit(tool: &ToolFn) -> TokenStream {
    let marker = super::marker_ident(tool);
    let args = super::args_at_use(tool);
    let args_ident = super::args_ident(tool);
    let fn_ident = &tool.func.sig.ident;
    let callee = match &tool.method_of {
        Some(self_ty) => quote!(<#self_ty>::#fn_ident),
        None => quote!(#fn_ident),
    };
    let state = tool.state();
    let site = Span::mixed_site();
    let invocation = quote_spanned!(site=> __invocation);
    let context = quote_spanned!(site=> __context);
    let state_ref = quote_spanned!(site=> __state);
    let def_ref = quote_spanned!(site=> __def);

    // A tool that takes `&App` serves every toolbox whose state provides
    // an `App` (`App` itself, `Arc<App>`, a state that holds one); the
    // call then runs on the `App` it lends.
    // The state the call's future runs on.
    let runs_on = match state {
        Some(ty) => quote!(#ty),
        None => quote!(__S),
    };
    let (impl_generics, lend) = match state {
        Some(ty) => (
            quote!(<__S: ::toolgate::Provides<#ty> + ::core::marker::Send + ::core::marker::Sync + 'static>),
            quote!(let mut #invocation = #invocation.lend::<#ty>();),
        ),
        None => (
            quote!(<__S: ::core::marker::Send + ::core::marker::Sync + 'static>),
            quote!(),
        ),
    };

    // Each field is bound under the parameter's own name, so that the
    // `check` expression and the call below read like the user's code.
    let mut fields = Vec::new();
    let mut bindings = Vec::new();
    // Each resource's gates 4 and 5, after every argument is accepted.
    let mut authorizations = Vec::new();
    // Each model-facing field as the gates accepted it, by wire name.
    let mut accepted = Vec::new();
    let mut call_args = Vec::new();
    for param in &tool.params {
        match param {
            Param::Context(name) => {
                call_args.push(quote!(#context));
                if let Some(name) = name {
                    bindings.push(quote!(let #name = #context;));
                }
            }
            Param::State(_, name) => {
                call_args.push(quote!(#state_ref));
                if let Some(name) = name {
                    bindings.push(quote!(let #name = #state_ref;));
                }
            }
            Param::Model(arg) => {
                let name = &arg.ident;
                let wire = arg.wire_name();
                fields.push(quote!(#name));
                call_args.push(quote!(#name));
                accepted.push(quote! {
                    (#wire, ::toolgate::__private::Canon(&#name).canonical())
                });
                if let Some(default) = &arg.default {
                    let value = default.expr();
                    bindings.push(quote! {
                        let #name = match #name {
                            ::core::option::Option::Some(sent) => sent,
                            ::core::option::Option::None => #value,
                        };
                    });
                }
            }
            Param::Resource(r) => {
                let name = &r.arg.ident;
                let reference = format_ident!(
                    "__reference_{}",
                    syn::ext::IdentExt::unraw(name),
                    span = site
                );
                let wire = r.arg.wire_name();
                let resource = &r.resource;
                fields.push(quote!(#name: #reference));
                accepted.push(quote! {
                    (#wire, ::toolgate::__private::Canon(&#reference).canonical())
                });
                let authorize = quote_spanned! {resource.span()=>
                    {
                        #[allow(unused_imports)]
                        use ::toolgate::__private::NotAResourceOf as _;
                        ::toolgate::__private::Authorizing::<#marker, #resource, #state>::new()
                            .authorize(&mut #invocation, #wire, &#reference)
                            .await
                    }
                };
                // Spanned on `R`, so that a missing policy is reported once,
                // on the resource it is missing for.
                authorizations.push(if r.optional {
                    quote_spanned! {resource.span()=>
                        let #name = match #reference {
                            ::core::option::Option::Some(#reference) => match #authorize {
                                ::core::result::Result::Ok(authorized) => ::core::option::Option::Some(authorized),
                                ::core::result::Result::Err(refused) => return refused,
                            },
                            ::core::option::Option::None => ::core::option::Option::None,
                        };
                    }
                } else {
                    quote_spanned! {resource.span()=>
                        let #name = match #authorize {
                            ::core::result::Result::Ok(authorized) => authorized,
                            ::core::result::Result::Err(refused) => return refused,
                        };
                    }
                });
                call_args.push(quote!(#name));
            }
            Param::Invalid => {}
        }
    }
    // A tool that names no resource awaits nothing before its body: its
    // arguments, bindings and check are read at once, and the runtime
    // drives the call around its body (a closure for a plain function,
    // `Boxing::call`; the body's future for an async one,
    // `Boxing::call_async`), the driving code checked and compiled once,
    // not as an async block of each tool's own.
    let driven = tool.resources().next().is_none();
    // How the code before the body gives up with the outcome `rejected`.
    let refused = match driven {
        true => {
            quote!(return ::toolgate::__private::Call::Done(::core::option::Option::Some(rejected)))
        }
        false => quote!(return rejected),
    };
    let check = tool.attrs.check.as_ref().map(|expr| {
        quote_spanned! {expr.span()=>
            if let ::core::result::Result::Err(rejected) = #invocation.check(#expr) {
                #refused;
            }
        }
    });
    let awaited = tool.func.sig.asyncness.map(|_| quote!(.await));
    let approval = match &tool.attrs.approval {
        Some(expr) => quote_spanned! {expr.span()=>
            ::core::option::Option::Some(::toolgate::__private::approval_is_a_bool(#expr))
        },
        None => quote!(::core::option::Option::None),
    };
    let approver = match &tool.attrs.approver {
        Some(expr) => quote_spanned! {expr.span()=>
            ::toolgate::__private::approver_is_named(#expr)
        },
        None => quote!(::core::option::Option::None),
    };

    // Spanned on the user's tokens so that a failed bound names the parameter
    // or return type that caused it.
    let arg_checks = tool.model_args().map(|arg| {
        let ty = &arg.ty;
        // The type and every type inside it: `Vec<Order>`, `Option<Order>`,
        // `[Order; 2]` and `(u8, Order)` are whole orders sent by the model
        // as surely as `Order` is.
        let mut parts = Vec::new();
        components(ty, &mut parts);
        let not_a_resource = tool.state().map(|state| {
            let probes = parts.iter().map(|part| {
                quote_spanned! {part.span()=>
                    ::toolgate::__private::Probe::<#part, #state>::new().model_argument_is_not_a_resource();
                }
            });
            quote! {
                {
                    #[allow(unused_imports)]
                    use ::toolgate::__private::NotAResource as _;
                    #(#probes)*
                }
            }
        });
        quote_spanned! {ty.span()=>
            ::toolgate::__private::model_argument_must_be_readable::<#ty>();
            {
                #[allow(unused_imports)]
                use ::toolgate::__private::Unreadable as _;
                ::toolgate::__private::SchemaProbe::<#ty>::new().model_argument_must_have_a_schema();
            }
            #not_a_resource
        }
    });
    let state_check = tool.state().map(|ty| {
        quote_spanned! {ty.span()=> ::toolgate::__private::state_must_be_shareable::<#ty>(); }
    });
    let output_span = match &tool.func.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => tool.func.sig.ident.span(),
    };
    // Gate 6 first; the body runs only if it lets the call through. An
    // async body is pinned here, in the call's own future, and polled
    // within the time limit; the gate before and after it is compiled once
    // in the runtime, not once for each tool.
    let outcome = quote_spanned! {output_span=>
        ::toolgate::__private::into_outcome(#callee(#(#call_args),*)#awaited, #context, #def_ref)
    };
    let ran = match awaited {
        Some(_) => {
            let body = quote_spanned!(site=> __body);
            quote! {
                let #body = ::core::pin::pin!(async move { #outcome });
                #invocation.run(#body).await
            }
        }
        None => quote! {{
            #invocation.starting();
            ::core::result::Result::Ok(#outcome)
        }},
    };
    let ran_value = quote_spanned!(site=> __ran);
    let finish = quote! {
        if let ::toolgate::__private::Admission::Later(gate) = #invocation.admit(#approval, #approver) {
            if let ::core::result::Result::Err(outcome) = gate.await {
                return outcome;
            }
        }
        let #ran_value = { #ran };
        match #invocation.finish(#ran_value) {
            ::toolgate::__private::Finished::Now(outcome) => outcome,
            ::toolgate::__private::Finished::Later(recording) => recording.await,
        }
    };

    // The accepted arguments are kept whenever a policy reads them: always
    // for a tool that names a resource or decides approval by expression.
    let always = tool.resources().next().is_some() || tool.attrs.approval.is_some();
    // Gates 2 and 3; the arguments as accepted, defaults applied; gates 4
    // and 5 for each resource (or for the call, if it names none); then
    // the tool's check.
    let before_body = quote! {
        let #context = #invocation.context();
        let #state_ref = #invocation.state();
        let #def_ref = #invocation.definition();
        let #args_ident { #(#fields,)* } = match #invocation.validate::<#args>() {
            ::core::result::Result::Ok(valid) => valid.into_inner(),
            ::core::result::Result::Err(rejected) => #refused,
        };
        #(#bindings)*
        if #invocation.wants_arguments(#always) {
            #invocation.accept(&mut [#(#accepted),*]);
        }
        #(#authorizations)*
        if let ::core::result::Result::Err(rejected) = #invocation.authorize_call() {
            #refused;
        }
        #check
    };
    let call = match (driven, awaited) {
        (true, None) => quote! {
            #before_body
            ::toolgate::__private::Boxing::<#runs_on>::new().call(#invocation, #approval, #approver, move || #outcome)
        },
        (true, Some(_)) => {
            // The body's own future, finished by the runtime's
            // `Finishing`: no async block of this tool's own around it.
            let finishing = quote_spanned! {output_span=>
                ::std::boxed::Box::pin(::toolgate::__private::Finishing::new(#callee(#(#call_args),*), #context, #def_ref))
            };
            quote! {
                #before_body
                ::toolgate::__private::Boxing::<#runs_on>::new().call_async(#invocation, #approval, #approver, #finishing)
            }
        }
        (false, _) => quote! {
            ::toolgate::__private::Call::Later(::std::boxed::Box::pin(::toolgate::__private::Boxing::<#runs_on>::new().wrap(async move {
                #before_body
                #finish
            })))
        },
    };

    quote! {
        #[automatically_derived]
        impl #impl_generics ::toolgate::Tool<__S> for #marker {
            fn definition(&self) -> &'static ::toolgate::ToolDef {
                #marker::definition()
            }

            #[allow(unused_mut)]
            fn __call<'__a>(
                &'__a self,
                mut #invocation: ::toolgate::__private::Invocation<'__a, __S>,
            ) -> ::toolgate::__private::Call<'__a> {
                #lend
                #[allow(unused_imports)]
                use ::toolgate::__private::Unshareable as _;
                #[allow(unused_imports)]
                use ::toolgate::__private::NotCanon as _;
                #call
            }

            fn __check(
                &self,
                raw: ::toolgate::RawArgs<'_>,
                def: &::toolgate::ToolDef,
            ) -> ::core::result::Result<(), ::toolgate::Rejection> {
                ::toolgate::__private::check::<#args>(raw, def)
            }

        }

        const _: () = {
            #[allow(dead_code)]
            fn __toolgate_checks() {
                #(#arg_checks)*
                #state_check
            }
        };
    }
}

/// `ty` and the types it is made of, outermost first, each once.
fn components<'t>(ty: &'t syn::Type, out: &mut Vec<&'t syn::Type>) {
    let key = quote!(#ty).to_string();
    if out.iter().any(|seen| quote!(#seen).to_string() == key) {
        return;
    }
    out.push(ty);
    match ty {
        syn::Type::Path(path) => {
            for segment in &path.path.segments {
                if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        if let syn::GenericArgument::Type(inner) = arg {
                            components(inner, out);
                        }
                    }
                }
            }
        }
        syn::Type::Array(array) => components(&array.elem, out),
        syn::Type::Slice(slice) => components(&slice.elem, out),
        syn::Type::Reference(reference) => components(&reference.elem, out),
        syn::Type::Paren(paren) => components(&paren.elem, out),
        syn::Type::Group(group) => components(&group.elem, out),
        syn::Type::Tuple(tuple) => tuple.elems.iter().for_each(|e| components(e, out)),
        _ => {}
    }
}
