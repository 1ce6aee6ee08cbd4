// The effect written without its key: one error, not also "add `effect`".
use toolgate::{tool, ToolError};

/// Read the weather.
#[tool(read)]
fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
