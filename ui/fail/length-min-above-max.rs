// A rule no value can meet.
use toolgate::{tool, ToolError};

/// Echo a code.
#[tool(effect = read)]
fn echo(#[garde(length(chars, min = 10, max = 3))] code: String) -> Result<String, ToolError> {
    Ok(code)
}

fn main() {}
