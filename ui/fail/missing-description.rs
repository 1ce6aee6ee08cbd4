// No doc comment and no description: the model would not know what the tool does.
use toolgate::{tool, ToolError};

#[tool(effect = read)]
fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

fn main() {}
