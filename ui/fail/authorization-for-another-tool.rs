// A read tool's body hands its authorized order to the refund tool's
// function: the order was authorized for reading, not for refunds.
use toolgate::{tool, Authorize, Authorized, Denied, Fault, Resolved, Resource, ToolContext};
use toolgate::{ToolError, ToolInfo};

pub struct Shop;

pub struct Order {
    pub id: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema, garde::Validate, Debug)]
#[serde(transparent)]
pub struct OrderRef(#[garde(skip)] String);

impl Resource<Shop> for Order {
    type Ref = OrderRef;
    async fn resolve(_: &ToolContext, _: &Shop, r: &OrderRef) -> Result<Option<Order>, Fault> {
        Ok(Some(Order { id: r.0.clone() }))
    }
}

impl<T: ToolInfo> Authorize<T, Shop> for Order {
    async fn authorize(_: &ToolContext, _: &Shop, _: &Resolved<Order>) -> Result<(), Denied> {
        Ok(())
    }
}

/// Refund an order.
#[tool(effect = irreversible)]
async fn issue_refund(_shop: &Shop, order: Authorized<Order>) -> Result<String, ToolError> {
    Ok(order.id.clone())
}

/// Read an order.
#[tool(effect = read)]
async fn get_order(shop: &Shop, order: Authorized<Order>) -> Result<String, ToolError> {
    issue_refund(shop, order).await
}

fn main() {}
