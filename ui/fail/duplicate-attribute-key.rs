// The user gave `version` twice; toolgate never picks one silently.
use toolgate::{tool, ToolError};

/// Read the weather.
#[tool(effect = read, version = 2, version = 3)]
fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
