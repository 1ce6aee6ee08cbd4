// A default would let the model omit a field the contract says is required.
use toolgate::{tool, ToolError};

/// Book a room.
#[tool(effect = write)]
fn book(#[serde(default)] nights: u8) -> Result<u8, ToolError> {
    Ok(nights)
}

fn main() {}
