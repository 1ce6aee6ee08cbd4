// `#[serde(flatten)]` on a parameter: a parameter is one named field.
use toolgate::{tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Window {
    #[garde(range(min = 1, max = 90))]
    pub days: u32,
}

/// Count days.
#[tool(effect = read)]
fn days(#[serde(flatten)] window: Window) -> Result<u32, ToolError> {
    Ok(window.days)
}

fn main() {}
