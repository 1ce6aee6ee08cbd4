//! Calls that kill mutants which survived the rest of the suite (see
//! MUTATION.md): each test names the gate and the behaviour it pins.

mod common;

use common::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate::{Code, Limits, Outcome, ToolContext, ToolError, Toolbox, tool};

fn call<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str, args: &str) -> Outcome {
    let ctx = ToolContext::new("u", "t", "r").allow_all_tools();
    block_on(toolbox.call(&ctx, tool, args))
}

fn refusal(outcome: &Outcome) -> (Code, &str, String) {
    let r = outcome.rejection().expect("refused");
    (r.code(), r.path(), r.safe_message().to_owned())
}

/// Echo a note and a count.
#[tool(effect = read)]
pub fn echo_note(note: String, count: i32) -> Result<String, ToolError> {
    Ok(format!("{note}|{count}"))
}

// Gate 2 reads `-0` as the integer 0 by rewriting it to ` 0`; inside a
// string, after an escaped quote, `-0` is text and stays as sent.
#[test]
fn negative_zero_is_rewritten_outside_strings_only() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(EchoNote).unwrap();
    let outcome = call(
        &toolbox,
        "echo_note",
        r#"{"note":"say \"-0\" -0","count":-0}"#,
    );
    assert_eq!(
        outcome.value(),
        Some(&json!("say \"-0\" -0|0")),
        "{outcome:?}"
    );
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Stay {
    /// The hotel, as `h_` and eight letters or digits.
    #[serde(rename = "id")]
    #[garde(pattern(r"^h_[a-z0-9]{8}$"))]
    pub hotel_code: String,
    #[garde(range(min = 1, max = 30))]
    pub nights: u8,
}

/// Book a stay.
#[tool(effect = read)]
pub fn book_stay(#[garde(dive)] stay: Stay) -> Result<u8, ToolError> {
    Ok(stay.nights)
}

// Gate 3: garde names the Rust field `hotel_code`; serde renamed it inside
// a nested type, where the macro records no rename. The wire name is the
// one property whose schema states the rule that failed: a pattern.
#[test]
fn a_renamed_nested_field_is_found_by_the_pattern_its_schema_states() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(BookStay).unwrap();
    let outcome = call(&toolbox, "book_stay", r#"{"stay":{"id":"h_1","nights":2}}"#);
    assert_eq!(
        refusal(&outcome),
        (
            Code::PatternMismatch,
            "/stay/id",
            "stay/id must match the pattern ^h_[a-z0-9]{8}$".to_owned()
        )
    );
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Peer {
    /// The peer's IPv4 address.
    #[schemars(extend("format" = "ipv4"))]
    #[garde(ipv4)]
    pub address: String,
}

/// Ping a peer.
#[tool(effect = read)]
pub fn ping_peer(#[garde(dive)] peer: Peer) -> Result<(), ToolError> {
    let _ = peer;
    Ok(())
}

// Gate 3: a format the schema states is said in the schema's words, not
// garde's ("a valid IPv4 address").
#[test]
fn a_format_the_schema_states_is_named_as_the_schema_names_it() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(PingPeer).unwrap();
    let outcome = call(
        &toolbox,
        "ping_peer",
        r#"{"peer":{"address":"not an address"}}"#,
    );
    assert_eq!(
        refusal(&outcome),
        (
            Code::InvalidFormat,
            "/peer/address",
            "peer/address must be a valid ipv4".to_owned()
        )
    );
}

// Gate 0: a toolbox's Debug names its limits and tools, never its state.
#[test]
fn a_toolbox_debugs_as_its_limits_and_tool_names() {
    let mut toolbox = Toolbox::new(()).with_limits(Limits::default().max_depth(3));
    toolbox.register(EchoNote).unwrap();
    let text = format!("{toolbox:?}");
    assert!(text.starts_with("Toolbox {"), "{text}");
    assert!(text.contains("depth: 3"), "{text}");
    assert!(text.contains("tools: [\"echo_note\"]"), "{text}");
}

// A definition compares equal to its copy: the compiled shape is derived
// from the schema, which the comparison already covers.
#[test]
fn a_definition_equals_its_copy() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(EchoNote).unwrap();
    let definition = toolbox.definition("echo_note").expect("registered");
    assert_eq!(definition.clone(), *definition);
}
