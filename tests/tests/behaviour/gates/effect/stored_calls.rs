//! A stored call runs only against the contract it was made for.

use serde_json::value::RawValue;
use toolgate::{Code, StoredCall, ToolContext, Toolbox};
use toolgate_examples::hotel::BookHotel;

use crate::common::block_on;
use crate::common::tools::{Risky, Spy};

fn toolbox() -> Toolbox<Spy> {
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox.register(Risky).unwrap();
    toolbox
}

fn ctx() -> ToolContext {
    ToolContext::new("u", "t", "r").allow_all_tools()
}

fn stored(arguments: &str) -> StoredCall {
    StoredCall::new(
        Risky::definition(),
        RawValue::from_string(arguments.to_owned()).unwrap(),
    )
}

#[test]
fn a_stored_call_survives_serialization_and_runs() {
    let text = serde_json::to_string(&stored(r#"{"mode":"ok"}"#)).unwrap();
    let call: StoredCall = serde_json::from_str(&text).unwrap();
    let outcome = block_on(toolbox().call_stored(&ctx(), &call));
    assert_eq!(outcome.value(), Some(&serde_json::json!("u did ok")));
}

#[test]
fn another_version_or_fingerprint_never_runs() {
    let toolbox = toolbox();
    let mut old_version = stored(r#"{"mode":"ok"}"#);
    old_version.version = 1;
    let mut other_schema = stored(r#"{"mode":"ok"}"#);
    other_schema.fingerprint = "sha256:0000".to_owned();
    for call in [old_version, other_schema] {
        let outcome = block_on(toolbox.call_stored(&ctx(), &call));
        let rejection = outcome.rejection().expect("refused");
        assert_eq!(rejection.code(), Code::VersionMismatch);
        assert!(!rejection.is_retryable());
        assert_eq!(
            rejection.safe_message(),
            "this call was made for another version of risky; the current one is version 2. Make the call again."
        );
    }
    assert_eq!(toolbox.state().count(), 0);
}

#[test]
fn stored_arguments_pass_every_gate_again() {
    let toolbox = toolbox();
    let outcome =
        block_on(toolbox.call_stored(&ctx(), &stored(r#"{"mode":"ok","mode":"reject"}"#)));
    assert_eq!(
        outcome.rejection().map(|r| r.code()),
        Some(Code::DuplicateKey)
    );
    let outcome = block_on(toolbox.call_stored(&ctx(), &stored(r#"{"mode":""}"#)));
    assert_eq!(
        outcome.rejection().map(|r| r.code()),
        Some(Code::InvalidLength)
    );
    assert_eq!(toolbox.state().count(), 0);
}

#[test]
fn a_stored_call_is_admitted_like_a_new_one() {
    let outcome = block_on(toolbox().call_stored(
        &ToolContext::new("u", "t", "r"),
        &stored(r#"{"mode":"ok"}"#),
    ));
    assert_eq!(
        outcome.rejection().map(|r| r.code()),
        Some(Code::NotPermitted)
    );
}

#[test]
fn the_fingerprint_is_stable() {
    // Pinned: any change to the book_hotel contract, to schema generation or
    // to the canonical form shows up here. A doc comment change does not.
    assert_eq!(
        BookHotel::definition().fingerprint(),
        "sha256:e817afb785167d7fb7070617078f9c6bfdf984eb2ecf4dc6691a56dd2935e8f1"
    );
}
