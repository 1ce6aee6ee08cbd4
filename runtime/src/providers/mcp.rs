//! MCP: the `Tool` definition, `tools/call` params and `CallToolResult`.
//!
//! ```
//! use toolgate::providers::mcp;
//! # use toolgate::{tool, ToolError};
//! # /// Add two numbers.
//! # #[tool(effect = read)]
//! # fn add(a: i64, b: i64) -> Result<i64, ToolError> { Ok(a + b) }
//!
//! let tool = mcp::tool(Add::definition());
//! assert_eq!(tool["annotations"]["readOnlyHint"], true);
//! ```

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::{ImportError, ToolCall, is_error, outcome_text, raw_arguments};
use crate::{Effect, Outcome, ToolDef};

/// The MCP `Tool`: `name`, `title`, `description`, `inputSchema` (the
/// canonical draft 2020-12 schema, which MCP takes whole), `outputSchema`
/// when the tool's result type has an object schema, and `annotations`
/// derived from the effect class.
///
/// Annotations are hints that clients must treat as untrusted; the server
/// enforces. `read` is read-only and idempotent; `write` is neither
/// read-only nor destructive; `irreversible` is destructive.
pub fn tool(def: &ToolDef) -> Value {
    let (read_only, destructive, idempotent) = match def.effect() {
        Effect::Read => (true, false, true),
        Effect::Write => (false, false, false),
        Effect::Irreversible => (false, true, false),
    };
    let mut tool = json!({
        "name": def.name(),
        "title": title(def.name()),
        "description": def.description(),
        "inputSchema": def.schema(),
        "annotations": {
            "readOnlyHint": read_only,
            "destructiveHint": destructive,
            "idempotentHint": idempotent,
        },
    });
    if let (Some(output), Value::Object(map)) = (def.output_schema(), &mut tool) {
        map.insert("outputSchema".to_owned(), output.clone());
    }
    tool
}

/// `book_hotel` → `Book hotel`.
fn title(name: &str) -> String {
    let words = name.replace(['_', '-'], " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// `tools/call` params, `{"name","arguments"}`. Absent `arguments` is the
/// empty object.
pub fn call_params(params: &str) -> Result<ToolCall<'_>, ImportError> {
    let params: CallParams<'_> = serde_json::from_str(params)?;
    Ok(ToolCall {
        id: None,
        name: params.name,
        arguments: raw_arguments(params.arguments),
    })
}

/// `CallToolResult`: `isError` for rejections and failures, and the
/// outcome as content.
///
/// One rule for every result, the one rmcp's `Json<T>` follows: a call
/// that completed (now, or in the call a replay repeats) has its result
/// as `structuredContent`, whatever its JSON type (an object, an array, a
/// number, a string), and one text block holding that same value
/// serialized, for clients that read only text. A result of `null` (a
/// tool that returns nothing) is the text `null` alone. Any other outcome
/// (a rejection, a failure, a call held for approval) is the outcome
/// object as text, without structured content.
///
/// Before MCP 2026-07-28 structured content had to be an object: rmcp
/// drops a non-object `structuredContent` for a client on an older
/// version, which reads the value from the text block, as it does for a
/// `Json<T>` tool.
///
/// A call held for approval (`approval_required`) is `isError` too: it has
/// no result to match the tool's output schema, and MCP allows a result
/// without structured content only as an error.
///
/// A rejection, unknown tools included, is a result the model reads, never
/// a JSON-RPC error: a protocol error for an unknown name would tell a
/// caller which tools exist.
///
/// ```
/// use serde_json::json;
/// use toolgate::Outcome;
/// use toolgate::providers::mcp;
///
/// let result = mcp::call_tool_result(&Outcome::Done(json!({"booking": "b_1"})));
/// assert_eq!(result["structuredContent"], json!({"booking": "b_1"}));
/// assert_eq!(result["content"][0]["text"], r#"{"booking":"b_1"}"#);
/// assert_eq!(result["isError"], false);
///
/// let result = mcp::call_tool_result(&Outcome::Done(json!(["b_1", "b_2"])));
/// assert_eq!(result["structuredContent"], json!(["b_1", "b_2"]));
/// assert_eq!(result["content"][0]["text"], r#"["b_1","b_2"]"#);
/// ```
pub fn call_tool_result(outcome: &Outcome) -> Value {
    let parts = call_tool_parts(outcome);
    let mut result = json!({
        "content": [{"type": "text", "text": parts.text}],
        "isError": parts.is_error,
    });
    if let (Some(value), Value::Object(map)) = (parts.structured, &mut result) {
        map.insert("structuredContent".to_owned(), value.clone());
    }
    result
}

/// What [`call_tool_result`] is made of, for a server that builds its
/// MCP SDK's own result type from it instead of reading JSON back.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct CallToolParts<'a> {
    /// The one text content block: the result as JSON text, or, where
    /// there is no result, the outcome as JSON text.
    pub text: String,
    /// `structuredContent`: the result, unless there is none or it is
    /// `null`.
    pub structured: Option<&'a Value>,
    /// `isError`.
    pub is_error: bool,
}

/// The parts of an outcome's `CallToolResult` ([`call_tool_result`] is
/// them as JSON).
///
/// ```
/// use serde_json::json;
/// use toolgate::Outcome;
/// use toolgate::providers::mcp;
///
/// let outcome = Outcome::Done(json!({"booking": "b_1"}));
/// let parts = mcp::call_tool_parts(&outcome);
/// assert_eq!(parts.text, r#"{"booking":"b_1"}"#);
/// assert_eq!(parts.structured, Some(&json!({"booking": "b_1"})));
/// assert!(!parts.is_error);
/// ```
pub fn call_tool_parts(outcome: &Outcome) -> CallToolParts<'_> {
    // A result, now or replayed, is the structured content and the text.
    let result = outcome.value();
    let text = match result {
        Some(value) => serde_json::to_string(value).unwrap_or_default(),
        None => outcome_text(outcome),
    };
    CallToolParts {
        text,
        structured: result.filter(|value| !value.is_null()),
        // A call held for approval has no result, and MCP requires a
        // tool with an output schema to return structured content with
        // every result that is not an error: clients that check (the
        // Python SDK does) would refuse it. So it is an error here; the
        // model reads the same `approval_required` text.
        is_error: is_error(outcome) || matches!(outcome, Outcome::ApprovalRequired(_)),
    }
}
