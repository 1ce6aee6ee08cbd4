// The user put #[tool] on a struct.
use toolgate::tool;

/// Read the weather.
#[tool(effect = read)]
struct Weather {
    city: String,
}

fn main() {}
