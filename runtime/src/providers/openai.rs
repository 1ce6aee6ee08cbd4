//! OpenAI: Chat Completions and Responses.
//!
//! ```
//! use toolgate::providers::{openai, Strictness};
//! # use toolgate::{tool, ToolError};
//! # /// Add two numbers.
//! # #[tool(effect = read)]
//! # fn add(a: i64, b: i64) -> Result<i64, ToolError> { Ok(a + b) }
//!
//! let tool = openai::chat_tool(Add::definition(), Strictness::Strict)?;
//! assert_eq!(tool["type"], "function");
//! assert_eq!(tool["function"]["strict"], true);
//! # Ok::<(), toolgate::providers::ExportError>(())
//! ```

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Value, json};

use super::dialect::{self, Nullable, Open, Refs, Rules};
use super::{ExportError, ImportError, Strictness, ToolCall, outcome_text};
use crate::schema::keywords::Dialects;
use crate::{Outcome, ToolDef};

/// Formats strict mode accepts (`uri` is rejected).
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

const STRICT: Rules = Rules {
    name: "openai (strict)",
    refs: Refs::InlineWithSiblings,
    nullable: Nullable::AsIs,
    all_required: true,
    close_objects: true,
    no_additional_properties: false,
    open: Open::Refuse,
    recursion: true,
    one_of_as_any_of: true,
    lone_any_of: false,
    const_as_enum: false,
    uppercase_types: false,
    keep_schema_keyword: false,
    dialect: Dialects::OPENAI_STRICT,
    formats: FORMATS,
    simple_patterns: false,
    max_min_items: None,
    string_enums_only: false,
    property_name: None,
};

const NON_STRICT: Rules = Rules {
    name: "openai",
    all_required: false,
    open: Open::Keep,
    dialect: Dialects::OPENAI,
    ..STRICT
};

/// Published limits of strict mode.
const MAX_PROPERTIES: usize = 5000;
const MAX_NESTING: usize = 10;
const MAX_SCHEMA_CHARS: usize = 120_000;
const MAX_ENUM_VALUES: usize = 1000;

/// The schema as OpenAI's `parameters`.
pub fn parameters(def: &ToolDef, strictness: Strictness) -> Result<Value, ExportError> {
    let rules = match strictness {
        Strictness::Strict => &STRICT,
        Strictness::NonStrict => &NON_STRICT,
    };
    let schema = dialect::export(def, rules)?;
    check_size(def, rules, &schema)?;
    Ok(schema)
}

/// `{"type":"function","function":{"name","description","parameters","strict"}}`
/// for Chat Completions' `tools`.
pub fn chat_tool(def: &ToolDef, strictness: Strictness) -> Result<Value, ExportError> {
    Ok(json!({
        "type": "function",
        "function": {
            "name": def.name(),
            "description": def.description(),
            "parameters": parameters(def, strictness)?,
            "strict": strictness == Strictness::Strict,
        }
    }))
}

/// `{"type":"function","name","description","parameters","strict"}` for
/// the Responses API's `tools`. Strictness is stated explicitly: Responses
/// defaults to strict.
pub fn responses_tool(def: &ToolDef, strictness: Strictness) -> Result<Value, ExportError> {
    Ok(json!({
        "type": "function",
        "name": def.name(),
        "description": def.description(),
        "parameters": parameters(def, strictness)?,
        "strict": strictness == Strictness::Strict,
    }))
}

#[derive(Deserialize)]
struct ChatMessage<'a> {
    #[serde(borrow, default)]
    tool_calls: Vec<ChatCall<'a>>,
}

#[derive(Deserialize)]
struct ChatCall<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    function: ChatFunction<'a>,
}

#[derive(Deserialize)]
struct ChatFunction<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    /// JSON text inside a JSON string: decoding the string yields the text
    /// exactly as the model wrote it, which then takes the bounded parse.
    #[serde(borrow)]
    arguments: Cow<'a, str>,
}

/// The tool calls of a Chat Completions assistant message
/// (`{"role":"assistant","tool_calls":[…]}`).
pub fn chat_tool_calls(message: &str) -> Result<Vec<ToolCall<'_>>, ImportError> {
    let message: ChatMessage<'_> = serde_json::from_str(message)?;
    Ok(message
        .tool_calls
        .into_iter()
        .map(|call| ToolCall {
            id: Some(call.id),
            name: call.function.name,
            arguments: call.function.arguments,
        })
        .collect())
}

#[derive(Deserialize)]
struct ResponsesCall<'a> {
    #[serde(rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    call_id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    arguments: Cow<'a, str>,
}

/// One `{"type":"function_call","call_id","name","arguments"}` output item
/// of the Responses API.
pub fn responses_function_call(item: &str) -> Result<ToolCall<'_>, ImportError> {
    let call: ResponsesCall<'_> = serde_json::from_str(item)?;
    if call.kind != "function_call" {
        return Err(ImportError(serde::de::Error::custom(
            "the item is not a function_call",
        )));
    }
    Ok(ToolCall {
        id: Some(call.call_id),
        name: call.name,
        arguments: call.arguments,
    })
}

/// `{"role":"tool","tool_call_id","content"}`: the outcome as the reply to
/// a Chat Completions tool call.
pub fn chat_tool_message(tool_call_id: &str, outcome: &Outcome) -> Value {
    json!({"role": "tool", "tool_call_id": tool_call_id, "content": outcome_text(outcome)})
}

/// `{"type":"function_call_output","call_id","output"}`: the outcome as a
/// Responses input item.
pub fn responses_output(call_id: &str, outcome: &Outcome) -> Value {
    json!({"type": "function_call_output", "call_id": call_id, "output": outcome_text(outcome)})
}

fn check_size(def: &ToolDef, rules: &Rules, schema: &Value) -> Result<(), ExportError> {
    let error = |reason: String| ExportError {
        tool: def.name(),
        dialect: rules.name,
        reason,
    };
    let (mut properties, mut enum_values, mut depth) = (0, 0, 0);
    measure(schema, 0, &mut properties, &mut enum_values, &mut depth);
    if properties > MAX_PROPERTIES {
        return Err(error(format!(
            "{properties} properties; OpenAI accepts {MAX_PROPERTIES}"
        )));
    }
    if depth > MAX_NESTING {
        return Err(error(format!(
            "objects nest {depth} deep; OpenAI accepts {MAX_NESTING}"
        )));
    }
    if enum_values > MAX_ENUM_VALUES {
        return Err(error(format!(
            "{enum_values} enum values; OpenAI accepts {MAX_ENUM_VALUES}"
        )));
    }
    let chars = schema.to_string().chars().count();
    if chars > MAX_SCHEMA_CHARS {
        return Err(error(format!(
            "the schema is {chars} characters; OpenAI accepts {MAX_SCHEMA_CHARS}"
        )));
    }
    Ok(())
}

fn measure(
    node: &Value,
    nesting: usize,
    properties: &mut usize,
    enum_values: &mut usize,
    depth: &mut usize,
) {
    match node {
        Value::Object(map) => {
            let mut nesting = nesting;
            if let Some(Value::Object(props)) = map.get("properties") {
                nesting += 1;
                *depth = (*depth).max(nesting);
                *properties += props.len();
            }
            if let Some(Value::Array(values)) = map.get("enum") {
                *enum_values += values.len();
            }
            for (key, child) in map {
                if key != "enum" && key != "const" && key != "required" {
                    measure(child, nesting, properties, enum_values, depth);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                measure(item, nesting, properties, enum_values, depth);
            }
        }
        _ => {}
    }
}
