// The user forgot Authorized<...>: the model would send a whole Order.
use toolgate::{tool, Fault, Resource, ToolContext, ToolError};

pub struct Shop;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Order {
    id: String,
}

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
async fn issue_refund(_shop: &Shop, order: Order) -> Result<String, ToolError> {
    Ok(order.id)
}

fn main() {}
