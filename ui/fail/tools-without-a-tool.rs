// `#[tools]` on an impl none of whose methods is a `#[tool]`.
use toolgate::{tools, ToolError};

pub struct Weather;

#[tools]
impl Weather {
    /// Forecast the weather.
    pub fn forecast(&self, city: String) -> Result<String, ToolError> {
        Ok(city)
    }
}

fn main() {}
