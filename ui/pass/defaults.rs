// A parameter with a default may be left out or sent as null.
use toolgate::{tool, ToolError};

fn two() -> u8 {
    2
}

/// Book a room.
#[tool(effect = write)]
fn book(
    #[serde(default = "two")]
    #[garde(range(min = 1, max = 30))]
    nights: u8,
    #[serde(default)] note: String,
    #[serde(default, rename = "breakfastIncluded")] breakfast: bool,
) -> Result<String, ToolError> {
    Ok(format!("{nights} {note} {breakfast}"))
}

fn main() {
    let schema = Book::definition().schema();
    assert_eq!(schema["properties"]["nights"]["default"], 2);
    assert_eq!(schema["properties"]["note"]["default"], "");
    assert_eq!(schema["properties"]["breakfastIncluded"]["default"], false);
    assert!(schema.get("required").is_none_or(|r| r.as_array().unwrap().is_empty()), "{schema}");
}
