// A resolved object is not yet authorized: a body never receives one.
use toolgate::{tool, Resolved, ToolError};

pub struct Shop;
pub struct Order;

/// Refund an order.
#[tool(effect = irreversible)]
async fn issue_refund(_shop: &Shop, order: Resolved<Order>) -> Result<(), ToolError> {
    let _ = order;
    Ok(())
}

fn main() {}
