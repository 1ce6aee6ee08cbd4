// `business_fields` names a parameter the tool does not have (a typo).
use toolgate::{tool, ToolError};

/// Look up a user's orders (an admin tool).
#[tool(effect = read, business_fields = ["user_idd"])]
fn orders_of(user_id: String) -> Result<String, ToolError> {
    Ok(user_id)
}

fn main() {}
