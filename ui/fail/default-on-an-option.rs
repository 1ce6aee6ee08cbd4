// An Option is optional already: a default would mean nothing more.
use toolgate::{tool, ToolError};

/// Book a room.
#[tool(effect = write)]
fn book(#[serde(default)] nights: Option<u8>) -> Result<u8, ToolError> {
    Ok(nights.unwrap_or(1))
}

fn main() {}
