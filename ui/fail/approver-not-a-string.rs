// The approver is an actor id: a string, or an `Option` of one.
use toolgate::{tool, ToolError};

/// Close the books.
#[tool(effect = irreversible, approver = 42)]
fn close_books(year: u16) -> Result<u16, ToolError> {
    Ok(year)
}

fn main() {}
