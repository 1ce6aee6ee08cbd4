// The same rule in two attributes: one `length` with both bounds.
use toolgate::{tool, ToolError};

/// Leave a note.
#[tool(effect = write)]
fn leave_note(
    #[garde(length(min = 1))]
    #[garde(length(max = 280))]
    note: String,
) -> Result<String, ToolError> {
    Ok(note)
}

fn main() {}
