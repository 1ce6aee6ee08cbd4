//! Where gate 6 keeps its state: approvals and idempotency records.
//!
//! Every operation that must be atomic is one call: deciding an approval,
//! consuming it, withdrawing it, claiming an idempotency key. A store never asks the gate
//! to read and then write.

use std::collections::HashMap;
use std::collections::hash_map::{DefaultHasher, Entry, RandomState};
use std::hash::{BuildHasher, Hasher};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::answers::{Claim, Consumed, Decided, Decision, Recorded, StoreError, Withdrawn};
use super::approval::{Approval, ApprovalState};
use super::rules::{self, Bucket};
use crate::{BoxFuture, ToolContext};

/// The store behind gate 6. Implemented in memory by [`MemoryStore`]; the
/// SQLite and PostgreSQL stores implement it on a database, each operation
/// one statement or one transaction.
///
/// A call may poll a store's future first with a waker that does nothing
/// (a plain-function tool's call is started where the toolbox calls it),
/// then again at once with the caller's. As the `Future` contract says, a
/// pending future must wake the waker of its latest poll, not the first.
pub trait EffectStore: Send + Sync + 'static {
    /// Saves a new, pending approval. An id that is taken is refused
    /// ([`rules::create`]), never replaced.
    fn create_approval(&self, record: Approval) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The approval with this id, in whatever state it is.
    fn approval<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Approval>, StoreError>>;

    /// Atomically: if the approval is pending and unexpired at `now`, record
    /// the decision.
    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Decided, StoreError>>;

    /// Atomically: if the approval is approved and unexpired at `now`, mark
    /// it used. Exactly one of any number of concurrent calls gets `Done`.
    fn consume<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Consumed, StoreError>>;

    /// The approvals `approver` may decide now: those of their tenant
    /// that are pending and unexpired at `now` and that
    /// [`rules::may_decide`] lets them decide ([`rules::listed`]), oldest
    /// first ([`rules::listing_order`]), at most `limit`. Never an
    /// approval of another tenant.
    fn pending_approvals<'a>(
        &'a self,
        approver: &'a ToolContext,
        now: SystemTime,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Approval>, StoreError>>;

    /// Atomically: if the approval is pending, or approved and not yet
    /// used, and unexpired at `now`, mark it withdrawn by `by`
    /// ([`rules::withdraw`]). Of a withdraw and a
    /// [`consume`](Self::consume) racing, exactly one wins: the call runs
    /// and the withdraw finds it [`Withdrawn::Used`], or it is withdrawn
    /// and the consume finds it [`Consumed::Withdrawn`].
    fn withdraw<'a>(
        &'a self,
        id: &'a str,
        by: String,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Withdrawn, StoreError>>;

    /// Atomically: claim `key` for a request with this `digest` until
    /// `now + lease`, unless a live claim or a finished record holds it
    /// ([`rules::claim`]). The record is kept until `now + retain`, and
    /// never less than its lease.
    fn claim<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        now: SystemTime,
        lease: Duration,
        retain: Duration,
    ) -> BoxFuture<'a, Result<Claim, StoreError>>;

    /// Records the outcome of the call that claimed `key`; later claims
    /// of the key get it as [`Claim::Finished`]. Only a record in flight
    /// takes an outcome ([`rules::complete`]): the first one stands.
    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Recorded,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Gives up a claim without an outcome (the call never reached its
    /// body), so that a repeat runs.
    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Atomically: adds one to the counter `key` and returns its new
    /// value ([`rules::count`]). A counter starts at zero, stops at
    /// `u32::MAX`, and is forgotten `window` after its first count.
    fn count<'a>(
        &'a self,
        key: &'a str,
        now: SystemTime,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StoreError>>;

    /// Atomically: takes a token from the bucket `key`, which holds at most
    /// `capacity` tokens and gains `capacity` of them every `period`.
    /// `None` if one was taken; otherwise how long until one is there
    /// ([`rules::take`]).
    fn take<'a>(
        &'a self,
        key: &'a str,
        capacity: u32,
        period: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>>;
}

