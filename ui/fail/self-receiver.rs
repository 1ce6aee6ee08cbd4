// The user put #[tool] on a method.
use toolgate::{tool, ToolError};

struct Weather;

impl Weather {
    /// Read the weather.
    #[tool(effect = read)]
    fn forecast(&self, city: String) -> Result<String, ToolError> {
        Ok(city)
    }
}

fn main() {}
