// A pattern that is not a regular expression: one error, on the pattern.
use toolgate::{tool, ToolError};

/// Look up a code.
#[tool(effect = read)]
fn lookup(#[garde(pattern(r"^[a-z+$"))] code: String) -> Result<String, ToolError> {
    Ok(code)
}

fn main() {}
