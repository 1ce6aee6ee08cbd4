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
//! assert!(tool.get("strict").is_none());
//! # Ok::<(), toolgate::providers::ExportError>(())
//! ```

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::dialect::{self, Nullable, Open, Refs, Rules};
use super::{
    ExportError, ImportError, Strictness, ToolCall, is_error, outcome_text, raw_arguments,
};
use crate::schema::keywords::Dialects;
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
    open: Open::Refuse,
    // Anthropic's strict grammar does not take a recursive schema.
    recursion: false,
    one_of_as_any_of: true,
    lone_any_of: false,
    const_as_enum: false,
    uppercase_types: false,
    keep_schema_keyword: false,
    dialect: Dialects::ANTHROPIC_STRICT,
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
    open: Open::Keep,
    recursion: true,
    dialect: Dialects::ANTHROPIC,
    simple_patterns: false,
    max_min_items: None,
    ..STRICT
};

/// Anthropic's limits on the strict tools of one request, all of them
/// together: each optional parameter and each union multiplies the grammar
/// the model's output is constrained by.
const MAX_STRICT_TOOLS: usize = 20;
const MAX_OPTIONAL: usize = 24;
const MAX_UNIONS: usize = 16;

/// `{"name","description","input_schema"}` for the Messages API, with
/// `"strict": true` when strict. A non-strict tool does not carry
/// `"strict": false`: some endpoints refuse the key.
///
/// One strict tool is checked against the per-request limits on its own;
/// to send several, export them together with [`tools`], which checks the
/// limits over the whole set.
pub fn tool(def: &ToolDef, strictness: Strictness) -> Result<Value, ExportError> {
    tools([def], strictness).map(|mut tools| tools.remove(0))
}

/// Every tool of one request, exported together: the `tools` array of a
/// Messages request.
///
/// Anthropic limits strict tools per request, not per tool: at most 20
/// strict tools, 24 optional parameters and 16 parameters with a union
/// type (`anyOf`, or a `type` array such as `["string","null"]`) in all of
/// them together. Parameters are counted at every depth, in definitions
/// too. A set over a limit is an [`ExportError`] naming the tool that
/// crosses it; a non-strict set has no such limits.
///
/// ```
/// use toolgate::providers::{anthropic, Strictness};
/// # use toolgate::{tool, ToolError};
/// # /// Add two numbers.
/// # #[tool(effect = read)]
/// # fn add(a: i64, b: i64) -> Result<i64, ToolError> { Ok(a + b) }
/// # /// Negate a number.
/// # #[tool(effect = read)]
/// # fn negate(a: i64) -> Result<i64, ToolError> { Ok(-a) }
///
/// let tools = anthropic::tools([Add::definition(), Negate::definition()], Strictness::Strict)?;
/// assert_eq!(tools.len(), 2);
/// assert_eq!(tools[1]["name"], "negate");
/// assert_eq!(tools[1]["strict"], true);
/// # Ok::<(), toolgate::providers::ExportError>(())
/// ```
pub fn tools<'a>(
    defs: impl IntoIterator<Item = &'a ToolDef>,
    strictness: Strictness,
) -> Result<Vec<Value>, ExportError> {
    let rules = match strictness {
        Strictness::Strict => &STRICT,
        Strictness::NonStrict => &NON_STRICT,
    };
    let mut request = Request::default();
    let mut exported = Vec::new();
    for def in defs {
        let schema = dialect::export(def, rules)?;
        let strict = strictness == Strictness::Strict;
        if strict {
            request.add(&schema).map_err(|reason| ExportError {
                tool: def.name(),
                dialect: rules.name,
                reason,
            })?;
        }
        let mut tool = json!({
            "name": def.name(),
            "description": def.description(),
            "input_schema": schema,
        });
        if let (true, Value::Object(map)) = (strict, &mut tool) {
            map.insert("strict".to_owned(), Value::Bool(true));
        }
        exported.push(tool);
    }
    Ok(exported)
}

/// What the strict tools of one request have used of Anthropic's limits.
#[derive(Default)]
struct Request {
    tools: usize,
    optional: usize,
    unions: usize,
}

impl Request {
    /// Adds one strict tool's schema; the limit it crosses, in words.
    fn add(&mut self, schema: &Value) -> Result<(), String> {
        self.tools += 1;
        if self.tools > MAX_STRICT_TOOLS {
            return Err(format!(
                "it is strict tool number {}; Anthropic accepts {MAX_STRICT_TOOLS} strict tools per request",
                self.tools
            ));
        }
        let (optional, unions) = parameters(schema, schema);
        self.optional += optional;
        self.unions += unions;
        if self.optional > MAX_OPTIONAL {
            return Err(format!(
                "with its {optional} optional parameters the request's strict tools have {}; Anthropic accepts {MAX_OPTIONAL} per request",
                self.optional
            ));
        }
        if self.unions > MAX_UNIONS {
            return Err(format!(
                "with its {unions} union-typed parameters the request's strict tools have {}; Anthropic accepts {MAX_UNIONS} per request",
                self.unions
            ));
        }
        Ok(())
    }
}

/// The optional parameters and the union-typed parameters of an exported
/// schema: properties at every depth, `$defs` included, each counted once.
fn parameters(root: &Value, node: &Value) -> (usize, usize) {
    let Value::Object(map) = node else {
        return (0, 0);
    };
    let (mut optional, mut unions) = (0, 0);
    let mut add = |(o, u): (usize, usize)| {
        optional += o;
        unions += u;
    };
    for (key, child) in map {
        match key.as_str() {
            "properties" => {
                let required = map.get("required").and_then(Value::as_array);
                for (name, schema) in child.as_object().into_iter().flatten() {
                    let is_optional = !required.is_some_and(|r| r.iter().any(|n| n == name));
                    let resolved = crate::schema::resolve(root, schema).unwrap_or(schema);
                    let is_union = resolved.get("anyOf").is_some()
                        || resolved.get("type").is_some_and(Value::is_array);
                    add((usize::from(is_optional), usize::from(is_union)));
                    add(parameters(root, schema));
                }
            }
            "$defs" => child
                .as_object()
                .into_iter()
                .flatten()
                .for_each(|(_, def)| add(parameters(root, def))),
            "items" | "additionalProperties" | "not" => add(parameters(root, child)),
            "anyOf" | "allOf" | "oneOf" | "prefixItems" => child
                .as_array()
                .into_iter()
                .flatten()
                .for_each(|branch| add(parameters(root, branch))),
            _ => {}
        }
    }
    (optional, unions)
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
