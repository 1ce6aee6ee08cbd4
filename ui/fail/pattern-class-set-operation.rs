// The user wrote a class set operation, which only Rust reads.
use toolgate::{tool, ToolError};

/// Pick a consonant.
#[tool(effect = write)]
fn pick_consonant(#[garde(pattern(r"^[a-z&&[^aeiou]]$"))] letter: String) -> Result<String, ToolError> {
    Ok(letter)
}

fn main() {}
