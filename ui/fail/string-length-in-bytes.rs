// The user asked garde to count bytes; the schema's maxLength counts characters.
use toolgate::{tool, ToolError};

/// Rename a project.
#[tool(effect = write)]
fn rename_project(#[garde(length(bytes, max = 64))] title: String) -> Result<String, ToolError> {
    Ok(title)
}

fn main() {}
