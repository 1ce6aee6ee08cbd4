// An effect that does not exist: one error, on it.
use toolgate::{tool, ToolError};

/// Read the weather.
#[tool(effect = maybe)]
fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
