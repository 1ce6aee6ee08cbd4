//! Issuing a refund (seed 001): the order is resolved inside the caller's
//! tenant and authorized as the resolved object; the amount is checked
//! against what is still refundable before the body runs, and checked again,
//! atomically, when the refund is committed, so two concurrent refunds can
//! never both pass.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::policies::Backend;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;
use toolgate::{
    Authorize, Authorized, Denied, DomainCode, Fault, NotFound, Resolved, Resource, ToolContext,
    ToolError, tool,
};

/// The amount is more than the order has left to refund.
pub const EXCEEDS_REFUNDABLE: DomainCode = DomainCode::new("EXCEEDS_REFUNDABLE");

/// An order, as the server stores it; its fields are what a Cedar policy
/// reads of it (`resource.disputed`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Order {
    /// `ord_` and digits.
    pub id: String,
    /// The tenant that owns it.
    pub tenant: String,
    /// What was paid.
    pub paid_cents: u64,
    /// What was refunded so far.
    pub refunded_cents: u64,
    /// A disputed order is refunded through the dispute, not by an agent.
    pub disputed: bool,
    /// Bumped by every change: what an approval and a refund's
    /// compare-and-set are bound to.
    pub version: u64,
}

impl Order {
    /// What is left to refund.
    pub fn refundable_cents(&self) -> u64 {
        self.paid_cents.saturating_sub(self.refunded_cents)
    }
}

/// A reference to an order: `ord_` and 1 to 12 digits.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct OrderRef(#[garde(pattern(r"^ord_[0-9]{1,12}$"))] pub String);

/// A committed refund: what the tool returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Refund {
    /// The refund's id.
    pub refund_id: String,
    /// The refunded order.
    pub order_id: String,
    /// The amount refunded.
    pub amount_cents: u64,
    /// What is left to refund after this one.
    pub remaining_cents: u64,
}

/// The application state: orders of every tenant, and the refunds ledger.
#[derive(Debug, Default)]
pub struct Shop {
    orders: Mutex<HashMap<(String, String), Order>>,
    ledger: Mutex<Vec<Refund>>,
    /// Where concurrent refunds wait for each other before committing, in
    /// tests (see [`Shop::race_at_commit`]).
    race: Option<Arc<Barrier>>,
    /// Whether the next commit finds the order changed by someone else
    /// first (see [`Shop::interfere_at_commit`]).
    interfere: std::sync::atomic::AtomicBool,
    /// Who decides gate 5: the Rust policy below, or Cedar's.
    backend: Backend,
}

