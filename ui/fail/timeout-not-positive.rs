use toolgate::{tool, ToolError};

/// Wait a while.
#[tool(effect = read, timeout_ms = 0)]
fn wait() -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
