// `Authorized<R>` inside a list: each resource is resolved and authorized
// as a parameter of its own.
use toolgate::{tool, Authorized, Fault, Resource, ToolContext, ToolError};

pub struct Shop;

pub struct Order {
    id: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema, garde::Validate, Debug)]
pub struct OrderRef(#[garde(length(max = 16))] String);

impl Resource<Shop> for Order {
    type Ref = OrderRef;
    async fn resolve(_: &ToolContext, _: &Shop, _: &OrderRef) -> Result<Option<Order>, Fault> {
        Ok(None)
    }
}

/// Refund orders.
#[tool(effect = irreversible)]
async fn refund(_shop: &Shop, orders: Vec<Authorized<Order>>) -> Result<String, ToolError> {
    Ok(orders.iter().map(|o| o.id.as_str()).collect())
}

fn main() {}
