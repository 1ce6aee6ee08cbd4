//! The generated items, one file each: the argument struct, the marker type
//! with its definition, and the `Tool` impl that runs the gates.

pub(crate) mod args;
mod call;
mod marker;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::model::{ToolFn, pascal};

pub(crate) fn emit(tool: &ToolFn) -> TokenStream {
    // A method stays in its impl block, which `#[tools]` writes.
    let func = tool.method_of.is_none().then(|| bind_authorizations(tool));
    let args = args::emit(tool);
    let marker = marker::emit(tool);
    let call = call::emit(tool);
    quote! {
        #func
        #args
        #marker
        #call
    }
}

/// The function as written, with each `Authorized<R>` parameter bound to
/// this tool: `Authorized<R, BookHotel>`. An authorization made for one tool
/// then has a type no other tool's function accepts.
pub(crate) fn bind_authorizations(tool: &ToolFn) -> syn::ItemFn {
    let mut func = tool.func.clone();
    // A tool's parameters are its fields: however many the tool has is its
    // contract, not a smell.
    func.attrs
        .push(syn::parse_quote!(#[allow(clippy::too_many_arguments)]));
    let marker = marker_ident(tool);
    for (input, param) in func.sig.inputs.iter_mut().zip(&tool.params) {
        if let (syn::FnArg::Typed(typed), crate::model::Param::Resource(_)) = (input, param) {
            bind(&mut typed.ty, &marker);
        }
    }
    func
}

/// Adds the tool as the second argument of `Authorized<R>`, inside an
/// `Option` too.
fn bind(ty: &mut syn::Type, marker: &Ident) {
    let syn::Type::Path(path) = ty else { return };
    let Some(last) = path.path.segments.last_mut() else {
        return;
    };
    let syn::PathArguments::AngleBracketed(args) = &mut last.arguments else {
        return;
    };
    if last.ident == "Option" {
        if let Some(syn::GenericArgument::Type(inner)) = args.args.first_mut() {
            bind(inner, marker);
        }
    } else if last.ident == "Authorized" && args.args.len() == 1 {
        args.args.push(syn::parse_quote!(#marker));
    }
}

/// `book_hotel` → `BookHotel`.
pub(crate) fn marker_ident(tool: &ToolFn) -> Ident {
    pascal(&tool.func.sig.ident)
}

/// `book_hotel` → `BookHotelArgs`.
pub(crate) fn args_ident(tool: &ToolFn) -> Ident {
    let marker = marker_ident(tool);
    format_ident!("{}Args", marker, span = marker.span())
}

/// The argument struct where the generated code names it: with each
/// resource's reference type, `<R as Resource<S>>::Ref`, spanned on `R`.
/// When `R` is not a resource, every use reports the same error at the
/// same place as the struct's default does, and rustc prints it once.
pub(crate) fn args_at_use(tool: &ToolFn) -> TokenStream {
    let args = args_ident(tool);
    if tool.resources().next().is_none() {
        return quote!(#args);
    }
    let references = tool.resources().map(|r| reference_type(tool, &r.resource));
    quote!(#args<#(#references),*>)
}

/// `<R as Resource<S>>::Ref`, spanned on `R`.
pub(crate) fn reference_type(tool: &ToolFn, resource: &syn::Type) -> TokenStream {
    let state = tool.state();
    quote::quote_spanned!(syn::spanned::Spanned::span(resource)=>
        <#resource as ::toolgate::Resource<#state>>::Ref
    )
}

/// `__R0`, `__R1`, …: the argument struct's parameter for each resource's
/// reference type, spanned on the resource type (where rustc reports a
/// default that does not hold).
pub(crate) fn reference_param(index: usize, resource: &syn::Type) -> Ident {
    format_ident!("__R{}", index, span = syn::spanned::Spanned::span(resource))
}
