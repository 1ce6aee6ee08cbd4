// `skip` turns the argument's rules off, while another attribute gives it
// one: garde's own error would be followed by a missing `Validate`.
use toolgate::{tool, ToolError};

/// Leave a note.
#[tool(effect = write)]
fn leave_note(
    #[garde(skip)]
    #[garde(length(max = 280))]
    note: String,
) -> Result<String, ToolError> {
    Ok(note)
}

fn main() {}
