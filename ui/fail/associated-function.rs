// #[tool] on an associated function without `self`, inside an impl.
use toolgate::{tool, ToolError};

pub struct Weather;

impl Weather {
    /// Read the weather.
    #[tool(effect = read)]
    pub fn forecast(city: String) -> Result<String, ToolError> {
        Ok(city)
    }
}

fn main() {}
