// A generic tool would need one schema per type; the model needs exactly one.
use toolgate::{tool, ToolError};

/// Echo a value.
#[tool(effect = read)]
fn echo<T: serde::de::DeserializeOwned>(value: T) -> Result<String, ToolError> {
    let _ = value;
    Ok(String::new())
}

fn main() {}
