// A range rule on a type it does not apply to.
use toolgate::{tool, ToolError};

/// Greet someone.
#[tool(effect = read)]
fn greet(#[garde(range(min = 1))] name: String) -> Result<String, ToolError> {
    Ok(name)
}

fn main() {}
