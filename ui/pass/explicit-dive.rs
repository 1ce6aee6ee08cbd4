// `#[garde(dive)]` written out on a parameter whose type has rules: the
// same as leaving it out (nested rules always run).
use toolgate::{tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Window {
    #[garde(range(min = 1, max = 90))]
    pub days: u32,
}

/// Count days.
#[tool(effect = read)]
fn days(#[garde(dive)] window: Window) -> Result<u32, ToolError> {
    Ok(window.days)
}

fn main() {
    let _ = Days::definition();
}
