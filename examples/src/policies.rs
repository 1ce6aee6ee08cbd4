//! Which rules decide gate 5 (and a policy's share of gate 6): the Rust
//! [`Authorize`](toolgate::Authorize) impls beside each resource, or the
//! Cedar policies in `policies/seeds.cedar` (with the `cedar` feature).
//! Each state chooses in one line:
//!
//! ```
//! # #[cfg(feature = "cedar")] {
//! use std::sync::Arc;
//! use toolgate_examples::{policies, refund::Shop};
//!
//! let rust = Shop::demo();
//! let cedar = Shop::demo().with_policies(Arc::new(policies::seeds().unwrap()));
//! # let _ = (rust, cedar);
//! # }
//! ```

use toolgate::{Denied, NotFound, Resolved, ToolContext};

/// Where the examples' policies are decided.
#[derive(Clone, Debug, Default)]
pub enum Backend {
    /// The `Authorize` impls written in Rust.
    #[default]
    Rust,
    /// Cedar policies.
    #[cfg(feature = "cedar")]
    Cedar(std::sync::Arc<toolgate_cedar::Policies>),
}

/// A resource the backends can decide on: with the `cedar` feature, a
/// [`CedarEntity`](toolgate_cedar::CedarEntity).
#[cfg(feature = "cedar")]
pub trait Entity: toolgate_cedar::CedarEntity + 'static {}
#[cfg(feature = "cedar")]
impl<T: toolgate_cedar::CedarEntity + 'static> Entity for T {}

/// A resource the backends can decide on.
#[cfg(not(feature = "cedar"))]
pub trait Entity {}
#[cfg(not(feature = "cedar"))]
impl<T> Entity for T {}

impl Backend {
    /// Decides on `resolved`: by `rust` or by the Cedar policies.
    ///
    /// # Errors
    ///
    /// The denial, for the audit log.
    pub fn authorize<R: Entity>(
        &self,
        ctx: &ToolContext,
        resolved: &Resolved<R>,
        rust: impl FnOnce(&R) -> Result<(), Denied>,
    ) -> Result<(), Denied> {
        match self {
            Backend::Rust => {
                let _ = ctx;
                rust(resolved)
            }
            #[cfg(feature = "cedar")]
            Backend::Cedar(policies) => policies.authorize(ctx, resolved),
        }
    }

    /// For an object of type `R` that was not found: the Cedar policies
    /// decide a stand-in, so that the refusal takes as long as a denial
    /// (the Rust rules decide in no time worth evening out).
    pub fn not_found<R: Entity>(&self, ctx: &ToolContext, missing: &NotFound<'_>) {
        match self {
            Backend::Rust => {
                let _ = (ctx, missing);
            }
            #[cfg(feature = "cedar")]
            Backend::Cedar(policies) => policies.decide_not_found::<R>(ctx, missing),
        }
    }
}

/// The file of the examples' Cedar policies.
pub const SEEDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/seeds.cedar");

/// The schema of every example tool and resource.
///
/// # Errors
///
/// None for these tools; the type says what building can refuse.
#[cfg(feature = "cedar")]
pub fn schema() -> Result<toolgate_cedar::Schema, toolgate_cedar::SchemaError> {
    use crate::{export, invoice, refund};
    toolgate_cedar::Schema::builder()
        .tool(refund::IssueRefund::definition())
        .tool(export::ScheduleExport::definition())
        .tool(invoice::RefundInvoice::definition())
        .resource::<refund::Order>()
        .resource::<export::Account>()
        .resource::<invoice::Invoice>()
        .build()
}

/// The seeds' rules as Cedar policies ([`SEEDS`]), validated against
/// [`schema`].
///
/// # Errors
///
/// The file cannot be read or a policy does not validate.
#[cfg(feature = "cedar")]
pub fn seeds() -> Result<toolgate_cedar::Policies, Box<dyn std::error::Error + Send + Sync>> {
    Ok(toolgate_cedar::Policies::from_file(schema()?, SEEDS)?)
}
