// A tool's future runs on any thread: nothing !Send may live across an await.
use std::rc::Rc;

use toolgate::{tool, ToolError};

/// Count slowly.
#[tool(effect = read)]
async fn count_slowly(n: u32) -> Result<u32, ToolError> {
    let shared = Rc::new(n);
    std::future::ready(()).await;
    Ok(*shared)
}

fn main() {}
