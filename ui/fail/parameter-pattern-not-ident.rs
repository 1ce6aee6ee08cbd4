// The user destructured a model argument; its name is the field the model sends.
use toolgate::{tool, ToolError};

/// Move a marker.
#[tool(effect = write)]
fn move_marker((x, y): (i32, i32)) -> Result<i32, ToolError> {
    Ok(x + y)
}

fn main() {}
