// `required` is for an `Option` (present and not null); any other
// argument is always required.
use toolgate::{tool, ToolError};

/// Count.
#[tool(effect = read)]
fn count(#[garde(required)] up_to: u32) -> Result<u32, ToolError> {
    Ok(up_to)
}

fn main() {}
