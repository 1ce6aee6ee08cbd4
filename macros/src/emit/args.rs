//! The closed argument struct: `deny_unknown_fields`, garde rules, schema.

use proc_macro2::Ident;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Attribute, GenericArgument, Meta, PathArguments, Token, Type};

use crate::model::{NUMBERS, Param, ToolFn};

/// The rules of a garde attribute, or the arguments of one rule:
/// `length(min = 1), pattern("…")`.
fn listed(list: &syn::MetaList) -> syn::Result<Punctuated<Meta, Token![,]>> {
    list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
}

pub(crate) fn emit(tool: &ToolFn) -> TokenStream {
    let vis = &tool.func.vis;
    let ident = super::args_ident(tool);
    let twin = format_ident!("__{}Wire", ident);
    // Each resource's reference type is a parameter of the struct, its
    // default `<R as Resource<S>>::Ref` (see `args_at_use`).
    let mut references = Vec::new();
    // The twin's parameter for each model argument, and the type it takes.
    let mut values = Vec::new();
    let mut fields = Vec::new();
    let mut twin_fields = Vec::new();
    // The twin's schema: its fields, as data (see `Field`).
    let mut schema_fields = Vec::new();
    let mut moves = Vec::new();
    // What the twin's `Deserialize` reads: each field's name, its name on
    // the wire, its type there, and whether it may be left out.
    let mut reads: Vec<(Ident, String, TokenStream, bool)> = Vec::new();
    for param in &tool.params {
        let (arg, ty, twin_ty, garde, described) = match param {
            Param::Model(arg) => {
                // A field with a default is an `Option` on the wire: left
                // out or `null`, it is `None`, and the wrapper supplies the
                // default. Its rules then apply as they do to an `Option`.
                let value = format_ident!("__A{}", values.len());
                values.push((value.clone(), arg.ty.clone()));
                let (ty, twin_ty): (Type, TokenStream) = match &arg.default {
                    Some(_) => {
                        let inner = &arg.ty;
                        (
                            syn::parse_quote!(::core::option::Option<#inner>),
                            quote!(::core::option::Option<#value>),
                        )
                    }
                    None => ((*arg.ty).clone(), quote!(#value)),
                };
                let garde: Vec<Attribute> = arg
                    .garde
                    .iter()
                    .filter_map(|attr| {
                        adapt_garde(attr, &ty).unwrap_or_else(|_| Some(attr.clone()))
                    })
                    .collect();
                // What the schema states, read as schemars' derive would
                // read it: the items' rules of an optional list first,
                // then garde's rules, then a map's entries.
                let mut stated = Stated::default();
                if let Some(items) = optional_items(&garde, &ty) {
                    stated.inner.get_or_insert_with(Box::default).read(&items);
                }
                for attr in &garde {
                    if let Meta::List(list) = &attr.meta
                        && let Ok(rules) = listed(list)
                    {
                        stated.read(&rules);
                    }
                }
                let mut rules = stated.rules();
                rules.extend(map_entries(&arg.garde, &ty));
                let described = Described {
                    defaulted: arg.default.is_some(),
                    required: stated.required,
                    rules,
                };
                (arg, quote!(#ty), twin_ty, quote!(#(#garde)*), described)
            }
            Param::Resource(r) => {
                // The model sends the resource's reference type, which
                // carries its own rules.
                let resource = &r.resource;
                let param = super::reference_param(references.len(), resource);
                references.push((param.clone(), super::reference_type(tool, resource)));
                let ty = if r.optional {
                    quote!(::core::option::Option<#param>)
                } else {
                    quote!(#param)
                };
                // Nothing to state beyond the reference type's own schema.
                let described = Described::default();
                (&r.arg, ty.clone(), ty, quote!(#[garde(dive)]), described)
            }
            _ => continue,
        };
        // One `#[doc]` with the paragraphs joined, as the tool's own
        // description is, so a wrapped comment reads as one sentence.
        let text = crate::model::doc_text(&arg.docs);
        let docs = text.as_ref().map(|text| quote!(#[doc = #text]));
        let name = &arg.ident;
        fields.push(quote! {
            #docs
            #garde
            #vis #name: #ty
        });
        // The twin is read by the `Deserialize` and described by the
        // `JsonSchema` written below, which need no attributes of its own.
        twin_fields.push(quote!(#name: #twin_ty));
        moves.push(quote!(#name: twin.#name));
        let wire = match &arg.rename {
            Some(wire) => wire.value(),
            None => syn::ext::IdentExt::unraw(name).to_string(),
        };
        schema_fields.push(described.field(&wire, &twin_ty, &doc_of(text)));
        reads.push((name.clone(), wire, twin_ty, described.defaulted));
    }
    let doc = format!(
        "The arguments of the `{}` tool as the model sends them: a closed struct generated by `#[tool]`.",
        tool.name()
    );
    // A model argument whose type has rules of its own is validated whether
    // or not it says `dive`: the schema states those rules, so the server
    // must apply them. A `dive` the user wrote is not handed to garde, whose
    // error for a type without rules names no fix: the check that the type
    // has rules is spanned on the `dive` instead.
    let nested = tool
        .model_args()
        .filter(|arg| !mentions_dive_or_skip(&arg.garde))
        .map(|arg| {
            let name = &arg.ident;
            let rust = syn::ext::IdentExt::unraw(name).to_string();
            let dives = written_dive(&arg.garde).map(|span| {
                let ty = &arg.ty;
                quote::quote_spanned!(span=> let _ = ::toolgate::__private::dives::<#ty>;)
            });
            quote! {
                {
                    #dives
                    #[allow(unused_imports)]
                    use ::toolgate::__private::NotNested as _;
                    ::toolgate::__private::Nested(&self.#name).validate_into(#rust, report);
                }
            }
        });
    // With resources, the struct is generic over their reference types.
    let reference_params: Vec<&Ident> = references.iter().map(|(param, _)| param).collect();
    let (generics, params, where_clause) = if references.is_empty() {
        Default::default()
    } else {
        let with_defaults = references
            .iter()
            .map(|(param, default)| quote!(#param = #default));
        (
            quote!(<#(#with_defaults),*>),
            quote!(<#(#reference_params),*>),
            quote!(where #(#reference_params: ::toolgate::__private::WireRef),*),
        )
    };
    let value_params: Vec<&Ident> = values.iter().map(|(param, _)| param).collect();
    let value_types = values.iter().map(|(_, ty)| ty);
    let twin_params = quote!(<#(#value_params,)* #(#reference_params),*>);
    let twin_type = quote!(#twin<#(#value_types,)* #(#reference_params),*>);
    let name = ident.to_string();
    // The twin's type parameters: each field's type, read and described.
    let twin_param_list: Vec<&Ident> = value_params
        .iter()
        .chain(&reference_params)
        .copied()
        .collect();
    let schema = emit_schema(
        &twin,
        &twin_params,
        &twin_param_list,
        &name,
        &doc,
        &schema_fields,
    );
    let read = emit_read(&twin, &twin_params, &twin_param_list, &name, &reads);
    quote! {
        #[doc = #doc]
        #[derive(::toolgate::__private::garde::Validate)]
        #[garde(allow_unvalidated)]
        #vis struct #ident #generics #where_clause {
            #(#fields,)*
        }

        #[doc = #doc]
        #[allow(non_camel_case_types)]
        struct #twin #twin_params {
            #(#twin_fields,)*
        }

        #schema

        #read

        #[automatically_derived]
        impl<'de, #(#reference_params),*> ::toolgate::__private::serde::Deserialize<'de> for #ident #params #where_clause {
            #[inline]
            fn deserialize<__D>(deserializer: __D) -> ::core::result::Result<Self, __D::Error>
            where
                __D: ::toolgate::__private::serde::Deserializer<'de>,
            {
                #[allow(unused_imports)]
                use ::toolgate::__private::NoTwin as _;
                // Matched, not `?`: one function fewer for each tool.
                match ::toolgate::__private::Twin::<#twin_type>::new().read(deserializer) {
                    ::core::result::Result::Ok(twin) => ::core::result::Result::Ok(#ident { #(#moves,)* }),
                    ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
                }
            }
        }

        #[automatically_derived]
        impl #params ::toolgate::__private::schemars::JsonSchema for #ident #params #where_clause {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                #[allow(unused_imports)]
                use ::toolgate::__private::NoTwin as _;
                ::toolgate::__private::Twin::<#twin_type>::new().schema_name()
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                #[allow(unused_imports)]
                use ::toolgate::__private::NoTwin as _;
                ::toolgate::__private::Twin::<#twin_type>::new().schema_id()
            }

            fn json_schema(
                generator: &mut ::toolgate::__private::schemars::SchemaGenerator,
            ) -> ::toolgate::__private::schemars::Schema {
                #[allow(unused_imports)]
                use ::toolgate::__private::NoTwin as _;
                ::toolgate::__private::Twin::<#twin_type>::new().json_schema(generator)
            }
        }

        #[automatically_derived]
        impl #params ::toolgate::__private::Arguments for #ident #params #where_clause {
            fn validate_nested(&self, report: &mut ::toolgate::__private::garde::Report) {
                let _ = &report;
                #(#nested)*
            }
        }
    }
}

/// The twin's `Deserialize`: what serde's derive would write with
/// `deny_unknown_fields`, errors and their order included, less what a
/// model's arguments never reach (a struct read from a sequence). Each key
/// is read by the runtime's `Fields` through `__index`, this tool's
/// `match` on its names.
fn emit_read(
    twin: &Ident,
    twin_params: &TokenStream,
    params: &[&Ident],
    name: &str,
    reads: &[(Ident, String, TokenStream, bool)],
) -> TokenStream {
    let serde = quote!(::toolgate::__private::serde);
    let bounds = quote!(#(#params: #serde::Deserialize<'de>),*);
    let locals: Vec<Ident> = (0..reads.len())
        .map(|i| format_ident!("__field{}", i))
        .collect();
    let wires: Vec<&String> = reads.iter().map(|(_, wire, _, _)| wire).collect();
    let types = reads.iter().map(|(_, _, ty, _)| ty);
    // Reading a value into its slot, and taking it out at the end, are the
    // runtime's, compiled once for each field type rather than for each
    // field. Results are matched rather than taken with `?`: each `?` is a
    // `branch` and a `from_residual` compiled for each tool.
    let arms = locals.iter().zip(&wires).enumerate().map(|(i, (local, wire))| {
        quote! {
            #i => match ::toolgate::__private::fill(&mut #local, &mut __map, #wire) {
                ::core::result::Result::Ok(()) => {}
                ::core::result::Result::Err(__error) => return ::core::result::Result::Err(__error),
            },
        }
    });
    let values = reads
        .iter()
        .zip(&locals)
        .map(|((_, wire, _, defaulted), local)| {
            // A defaulted field is an `Option` with serde's `default`: left out,
            // it is `None`. Any other field left out is serde's missing field,
            // which an `Option` reads as `None`.
            if *defaulted {
                quote!(let #local = ::core::option::Option::flatten(#local);)
            } else {
                quote! {
                    let #local = match ::toolgate::__private::filled(#local, #wire) {
                        ::core::result::Result::Ok(__value) => __value,
                        ::core::result::Result::Err(__error) => return ::core::result::Result::Err(__error),
                    };
                }
            }
        });
    let fields = reads
        .iter()
        .zip(&locals)
        .map(|((field, _, _, _), local)| quote!(#field: #local));
    let expecting = format!("struct {name}");
    let indices = 0..reads.len();
    quote! {
        #[automatically_derived]
        impl<'de, #(#params),*> #serde::Deserialize<'de> for #twin #twin_params
        where
            #bounds
        {
            fn deserialize<__D>(__deserializer: __D) -> ::core::result::Result<Self, __D::Error>
            where
                __D: #serde::Deserializer<'de>,
            {
                struct __Visitor #twin_params(::core::marker::PhantomData<fn() -> #twin #twin_params>);

                impl<'de, #(#params),*> #serde::de::Visitor<'de> for __Visitor #twin_params
                where
                    #bounds
                {
                    type Value = #twin #twin_params;

                    fn expecting(
                        &self,
                        formatter: &mut ::core::fmt::Formatter<'_>,
                    ) -> ::core::fmt::Result {
                        formatter.write_str(#expecting)
                    }

                    #[inline]
                    fn visit_map<__M>(self, mut __map: __M) -> ::core::result::Result<Self::Value, __M::Error>
                    where
                        __M: #serde::de::MapAccess<'de>,
                    {
                        #(let mut #locals: ::core::option::Option<#types> = ::core::option::Option::None;)*
                        loop {
                            let __key = match #serde::de::MapAccess::next_key_seed(
                                &mut __map,
                                ::toolgate::__private::Fields::new(__NAMES, __index),
                            ) {
                                ::core::result::Result::Ok(::core::option::Option::Some(__key)) => __key,
                                ::core::result::Result::Ok(::core::option::Option::None) => break,
                                ::core::result::Result::Err(__error) => return ::core::result::Result::Err(__error),
                            };
                            match __key {
                                #(#arms)*
                                // `Fields` reads only the index of one of `__NAMES`.
                                _ => ::core::unreachable!(),
                            }
                        }
                        #(#values)*
                        ::core::result::Result::Ok(#twin { #(#fields,)* })
                    }
                }

                const __NAMES: &[&str] = &[#(#wires),*];

                #[inline]
                fn __index(key: &str) -> ::core::option::Option<usize> {
                    match key {
                        #(#wires => ::core::option::Option::Some(#indices),)*
                        _ => ::core::option::Option::None,
                    }
                }

                // A map, not a struct: the arguments are always an object,
                // and a struct would also be read from an array by position,
                // code each tool would compile for every deserializer.
                #serde::Deserializer::deserialize_map(
                    __deserializer,
                    __Visitor(::core::marker::PhantomData),
                )
            }
        }
    }
}

/// garde's `length` on a map counts its entries; the schema's `length`
/// speaks of strings and arrays only. The schema says it as
/// `minProperties` and `maxProperties`, after the other keywords.
fn map_entries(garde: &[Attribute], ty: &Type) -> Vec<TokenStream> {
    let Type::Path(path) = peel_option(ty) else {
        return Vec::new();
    };
    let Some(last) = path.path.segments.last() else {
        return Vec::new();
    };
    if !["HashMap", "BTreeMap", "IndexMap"]
        .iter()
        .any(|m| last.ident == m)
    {
        return Vec::new();
    }
    let mut keys = Vec::new();
    for attr in garde {
        let Meta::List(list) = &attr.meta else {
            continue;
        };
        let Ok(rules) = listed(list) else {
            continue;
        };
        for rule in rules {
            let Meta::List(length) = rule else { continue };
            if !length.path.is_ident("length") {
                continue;
            }
            let Ok(args) = listed(&length) else {
                continue;
            };
            for arg in args {
                let Meta::NameValue(nv) = arg else { continue };
                let value = &nv.value;
                if nv.path.is_ident("min") || nv.path.is_ident("equal") {
                    keys.push(extend("minProperties", value));
                }
                if nv.path.is_ident("max") || nv.path.is_ident("equal") {
                    keys.push(extend("maxProperties", value));
                }
            }
        }
    }
    keys
}

/// An entry count's keyword, after the others: schemars' `extend`. The
/// bound is a `usize`, as garde reads it: an untyped literal past
/// `i32::MAX` would otherwise be read as an `i32`, which it does not fit.
fn extend(key: &str, value: &syn::Expr) -> TokenStream {
    quote!(::toolgate::__private::Rule::Extend(
        #key,
        <::toolgate::__private::serde_json::Value as ::core::convert::From<usize>>::from(#value),
    ))
}

/// The rules of an `inner(...)` on an optional list, for the schema: the
/// adapted garde rule goes one level further in (see [`adapt_rules`]),
/// where the schema's items no longer are, so the schema reads them from
/// here, patterns as rewritten. Only the rules a schema states are
/// copied.
fn optional_items(garde: &[Attribute], ty: &Type) -> Option<Punctuated<Meta, Token![,]>> {
    optional_list(ty)?;
    let mut rules = Vec::new();
    for attr in garde {
        let Meta::List(list) = &attr.meta else {
            continue;
        };
        let Ok(metas) = listed(list) else {
            continue;
        };
        for meta in metas {
            let Meta::List(inner) = meta else { continue };
            if !inner.path.is_ident("inner") {
                continue;
            }
            let Ok(mut items) = listed(&inner) else {
                continue;
            };
            // The adapted rule is `inner(inner(...))`: the items' rules.
            if let (1, Some(Meta::List(deeper))) = (items.len(), items.first())
                && deeper.path.is_ident("inner")
                && let Ok(deeper) = listed(deeper)
            {
                items = deeper;
            }
            for rule in items {
                match &rule {
                    Meta::List(l) if l.path.is_ident("length") || l.path.is_ident("range") => {
                        let Ok(args) = listed(l) else {
                            continue;
                        };
                        // Modes (`chars`, `bytes`) are garde's alone.
                        let bounds = args.iter().filter(|a| matches!(a, Meta::NameValue(_)));
                        let path = &l.path;
                        rules.push(syn::parse_quote!(#path(#(#bounds),*)));
                    }
                    Meta::List(l) if l.path.is_ident("pattern") => rules.push(rule.clone()),
                    _ => {}
                }
            }
        }
    }
    (!rules.is_empty()).then(|| rules.into_iter().collect())
}

/// Whether the field's rules, as handed to garde, reach into its type
/// (`inner(dive)`), or say to leave it alone (`skip`). A `dive` of the
/// field's own is not handed to garde (see [`written_dive`]).
fn mentions_dive_or_skip(garde: &[Attribute]) -> bool {
    fn walk(tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == "dive" || i == "skip",
            proc_macro2::TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    garde.iter().any(|attr| match &attr.meta {
        Meta::List(list) => match listed(list) {
            Ok(rules) => rules
                .iter()
                .filter(|rule| !is_dive(rule))
                .any(|rule| walk(quote::ToTokens::to_token_stream(rule))),
            Err(_) => walk(list.tokens.clone()),
        },
        _ => false,
    })
}

fn is_dive(rule: &Meta) -> bool {
    matches!(rule, Meta::Path(path) if path.is_ident("dive"))
}

/// Where the field says `dive` itself: the nested type's rules run anyway
/// (the runtime's `Arguments::validate_nested`), so the word asks only that the type
/// have rules, which the wrapper checks there.
fn written_dive(garde: &[Attribute]) -> Option<proc_macro2::Span> {
    garde.iter().find_map(|attr| {
        let Meta::List(list) = &attr.meta else {
            return None;
        };
        let rules = listed(list).ok()?;
        rules
            .iter()
            .find(|rule| is_dive(rule))
            .map(|rule| syn::spanned::Spanned::span(rule.path()))
    })
}

/// garde counts `length` in bytes by default; JSON Schema's `minLength` and
/// `maxLength` count characters. On string fields, `length(min, max)`
/// becomes `length(chars, min, max)` so the schema and the server agree; any
/// other mode on a string is an error. A `pattern` literal is rewritten so
/// that Rust's regex and ECMA-262 read it alike ([`crate::pattern`]), or is
/// an error.
///
/// The field's own `dive` is left out (see [`written_dive`]), and with it
/// an attribute that held nothing else.
pub(crate) fn adapt_garde(attr: &Attribute, ty: &Type) -> syn::Result<Option<Attribute>> {
    let Meta::List(list) = &attr.meta else {
        return Ok(Some(attr.clone()));
    };
    let Ok(rules) = listed(list) else {
        // `field_rules` reports the syntax error.
        return Ok(Some(attr.clone()));
    };
    let rules: Punctuated<Meta, Token![,]> = adapt_rules(rules, Some(ty))?
        .into_iter()
        .filter(|rule| !is_dive(rule))
        .collect();
    if rules.is_empty() {
        return Ok(None);
    }
    let mut adapted = attr.clone();
    let path = &list.path;
    adapted.meta = syn::parse_quote!(#path(#rules));
    Ok(Some(adapted))
}

fn adapt_rules(
    rules: Punctuated<Meta, Token![,]>,
    ty: Option<&Type>,
) -> syn::Result<Punctuated<Meta, Token![,]>> {
    let mut out = Punctuated::new();
    for rule in rules {
        unpublished(&rule, ty)?;
        if let Some(ty) = ty {
            misapplied(&rule, ty)?;
        }
        if let Meta::List(list) = &rule
            && (list.path.is_ident("length") || list.path.is_ident("range"))
        {
            unmeetable(list)?;
            bounds_fit(list, ty)?;
        }
        let adapted = match rule {
            Meta::List(list) if list.path.is_ident("length") && ty.is_some_and(is_string) => {
                let mut args = listed(&list)?;
                let mode = args.iter().find_map(|m| match m {
                    Meta::Path(p) => p.get_ident().cloned(),
                    _ => None,
                });
                match mode {
                    Some(mode) if mode == "chars" => {}
                    Some(mode) => {
                        return Err(syn::Error::new(
                            mode.span(),
                            format_args!(
                                "toolgate counts string lengths in characters, as JSON Schema's minLength and maxLength do: remove `{mode}` (write `length(min = …, max = …)`)"
                            ),
                        ));
                    }
                    None => args.insert(0, syn::parse_quote!(chars)),
                }
                let path = &list.path;
                syn::parse_quote!(#path(#args))
            }
            // A bound's literal is typed as the field's number: unsuffixed,
            // schemars's derive would read `4_000_000_000` as an `i32`.
            Meta::List(list)
                if list.path.is_ident("range") && ty.is_some_and(|t| number(t).is_some()) =>
            {
                let suffix = ty.and_then(number).unwrap_or_default();
                let mut args = listed(&list)?;
                for arg in &mut args {
                    if let Meta::NameValue(nv) = arg {
                        typed_literal(&mut nv.value, &suffix);
                    }
                }
                let path = &list.path;
                syn::parse_quote!(#path(#args))
            }
            // The literal feeds both the server (garde) and the schema
            // (schemars): written in the subset both dialects read alike.
            // A pattern given as an expression is checked at registration.
            Meta::List(list) if list.path.is_ident("pattern") => {
                match syn::parse2::<syn::LitStr>(list.tokens.clone()) {
                    Ok(lit) => {
                        let portable = crate::pattern::portable(&lit.value())
                            .map_err(|message| syn::Error::new(lit.span(), message))?;
                        let lit = syn::LitStr::new(&portable, lit.span());
                        let path = &list.path;
                        syn::parse_quote!(#path(#lit))
                    }
                    Err(_) => Meta::List(list),
                }
            }
            // A custom rule goes through a bound that says, when the
            // function does not fit, what signature it needs. A closure
            // is left to garde, which infers its parameters from the call.
            Meta::List(list) if list.path.is_ident("custom") && ty.is_some() => {
                match (list.parse_args::<syn::Expr>(), ty) {
                    (Ok(rule), Some(ty)) if !matches!(rule, syn::Expr::Closure(_)) => {
                        let path = &list.path;
                        let span = syn::spanned::Spanned::span(&rule);
                        let call = quote::quote_spanned! {span=>
                            ::toolgate::__private::custom_rule::<#ty, _, _>(&(#rule), __value)
                        };
                        syn::parse_quote!(#path(|__value: &#ty, _: &_| #call))
                    }
                    _ => Meta::List(list),
                }
            }
            Meta::List(list) if list.path.is_ident("inner") => {
                let inner = listed(&list)?;
                let path = &list.path;
                // On `Option<Vec<T>>`, garde's `inner` is the list itself,
                // while the schema applies the rules to its items: the rules
                // go one level further in, to mean the items in both.
                match ty.and_then(optional_list) {
                    Some(items) => {
                        let inner = adapt_rules(inner, Some(items))?;
                        syn::parse_quote!(#path(#path(#inner)))
                    }
                    // On `Option<String>` (an option of anything but a
                    // list), garde's `inner` is the value itself, which its
                    // rules reach without `inner` too; schemars states them
                    // only there. The rules that read the value alike either
                    // way move out, where the schema sees them.
                    None if ty.is_some_and(|t| !core::ptr::eq(peel_option(t), t)) => {
                        let (out_rules, kept): (Vec<Meta>, Vec<Meta>) =
                            inner.into_iter().partition(|rule| {
                                ["length", "range", "pattern", "contains", "dive"]
                                    .iter()
                                    .any(|name| rule.path().is_ident(name))
                            });
                        let hoisted = adapt_rules(out_rules.into_iter().collect(), ty)?;
                        out.extend(hoisted);
                        if kept.is_empty() {
                            continue;
                        }
                        let kept = adapt_rules(kept.into_iter().collect(), ty.and_then(element))?;
                        syn::parse_quote!(#path(#kept))
                    }
                    None => {
                        let inner = adapt_rules(inner, ty.and_then(element))?;
                        syn::parse_quote!(#path(#inner))
                    }
                }
            }
            other => other,
        };
        out.push(adapted);
    }
    Ok(out)
}

/// A garde rule the published schema cannot state, refused where it is
/// written: the server would refuse what the schema lets a model send.
/// Each message says what to write instead.
fn unpublished(rule: &Meta, ty: Option<&Type>) -> syn::Result<()> {
    let Some(name) = rule.path().get_ident() else {
        return Ok(());
    };
    let written = name.to_string();
    let literal = || match rule {
        Meta::List(list) => syn::parse2::<syn::LitStr>(list.tokens.clone())
            .ok()
            .map(|lit| regex_syntax::escape(&lit.value())),
        _ => None,
    };
    let message = match written.as_str() {
        "ascii" => r#"the published schema cannot state `ascii`: write `pattern(r"^[\x00-\x7F]*$")`, which the server and the schema read alike"#.to_owned(),
        "alphanumeric" => r#"the published schema cannot state `alphanumeric` (Unicode letters and digits, as Rust counts them): for ASCII letters and digits write `pattern(r"^[A-Za-z0-9]*$")`"#.to_owned(),
        "prefix" => format!(
            "the published schema cannot state `prefix`: write `pattern(r\"^{}\")`, which the server and the schema read alike",
            literal().unwrap_or_else(|| "…".to_owned())
        ),
        "suffix" => format!(
            "the published schema cannot state `suffix`: write `pattern(r\"{}$\")`, which the server and the schema read alike",
            literal().unwrap_or_else(|| "…".to_owned())
        ),
        "email" | "url" | "ip" | "ipv4" | "ipv6" | "credit_card" | "phone_number" => format!(
            "the published schema can state `{written}` only as a `format`, which validators and providers treat as a hint, so the server would refuse what the schema allows: check it with `pattern(…)`, or parse the value in the body and reject it with a `DomainCode`"
        ),
        "matches" => "`matches` compares two arguments, which a JSON Schema cannot state: compare them in the body and reject with a `DomainCode`".to_owned(),
        "if" => "a conditional rule cannot be stated in the published schema: check the condition in the body and reject with a `DomainCode`".to_owned(),
        "rename" => "a tool argument's name on the wire is set with `#[serde(rename = \"…\")]`, which the schema, the server and every message use".to_owned(),
        "code" | "adapt" => format!(
            "`{written}` is not available on a tool argument: toolgate chooses each refusal's code and reads rules as written"
        ),
        "required" if ty.is_some_and(|t| core::ptr::eq(peel_option(t), t)) => {
            "`required` applies to an `Option`: a model argument of any other type must always be sent already".to_owned()
        }
        _ => return Ok(()),
    };
    Err(syn::Error::new(name.span(), message))
}

/// Every rule garde's derive reads on a field.
const GARDE_RULES: [&str; 25] = [
    "skip",
    "adapt",
    "rename",
    "code",
    "dive",
    "required",
    "ascii",
    "alphanumeric",
    "email",
    "url",
    "ip",
    "ipv4",
    "ipv6",
    "credit_card",
    "phone_number",
    "length",
    "matches",
    "range",
    "contains",
    "prefix",
    "suffix",
    "pattern",
    "custom",
    "inner",
    "if",
];

/// The rules a tool argument takes: each the server enforces and the
/// published schema states (`custom` aside: the server's own check).
const ARGUMENT_RULES: [&str; 9] = [
    "length", "range", "pattern", "contains", "required", "inner", "dive", "skip", "custom",
];

/// The rules of one field, all its `#[garde]` attributes together, checked
/// as garde's derive would check them, so that a mistake is one error on
/// the user's token rather than garde's error followed by a missing
/// `Validate`: each rule known, none twice, `skip` alone, one pattern.
pub(crate) fn field_rules(garde: &[Attribute]) -> syn::Result<()> {
    let mut all = Vec::new();
    for attr in garde {
        let Meta::List(list) = &attr.meta else {
            return Err(syn::Error::new_spanned(
                attr,
                "write the rules inside the attribute: `#[garde(length(max = 80))]`",
            ));
        };
        all.extend(listed(list)?);
    }
    one_level(&all)
}

fn one_level(rules: &[Meta]) -> syn::Result<()> {
    for (at, rule) in rules.iter().enumerate() {
        let path = rule.path();
        let Some(name) = path.get_ident() else {
            return Err(syn::Error::new_spanned(
                path,
                "a garde rule is one name, like `length(max = 80)`",
            ));
        };
        let written = name.to_string();
        if !GARDE_RULES.contains(&written.as_str()) {
            let hint = match nearest(&written) {
                Some(near) => format!("did you mean `{near}`?"),
                None if written == "regex" => "write `pattern(r\"…\")`".to_owned(),
                None => format!("a tool argument takes {}", ARGUMENT_RULES.join(", ")),
            };
            return Err(syn::Error::new(
                name.span(),
                format_args!("unknown garde rule `{written}`: {hint}"),
            ));
        }
        if rules.iter().take(at).any(|r| r.path().is_ident(name)) {
            return Err(syn::Error::new(
                name.span(),
                format_args!(
                    "`{written}` is on this argument twice: write it once, with all its bounds"
                ),
            ));
        }
        if written == "skip" && rules.len() > 1 {
            return Err(syn::Error::new(
                name.span(),
                "`skip` turns off this argument's rules, and it has others: remove `skip`, or them",
            ));
        }
        if written == "inner"
            && let Meta::List(list) = rule
        {
            let inner = listed(list)?;
            one_level(&inner.into_iter().collect::<Vec<_>>())?;
        }
    }
    one_pattern(rules)
}

/// The garde rule a misspelt one was meant to be: within two edits.
fn nearest(written: &str) -> Option<&'static str> {
    GARDE_RULES
        .into_iter()
        .map(|rule| (edits(written, rule), rule))
        .filter(|&(distance, _)| distance <= 2)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, rule)| rule)
}

/// Levenshtein distance, by characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or(i);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let next = (diagonal + usize::from(ca != *cb))
                .min(above.saturating_add(1))
                .min(left.saturating_add(1));
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = next;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// `pattern` and `contains` both become the schema's one `pattern`: two of
/// them on one value would publish one and enforce both.
fn one_pattern(rules: &[Meta]) -> syn::Result<()> {
    let mut patterns = rules
        .iter()
        .filter(|rule| rule.path().is_ident("pattern") || rule.path().is_ident("contains"));
    if let (Some(first), Some(second)) = (patterns.next(), patterns.next()) {
        let first = first.path().get_ident().map(ToString::to_string);
        return Err(syn::Error::new_spanned(
            second.path(),
            format_args!(
                "the published schema holds one pattern per value, and this one already has `{}`: fold both into one `pattern(…)`",
                first.unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

/// A literal bound the field's type cannot hold: a fraction or a
/// negative number for a length or a whole-number field, or a number past
/// the type's range (which would not compile, twice over, in rustc's words).
fn bounds_fit(list: &syn::MetaList, ty: Option<&Type>) -> syn::Result<()> {
    let range = list.path.is_ident("range");
    let number = ty.and_then(number);
    let kind = match (&number, range) {
        (_, false) => "usize".to_owned(),
        (Some(number), true) => number.clone(),
        (None, true) => return Ok(()),
    };
    let args = listed(list)?;
    for arg in &args {
        let Meta::NameValue(nv) = arg else { continue };
        let Some((negative, literal)) = signed_literal(&nv.value) else {
            continue;
        };
        let bound = quote::ToTokens::to_token_stream(&nv.path).to_string();
        let what = if range {
            format!("`{kind}`")
        } else {
            "a length".to_owned()
        };
        let message = match literal {
            syn::Lit::Float(_) if !kind.starts_with('f') => {
                format!("{what} is a whole number: write a whole `{bound}`")
            }
            syn::Lit::Int(_) if negative && (kind.starts_with('u') || !range) => {
                format!("{what} is never negative: write `{bound} = 0`, or leave `{bound}` out")
            }
            syn::Lit::Int(int) if !kind.starts_with('f') => {
                let Some((low, high)) = integer_range(&kind) else {
                    continue;
                };
                let digits: u128 = int
                    .base10_digits()
                    .trim_start_matches('-')
                    .parse()
                    .unwrap_or(u128::MAX);
                let past = if negative {
                    i128::try_from(digits).map_or(true, |d| -d < low)
                } else {
                    digits > high
                };
                if !past {
                    continue;
                }
                format!(
                    "`{bound} = {}{digits}` is past what `{kind}` holds ({low} to {high}): leave it out, or take a wider type",
                    if negative { "-" } else { "" }
                )
            }
            _ => continue,
        };
        return Err(syn::Error::new_spanned(&nv.value, message));
    }
    Ok(())
}

/// A number literal, and whether it is negated: `3`, `-2`, `1.5`.
fn signed_literal(expr: &syn::Expr) -> Option<(bool, &syn::Lit)> {
    match expr {
        // syn reads `min = -1` in an attribute as one negative literal.
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => match lit {
            syn::Lit::Int(int) => Some((int.base10_digits().starts_with('-'), lit)),
            syn::Lit::Float(float) => Some((float.base10_digits().starts_with('-'), lit)),
            _ => None,
        },
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => signed_literal(expr).map(|(negative, lit)| (!negative, lit)),
        _ => None,
    }
}

/// The smallest and largest value of a primitive integer type.
fn integer_range(name: &str) -> Option<(i128, u128)> {
    let bits: u32 = match name {
        "usize" | "isize" => usize::BITS,
        _ => name.get(1..)?.parse().ok()?,
    };
    if name.starts_with('u') {
        Some((0, u128::MAX >> (128 - bits)))
    } else {
        let low = if bits == 128 {
            i128::MIN
        } else {
            -(1i128 << (bits - 1))
        };
        Some((low, (1u128 << (bits - 1)) - 1))
    }
}

/// A `length` or `range` whose literal `min` is above its `max`: no value
/// meets it, so every call would be refused.
fn unmeetable(list: &syn::MetaList) -> syn::Result<()> {
    let args = listed(list)?;
    for arg in &args {
        if let Meta::NameValue(nv) = arg
            && let syn::Expr::Lit(syn::ExprLit { lit, .. }) = &nv.value
            && !matches!(lit, syn::Lit::Int(_) | syn::Lit::Float(_))
        {
            let number = match lit {
                syn::Lit::Str(text) => text.value(),
                _ => "1".to_owned(),
            };
            return Err(syn::Error::new_spanned(
                lit,
                format_args!(
                    "a bound is a number, written without quotes: `{} = {number}`",
                    quote::ToTokens::to_token_stream(&nv.path)
                ),
            ));
        }
    }
    let bound = |name: &str| {
        args.iter().find_map(|arg| match arg {
            Meta::NameValue(nv) if nv.path.is_ident(name) => {
                literal_number(&nv.value).map(|n| (n, &nv.value))
            }
            _ => None,
        })
    };
    if let (Some((min, min_expr)), Some((max, max_expr))) = (bound("min"), bound("max"))
        && min > max
    {
        let min_text = quote::ToTokens::to_token_stream(min_expr).to_string();
        let max_text = quote::ToTokens::to_token_stream(max_expr).to_string();
        return Err(syn::Error::new_spanned(
            min_expr,
            format_args!(
                "no value meets this rule: `min = {min_text}` is above `max = {max_text}`, so every call would be refused"
            ),
        ));
    }
    Ok(())
}

/// The value of a number literal, negated or not: `3`, `-2`, `1.5`.
fn literal_number(expr: &syn::Expr) -> Option<f64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => match lit {
            syn::Lit::Int(int) => int.base10_digits().parse().ok(),
            syn::Lit::Float(float) => float.base10_digits().parse().ok(),
            _ => None,
        },
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => literal_number(expr).map(|n| -n),
        syn::Expr::Group(group) => literal_number(&group.expr),
        syn::Expr::Paren(paren) => literal_number(&paren.expr),
        _ => None,
    }
}

/// What a field holds, as far as its written type tells: enough to name
/// a rule put on a type it does not apply to, on the rule, before garde's
/// derive reports it as an unsatisfied trait bound on the whole attribute.
#[derive(Clone, Copy, PartialEq)]
enum Holds {
    Number,
    Text,
    Items,
    Bool,
}

fn holds(ty: &Type) -> Option<Holds> {
    if is_string(ty) {
        return Some(Holds::Text);
    }
    match peel_option(ty) {
        Type::Array(_) => Some(Holds::Items),
        Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?.ident.to_string();
            match last.as_str() {
                number if NUMBERS.contains(&number) => Some(Holds::Number),
                "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "HashMap" | "BTreeMap" => {
                    Some(Holds::Items)
                }
                "bool" => Some(Holds::Bool),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The primitive number type a field holds (through an `Option`), by name.
fn number(ty: &Type) -> Option<String> {
    let Type::Path(path) = peel_option(ty) else {
        return None;
    };
    let name = path.path.get_ident()?.to_string();
    NUMBERS.contains(&name.as_str()).then_some(name)
}

/// Gives an unsuffixed number literal (or its negation) the type `suffix`.
fn typed_literal(value: &mut syn::Expr, suffix: &str) {
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) if int.suffix().is_empty() => {
            *int = syn::LitInt::new(&format!("{}{suffix}", int.base10_digits()), int.span());
        }
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(float),
            ..
        }) if float.suffix().is_empty() && suffix.starts_with('f') => {
            *float =
                syn::LitFloat::new(&format!("{}{suffix}", float.base10_digits()), float.span());
        }
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => typed_literal(expr, suffix),
        _ => {}
    }
}

/// A rule on a field of a kind it does not apply to: `range` on a
/// `String`, `length` on a `u32`, `pattern` on a number.
fn misapplied(rule: &Meta, ty: &Type) -> syn::Result<()> {
    let Some(holds) = holds(ty) else {
        return Ok(());
    };
    let Some(name) = rule.path().get_ident() else {
        return Ok(());
    };
    let written = name.to_string();
    let what = match holds {
        Holds::Number => "a number",
        Holds::Text => "a string",
        Holds::Items => "a list or map",
        Holds::Bool => "a boolean",
    };
    let message = match written.as_str() {
        "range" if holds != Holds::Number => match holds {
            Holds::Text => format!(
                "`range` bounds a number, and this field is {what}: to bound its length in characters, write `length(min = …, max = …)`"
            ),
            Holds::Items => format!(
                "`range` bounds a number, and this field is {what}: to bound how many items it holds, write `length(min = …, max = …)`; for each item's value, `inner(range(…))`"
            ),
            _ => format!("`range` bounds a number, and this field is {what}"),
        },
        "length" | "char_count" | "grapheme_count" | "byte_length"
            if matches!(holds, Holds::Number | Holds::Bool) =>
        {
            format!(
                "`{written}` counts the characters of a string or the items of a list, and this field is {what}{}",
                if holds == Holds::Number {
                    ": to bound its value, write `range(min = …, max = …)`"
                } else {
                    ""
                }
            )
        }
        "pattern" | "email" | "url" | "ip" | "ipv4" | "ipv6" | "ascii" | "alphanumeric"
        | "contains" | "prefix" | "suffix" | "credit_card" | "phone_number"
            if holds != Holds::Text =>
        {
            match holds {
                Holds::Items => format!(
                    "`{written}` checks a string, and this field is {what}: to check each item, write `inner({written}(…))`"
                ),
                _ => format!("`{written}` checks a string, and this field is {what}"),
            }
        }
        _ => return Ok(()),
    };
    Err(syn::Error::new(name.span(), message))
}

/// `String`, `Cow<str>`, `Box<str>`, `Rc<str>`, `Arc<str>`, or an `Option` of one.
fn is_string(ty: &Type) -> bool {
    let ty = peel_option(ty);
    let Type::Path(path) = ty else { return false };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    if last.ident == "String" {
        return true;
    }
    ["Cow", "Box", "Rc", "Arc"].iter().any(|w| last.ident == w)
        && generic_types(&last.arguments)
            .any(|t| matches!(t, Type::Path(p) if p.path.is_ident("str")))
}

/// The element type `inner(...)` rules apply to.
fn element(ty: &Type) -> Option<&Type> {
    // garde's `inner` on an `Option<T>` is for `T`: the option's element.
    match ty {
        Type::Array(array) => Some(&array.elem),
        Type::Slice(slice) => Some(&slice.elem),
        Type::Path(path) => generic_types(&path.path.segments.last()?.arguments).last(),
        _ => None,
    }
}

/// `T` in `Option<Vec<T>>` (or another list or map inside an `Option`).
fn optional_list(ty: &Type) -> Option<&Type> {
    let inside = peel_option(ty);
    if core::ptr::eq(inside, ty) {
        return None;
    }
    element(inside)
}

fn peel_option(ty: &Type) -> &Type {
    if let Type::Path(path) = ty
        && let Some(last) = path.path.segments.last()
        && last.ident == "Option"
        && let Some(inner) = generic_types(&last.arguments).next()
    {
        return inner;
    }
    ty
}

fn generic_types(args: &PathArguments) -> impl Iterator<Item = &Type> {
    let list = match args {
        PathArguments::AngleBracketed(a) => Some(&a.args),
        _ => None,
    };
    list.into_iter().flatten().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// What a twin field's schema states, read as schemars' derive reads the
/// attributes it would have carried: the `schemars(…)` the macro adds
/// first, then garde's rules. A rule written twice keeps its first
/// reading (garde refuses the second). garde's formats (`email`, `url`,
/// the addresses) are not read: they are refused on model arguments.
#[derive(Default)]
struct Stated {
    length: Option<Bounds>,
    range: Option<Bounds>,
    pattern: Option<syn::Expr>,
    contains: Option<syn::Expr>,
    required: bool,
    inner: Option<Box<Stated>>,
}

/// A `length` or `range`: `equal` is both bounds.
#[derive(Default)]
struct Bounds {
    min: Option<syn::Expr>,
    max: Option<syn::Expr>,
    equal: Option<syn::Expr>,
}

impl Stated {
    /// Reads the rules of one attribute (`length(…), pattern(…)`).
    fn read(&mut self, rules: &Punctuated<Meta, Token![,]>) {
        for rule in rules {
            let Some(name) = rule.path().get_ident().map(ToString::to_string) else {
                continue;
            };
            match (name.as_str(), rule) {
                ("length", Meta::List(list)) if self.length.is_none() => {
                    self.length = Some(Bounds::read(list));
                }
                ("range", Meta::List(list)) if self.range.is_none() => {
                    self.range = Some(Bounds::read(list));
                }
                ("required", Meta::Path(_)) => self.required = true,
                ("pattern", Meta::List(list))
                    if self.pattern.is_none() && self.contains.is_none() =>
                {
                    self.pattern = list.parse_args().ok();
                }
                ("contains", Meta::List(list))
                    if self.pattern.is_none() && self.contains.is_none() =>
                {
                    self.contains = list.parse_args().ok();
                }
                ("inner", Meta::List(list)) => {
                    if let Ok(rules) = listed(list) {
                        self.inner.get_or_insert_with(Box::default).read(&rules);
                    }
                }
                _ => {}
            }
        }
    }

    /// The runtime's rules, in the order the derive writes them. Literal
    /// bounds and patterns are written as constants (see [`bound`] and
    /// [`text`]), so that a field whose rules are all literals hands the
    /// runtime a list the compiler keeps in static memory.
    fn rules(&self) -> Vec<TokenStream> {
        let rule = quote!(::toolgate::__private::Rule);
        let bounds = |b: &Bounds| {
            let min = bound(b.min.as_ref().or(b.equal.as_ref()));
            let max = bound(b.max.as_ref().or(b.equal.as_ref()));
            quote!(#min, #max)
        };
        let mut rules = Vec::new();
        if let Some(length) = &self.length {
            let b = bounds(length);
            rules.push(quote!(#rule::Length(#b)));
        }
        if let Some(range) = &self.range {
            let b = bounds(range);
            rules.push(quote!(#rule::Range(#b)));
        }
        if let Some(pattern) = &self.pattern {
            let pattern = text(pattern);
            rules.push(quote!(#rule::Pattern(#pattern)));
        }
        if let Some(contains) = &self.contains {
            let contains = text(contains);
            rules.push(quote!(#rule::Contains(#contains)));
        }
        if let Some(inner) = &self.inner {
            let inner = inner.rules();
            if !inner.is_empty() {
                rules.push(quote!(#rule::Inner(&[#(#inner),*])));
            }
        }
        rules
    }
}

/// A bound as the runtime's `Bound`: an integer or floating-point literal
/// (negated or not) as a constant of the type `serde_json::Value::from`
/// would read it as, any other expression converted as the derive
/// converts it.
fn bound(expr: Option<&syn::Expr>) -> TokenStream {
    let bound = quote!(::toolgate::__private::Bound);
    let Some(expr) = expr else {
        return quote!(::core::option::Option::None);
    };
    let (negative, literal) = match expr {
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr: inner,
            ..
        }) => (true, &**inner),
        other => (false, other),
    };
    let read = match literal {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) => Some((int.base10_digits(), int.suffix(), true)),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(float),
            ..
        }) => Some((float.base10_digits(), float.suffix(), false)),
        _ => None,
    };
    // By the literal's type: a whole number on a float field is typed
    // `0f64` by `adapt_rules`; a 128-bit one is converted at run time.
    let constant = read.and_then(|(digits, suffix, whole)| {
        let digits = format!("{}{digits}", if negative { "-" } else { "" });
        let float = |digits: &str| digits.parse::<f64>().ok().filter(|x| x.is_finite());
        match suffix {
            "f32" => (digits.parse::<f32>().ok())
                .filter(|x| x.is_finite())
                .map(|x| quote!(#bound::F32(#x))),
            "f64" => float(&digits).map(|x| quote!(#bound::F64(#x))),
            "" if !whole => float(&digits).map(|x| quote!(#bound::F64(#x))),
            "" | "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64"
            | "usize" => match (digits.parse::<i64>(), digits.parse::<u64>()) {
                (Ok(n), _) => Some(quote!(#bound::Int(#n))),
                (_, Ok(n)) => Some(quote!(#bound::Uint(#n))),
                _ => None,
            },
            _ => None,
        }
    });
    let value = constant.unwrap_or_else(
        || quote!(#bound::Value(::toolgate::__private::serde_json::Value::from(#expr))),
    );
    quote!(::core::option::Option::Some(#value))
}

/// A pattern's or a `contains`' text: a string literal as a constant, any
/// other expression by a method call, as the derive writes it (a pattern
/// may be a lazily built `Regex`, whose text is reached through `Deref`).
fn text(expr: &syn::Expr) -> TokenStream {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => quote!(::std::borrow::Cow::Borrowed(#text)),
        other => quote!(::std::borrow::Cow::Owned((#other).to_string())),
    }
}

impl Bounds {
    /// `min`, `max` and `equal`, each an expression or a string holding
    /// one; modes (`chars`) are garde's alone.
    fn read(list: &syn::MetaList) -> Self {
        let mut bounds = Bounds::default();
        for arg in listed(list).into_iter().flatten() {
            let Meta::NameValue(nv) = arg else { continue };
            let value = match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) => match text.parse() {
                    Ok(expr) => expr,
                    Err(_) => continue,
                },
                other => other.clone(),
            };
            let slot = if nv.path.is_ident("min") {
                &mut bounds.min
            } else if nv.path.is_ident("max") {
                &mut bounds.max
            } else if nv.path.is_ident("equal") {
                &mut bounds.equal
            } else {
                continue;
            };
            if slot.is_none() {
                *slot = Some(value);
            }
        }
        bounds
    }
}

/// A twin field's schema: see [`Stated`].
#[derive(Default)]
struct Described {
    /// serde's `default`: the field may be left out.
    defaulted: bool,
    /// garde's `required`: the field may not be left out, nor be `null`.
    required: bool,
    rules: Vec<TokenStream>,
}

impl Described {
    /// The field `wire`, of type `ty`, as the runtime's `Field`.
    fn field(&self, wire: &str, ty: &TokenStream, doc: &str) -> TokenStream {
        let schemars = quote!(::toolgate::__private::schemars);
        let (defaulted, required, rules) = (self.defaulted, self.required, &self.rules);
        let schema = if required {
            quote!(<#ty as #schemars::JsonSchema>::_schemars_private_non_optional_json_schema)
        } else {
            quote!(#schemars::SchemaGenerator::subschema_for::<#ty>)
        };
        quote! {
            ::toolgate::__private::Field {
                name: #wire,
                is_option: <#ty as #schemars::JsonSchema>::_schemars_private_is_option,
                schema: #schema,
                defaulted: #defaulted,
                required: #required,
                doc: #doc,
                rules: &[#(#rules),*],
            }
        }
    }
}

/// A doc comment, as `doc_text` joins it, read as schemars' derive reads
/// it: the text, less one leading space.
fn doc_of(text: Option<String>) -> String {
    let text = text.unwrap_or_default();
    match text.strip_prefix(' ') {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

/// The twin's `JsonSchema`: what schemars' derive would write for it, as
/// one call into the runtime with its fields as data (see the runtime's
/// `described` module). Generic over the fields' types, each bound to
/// have a schema, as the derive's is: a type without one falls back to
/// the runtime's `NoTwin`, whose error names the argument.
fn emit_schema(
    twin: &Ident,
    twin_params: &TokenStream,
    params: &[&Ident],
    name: &str,
    doc: &str,
    fields: &[TokenStream],
) -> TokenStream {
    let schemars = quote!(::toolgate::__private::schemars);
    quote! {
        #[automatically_derived]
        impl<#(#params: #schemars::JsonSchema),*> #schemars::JsonSchema for #twin #twin_params {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#name)
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #name))
            }

            fn json_schema(generator: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                ::toolgate::__private::described(generator, &[#(#fields),*], #doc)
            }
        }
    }
}
