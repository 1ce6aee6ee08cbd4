// A range no value can meet.
use toolgate::{tool, ToolError};

/// Take a few nights.
#[tool(effect = read)]
fn stay(#[garde(range(min = 30, max = 1))] nights: u32) -> Result<u32, ToolError> {
    Ok(nights)
}

fn main() {}
