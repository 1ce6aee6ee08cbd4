// An empty scope: no caller holds it, or every caller does.
use toolgate::{tool, ToolError};

/// Read the weather.
#[tool(effect = read, scope = "")]
fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
