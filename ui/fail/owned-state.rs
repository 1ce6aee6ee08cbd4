// The state taken by value: it reads as a model argument, which it is not.
use toolgate::{tool, ToolError};

pub struct Counter(u64);

/// Count.
#[tool(effect = write)]
fn count(counter: Counter) -> Result<u64, ToolError> {
    Ok(counter.0)
}

fn main() {}
