// A tool that takes no state joins a toolbox of any state type.
use toolgate::{tool, ToolError, Toolbox};

/// Add two numbers.
#[tool(effect = read)]
pub fn add(a: i64, b: i64) -> Result<i64, ToolError> {
    Ok(a + b)
}

struct One;
struct Two;

fn main() {
    Toolbox::new(One).register(Add).unwrap();
    Toolbox::new(Two).register(Add).unwrap();
}
