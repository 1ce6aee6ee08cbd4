// `impl Trait` as a model argument's type: the schema needs one type.
use toolgate::{tool, ToolError};

/// Echo a greeting.
#[tool(effect = read)]
fn greet(name: impl Into<String>) -> Result<String, ToolError> {
    Ok(format!("hello {}", name.into()))
}

fn main() {}
