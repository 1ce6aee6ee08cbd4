// The validator crate's attribute, out of habit: garde's is the one the
// server applies and the schema states.
use toolgate::{tool, ToolError};

/// Leave a note.
#[tool(effect = write)]
fn leave_note(#[validate(length(min = 1, max = 280))] note: String) -> Result<String, ToolError> {
    Ok(note)
}

fn main() {}
