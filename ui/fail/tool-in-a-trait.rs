// #[tool] on a function of a trait: a tool is one function with one schema.
use toolgate::{tool, ToolError};

pub trait Weather {
    /// Read the weather.
    #[tool(effect = read)]
    fn forecast(city: String) -> Result<String, ToolError> {
        Ok(city)
    }
}

fn main() {}
