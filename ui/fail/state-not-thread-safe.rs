// The state is shared by concurrent calls, so it must be Send + Sync.
use std::cell::Cell;
use toolgate::{tool, ToolError};

struct Counter {
    calls: Cell<u64>,
}

/// Count calls.
#[tool(effect = write)]
fn count(counter: &Counter) -> Result<u64, ToolError> {
    counter.calls.set(counter.calls.get() + 1);
    Ok(counter.calls.get())
}

fn main() {}
