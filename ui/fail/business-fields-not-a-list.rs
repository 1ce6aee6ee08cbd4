// `business_fields` written as one string: its error, and no second one
// for the field it meant to allow.
use toolgate::{tool, ToolError};

/// Look up a user, for an administrator.
#[tool(effect = read, business_fields = "user_id")]
fn look_up_user(user_id: String) -> Result<String, ToolError> {
    Ok(user_id)
}

fn main() {}
