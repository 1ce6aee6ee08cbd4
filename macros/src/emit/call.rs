//! The `Tool` impl: gates 2–3 on the arguments, then the function with the
//! context and state injected.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ReturnType;
use syn::spanned::Spanned;

use crate::model::{Param, ToolFn};

pub(crate) fn emit(tool: &ToolFn) -> TokenStream {
    let marker = super::marker_ident(tool);
    let args = super::args_ident(tool);
    let fn_ident = &tool.func.sig.ident;
    let site = Span::mixed_site();
    let invocation = quote_spanned!(site=> __invocation);

    let (impl_generics, state) = match tool.state() {
        Some(ty) => (quote!(), quote!(#ty)),
        None => (
            quote!(<__S: ::core::marker::Send + ::core::marker::Sync + 'static>),
            quote!(__S),
        ),
    };

    let mut fields = Vec::new();
    let mut call_args = Vec::new();
    for (i, param) in tool.params.iter().enumerate() {
        match param {
            Param::Context => call_args.push(quote!(#invocation.context())),
            Param::State(_) => call_args.push(quote!(#invocation.state())),
            Param::Model(arg) => {
                let binding = format_ident!("__arg{}", i, span = site);
                let field = &arg.ident;
                fields.push(quote!(#field: #binding));
                call_args.push(quote!(#binding));
            }
            Param::Invalid => {}
        }
    }
    let awaited = tool.func.sig.asyncness.map(|_| quote!(.await));

    // Spanned on the user's tokens so that a failed bound names the parameter
    // or return type that caused it.
    let arg_checks = tool.model_args().map(|arg| {
        let ty = &arg.ty;
        quote_spanned! {ty.span()=>
            ::toolgate::__private::model_argument_must_be_readable::<#ty>();
            ::toolgate::__private::model_argument_must_have_a_schema::<#ty>();
        }
    });
    let state_check = tool.state().map(|ty| {
        quote_spanned! {ty.span()=> ::toolgate::__private::state_must_be_shareable::<#ty>(); }
    });
    let output_span = match &tool.func.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => tool.func.sig.ident.span(),
    };
    let finish = quote_spanned! {output_span=>
        #invocation.finish(#fn_ident(#(#call_args),*)#awaited)
    };

    quote! {
        #[automatically_derived]
        impl #impl_generics ::toolgate::Tool<#state> for #marker {
            fn definition(&self) -> &'static ::toolgate::ToolDef {
                #marker::definition()
            }

            fn __call<'__a>(
                &'__a self,
                #invocation: ::toolgate::__private::Invocation<'__a, #state>,
            ) -> ::toolgate::BoxFuture<'__a, ::toolgate::Outcome> {
                ::std::boxed::Box::pin(async move {
                    let #args { #(#fields,)* } = match #invocation.validate::<#args>() {
                        ::core::result::Result::Ok(valid) => valid.into_inner(),
                        ::core::result::Result::Err(rejected) => return rejected,
                    };
                    #finish
                })
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
