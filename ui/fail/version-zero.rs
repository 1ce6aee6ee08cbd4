// Contract versions start at 1.
use toolgate::{tool, ToolError};

/// Read the weather.
#[tool(effect = read, version = 0)]
fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
