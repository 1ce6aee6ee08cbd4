// The context taken by value.
use toolgate::{tool, ToolContext, ToolError};

/// Who am I?
#[tool(effect = read)]
fn whoami(ctx: ToolContext) -> Result<String, ToolError> {
    Ok(ctx.actor().to_owned())
}

fn main() {}
