// `#[tools]` imported, `#[tool]` not: the error is on the method's
// `#[tool]`, not on the block.
use toolgate::{tools, ToolError};

pub struct Weather;

#[tools]
impl Weather {
    /// Forecast the weather.
    #[tool(effect = read)]
    pub fn forecast(&self, city: String) -> Result<String, ToolError> {
        Ok(city)
    }
}

fn main() {}
