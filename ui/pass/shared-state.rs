// A tool that takes `&App` joins a toolbox of `App`, `Arc<App>`, `Box<App>`,
// and of any state that provides an `App`.
use std::sync::Arc;

use toolgate::{tool, Provides, ToolError, Toolbox};

pub struct App {
    greeting: &'static str,
}

pub struct Server {
    app: App,
}

impl Provides<App> for Server {
    fn provide(&self) -> &App {
        &self.app
    }
}

/// Greet someone.
#[tool(effect = read)]
fn greet(app: &App, name: String) -> Result<String, ToolError> {
    Ok(format!("{} {name}", app.greeting))
}

fn main() {
    Toolbox::new(App { greeting: "hi" }).register(Greet).unwrap();
    Toolbox::new(Arc::new(App { greeting: "hi" })).register(Greet).unwrap();
    Toolbox::new(Box::new(App { greeting: "hi" })).register(Greet).unwrap();
    Toolbox::new(Server { app: App { greeting: "hi" } }).register(Greet).unwrap();
}
