//! Gates 4–5: each referenced object resolved in the caller's tenant, then
//! authorized, and every refusal the same flat denial
//! (`runtime/src/gate/resource.rs`).

pub mod account_rules;
pub mod authorization_binding;
pub mod call_policy;
pub mod checked_at_commit;
pub mod flat_denial;
pub mod not_found;
pub mod policy_approval;
pub mod several_resources;
