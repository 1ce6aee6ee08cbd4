// A model argument that borrows for a lifetime of the function's.
use std::borrow::Cow;

use toolgate::{tool, ToolError};

/// Greet someone.
#[tool(effect = read)]
fn greet<'a>(name: Cow<'a, str>) -> Result<String, ToolError> {
    Ok(format!("hello {name}"))
}

fn main() {}
