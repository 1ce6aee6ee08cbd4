//! Calls kept for later, pinned to the contract they were made under.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::ToolDef;

/// A call to keep and run later (after an approval, from a queue, on
/// retry), with the tool version and schema fingerprint it was made for.
///
/// [`Toolbox::call_stored`](crate::Toolbox::call_stored) refuses it with a
/// non-retryable `VERSION_MISMATCH` if the registered tool has another
/// version or fingerprint; it never runs against a contract it was not made
/// for.
///
/// A stored call carries no authority of its own: anyone can write one, so
/// it runs as a new call of the context that runs it, through every gate,
/// gate 6 included. An irreversible stored call asks for approval like any
/// other, and a repeat of a write in the same conversation replays its
/// outcome. A call that is to run *because* a person approved it is an
/// [`Approval`](crate::Approval), run with
/// [`Toolbox::resume`](crate::Toolbox::resume): bound to its tenant, actor,
/// arguments and objects, and run once.
///
/// ```
/// use serde_json::value::RawValue;
/// use toolgate::{StoredCall, ToolDef};
///
/// fn keep(def: &ToolDef, arguments: &str) -> serde_json::Result<String> {
///     let call = StoredCall::new(def, RawValue::from_string(arguments.to_owned())?);
///     serde_json::to_string(&call)
/// }
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoredCall {
    /// The tool's name.
    pub tool: String,
    /// The tool version the call was made for.
    pub version: u32,
    /// The schema fingerprint the call was made for.
    pub fingerprint: String,
    /// The argument JSON exactly as received; it passes every gate again
    /// when run.
    pub arguments: Box<RawValue>,
}

impl StoredCall {
    /// A call to the tool `def` describes, with these arguments.
    pub fn new(def: &ToolDef, arguments: Box<RawValue>) -> Self {
        StoredCall {
            tool: def.name().to_owned(),
            version: def.version(),
            fingerprint: def.fingerprint().to_owned(),
            arguments,
        }
    }
}
