//! Refunding an invoice (seed 004): the reason is a tagged union. A
//! goodwill refund names its approver; any other reason must not, and an
//! `approver_id` sent with it is refused rather than dropped.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::policies::Backend;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolgate::{
    Authorize, Authorized, Denied, Fault, NotFound, Resolved, Resource, ToolContext, ToolError,
    ToolInfo, tool,
};

/// An invoice, as the server stores it; its fields are what a Cedar
/// policy reads of it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Invoice {
    /// `inv_` and digits.
    pub id: String,
    /// The tenant that owns it.
    pub tenant: String,
    /// Whether it was voided (nothing to refund).
    pub void: bool,
}

/// A reference to an invoice: `inv_` and 1 to 12 digits.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct InvoiceRef(#[garde(pattern(r"^inv_[0-9]{1,12}$"))] pub String);

/// Why the invoice is refunded.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RefundReason {
    /// The customer was charged twice.
    Duplicate {},
    /// The invoice was wrong.
    Error {},
    /// A gesture of goodwill, which a named person approved.
    Goodwill {
        /// Who approved it: `usr_` and letters or digits.
        #[garde(pattern(r"^usr_[a-z0-9]{1,24}$"))]
        approver_id: String,
    },
}

impl RefundReason {
    /// The person a goodwill refund names: the one who must approve it.
    /// The model's text names them; only their own approval runs it.
    pub fn approver(&self) -> Option<&str> {
        match self {
            RefundReason::Goodwill { approver_id } => Some(approver_id),
            _ => None,
        }
    }
}

/// A recorded invoice refund: what the tool returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct InvoiceRefund {
    /// The refunded invoice.
    pub invoice_id: String,
    /// The amount, in cents.
    pub amount_cents: u32,
    /// Why.
    pub reason: RefundReason,
}

/// The application state: invoices of every tenant, and the refunds made.
#[derive(Debug, Default)]
pub struct Billing {
    invoices: HashMap<(String, String), Invoice>,
    refunds: Mutex<Vec<InvoiceRefund>>,
    /// Who decides gate 5: the Rust policy below, or Cedar's.
    backend: Backend,
}

impl Billing {
    /// Invoices in `tenant_a` and `tenant_b`.
    pub fn demo() -> Self {
        let invoice = |id: &str, tenant: &str, void: bool| Invoice {
            id: id.to_owned(),
            tenant: tenant.to_owned(),
            void,
        };
        let invoices = [
            invoice("inv_88", "tenant_a", false),
            invoice("inv_89", "tenant_a", true),
            invoice("inv_90", "tenant_b", false),
        ];
        Billing {
            invoices: invoices
                .into_iter()
                .map(|i| ((i.tenant.clone(), i.id.clone()), i))
                .collect(),
            refunds: Mutex::default(),
            backend: Backend::Rust,
        }
    }

    /// Decides gate 5 by Cedar `policies` instead of the Rust policy.
    #[cfg(feature = "cedar")]
    #[must_use]
    pub fn with_policies(mut self, policies: std::sync::Arc<toolgate_cedar::Policies>) -> Self {
        self.backend = Backend::Cedar(policies);
        self
    }

    /// Every refund made: the side effect a refused call must never reach.
    pub fn refunds(&self) -> Vec<InvoiceRefund> {
        self.refunds.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Resource<Billing> for Invoice {
    type Ref = InvoiceRef;

    async fn resolve(
        ctx: &ToolContext,
        billing: &Billing,
        reference: &InvoiceRef,
    ) -> Result<Option<Invoice>, Fault> {
        Ok(billing
            .invoices
            .get(&(ctx.tenant().to_owned(), reference.0.clone()))
            .cloned())
    }
}

#[cfg(feature = "cedar")]
impl toolgate_cedar::CedarEntity for Invoice {
    fn entity_id(&self) -> String {
        self.id.clone()
    }
}

/// Any tool may act on an invoice that is not void.
impl<T: ToolInfo> Authorize<T, Billing> for Invoice {
    async fn authorize(
        ctx: &ToolContext,
        billing: &Billing,
        invoice: &Resolved<Invoice>,
    ) -> Result<(), Denied> {
        billing.backend.authorize(ctx, invoice, |invoice| {
            if invoice.void {
                Err(Denied::because(format!("{} is void", invoice.id)))
            } else {
                Ok(())
            }
        })
    }

    async fn not_found(ctx: &ToolContext, billing: &Billing, missing: &NotFound<'_>) {
        billing.backend.not_found::<Invoice>(ctx, missing);
    }
}

// Irreversible, so every refund waits for a person's approval; a goodwill
// refund, for the approval of the person it names, not for the model's word
// that they approved. (Doc comments here are the description the model
// reads.)
/// Refund an invoice of the caller's tenant.
#[tool(scope = "billing:refund", effect = irreversible, approver = reason.approver())]
pub async fn refund_invoice(
    billing: &Billing,
    /// The invoice to refund.
    #[serde(rename = "invoice_id")]
    invoice: Authorized<Invoice>,
    /// The amount, in cents.
    #[garde(range(min = 1, max = 50_000))]
    amount_cents: u32,
    /// Why; a goodwill refund names its approver.
    #[garde(dive)]
    reason: RefundReason,
) -> Result<InvoiceRefund, ToolError> {
    let refund = InvoiceRefund {
        invoice_id: invoice.id.clone(),
        amount_cents,
        reason,
    };
    billing
        .refunds
        .lock()
        .map_err(|_| ToolError::internal("the refund store is poisoned"))?
        .push(refund.clone());
    Ok(refund)
}
