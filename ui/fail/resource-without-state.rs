// Resources resolve against the toolbox's state, so the tool must take it.
use toolgate::{tool, Authorized, ToolError};

pub struct Order;

/// Refund an order.
#[tool(effect = irreversible)]
async fn issue_refund(order: Authorized<Order>) -> Result<(), ToolError> {
    let _ = order;
    Ok(())
}

fn main() {}
