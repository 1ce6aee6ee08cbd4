// The user misspelled `scope` as `scopes`.
use toolgate::{tool, ToolError};

/// Read the weather.
#[tool(effect = read, scopes = "weather:read")]
fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
