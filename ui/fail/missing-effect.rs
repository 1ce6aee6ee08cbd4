// The user did not say what a call can change.
use toolgate::{tool, ToolError};

/// Delete a file.
#[tool(scope = "files:write")]
fn delete_file(path: String) -> Result<String, ToolError> {
    Ok(path)
}

fn main() {}
