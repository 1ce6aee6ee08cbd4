// The context borrowed mutably: it is the caller's identity, read only.
use toolgate::{tool, ToolContext, ToolError};

/// Who am I?
#[tool(effect = read)]
fn whoami(ctx: &mut ToolContext) -> Result<String, ToolError> {
    Ok(ctx.actor().to_owned())
}

fn main() {}
