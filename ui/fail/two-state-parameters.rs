// The user took two state parameters; a toolbox has one state type.
use toolgate::{tool, ToolError};

struct Db;
struct Mailer;

/// Send a report.
#[tool(effect = write)]
fn send_report(_db: &Db, _mailer: &Mailer, to: String) -> Result<String, ToolError> {
    Ok(to)
}

fn main() {}
