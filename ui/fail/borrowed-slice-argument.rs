// `&[T]` looks like a model argument.
use toolgate::{tool, ToolError};

/// Add numbers.
#[tool(effect = read)]
fn add(items: &[u32]) -> Result<u32, ToolError> {
    Ok(items.iter().sum())
}

fn main() {}
