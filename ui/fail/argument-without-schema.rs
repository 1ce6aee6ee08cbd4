// A model argument's type has no `JsonSchema`: the model could not be told its shape.
use toolgate::{tool, ToolError};

#[derive(serde::Deserialize)]
struct Money {
    cents: u64,
}

/// Pay someone.
#[tool(effect = irreversible)]
fn pay(amount: Money) -> Result<u64, ToolError> {
    Ok(amount.cents)
}

fn main() {}