impl Shop {
    /// Orders in `tenant_a` and `tenant_b`.
    pub fn demo() -> Self {
        let order = |id: &str, tenant: &str, paid: u64, disputed: bool| Order {
            id: id.to_owned(),
            tenant: tenant.to_owned(),
            paid_cents: paid,
            refunded_cents: 0,
            disputed,
            version: 1,
        };
        let orders = [
            order("ord_1001", "tenant_a", 10_000, false),
            order("ord_1002", "tenant_a", 10_000, true),
            order("ord_2001", "tenant_b", 10_000, false),
        ];
        Shop {
            orders: Mutex::new(
                orders
                    .into_iter()
                    .map(|o| ((o.tenant.clone(), o.id.clone()), o))
                    .collect(),
            ),
            ledger: Mutex::default(),
            race: None,
            interfere: std::sync::atomic::AtomicBool::new(false),
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

    /// For tests of the race the commit must win: every refund waits just
    /// before committing until `calls` refunds are there, so all of them
    /// have passed the early check on the same refundable amount before any
    /// one commits. Only the check at commit can then keep the total within
    /// what was paid.
    ///
    /// ```
    /// let shop = toolgate_examples::refund::Shop::demo().race_at_commit(2);
    /// # let _ = shop;
    /// ```
    #[must_use]
    pub fn race_at_commit(mut self, calls: usize) -> Self {
        self.race = Some(Arc::new(Barrier::new(calls)));
        self
    }

    /// Changes an order behind the agent's back (a payment arrives, a
    /// person edits it): its version moves on, so an approval given for
    /// the order as it was no longer runs.
    pub fn touch(&self, tenant: &str, order_id: &str) {
        if let Ok(mut orders) = self.orders.lock()
            && let Some(order) = orders.get_mut(&(tenant.to_owned(), order_id.to_owned()))
        {
            order.version += 1;
        }
    }

    /// For tests of a lost compare-and-set: the next commit finds that
    /// someone else changed the order after the refund was authorized (and
    /// approved) and before it was written.
    pub fn interfere_at_commit(&self) {
        self.interfere
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Every committed refund: the side effect a refused call must never
    /// reach.
    pub fn refunds(&self) -> Vec<Refund> {
        self.ledger.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Commits a refund if the order is still at `version` and has `amount`
    /// left to refund, checking and updating under one lock: the early
    /// check before the body can be stale by now. In SQL, `UPDATE orders SET
    /// refunded = refunded + $3, version = version + 1 WHERE id = $1 AND
    /// version = $2 AND paid - refunded >= $3`.
    async fn commit(
        &self,
        tenant: &str,
        order_id: &str,
        version: u64,
        amount: u64,
    ) -> Result<Refund, ToolError> {
        if let Some(race) = &self.race {
            race.wait().await;
        }
        let mut orders = self
            .orders
            .lock()
            .map_err(|_| ToolError::internal("the order store is poisoned"))?;
        let order = orders
            .get_mut(&(tenant.to_owned(), order_id.to_owned()))
            .ok_or_else(|| ToolError::internal("an authorized order vanished"))?;
        if self
            .interfere
            .swap(false, std::sync::atomic::Ordering::SeqCst)
        {
            order.version += 1;
        }
        if order.version != version {
            return Err(ToolError::stale());
        }
        if amount > order.refundable_cents() {
            return Err(exceeds(order.refundable_cents()));
        }
        order.refunded_cents += amount;
        order.version += 1;
        let mut ledger = self
            .ledger
            .lock()
            .map_err(|_| ToolError::internal("the ledger is poisoned"))?;
        let refund = Refund {
            refund_id: format!("rf_{}", ledger.len() + 1),
            order_id: order.id.clone(),
            amount_cents: amount,
            remaining_cents: order.refundable_cents(),
        };
        ledger.push(refund.clone());
        Ok(refund)
    }
}

fn exceeds(refundable: u64) -> ToolError {
    ToolError::reject(
        EXCEEDS_REFUNDABLE,
        format!("at most {refundable} cents of this order can still be refunded"),
    )
    .at("/amount_cents")
}

impl Resource<Shop> for Order {
    type Ref = OrderRef;

    async fn resolve(
        ctx: &ToolContext,
        shop: &Shop,
        reference: &OrderRef,
    ) -> Result<Option<Order>, Fault> {
        let orders = shop
            .orders
            .lock()
            .map_err(|_| Fault::new("the order store is poisoned"))?;
        Ok(orders
            .get(&(ctx.tenant().to_owned(), reference.0.clone()))
            .cloned())
    }

    fn version(&self) -> Option<u64> {
        Some(self.version)
    }

    /// What the person approving a refund sees of the order.
    fn summary(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "id": self.id,
            "paid_cents": self.paid_cents,
            "refunded_cents": self.refunded_cents,
        }))
    }
}

#[cfg(feature = "cedar")]
impl toolgate_cedar::CedarEntity for Order {
    fn entity_id(&self) -> String {
        self.id.clone()
    }
}

/// Refunds only: a disputed order is settled through its dispute.
impl Authorize<IssueRefund, Shop> for Order {
    async fn authorize(
        ctx: &ToolContext,
        shop: &Shop,
        order: &Resolved<Order>,
    ) -> Result<(), Denied> {
        shop.backend.authorize(ctx, order, |order| {
            if order.disputed {
                Err(Denied::because(format!("{} is under dispute", order.id)))
            } else {
                Ok(())
            }
        })
    }

    async fn not_found(ctx: &ToolContext, shop: &Shop, missing: &NotFound<'_>) {
        shop.backend.not_found::<Order>(ctx, missing);
    }
}

/// The early check: not above what the resolved order has left.
pub fn within_refundable(order: &Order, amount_cents: u64) -> Result<(), ToolError> {
    if amount_cents > order.refundable_cents() {
        return Err(exceeds(order.refundable_cents()));
    }
    Ok(())
}

/// Refund part or all of one of the caller's orders.
#[tool(
    version = 2,
    scope = "refunds:write",
    effect = irreversible,
    approver_scope = "refunds:approve",
    check = within_refundable(&order, amount_cents)
)]
pub async fn issue_refund(
    ctx: &ToolContext,
    shop: &Shop,
    /// The order to refund.
    order: Authorized<Order>,
    /// The amount, in cents.
    #[garde(range(min = 1, max = 50_000))]
    amount_cents: u64,
) -> Result<Refund, ToolError> {
    shop.commit(ctx.tenant(), &order.id, order.version, amount_cents)
        .await
}
