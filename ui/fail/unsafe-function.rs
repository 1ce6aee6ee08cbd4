// An unsafe function: a model's call cannot uphold its contract.
use toolgate::{tool, ToolError};

/// Read a byte.
#[tool(effect = read)]
unsafe fn peek(offset: u32) -> Result<u32, ToolError> {
    Ok(offset)
}

fn main() {}
