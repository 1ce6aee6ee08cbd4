// garde's `ascii` has no JSON Schema keyword: the server would refuse
// what the published schema lets a model send. The error says which
// pattern states it in both.
use toolgate::{tool, ToolError};

/// Leave a note.
#[tool(effect = write)]
fn leave_note(#[garde(ascii)] note: String) -> Result<String, ToolError> {
    Ok(note)
}

fn main() {}
