// One schema per tool: the block's type must be concrete.
use toolgate::{tool, tools, ToolError};

pub struct Store<T>(T);

#[tools]
impl<T: Send + Sync + 'static> Store<T> {
    /// Say hello.
    #[tool(effect = read)]
    pub fn hello(&self) -> Result<String, ToolError> {
        Ok("hello".to_owned())
    }
}

fn main() {}
