// A negative bound on an unsigned field.
use toolgate::{tool, ToolError};

/// Set the volume.
#[tool(effect = write)]
fn set_volume(#[garde(range(min = -10, max = 10))] level: u32) -> Result<u32, ToolError> {
    Ok(level)
}

fn main() {}
