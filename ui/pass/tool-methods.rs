// #[tools] on an impl block: each #[tool] method is a tool on the type.
use toolgate::{tool, tools, ToolError, Toolbox};

pub struct Greeter {
    greeting: String,
}

#[tools]
impl Greeter {
    /// Greet someone.
    #[tool(effect = read)]
    pub async fn greet(
        &self,
        #[garde(length(min = 1, max = 40))] name: String,
    ) -> Result<String, ToolError> {
        Ok(format!("{} {name}", self.greeting))
    }

    /// Say the greeting alone.
    #[tool(effect = read, name = "greeting_only")]
    fn plain(&self) -> Result<String, ToolError> {
        Ok(self.greeting.clone())
    }

    /// The greeter's version: a tool of the block without `self`.
    #[tool(effect = read)]
    fn version() -> Result<u32, ToolError> {
        Ok(1)
    }

    /// Not a tool.
    pub fn new(greeting: &str) -> Self {
        Self { greeting: greeting.to_owned() }
    }
}

fn main() {
    let mut toolbox = Toolbox::new(Greeter::new("hi"));
    toolbox
        .register(Greet)
        .unwrap()
        .register(Plain)
        .unwrap()
        .register(Version)
        .unwrap();
    assert_eq!(Plain::definition().name(), "greeting_only");
}
