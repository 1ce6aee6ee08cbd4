//! The generated items, one file each: the argument struct, the marker type
//! with its definition, and the `Tool` impl that runs the gates.

pub(crate) mod args;
mod call;
mod marker;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::model::{ToolFn, pascal};

pub(crate) fn emit(tool: &ToolFn) -> TokenStream {
    let func = &tool.func;
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

/// `book_hotel` → `BookHotel`.
pub(crate) fn marker_ident(tool: &ToolFn) -> Ident {
    pascal(&tool.func.sig.ident)
}

/// `book_hotel` → `BookHotelArgs`.
pub(crate) fn args_ident(tool: &ToolFn) -> Ident {
    let marker = marker_ident(tool);
    format_ident!("{}Args", marker, span = marker.span())
}
