//! `#[tools]` on an impl block: each method marked `#[tool]` becomes a tool
//! whose state is the block's type, lent to the method as `&self`.
//!
//! The method stays in the block as written, less the attributes that
//! belong to the argument struct; the tool's items (marker, arguments,
//! wrapper) go beside the block, and the wrapper calls `<Type>::method`.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{ImplItem, ItemImpl, Type};

use crate::errors::Errors;
use crate::model::ToolFn;
use crate::{attr, check, emit, fallback};

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    if !attr.is_empty() {
        errors.at(
            &attr,
            "`#[tools]` takes no arguments: put the keys on each method's `#[tool(...)]`",
        );
    }
    let mut block = match syn::parse2::<ItemImpl>(item.clone()) {
        Ok(block) => block,
        Err(_) => {
            errors.at_span(
                proc_macro2::Span::call_site(),
                "`#[tools]` goes on an impl block whose methods carry `#[tool]`: `#[tools] impl App { #[tool(effect = read)] fn … }`",
            );
            return fallback::not_a_function(item, errors);
        }
    };
    if let Some((_, path, _)) = &block.trait_ {
        errors.at(
            path,
            "`#[tools]` goes on an inherent impl block (`impl App`), not on a trait's",
        );
    }
    if !block.generics.params.is_empty() {
        errors.at(
            &block.generics,
            "`#[tools]` needs a concrete type: each tool's state is one type, with one schema per tool",
        );
    }
    // One error for the block stands for all that a missing crate would
    // cause in each of its tools.
    let missing = crate::dependencies::missing();
    if let Some(missing) = missing {
        errors.at_span(proc_macro2::Span::call_site(), missing);
    }
    let self_ty = block.self_ty.clone();
    let mut generated = Vec::new();
    // The attribute's path, once: the `use` that brought `tool` into
    // scope is then used, as it was before this block took the attribute.
    let mut used = None;
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else { continue };
        let Some(at) = method.attrs.iter().position(is_tool_attribute) else {
            continue;
        };
        let tool_attr = method.attrs.remove(at);
        if used.is_none() {
            let path = tool_attr.path();
            // Spanned on the method's `#[tool]`: if `tool` was never
            // imported, that is where the error belongs.
            let span = syn::spanned::Spanned::span(path);
            used = Some(quote::quote_spanned!(span=> #[allow(unused_imports)] use #path as _;));
        }
        let keys = match &tool_attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => TokenStream::new(),
        };
        let func = syn::ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            sig: without_self_type(&method.sig, &self_ty),
            block: Box::new(method.block.clone()),
        };
        let mut tool_errors = Errors::default();
        let attrs = attr::parse(keys, &mut tool_errors);
        let tool = ToolFn::new(func, attrs, Some(self_ty.clone()), &mut tool_errors);
        check::check(&tool, &mut tool_errors);
        // The method as the tool sees it: the argument struct's attributes
        // gone, each `Authorized<R>` bound to this tool.
        let bound = emit::bind_authorizations(&tool);
        for (kept, written) in method.sig.inputs.iter_mut().zip(&bound.sig.inputs) {
            if let (syn::FnArg::Typed(kept), syn::FnArg::Typed(written)) = (kept, written) {
                kept.attrs.clone_from(&written.attrs);
                if !mentions_self(&kept.ty) {
                    kept.ty.clone_from(&written.ty);
                }
            }
        }
        generated.push(match tool_errors.finish() {
            _ if missing.is_some() => fallback::stand_ins(&tool, false),
            Some(error) => fallback::emit(&tool, error, false),
            None => emit::emit(&tool),
        });
    }
    if used.is_none() {
        errors.at(
            &self_ty,
            "`#[tools]` registers the `#[tool]` methods of this impl, and it has none: put `#[tool(effect = …)]` on a method, or remove `#[tools]`",
        );
    }
    let errors = errors.finish().map(|e| e.to_compile_error());
    let block = block.into_token_stream();
    quote! {
        #errors
        #block
        #used
        #(#generated)*
    }
}

/// `#[tool]` or `#[toolgate::tool]`.
fn is_tool_attribute(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "tool")
}

/// The signature with `Self` spelled as the block's type, for the items
/// that live outside the block.
fn without_self_type(sig: &syn::Signature, self_ty: &Type) -> syn::Signature {
    let tokens = replace_self(sig.to_token_stream(), self_ty);
    syn::parse2(tokens).unwrap_or_else(|_| sig.clone())
}

fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    let mut out = Vec::new();
    let mut trees = tokens.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Ident(ident) if ident == "Self" => {
                // `Self::Item` needs the qualified form; `Self` alone is the type.
                let path_follows =
                    matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                if path_follows {
                    out.extend(quote!(<#self_ty>));
                } else {
                    out.extend(self_ty.to_token_stream());
                }
            }
            TokenTree::Group(group) => {
                let mut replaced =
                    Group::new(group.delimiter(), replace_self(group.stream(), self_ty));
                replaced.set_span(group.span());
                out.push(TokenTree::Group(replaced));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

fn mentions_self(ty: &Type) -> bool {
    fn walk(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|tree| match tree {
            TokenTree::Ident(ident) => ident == "Self",
            TokenTree::Group(group) => walk(group.stream()),
            _ => false,
        })
    }
    walk(ty.to_token_stream())
}
