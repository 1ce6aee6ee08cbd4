// A bound the field's type cannot hold: rustc would say "literal out of
// range" twice, once for garde and once for the schema.
use toolgate::{tool, ToolError};

/// Set the volume.
#[tool(effect = write)]
fn set_volume(#[garde(range(max = 300))] level: u8) -> Result<u8, ToolError> {
    Ok(level)
}

fn main() {}
