// A string for a code: say how to declare one.
use toolgate::{tool, ToolError};

/// Take a positive number.
#[tool(effect = read)]
fn positive(n: i64) -> Result<i64, ToolError> {
    if n < 0 {
        return Err(ToolError::reject("NEGATIVE", "the number is negative"));
    }
    Ok(n)
}

fn main() {}
