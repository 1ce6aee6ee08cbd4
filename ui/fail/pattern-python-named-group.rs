// The user wrote `(?P<name>…)`, which ECMA-262 does not read.
use toolgate::{tool, ToolError};

/// Set a date.
#[tool(effect = write)]
fn set_date(#[garde(pattern(r"^(?P<year>[0-9]{4})-[0-9]{2}$"))] month: String) -> Result<String, ToolError> {
    Ok(month)
}

fn main() {}
