// The user took trusted context under other spellings: camel case, a dash,
// upper case with a trailing space. Each is compared without case, `_`,
// `-` or white space.
use toolgate::{tool, ToolError};

/// List invoices.
#[tool(effect = read)]
fn list_invoices(
    #[allow(non_snake_case)] tenantId: String,
    #[serde(rename = "user-id")] who: String,
    #[serde(rename = "ACTOR_ID ")] by: String,
) -> Result<String, ToolError> {
    Ok(format!("{tenantId}{who}{by}"))
}

fn main() {}
