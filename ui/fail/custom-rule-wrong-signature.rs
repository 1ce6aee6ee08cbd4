// A custom rule without garde's context parameter: the error says the
// signature a custom rule has.
use toolgate::{tool, ToolError};

fn even(value: &u32) -> garde::Result {
    if value % 2 == 0 {
        Ok(())
    } else {
        Err(garde::Error::new("must be even"))
    }
}

/// Count in pairs.
#[tool(effect = read)]
fn count(#[garde(custom(even))] pairs: u32) -> Result<u32, ToolError> {
    Ok(pairs)
}

fn main() {}
