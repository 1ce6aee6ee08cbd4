// The user asked for the context twice.
use toolgate::{tool, ToolContext, ToolError};

/// Who am I?
#[tool(effect = read)]
fn whoami(ctx: &ToolContext, again: &ToolContext) -> Result<String, ToolError> {
    Ok(format!("{}{}", ctx.actor(), again.actor()))
}

fn main() {}