/// A store shared by several toolboxes (or kept by the host to inspect):
/// every operation goes to the one store behind the `Arc`.
impl<T: EffectStore + ?Sized> EffectStore for std::sync::Arc<T> {
    fn create_approval(&self, record: Approval) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).create_approval(record)
    }

    fn approval<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Approval>, StoreError>> {
        (**self).approval(id)
    }

    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Decided, StoreError>> {
        (**self).decide(id, decision, now)
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Consumed, StoreError>> {
        (**self).consume(id, now)
    }

    fn pending_approvals<'a>(
        &'a self,
        approver: &'a ToolContext,
        now: SystemTime,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Approval>, StoreError>> {
        (**self).pending_approvals(approver, now, limit)
    }

    fn withdraw<'a>(
        &'a self,
        id: &'a str,
        by: String,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Withdrawn, StoreError>> {
        (**self).withdraw(id, by, now)
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        now: SystemTime,
        lease: Duration,
        retain: Duration,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        (**self).claim(key, digest, now, lease, retain)
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Recorded,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).complete(key, outcome)
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).release(key)
    }

    fn count<'a>(
        &'a self,
        key: &'a str,
        now: SystemTime,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StoreError>> {
        (**self).count(key, now, window)
    }

    fn take<'a>(
        &'a self,
        key: &'a str,
        capacity: u32,
        period: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        (**self).take(key, capacity, period, now)
    }
}

/// Gate 6's state in memory: one process, lost on restart. The default
/// store of a [`Toolbox`](crate::Toolbox).
///
/// A map and a lock around [`rules`]: each operation reads its row, asks
/// the rule what it becomes, and writes it back under the lock.
#[derive(Debug, Default)]
pub struct MemoryStore {
    approvals: Mutex<Swept<Approval>>,
    keys: Mutex<Swept<KeyRecord>>,
    counters: Mutex<Swept<rules::Counter>>,
    /// Token buckets, and when each is full again.
    buckets: Mutex<Swept<(Bucket, SystemTime)>>,
}

/// A map whose gone entries are swept when it has doubled since the last
/// sweep: each sweep's cost is paid for by the inserts before it.
#[derive(Debug)]
struct Swept<T> {
    map: HashMap<String, T, Leading>,
    sweep_at: usize,
}

impl<T> Default for Swept<T> {
    fn default() -> Self {
        Swept {
            map: HashMap::default(),
            sweep_at: 1024,
        }
    }
}

/// Hashes a key's first [`LEADING`] bytes with the process's random
/// SipHash keys. Gate 6's keys are digests in hex (an approval's id, 12
/// random digits after its prefix), so those bytes hold 48 to 64 random
/// bits: as many buckets apart as the whole key, which no caller can
/// aim, at a quarter of the hashing. Keys that share a longer prefix
/// would only be slower to find, never confused: equality reads the
/// whole key.
#[derive(Debug, Default, Clone)]
struct Leading(RandomState);

const LEADING: usize = 16;

impl BuildHasher for Leading {
    type Hasher = LeadingHasher;

    fn build_hasher(&self) -> LeadingHasher {
        LeadingHasher {
            inner: self.0.build_hasher(),
            left: LEADING,
        }
    }
}

struct LeadingHasher {
    inner: DefaultHasher,
    left: usize,
}

impl Hasher for LeadingHasher {
    fn write(&mut self, bytes: &[u8]) {
        let taken = bytes.get(..self.left).unwrap_or(bytes);
        self.left -= taken.len();
        self.inner.write(taken);
    }

    fn finish(&self) -> u64 {
        self.inner.finish()
    }
}

impl<T> Swept<T> {
    /// Deletes the entries gone at `now`, by the instant `until` gives.
    fn sweep(&mut self, now: SystemTime, until: impl Fn(&T) -> SystemTime) {
        if self.map.len() >= self.sweep_at {
            self.map.retain(|_, v| !rules::gone(until(v), now));
            self.sweep_at = (self.map.len() * 2).max(1024);
        }
    }
}

#[derive(Debug)]
struct KeyRecord {
    digest: String,
    outcome: Option<Recorded>,
    lease_until: SystemTime,
    kept_until: SystemTime,
}

