//! Registration's check that lengths and sizes mean what the schema says.
//!
//! JSON Schema's `maxLength` counts characters; garde's `length` counts
//! bytes unless it says `chars`. `#[tool]` rewrites the rule on a tool's own
//! parameters, but a nested type's rules are its author's, out of the
//! macro's sight, and the schema states them as characters all the same. So
//! registration asks the tool itself: an instance of its schema is built
//! (see [`crate::register::instance`]), and each string that has a
//! `maxLength` (and no pattern or format to satisfy) is filled to that
//! length with two-byte characters. Where the tool's rules refuse that
//! length, the rule counts bytes. Likewise garde's `length` on a map counts
//! its entries, which schemars does not state: each map whose size the
//! schema leaves open must take no entries and many.

use serde_json::Value;

use crate::Code;
use crate::Tool;
use crate::json::pointer;
use crate::register::instance::{Builder, MAX_PAST, at_mut};
use crate::register::probe::passes;

/// What registration found that the schema does not say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unstated {
    /// The string at this pointer has a length rule that counts bytes.
    Bytes(String),
    /// The map at this pointer has a size rule the schema does not state.
    MapSize(String),
}

/// The first string whose length rule counts bytes, or map whose size rule
/// the schema does not state.
pub(crate) fn unstated<S: 'static>(tool: &dyn Tool<S>) -> Option<Unstated> {
    let schema = tool.definition().schema();
    let mut builder = Builder::new(schema, Vec::new());
    let base = builder.value(schema, 0, &mut Vec::new())?;
    let passes = |instance: &Value| passes(tool, instance);
    passes(&base).ok()?;
    let sites =
        (builder.sites.iter()).filter(|(_, max)| u64::try_from(*max).is_ok_and(|m| m <= MAX_PAST));
    for (path, max) in sites {
        let at = pointer::of_steps(path);
        let fill = |c: char| {
            let mut instance = base.clone();
            if let Some(slot) = at_mut(&mut instance, path) {
                *slot = Value::String(core::iter::repeat_n(c, *max).collect());
            }
            instance
        };
        if passes(&fill('a')).is_err() {
            continue;
        }
        if let Err(rejection) = passes(&fill('é'))
            && rejection.code() == Code::InvalidLength
        {
            return Some(Unstated::Bytes(at));
        }
    }
    // garde's `length` on a map counts entries; schemars states it only for
    // strings and arrays. A map the schema leaves unbounded must take no
    // entries and many.
    for (path, entry) in &builder.maps {
        let at = pointer::of_steps(path);
        for size in [0, MANY_ENTRIES] {
            let mut instance = base.clone();
            if let Some(slot) = at_mut(&mut instance, path) {
                *slot = Value::Object(
                    (0..size)
                        .map(|i| (format!("k{i}"), entry.clone()))
                        .collect(),
                );
            }
            if let Err(rejection) = passes(&instance)
                && rejection.code() == Code::InvalidLength
                && rejection.path() == at
            {
                return Some(Unstated::MapSize(at));
            }
        }
    }
    None
}

/// Entries a map with no stated size must take.
const MANY_ENTRIES: usize = 64;
