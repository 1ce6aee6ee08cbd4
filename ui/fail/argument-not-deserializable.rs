// A model argument's type has no `Deserialize`: the model's JSON cannot be read into it.
use toolgate::{tool, ToolError};

#[derive(schemars::JsonSchema)]
struct Money {
    cents: u64,
}

/// Pay someone.
#[tool(effect = irreversible)]
fn pay(amount: Money) -> Result<u64, ToolError> {
    Ok(amount.cents)
}

fn main() {}
