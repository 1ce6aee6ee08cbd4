// The schema states a default, so its type must serialize.
use toolgate::{tool, ToolError};

#[derive(Default, serde::Deserialize, schemars::JsonSchema, Debug)]
pub enum Speed {
    #[default]
    Standard,
    Express,
}

/// Ship a parcel.
#[tool(effect = write)]
fn ship(#[serde(default)] speed: Speed) -> Result<String, ToolError> {
    Ok(format!("{speed:?}"))
}

fn main() {}
