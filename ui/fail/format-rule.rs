// garde's `email` reaches the schema only as `format: email`, which
// validators and providers treat as a hint.
use toolgate::{tool, ToolError};

/// Invite a colleague.
#[tool(effect = write)]
fn invite(#[garde(email)] address: String) -> Result<String, ToolError> {
    Ok(address)
}

fn main() {}
