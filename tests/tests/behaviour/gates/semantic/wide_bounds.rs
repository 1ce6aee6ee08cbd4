//! Bounds as large as the field's type mean the same to the schema and
//! to gate 3.

use toolgate::{Code, Outcome, ToolContext, ToolError, Toolbox, tool};

use crate::common::block_on;

fn ctx() -> ToolContext {
    ToolContext::new("user_7", "tenant_a", "req_1").allow_all_tools()
}

fn call<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    ctx: &ToolContext,
    tool: &str,
    args: &str,
) -> Outcome {
    block_on(toolbox.call(ctx, tool, args))
}

/// Take a count past `i32`.
#[tool(effect = read)]
fn big_count(
    #[garde(range(min = 3_000_000_000, max = 4_000_000_000))] count: u32,
) -> Result<u32, ToolError> {
    Ok(count)
}

#[test]
fn a_bound_past_i32_means_the_same_to_the_schema_and_the_server() {
    let schema = BigCount::definition().schema();
    assert_eq!(schema["properties"]["count"]["minimum"], 3_000_000_000u64);
    assert_eq!(schema["properties"]["count"]["maximum"], 4_000_000_000u64);
    let mut toolbox = Toolbox::new(());
    toolbox.register(BigCount).unwrap();
    let ok = call(&toolbox, &ctx(), "big_count", r#"{"count":4000000000}"#);
    assert_eq!(ok.value(), Some(&serde_json::json!(4_000_000_000u64)));
    let low = call(&toolbox, &ctx(), "big_count", r#"{"count":2999999999}"#);
    assert_eq!(low.rejection().map(|r| r.code()), Some(Code::OutOfRange));
}
