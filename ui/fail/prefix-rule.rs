// `prefix` has no JSON Schema keyword; the error spells the pattern that
// states it, its text escaped.
use toolgate::{tool, ToolError};

/// Look up a ticket.
#[tool(effect = read)]
fn ticket(#[garde(prefix("T."))] id: String) -> Result<String, ToolError> {
    Ok(id)
}

fn main() {}
