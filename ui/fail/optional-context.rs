// The context is always there: an `Option` of it means nothing.
use toolgate::{tool, ToolContext, ToolError};

/// Who am I?
#[tool(effect = read)]
fn whoami(ctx: Option<&ToolContext>) -> Result<String, ToolError> {
    Ok(ctx.map(|c| c.actor().to_owned()).unwrap_or_default())
}

fn main() {}
