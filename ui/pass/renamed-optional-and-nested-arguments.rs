// Renamed fields, optional fields, enums, nested structs with their own rules,
// raw identifiers, and parameter attributes that stay on the function.
use serde::Deserialize;
use schemars::JsonSchema;
use toolgate::{tool, ToolError};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Csv,
    Jsonl,
}

#[derive(Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Window {
    #[garde(range(min = 1, max = 90))]
    pub days: u16,
}

/// Export rows.
#[tool(effect = read, description = "Export rows of the caller's account.")]
pub fn export(
    /// Which account.
    #[serde(rename = "accountRef")]
    #[garde(length(min = 1, max = 64))]
    account_ref: String,
    format: Format,
    #[garde(dive)] window: Window,
    #[garde(inner(length(min = 1, max = 20)))] columns: Vec<String>,
    note: Option<String>,
    r#type: Option<u8>,
    #[allow(unused_mut)] mut limit: u32,
) -> Result<usize, ToolError> {
    let _ = (format, window, note, r#type);
    Ok(account_ref.len() + columns.len() + limit as usize)
}

fn main() {
    let schema = Export::definition().schema();
    assert!(schema["properties"]["accountRef"].is_object());
    assert!(schema["properties"]["type"].is_object());
    assert_eq!(
        Export::definition().description(),
        "Export rows of the caller's account."
    );
}
