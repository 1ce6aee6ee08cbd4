// The state is shared by every call: a tool method takes `&self`.
use toolgate::{tool, tools, ToolError};

pub struct Counter {
    count: u32,
}

#[tools]
impl Counter {
    /// Count one more.
    #[tool(effect = write)]
    pub fn bump(&mut self) -> Result<u32, ToolError> {
        self.count += 1;
        Ok(self.count)
    }
}

fn main() {}
