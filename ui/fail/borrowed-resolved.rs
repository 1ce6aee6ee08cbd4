// `&Resolved<R>`: a resolved object is taken by value.
use toolgate::{tool, Resolved, Fault, Resource, ToolContext, ToolError};

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

/// Cancel an order.
#[tool(effect = write)]
async fn cancel(_shop: &Shop, order: &Resolved<Order>) -> Result<(), ToolError> {
    let _ = order;
    Ok(())
}

fn main() {}
