// A result the server cannot write as JSON.
use toolgate::{tool, ToolError};

pub struct Booking {
    pub id: u64,
}

/// Book.
#[tool(effect = write)]
fn book(nights: u32) -> Result<Booking, ToolError> {
    Ok(Booking { id: u64::from(nights) })
}

fn main() {}
