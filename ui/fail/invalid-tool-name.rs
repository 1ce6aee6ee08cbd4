// The user named the tool with a space, which providers reject.
use toolgate::{tool, ToolError};

/// Read the weather.
#[tool(name = "get weather", effect = read)]
fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
