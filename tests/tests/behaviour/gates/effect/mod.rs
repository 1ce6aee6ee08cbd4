//! Gate 6: a call runs only when it may run now: approvals for
//! irreversible calls, idempotency for writes, budgets and rate limits
//! (`runtime/src/gate/effect`).

pub mod approvals;
pub mod approvals_found;
pub mod canonical_action;
pub mod decisions;
pub mod interleavings;
pub mod model;
pub mod seams;
pub mod stored_calls;
pub mod waiting_store;
