// A fraction as the bound of a whole-number field.
use toolgate::{tool, ToolError};

/// Set the volume.
#[tool(effect = write)]
fn set_volume(#[garde(range(min = 0.5))] level: u32) -> Result<u32, ToolError> {
    Ok(level)
}

fn main() {}
