//! Gates 1–3 of a tool on an instance of its schema, as registration's
//! probes run them.

use serde_json::Value;

use crate::{Tool, gate::bounded};

/// What gates 1–3 of a tool made of an instance.
pub(super) enum Probe {
    Accepted,
    Refused,
    /// Past [`PROBE_LIMITS`](crate::gate::bounded::limits::PROBE_LIMITS): the tool's own gates never saw it.
    TooLarge,
}

pub(super) fn probe<S: 'static>(tool: &dyn Tool<S>, instance: &Value) -> Probe {
    let text = instance.to_string();
    match bounded::scan(text.as_bytes(), &crate::gate::bounded::limits::PROBE_LIMITS) {
        Err(_) => Probe::TooLarge,
        Ok(raw) => match tool.__check(raw, tool.definition()) {
            Ok(()) => Probe::Accepted,
            Err(_) => Probe::Refused,
        },
    }
}

/// Gates 1–3 of `tool` on `instance`.
pub(super) fn passes<S: 'static>(
    tool: &dyn Tool<S>,
    instance: &Value,
) -> Result<(), crate::Rejection> {
    passes_text(tool, &instance.to_string())
}

/// Gates 1–3 of `tool` on `text`.
pub(super) fn passes_text<S: 'static>(
    tool: &dyn Tool<S>,
    text: &str,
) -> Result<(), crate::Rejection> {
    let raw = bounded::scan(text.as_bytes(), &crate::gate::bounded::limits::PROBE_LIMITS)?;
    tool.__check(raw, tool.definition())
}
