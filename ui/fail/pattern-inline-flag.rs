// The user wrote `(?s)`: ECMA-262 has no inline flags.
use toolgate::{tool, ToolError};

/// Save a note.
#[tool(effect = write)]
fn save_note(#[garde(pattern(r"(?s)^.{1,80}$"))] text: String) -> Result<String, ToolError> {
    Ok(text)
}

fn main() {}
