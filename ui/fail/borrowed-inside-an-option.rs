// A borrowed type inside a model argument: the model's JSON is read into
// owned values.
use toolgate::{tool, ToolError};

/// Greet someone, or everyone.
#[tool(effect = read)]
fn greet(name: Option<&str>) -> Result<String, ToolError> {
    Ok(format!("hello {}", name.unwrap_or("everyone")))
}

fn main() {}
