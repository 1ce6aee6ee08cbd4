// The user put `(?i)` after the start: only a leading `(?i)` can be rewritten.
use toolgate::{tool, ToolError};

/// Find a product.
#[tool(effect = write)]
fn find_product(#[garde(pattern(r"^sku-(?i)[a-z0-9]+$"))] sku: String) -> Result<String, ToolError> {
    Ok(sku)
}

fn main() {}
