// A bound written as a string.
use toolgate::{tool, ToolError};

/// Count.
#[tool(effect = read)]
fn count(#[garde(range(min = 1, max = "100"))] up_to: u32) -> Result<u32, ToolError> {
    Ok(up_to)
}

fn main() {}
