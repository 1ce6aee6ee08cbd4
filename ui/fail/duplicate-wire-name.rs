// Two parameters renamed to one wire name.
use toolgate::{tool, ToolError};

/// Add two numbers.
#[tool(effect = read)]
fn add(a: u32, #[serde(rename = "a")] b: u32) -> Result<u32, ToolError> {
    Ok(a + b)
}

fn main() {}
