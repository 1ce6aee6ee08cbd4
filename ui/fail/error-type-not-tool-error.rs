// A tool fails with ToolError: another error type converts with `?`.
use toolgate::tool;

/// Parse a number.
#[tool(effect = read)]
fn parse(text: String) -> Result<u32, String> {
    text.parse::<u32>().map_err(|e| e.to_string())
}

fn main() {}
