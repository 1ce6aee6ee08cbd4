// The schema holds one `pattern` per value: with `pattern` and `contains`
// both, it would publish one and the server enforce both.
use toolgate::{tool, ToolError};

/// Look up a ticket.
#[tool(effect = read)]
fn ticket(
    #[garde(pattern(r"^T-[0-9]+$"))]
    #[garde(contains("7"))]
    id: String,
) -> Result<String, ToolError> {
    Ok(id)
}

fn main() {}
