//! The `#[tool]` attribute of [toolgate](https://docs.rs/toolgate). Use it
//! through `toolgate::tool`; its documentation lives there.
//!
//! The expansion runs in three phases, one module each: `model` reads the
//! function and attribute into a typed model (every node keeps its span),
//! `check` applies every rule and collects every error, and `emit` writes
//! the generated items. On any error, `fallback` emits the user's function
//! unchanged next to the errors, so one mistake does not bury the rest.

mod attr;
mod check;
mod dependencies;
mod emit;
mod enclosing;
mod errors;
mod fallback;
mod methods;
mod model;
mod pattern;

use proc_macro::TokenStream;

/// The `#[tool]` attribute, which `toolgate` re-exports as `toolgate::tool` and
/// documents in full there.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr.into(), item.into()).into()
}

fn expand(
    attr: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let mut errors = errors::Errors::default();
    let Some(func) = model::parse_item(item.clone(), &mut errors) else {
        return fallback::not_a_function(item, errors);
    };
    let attrs = attr::parse(attr, &mut errors);
    let tool = model::ToolFn::new(func, attrs, None, &mut errors);
    // A method with `self` has its own error; one without is recognised
    // only by the block around it.
    let block = match tool.func.sig.receiver() {
        None => enclosing::enclosing_block(&tool.func.sig.ident),
        Some(_) => enclosing::Kind::Other,
    };
    if let Some(missing) = dependencies::missing() {
        // One error stands for all the others a missing crate would cause.
        let error = syn::Error::new(proc_macro2::Span::call_site(), missing);
        return fallback::emit(&tool, error, block != enclosing::Kind::Other);
    }
    check::check(&tool, &mut errors);
    let name = &tool.func.sig.ident;
    match block {
        enclosing::Kind::Impl => errors.at_span(
            proc_macro2::Span::call_site(),
            format_args!(
                "a #[tool] function in an impl block needs `#[toolgate::tools]` on the block, which registers each of its `#[tool]` functions (and lends `&self`, where one takes it, as the toolbox's state); or move `{name}` out of the block to make it a free tool function"
            ),
        ),
        enclosing::Kind::Trait => errors.at_span(
            proc_macro2::Span::call_site(),
            format_args!(
                "#[tool] goes on a free function or on a function of a `#[toolgate::tools]` impl block, not in a trait: a tool is one function with one schema; move `{name}` out of the trait"
            ),
        ),
        enclosing::Kind::Other => {}
    }
    match errors.finish() {
        Some(error) => fallback::emit(&tool, error, block != enclosing::Kind::Other),
        None => emit::emit(&tool),
    }
}

/// Registers each `#[tool]` method of an impl block as a tool whose state
/// is the block's type. See `toolgate::tools`.
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    methods::expand(attr.into(), item.into()).into()
}
