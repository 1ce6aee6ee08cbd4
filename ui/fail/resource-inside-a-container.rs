// The user took resources inside containers: the model would send whole
// orders (with any tenant) in a list, an option, a box, an array or a tuple.
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

/// Merge orders.
#[tool(effect = write)]
async fn merge_orders(
    _shop: &Shop,
    many: Vec<Order>,
    maybe: Option<Order>,
    boxed: Box<Order>,
    pair: [Order; 2],
    tagged: (u8, Order),
) -> Result<usize, ToolError> {
    let _ = (maybe, boxed, pair, tagged);
    Ok(many.len())
}

fn main() {}
