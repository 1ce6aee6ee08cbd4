// `check` is a Result<(), ToolError>: a refusal needs a code and words.
use toolgate::{tool, ToolError};

fn small(n: u32) -> bool {
    n < 10
}

/// Take a small number.
#[tool(effect = read, check = small(n))]
fn take(n: u32) -> Result<u32, ToolError> {
    Ok(n)
}

fn main() {}
