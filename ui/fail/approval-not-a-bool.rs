use toolgate::{tool, ToolError};

/// Pay someone.
#[tool(effect = write, approval = "when large")]
fn pay(#[garde(range(min = 1, max = 100))] amount: u32) -> Result<u32, ToolError> {
    Ok(amount)
}

fn main() {}
