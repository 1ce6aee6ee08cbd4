// Bounds are read as the field's own number type, whatever their size.
use toolgate::{tool, ToolError};

/// Take numbers.
#[tool(effect = read)]
fn numbers(
    #[garde(range(max = 4_000_000_000))] unsigned: u32,
    #[garde(range(min = -9_000_000_000, max = 9_000_000_000))] signed: i64,
    #[garde(range(min = 1, max = 2.5))] real: f64,
    #[garde(range(max = 18_000_000_000_000_000_000))] big: Option<u64>,
) -> Result<String, ToolError> {
    Ok(format!("{unsigned} {signed} {real} {big:?}"))
}

fn main() {
    let schema = Numbers::definition().schema();
    assert_eq!(schema["properties"]["unsigned"]["maximum"], 4_000_000_000u64);
    assert_eq!(schema["properties"]["signed"]["minimum"], -9_000_000_000i64);
    assert_eq!(schema["properties"]["real"]["maximum"], 2.5);
}
