// The user put `\W` inside a class: it has no ASCII form there.
use toolgate::{tool, ToolError};

/// Split words.
#[tool(effect = write)]
fn split_words(#[garde(pattern(r"^[\W_]+$"))] separator: String) -> Result<String, ToolError> {
    Ok(separator)
}

fn main() {}
