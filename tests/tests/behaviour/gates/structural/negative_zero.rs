//! Gate 2 reads `-0` as the integer 0 by rewriting it to ` 0`; inside a
//! string, after an escaped quote, `-0` is text and stays as sent.

use serde_json::json;
use toolgate::{Outcome, ToolContext, ToolError, Toolbox, tool};

use crate::common::block_on;

fn call<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str, args: &str) -> Outcome {
    let ctx = ToolContext::new("u", "t", "r").allow_all_tools();
    block_on(toolbox.call(&ctx, tool, args))
}

/// Echo a note and a count.
#[tool(effect = read)]
pub fn echo_note(note: String, count: i32) -> Result<String, ToolError> {
    Ok(format!("{note}|{count}"))
}

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
