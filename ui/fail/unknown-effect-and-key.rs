// Two wrong keys: each reported once, on its own token.
use toolgate::{tool, ToolError};

/// Read the weather.
#[tool(effect = maybe, colour = "blue")]
fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
