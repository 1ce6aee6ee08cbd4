// Three mistakes in one tool: each is reported, in one build.
use toolgate::{tool, ToolContext, ToolError};

/// Read the weather.
#[tool(name = "weather!", effect = read, colour = "blue")]
fn weather(ctx: &ToolContext, other: &ToolContext, city: String) -> Result<String, ToolError> {
    Ok(format!("{}{}{city}", ctx.actor(), other.actor()))
}

fn main() {}
