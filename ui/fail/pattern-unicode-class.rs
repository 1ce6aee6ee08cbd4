// The user wrote `\p{L}`: Unicode classes differ between the server and ECMA-262.
use toolgate::{tool, ToolError};

/// Rename a person.
#[tool(effect = write)]
fn rename_person(#[garde(pattern(r"^\p{L}+$"))] name: String) -> Result<String, ToolError> {
    Ok(name)
}

fn main() {}
