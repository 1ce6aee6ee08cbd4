// The body returns a bare String, not Result<T, ToolError>.
use toolgate::tool;

/// Greet someone.
#[tool(effect = read)]
fn greet(name: String) -> String {
    name
}

fn main() {}
