// The model must never choose the tenant: it comes from ToolContext.
use toolgate::{tool, ToolError};

/// List invoices.
#[tool(effect = read)]
fn list_invoices(tenant_id: String, status: String) -> Result<String, ToolError> {
    Ok(format!("{tenant_id}{status}"))
}

fn main() {}
