// A tool that takes `&Shop` registered in a toolbox whose state is `Hotels`.
use toolgate::{tool, ToolError, Toolbox};

pub struct Shop;
pub struct Hotels;

/// Count the orders.
#[tool(effect = read)]
fn count_orders(shop: &Shop) -> Result<u32, ToolError> {
    let _ = shop;
    Ok(0)
}

fn main() {
    let mut toolbox = Toolbox::new(Hotels);
    toolbox.register(CountOrders).unwrap();
}