impl KeyRecord {
    fn held(&self) -> rules::Held<'_> {
        rules::Held {
            digest: &self.digest,
            finished: self.outcome.is_some(),
            lease_until: self.lease_until,
            kept_until: self.kept_until,
        }
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }
}

fn poisoned<T>(_: T) -> StoreError {
    StoreError::message("a lock of the memory store was poisoned")
}

impl EffectStore for MemoryStore {
    fn create_approval(&self, record: Approval) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let mut approvals = self.approvals.lock().map_err(poisoned)?;
            approvals.sweep(record.created_at, |r| {
                rules::approval_kept_until(r.expires_at)
            });
            rules::create(&record.id, approvals.map.contains_key(&record.id))?;
            approvals.map.insert(record.id.clone(), record);
            Ok(())
        })
    }

    fn approval<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Approval>, StoreError>> {
        Box::pin(async move {
            Ok(self
                .approvals
                .lock()
                .map_err(poisoned)?
                .map
                .get(id)
                .cloned())
        })
    }

    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Decided, StoreError>> {
        Box::pin(async move {
            let mut approvals = self.approvals.lock().map_err(poisoned)?;
            let record = approvals.map.get_mut(id);
            let found = record
                .as_ref()
                .map(|r| (rules::Stage::of(&r.state), r.expires_at));
            let decided = rules::decide(found, now);
            if let (Decided::Done, Some(record)) = (&decided, record) {
                record.state = match decision {
                    Decision::Approve(by) => ApprovalState::Approved { by },
                    Decision::Deny(by) => ApprovalState::Denied { by },
                };
            }
            Ok(decided)
        })
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Consumed, StoreError>> {
        Box::pin(async move {
            let mut approvals = self.approvals.lock().map_err(poisoned)?;
            let record = approvals.map.get_mut(id);
            let found = record
                .as_ref()
                .map(|r| (rules::Stage::of(&r.state), r.expires_at));
            let consumed = rules::consume(found, now);
            if let (Consumed::Done, Some(record)) = (&consumed, record)
                && let ApprovalState::Approved { by } = &record.state
            {
                record.state = ApprovalState::Used { by: by.clone() };
            }
            Ok(consumed)
        })
    }

    fn pending_approvals<'a>(
        &'a self,
        approver: &'a ToolContext,
        now: SystemTime,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Approval>, StoreError>> {
        Box::pin(async move {
            let approvals = self.approvals.lock().map_err(poisoned)?;
            let mut listed: Vec<&Approval> = approvals
                .map
                .values()
                .filter(|a| rules::listed(a, approver, now))
                .collect();
            listed.sort_by(|a, b| rules::listing_order(a).cmp(&rules::listing_order(b)));
            Ok(listed.into_iter().take(limit).cloned().collect())
        })
    }

    fn withdraw<'a>(
        &'a self,
        id: &'a str,
        by: String,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Withdrawn, StoreError>> {
        Box::pin(async move {
            let mut approvals = self.approvals.lock().map_err(poisoned)?;
            let record = approvals.map.get_mut(id);
            let found = record
                .as_ref()
                .map(|r| (rules::Stage::of(&r.state), r.expires_at));
            let withdrawn = rules::withdraw(found, now);
            if let (Withdrawn::Done, Some(record)) = (&withdrawn, record) {
                record.state = ApprovalState::Withdrawn { by };
            }
            Ok(withdrawn)
        })
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        now: SystemTime,
        lease: Duration,
        retain: Duration,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(async move {
            let mut keys = self.keys.lock().map_err(poisoned)?;
            keys.sweep(now, |r| r.kept_until);
            // One lookup, which a new key (every new action) then fills:
            // the key is hashed once, not for a look and again to insert.
            let entry = keys.map.entry(key.to_owned());
            let held = match &entry {
                Entry::Occupied(record) => Some(record.get().held()),
                Entry::Vacant(_) => None,
            };
            Ok(match rules::claim(held, digest, now, lease, retain) {
                rules::ClaimRule::Take(hold) => {
                    let record = KeyRecord {
                        digest: digest.to_owned(),
                        outcome: None,
                        lease_until: hold.lease_until,
                        kept_until: hold.kept_until,
                    };
                    match entry {
                        Entry::Occupied(mut held) => {
                            held.insert(record);
                        }
                        Entry::Vacant(free) => {
                            free.insert(record);
                        }
                    }
                    Claim::Claimed
                }
                rules::ClaimRule::InFlight => Claim::InFlight,
                rules::ClaimRule::Conflict => Claim::Conflict,
                // Finished only when held with an outcome.
                rules::ClaimRule::Finished => match entry {
                    Entry::Occupied(held) => match &held.get().outcome {
                        Some(outcome) => Claim::Finished(outcome.clone()),
                        None => Claim::InFlight,
                    },
                    Entry::Vacant(_) => Claim::InFlight,
                },
            })
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Recorded,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut keys = self.keys.lock().map_err(poisoned)?;
            let record = keys.map.get_mut(key);
            if rules::complete(record.as_ref().map(|r| r.outcome.is_some()))
                && let Some(record) = record
            {
                record.outcome = Some(outcome);
            }
            Ok(())
        })
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut keys = self.keys.lock().map_err(poisoned)?;
            if rules::release(keys.map.get(key).map(|r| r.outcome.is_some())) {
                keys.map.remove(key);
            }
            Ok(())
        })
    }

    fn count<'a>(
        &'a self,
        key: &'a str,
        now: SystemTime,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StoreError>> {
        Box::pin(async move {
            let mut counters = self.counters.lock().map_err(poisoned)?;
            counters.sweep(now, |c| c.until);
            let held = counters.map.get(key).copied();
            let counter = rules::count(held, now, window);
            counters.map.insert(key.to_owned(), counter);
            Ok(counter.value)
        })
    }

    fn take<'a>(
        &'a self,
        key: &'a str,
        capacity: u32,
        period: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        Box::pin(async move {
            let mut buckets = self.buckets.lock().map_err(poisoned)?;
            buckets.sweep(now, |(_, full_at)| *full_at);
            let held = buckets.map.get(key).copied();
            let (after, wait) = rules::take(held, capacity, period, now);
            buckets.map.insert(key.to_owned(), after);
            Ok(wait)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::StoreError;

    #[test]
    fn a_store_error_does_not_repeat_its_cause() {
        let cause = std::io::Error::other("password authentication failed");
        let error = StoreError::context("claim failed", cause);
        assert_eq!(error.to_string(), "effect store: claim failed");
        let source = error.source().map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("password authentication failed"));
        let error = StoreError::new("connection refused");
        assert!(!error.to_string().contains("connection refused"));
        assert!(!error.is_timeout());
    }

    /// The memory store hashes only a key's first bytes: keys alike in
    /// those and apart after them are still two records, each with its
    /// own digest and outcome.
    #[test]
    fn keys_alike_in_their_first_bytes_are_kept_apart() {
        use std::hash::BuildHasher as _;
        use std::time::{Duration, SystemTime};

        use super::{Claim, EffectStore as _, Leading, MemoryStore, Recorded};

        let leading = Leading::default();
        let (a, b) = ("0123456789abcdef-alice", "0123456789abcdef-bob");
        assert_eq!(leading.hash_one(a), leading.hash_one(b));
        assert_ne!(leading.hash_one("0123"), leading.hash_one("0124"));

        let store = MemoryStore::new();
        let (now, lease) = (SystemTime::UNIX_EPOCH, Duration::from_secs(60));
        let done = |text: &str| Recorded::from_json(text).unwrap();
        let run = async {
            assert_eq!(
                store.claim(a, "d1", now, lease, lease).await.unwrap(),
                Claim::Claimed
            );
            assert_eq!(
                store.claim(b, "d2", now, lease, lease).await.unwrap(),
                Claim::Claimed
            );
            store.complete(a, done("1")).await.unwrap();
            store.complete(b, done("2")).await.unwrap();
            assert_eq!(
                store.claim(a, "d1", now, lease, lease).await.unwrap(),
                Claim::Finished(done("1"))
            );
            assert_eq!(
                store.claim(b, "d2", now, lease, lease).await.unwrap(),
                Claim::Finished(done("2"))
            );
            assert_eq!(
                store.claim(b, "d1", now, lease, lease).await.unwrap(),
                Claim::Conflict
            );
        };
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(run);
    }
}
