// The user wrote `\b`: a Unicode word boundary on the server, an ASCII one in ECMA-262.
use toolgate::{tool, ToolError};

/// Tag a note.
#[tool(effect = write)]
fn tag_note(#[garde(pattern(r"\bnote\b"))] tag: String) -> Result<String, ToolError> {
    Ok(tag)
}

fn main() {}
