//! Gate 6, the effect gate: may this admitted, authorized call run *now*?
//!
//! After authorization and the tool's `check`, with the validated arguments
//! and the authorized objects in hand, the gate decides:
//!
//! - **approval**: an `irreversible` call (or one whose `#[tool(approval =
//!   …)]` expression says so) does not run; it becomes an [`Approval`] that a
//!   person decides on and [`Toolbox::resume`](crate::Toolbox::resume) runs,
//!   once, if nothing it was bound to has changed;
//!   A person finds the approvals waiting for them with
//!   [`Toolbox::pending_approvals`](crate::Toolbox::pending_approvals)
//!   (only those they may decide, [`rules::may_decide`]), the asker or a
//!   decider takes one back with [`Toolbox::withdraw`](crate::Toolbox::withdraw),
//!   and the host hears of each new one through
//!   [`Toolbox::on_approval`](crate::Toolbox::on_approval);
//! - **idempotency**: a `write` or `irreversible` call claims a key derived
//!   from the logical action (or given by the host); a repeat of a finished
//!   call returns the stored outcome without running the body.
//!
//! `read` calls that need no approval pass straight through: no store call,
//! no hashing.
//!
//! | file | holds |
//! |---|---|
//! | `gate.rs` | the gate on one call: its keys, what runs before the body and after it |
//! | `policy.rs` | the toolbox's policy, clock and store ([`EffectPolicy`], [`Clock`]) |
//! | `approval.rs` | an [`Approval`] and its states |
//! | `store.rs`, `answers.rs` | the [`EffectStore`] trait, the [`MemoryStore`], what each operation answers |
//! | `rules.rs` | the decisions every store makes alike ([`rules`]) |
//! | `unrecorded.rs` | outcomes a failing store has not taken yet, retried and flushed |
//! | `hook.rs`, `timer.rs` | the host told of each approval; a body's time limit |

mod answers;
mod approval;
mod gate;
mod hook;
mod policy;
pub mod rules;
mod store;
mod timer;
mod unrecorded;

#[cfg(feature = "testing")]
pub(crate) use approval::new_id;
pub(crate) use gate::{
    Call, Run, after, before, denied, digest, expired, pending, stale, timed_out, withdrawn,
};
pub(crate) use hook::Notifier;
pub use timer::Timed;

pub use approval::{Approval, ApprovalState, Seen};

pub use answers::{Claim, Consumed, Decided, Decision, Recorded, StoreError, Withdrawn};
pub(crate) use policy::Effects;
pub use policy::{ApprovalRule, Clock, EffectPolicy, SystemClock};
pub use rules::Bucket;
pub use store::{EffectStore, MemoryStore};
pub use unrecorded::FlushError;
