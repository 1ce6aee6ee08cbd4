// `Authorized<Order>` where `Order` is not a resource of the tool's state:
// the server would have nothing to resolve the model's reference with.
// Each such resource is reported once, optional ones too.
use toolgate::{tool, Authorized, ToolError};

pub struct Shop;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Order {
    id: String,
}

pub struct Customer;

/// Refund an order.
#[tool(effect = irreversible)]
async fn refund(
    _shop: &Shop,
    order: Authorized<Order>,
    customer: Option<Authorized<Customer>>,
) -> Result<String, ToolError> {
    let _ = customer;
    Ok(order.id.clone())
}

fn main() {}
