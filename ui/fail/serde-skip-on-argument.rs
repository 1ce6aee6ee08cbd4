// The argument struct is closed: serde attributes beyond rename and default
// would change what the schema promises.
use toolgate::{tool, ToolError};

/// Book a room.
#[tool(effect = write)]
fn book(#[serde(skip)] nights: u8) -> Result<u8, ToolError> {
    Ok(nights)
}

fn main() {}
