//! Gate 3's rejections name a field as the published schema does: by its
//! wire name, and a rule in the schema's own words.

use schemars::JsonSchema;
use serde::Deserialize;
use toolgate::{Code, Outcome, ToolContext, ToolError, Toolbox, tool};

use crate::common::block_on;

fn call<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str, args: &str) -> Outcome {
    let ctx = ToolContext::new("u", "t", "r").allow_all_tools();
    block_on(toolbox.call(&ctx, tool, args))
}

fn refusal(outcome: &Outcome) -> (Code, &str, String) {
    let r = outcome.rejection().expect("refused");
    (r.code(), r.path(), r.safe_message().to_owned())
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
