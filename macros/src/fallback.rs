//! What a failed expansion emits: the errors, the user's function unchanged,
//! and stand-ins for the generated names, so the rest of the crate still
//! resolves and the real errors are not buried under follow-on ones.

use proc_macro2::TokenStream;
use quote::quote;

use crate::errors::Errors;
use crate::model::ToolFn;

/// `in_a_block`: the function sits in an impl or trait block (see
/// `enclosing`), where only the function itself may be emitted.
pub(crate) fn emit(tool: &ToolFn, error: syn::Error, in_a_block: bool) -> TokenStream {
    let errors = error.to_compile_error();
    let rest = stand_ins(tool, in_a_block);
    quote! {
        #errors
        #rest
    }
}

/// The user's function and the stand-ins for the generated names, without
/// errors: for a tool whose errors are reported elsewhere, once.
pub(crate) fn stand_ins(tool: &ToolFn, in_a_block: bool) -> TokenStream {
    let func = &tool.func;
    let vis = &func.vis;
    let marker = crate::emit::marker_ident(tool);
    let args = crate::emit::args_ident(tool);
    let unreachable = "the #[tool] above failed to compile";
    // A method of a `#[tools]` block stays in the block, which `#[tools]`
    // writes; only the stand-ins go beside it.
    let func = tool.method_of.is_none().then_some(func);
    if tool.method_of.is_none() && (tool.func.sig.receiver().is_some() || in_a_block) {
        // Inside an impl or trait block: only the function may be emitted
        // there.
        return quote! {
            #func
        };
    }
    quote! {
        #func

        #[allow(dead_code)]
        #vis struct #args {}

        #[allow(dead_code)]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #marker;

        #[allow(dead_code)]
        impl #marker {
            #vis fn definition() -> &'static ::toolgate::ToolDef {
                ::core::unreachable!(#unreachable)
            }
        }

        impl<__S> ::toolgate::Tool<__S> for #marker {
            fn definition(&self) -> &'static ::toolgate::ToolDef {
                ::core::unreachable!(#unreachable)
            }

            fn __call<'__a>(
                &'__a self,
                _: ::toolgate::__private::Invocation<'__a, __S>,
            ) -> ::toolgate::__private::Call<'__a> {
                ::core::unreachable!(#unreachable)
            }

            fn __check(
                &self,
                _: ::toolgate::RawArgs<'_>,
                _: &::toolgate::ToolDef,
            ) -> ::core::result::Result<(), ::toolgate::Rejection> {
                ::core::unreachable!(#unreachable)
            }

        }
    }
}

/// The item was not a function: the errors, and the item as written.
pub(crate) fn not_a_function(item: TokenStream, errors: Errors) -> TokenStream {
    let errors = errors.finish().map(|e| e.to_compile_error());
    quote! {
        #errors
        #item
    }
}
