// `&String` looks like a model argument; the macro takes borrowed
// parameters as state, so say what was meant.
use toolgate::{tool, ToolError};

/// Greet someone.
#[tool(effect = read)]
fn greet(name: &String) -> Result<String, ToolError> {
    Ok(name.clone())
}

fn main() {}
