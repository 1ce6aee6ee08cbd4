//! What the author of an effect store needs, in one place.
//!
//! Gate 6 keeps its state (approvals, idempotency records, rate and budget
//! counters) in an [`EffectStore`]. A host picks one and hands it to
//! [`Toolbox::with_effect_store`](crate::Toolbox::with_effect_store): the
//! [`MemoryStore`] for one process, or the SQLite and PostgreSQL stores
//! (`toolgate-sqlite`, `toolgate-postgres`) for several. This module holds
//! what a store of one's own implements and answers with; the crate root
//! keeps what a host uses.
//!
//! | item | what it is |
//! |---|---|
//! | [`EffectStore`] | the trait: every operation that must be atomic is one call |
//! | [`Claim`], [`Consumed`], [`Decided`], [`Withdrawn`] | what an operation found |
//! | [`StoreError`] | why an operation did not complete (the model is told `UNAVAILABLE`) |
//! | [`Approval`], [`ApprovalState`], [`Decision`], [`Seen`] | the approvals a store keeps |
//! | [`rules`] | the decisions every store makes alike (an approval's stages, a claim's outcome, a bucket's refill), so that a database store runs them in its transaction instead of writing them again |
//! | [`Bucket`] | a rate or budget counter |
//!
//! Every store, ours and yours, runs one conformance suite:
//! `toolgate::testing::assert_store_conforms` (feature `testing`).
//!
//! ```
//! use toolgate::store::{Claim, EffectStore, MemoryStore};
//! use std::time::{Duration, SystemTime};
//!
//! # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! # rt.block_on(async {
//! let store = MemoryStore::new();
//! let now = SystemTime::now();
//! let (lease, keep) = (Duration::from_secs(30), Duration::from_secs(3600));
//! let claim = store.claim("key", "digest", now, lease, keep).await.unwrap();
//! assert_eq!(claim, Claim::Claimed);
//! // A second call of the same action, while the first runs.
//! let again = store.claim("key", "digest", now, lease, keep).await.unwrap();
//! assert_eq!(again, Claim::InFlight);
//! # });
//! ```

pub use crate::gate::effect::{
    Approval, ApprovalState, Bucket, Claim, Consumed, Decided, Decision, EffectStore, MemoryStore,
    Recorded, Seen, StoreError, Withdrawn, rules,
};
