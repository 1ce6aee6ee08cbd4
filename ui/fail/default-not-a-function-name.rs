// A default written as the value: serde's `default = "…"` names a function.
use toolgate::{tool, ToolError};

/// Book a room.
#[tool(effect = write)]
fn book(#[serde(default = 2)] nights: u8) -> Result<u8, ToolError> {
    Ok(nights)
}

fn main() {}
