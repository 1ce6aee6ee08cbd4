// A length rule on a type that has no length.
use toolgate::{tool, ToolError};

/// Count to a number.
#[tool(effect = read)]
fn count(#[garde(length(max = 3))] n: u32) -> Result<u32, ToolError> {
    Ok(n)
}

fn main() {}
