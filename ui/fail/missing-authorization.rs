// The tool takes Authorized<Order>, but no policy authorizes an Order for it.
use toolgate::{tool, Authorized, Fault, Resource, ToolContext, ToolError};

pub struct Shop;
pub struct Order;

#[derive(serde::Deserialize, schemars::JsonSchema, garde::Validate, Debug)]
pub struct OrderRef(#[garde(skip)] String);

impl Resource<Shop> for Order {
    type Ref = OrderRef;
    async fn resolve(_: &ToolContext, _: &Shop, _: &OrderRef) -> Result<Option<Order>, Fault> {
        Ok(None)
    }
}

/// Refund an order.
#[tool(effect = irreversible)]
async fn issue_refund(_shop: &Shop, order: Authorized<Order>) -> Result<(), ToolError> {
    let _ = order;
    Ok(())
}

fn main() {}
