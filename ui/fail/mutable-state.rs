// Injected parameters are shared: many calls may run at once.
use toolgate::{tool, ToolError};

struct Counter(u64);

/// Count.
#[tool(effect = write)]
fn count(counter: &mut Counter) -> Result<u64, ToolError> {
    counter.0 += 1;
    Ok(counter.0)
}

fn main() {}
