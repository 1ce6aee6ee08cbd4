// A model argument must be owned; borrowed parameters are injected by the server.
use toolgate::{tool, ToolError};

/// Greet someone.
#[tool(effect = read)]
fn greet(name: &str) -> Result<String, ToolError> {
    Ok(name.to_owned())
}

fn main() {}
