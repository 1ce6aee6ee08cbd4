// `dive` into a type that has no garde rules: said on the type, with the
// fix, rather than as garde's unsatisfied bound on the attribute.
use toolgate::{tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Window {
    pub days: u32,
}

/// Export a window.
#[tool(effect = read)]
fn export(#[garde(dive)] window: Window) -> Result<u32, ToolError> {
    Ok(window.days)
}

fn main() {}
