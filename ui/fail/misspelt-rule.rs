// A misspelt rule: named, with the rule meant.
use toolgate::{tool, ToolError};

/// Leave a note.
#[tool(effect = write)]
fn leave_note(#[garde(lenght(max = 280))] note: String) -> Result<String, ToolError> {
    Ok(note)
}

fn main() {}
