// Sync and async tools, with and without the context and state, in any order.
use toolgate::{tool, ToolContext, ToolError, Toolbox};

struct App {
    greeting: &'static str,
}

/// Greet someone, synchronously.
#[tool(effect = read)]
fn greet(app: &App, name: String) -> Result<String, ToolError> {
    Ok(format!("{} {name}", app.greeting))
}

/// Greet someone, later.
#[tool(effect = read, name = "greet_later", version = 3)]
async fn greet_async(name: String, ctx: &ToolContext, app: &App) -> Result<String, ToolError> {
    Ok(format!("{} {name} from {}", app.greeting, ctx.actor()))
}

fn main() {
    let mut toolbox = Toolbox::new(App { greeting: "hi" });
    toolbox.register(Greet).unwrap().register(GreetAsync).unwrap();
    assert_eq!(GreetAsync::definition().name(), "greet_later");
    assert_eq!(GreetAsync::definition().version(), 3);
    let _: GreetArgs = GreetArgs { name: String::new() };
}
