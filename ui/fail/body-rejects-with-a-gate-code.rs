// The body answers with a gate's code, and a message that the flat denial
// exists to hide: only a DomainCode is a body's to use.
use toolgate::{tool, Code, ToolError};

/// Look up an order.
#[tool(effect = read)]
fn find_order(#[garde(length(max = 16))] order_id: String) -> Result<String, ToolError> {
    if order_id == "ord_3" {
        return Err(ToolError::reject(
            Code::NotPermitted,
            "ord_3 exists but belongs to tenant_b",
        ));
    }
    Ok(order_id)
}

fn main() {}
