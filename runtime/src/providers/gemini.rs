//! Gemini: function declarations (`parametersJsonSchema`, or the legacy
//! OpenAPI-subset `parameters`), `functionCall` and `functionResponse`.
//!
//! ```
//! use toolgate::providers::gemini;
//! # use toolgate::{tool, ToolError};
//! # /// Add two numbers.
//! # #[tool(effect = read)]
//! # fn add(a: i64, b: i64) -> Result<i64, ToolError> { Ok(a + b) }
//!
//! let declaration = gemini::function_declaration(Add::definition())?;
//! assert_eq!(declaration["parametersJsonSchema"]["type"], "object");
//! # Ok::<(), toolgate::providers::ExportError>(())
//! ```

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::dialect::{self, Nullable, Open, Refs, Rules};
use super::{ExportError, ImportError, ToolCall, raw_arguments};
use crate::schema::keywords::Dialects;
use crate::{Outcome, ToolDef};

fn property_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_'))
        && name.len() <= 64
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

const JSON_SCHEMA: Rules = Rules {
    name: "gemini",
    refs: Refs::InlineAll,
    nullable: Nullable::TypeArray,
    all_required: false,
    close_objects: false,
    no_additional_properties: false,
    open: Open::Keep,
    // Every `$ref` is inlined; a recursive one is refused there.
    recursion: false,
    one_of_as_any_of: true,
    lone_any_of: true,
    const_as_enum: true,
    uppercase_types: false,
    keep_schema_keyword: false,
    dialect: Dialects::GEMINI,
    formats: &["date-time"],
    simple_patterns: false,
    max_min_items: None,
    string_enums_only: true,
    property_name: Some((
        property_name,
        "Gemini accepts a letter or `_` first, then letters, digits and `_`, at most 64",
    )),
};

const LEGACY: Rules = Rules {
    name: "gemini (legacy parameters)",
    nullable: Nullable::Keyword,
    no_additional_properties: true,
    uppercase_types: true,
    ..JSON_SCHEMA
};

/// `{"name","description","parametersJsonSchema"}`. Gemini's `$ref` support
/// fails in practice, so every reference is inlined; a recursive type is an
/// export error.
pub fn function_declaration(def: &ToolDef) -> Result<Value, ExportError> {
    Ok(json!({
        "name": def.name(),
        "description": def.description(),
        "parametersJsonSchema": dialect::export(def, &JSON_SCHEMA)?,
    }))
}

/// `{"name","description","parameters"}` in the OpenAPI subset: uppercase
/// types, `nullable`, no `additionalProperties`. Every closed object, the
/// nested ones too, states its closedness in its description ("Server
/// checks: fields not listed here are rejected."), and the server enforces
/// it. A map whose values have a schema cannot be said here: an
/// [`ExportError`]; [`function_declaration`] can say it.
pub fn legacy_function_declaration(def: &ToolDef) -> Result<Value, ExportError> {
    Ok(json!({
        "name": def.name(),
        "description": def.description(),
        "parameters": dialect::export(def, &LEGACY)?,
    }))
}

/// `{"functionDeclarations":[…]}`: one `tools` entry for many declarations.
pub fn tools(declarations: Vec<Value>) -> Value {
    json!({"functionDeclarations": declarations})
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part<'a> {
    #[serde(borrow)]
    function_call: FunctionCall<'a>,
}

#[derive(Deserialize)]
struct FunctionCall<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
}

/// One `{"functionCall":{"name","args"}}` part (with `id` where the API
/// sends one). `args` is taken as raw JSON, unparsed.
pub fn function_call(part: &str) -> Result<ToolCall<'_>, ImportError> {
    let part: Part<'_> = serde_json::from_str(part)?;
    Ok(ToolCall {
        id: part.function_call.id,
        name: part.function_call.name,
        arguments: raw_arguments(part.function_call.args),
    })
}

/// `{"functionResponse":{"name","response"}}` (and `id` when the call had
/// one). The response is the outcome object itself.
pub fn function_response(call: &ToolCall<'_>, outcome: &Outcome) -> Value {
    let mut response = json!({"name": call.name, "response": outcome.to_json()});
    if let (Some(id), Value::Object(map)) = (&call.id, &mut response) {
        map.insert("id".to_owned(), Value::String(id.to_string()));
    }
    json!({"functionResponse": response})
}
