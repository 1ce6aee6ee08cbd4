//! Every provider's dialect: export a tool's definition in the exact envelope
//! each provider expects, read the provider's tool calls back without a
//! second, looser parse, and render an [`Outcome`](crate::Outcome) in each
//! provider's result shape.
//!
//! | provider | export | import | render |
//! |---|---|---|---|
//! | OpenAI Chat Completions | [`openai::chat_tool`] | [`openai::chat_tool_calls`] | [`openai::chat_tool_message`] |
//! | OpenAI Responses | [`openai::responses_tool`] | [`openai::responses_function_call`] | [`openai::responses_output`] |
//! | Anthropic Messages | [`anthropic::tool`], [`anthropic::tools`] (a request's set, with its limits) | [`anthropic::tool_use`] | [`anthropic::tool_result`] |
//! | Gemini | [`gemini::function_declaration`], [`gemini::legacy_function_declaration`] | [`gemini::function_call`] | [`gemini::function_response`] |
//! | MCP | [`mcp::tool`] | [`mcp::call_params`] | [`mcp::call_tool_result`] |
//!
//! Exports are pure transforms of the canonical draft 2020-12 schema. A
//! constraint a dialect cannot express is removed from that dialect's schema
//! and stated in the description ("Server checks: …"); the server keeps
//! enforcing it. A schema a dialect cannot represent at all is an
//! [`ExportError`] naming the tool, the field and the reason: never a
//! schema that means something else, such as a map (`HashMap`) closed into
//! an empty object in a strict dialect.

use std::borrow::Cow;
use std::fmt;

use serde_json::value::RawValue;

use crate::Arguments;

pub mod anthropic;
pub mod gemini;
pub mod mcp;
pub mod openai;

mod dialect;

/// Whether the provider is asked to constrain the model's output to the
/// schema (`"strict": true`). Strict schemas follow stricter rules; toolgate
/// enforces every rule on the server either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// `"strict": true`: the provider constrains generation to the schema.
    Strict,
    /// `"strict": false`: the schema guides the model.
    NonStrict,
}

/// A tool call read from a provider's response: the id to answer with, the
/// tool's name, and the argument JSON exactly as the model wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall<'a> {
    /// The provider's id for the call, echoed in the result (absent in
    /// older Gemini responses and in MCP, where the JSON-RPC id serves).
    pub id: Option<Cow<'a, str>>,
    /// The tool name the model chose.
    pub name: Cow<'a, str>,
    /// The argument JSON, unparsed: it goes through the bounded parse.
    pub arguments: Cow<'a, str>,
}

impl ToolCall<'_> {
    /// The arguments, for [`Toolbox::call`](crate::Toolbox::call).
    pub fn arguments(&self) -> Arguments<'_> {
        Arguments::from(self.arguments.as_ref())
    }
}

pub(crate) fn raw_arguments<'a>(raw: Option<&'a RawValue>) -> Cow<'a, str> {
    Cow::Borrowed(raw.map_or("{}", RawValue::get))
}

/// A provider envelope that could not be read.
#[derive(Debug)]
pub struct ImportError(serde_json::Error);

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a tool call in the provider's shape: {}", self.0)
    }
}

impl std::error::Error for ImportError {}

impl From<serde_json::Error> for ImportError {
    fn from(error: serde_json::Error) -> Self {
        ImportError(error)
    }
}

/// A tool's schema cannot be represented in a provider's dialect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportError {
    /// The tool.
    pub tool: &'static str,
    /// The dialect, such as `"openai (strict)"`.
    pub dialect: &'static str,
    /// Why, in words.
    pub reason: String,
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` cannot be exported to {}: {}",
            self.tool, self.dialect, self.reason
        )
    }
}

impl std::error::Error for ExportError {}

/// The outcome as the text a provider passes to the model.
pub(crate) fn outcome_text(outcome: &crate::Outcome) -> String {
    serde_json::to_string(outcome).unwrap_or_default()
}

/// Whether the model should read the outcome as an error: a rejection or
/// a failure, now or in the call a replay repeats. A call waiting for
/// approval is not one.
pub(crate) fn is_error(outcome: &crate::Outcome) -> bool {
    use crate::Outcome;
    match outcome {
        Outcome::Done(_) | Outcome::ApprovalRequired(_) => false,
        Outcome::Replayed(stored) => !matches!(
            stored.get("status").and_then(serde_json::Value::as_str),
            Some("done")
        ),
        _ => true,
    }
}
