//! Anthropic Messages: `tools`, `tool_use` and `tool_result`.
//!
//! ```
//! use toolgate::providers::{anthropic, Strictness};
//! # use toolgate::{tool, ToolError};
//! # /// Add two numbers.
//! # #[tool(effect = read)]
//! # fn add(a: i64, b: i64) -> Result<i64, ToolError> { Ok(a + b) }
//!
//! let tool = anthropic::tool(Add::definition(), Strictness::NonStrict)?;
//! assert_eq!(tool["input_schema"]["type"], "object");
//! # Ok::<(), toolgate::providers::ExportError>(())
//! ```

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::dialect::{self, Nullable, Refs, Rules};
use super::{
    ExportError, ImportError, Strictness, ToolCall, is_error, outcome_text, raw_arguments,
};
use crate::{Outcome, ToolDef};

fn property_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

const STRICT: Rules = Rules {
    name: "anthropic (strict)",
    refs: Refs::InlineWithSiblings,
    nullable: Nullable::AsIs,
    all_required: false,
    close_objects: true,
    no_additional_properties: false,
    one_of_as_any_of: true,
    lone_any_of: false,
    const_as_enum: false,
    uppercase_types: false,
    keep_schema_keyword: false,
    validation: &["pattern", "minItems"],
    formats: &[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
        "uri",
    ],
    simple_patterns: true,
    max_min_items: Some(1),
    string_enums_only: false,
    property_name: Some((
        property_name,
        "Anthropic accepts 1-64 of A-Z, a-z, 0-9, `_`, `.` and `-`",
    )),
};

const NON_STRICT: Rules = Rules {
    name: "anthropic",
    close_objects: false,
    validation: &[
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
    ],
    simple_patterns: false,
    max_min_items: None,
    ..STRICT
};

/// Strict tools may have at most this many optional parameters in all.
const MAX_OPTIONAL: usize = 24;

/// `{"name","description","input_schema","strict"}` for the Messages API.
pub fn tool(def: &ToolDef, strictness: Strictness) -> Result<Value, ExportError> {
    let rules = match strictness {
        Strictness::Strict => &STRICT,
        Strictness::NonStrict => &NON_STRICT,
    };
    let schema = dialect::export(def, rules)?;
    if strictness == Strictness::Strict {
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .map_or(0, |p| p.len());
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if properties - required.min(properties) > MAX_OPTIONAL {
            return Err(ExportError {
                tool: def.name(),
                dialect: rules.name,
                reason: format!("more than {MAX_OPTIONAL} optional parameters"),
            });
        }
    }
    Ok(json!({
        "name": def.name(),
        "description": def.description(),
        "input_schema": schema,
        "strict": strictness == Strictness::Strict,
    }))
}

#[derive(Deserialize)]
struct ToolUse<'a> {
    #[serde(rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
}

/// One `{"type":"tool_use","id","name","input"}` content block. `input` is
/// taken as raw JSON, unparsed.
pub fn tool_use(block: &str) -> Result<ToolCall<'_>, ImportError> {
    let call: ToolUse<'_> = serde_json::from_str(block)?;
    if call.kind != "tool_use" {
        return Err(ImportError(serde::de::Error::custom(
            "the block is not a tool_use",
        )));
    }
    Ok(ToolCall {
        id: Some(call.id),
        name: call.name,
        arguments: raw_arguments(call.input),
    })
}

/// `{"type":"tool_result","tool_use_id","content","is_error"}`: a rejection
/// or failure is an error result the model reads, not a protocol error.
pub fn tool_result(tool_use_id: &str, outcome: &Outcome) -> Value {
    json!({
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": outcome_text(outcome),
        "is_error": is_error(outcome),
    })
}
