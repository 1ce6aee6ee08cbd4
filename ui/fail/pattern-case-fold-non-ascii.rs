// The user folded case with a non-ASCII letter: Unicode case folding differs between the dialects.
use toolgate::{tool, ToolError};

/// Order a drink.
#[tool(effect = write)]
fn order_drink(#[garde(pattern(r"(?i)^café$"))] drink: String) -> Result<String, ToolError> {
    Ok(drink)
}

fn main() {}
