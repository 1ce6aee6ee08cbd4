//! Where gate 6 keeps its state: approvals and idempotency records.
//!
//! Every operation that must be atomic is one call: deciding an approval,
//! consuming it, claiming an idempotency key. A store never asks the gate
//! to read and then write.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::approval::{Approval, ApprovalState};
use crate::BoxFuture;

/// Why a store operation did not complete: the database is unreachable,
/// a statement failed, a lock was poisoned. The gate answers the model
/// with a retryable failure and logs this text.
#[derive(Debug)]
pub struct StoreError(Box<dyn std::error::Error + Send + Sync>);

impl StoreError {
    /// A store failure with its cause.
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        StoreError(error.into())
    }
}

impl core::fmt::Display for StoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "effect store: {}", self.0)
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

/// A person's decision on a pending approval.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Approved, by this actor.
    Approve(String),
    /// Denied, by this actor.
    Deny(String),
}

/// What [`EffectStore::decide`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decided {
    /// The approval was pending, unexpired, and now carries the decision.
    Done,
    /// No approval has this id.
    Unknown,
    /// The approval expired before the decision.
    Expired,
    /// The approval was already decided (or used).
    AlreadyDecided,
}

/// What [`EffectStore::consume`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Consumed {
    /// The approval was approved and unexpired, and is now used.
    Done,
    /// No approval has this id.
    Unknown,
    /// The approval expired.
    Expired,
    /// The approval is still pending.
    Pending,
    /// The approval was denied.
    Denied,
    /// The approval was used already.
    Used,
}

/// What [`EffectStore::claim`] found for an idempotency key.
#[derive(Clone, Debug, PartialEq)]
pub enum Claim {
    /// The key was free (or its lease had run out): the caller holds it
    /// until `lease_until` and must [`complete`](EffectStore::complete) it.
    Claimed,
    /// Another call holds the key and its lease has not run out.
    InFlight,
    /// A call with this key finished: the outcome the model read, as JSON.
    Finished(Value),
    /// The key was claimed for a request with another digest: a key the
    /// host supplied, reused for different arguments.
    Conflict,
}

/// The store behind gate 6. Implemented in memory by [`MemoryStore`]; the
/// SQLite and PostgreSQL stores implement it on a database, each operation
/// one statement or one transaction.
///
/// A call may poll a store's future first with a waker that does nothing
/// (a plain-function tool's call is started where the toolbox calls it),
/// then again at once with the caller's. As the `Future` contract says, a
/// pending future must wake the waker of its latest poll, not the first.
pub trait EffectStore: Send + Sync + 'static {
    /// Saves a new, pending approval.
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

    /// Atomically: claim `key` for a request with this `digest` until
    /// `now + lease`, unless a live claim or a finished record holds it.
    /// The record is kept until `now + retain`.
    fn claim<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        now: SystemTime,
        lease: Duration,
        retain: Duration,
    ) -> BoxFuture<'a, Result<Claim, StoreError>>;

    /// Records the outcome of the call that claimed `key`; later claims
    /// of the key get it as [`Claim::Finished`].
    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Gives up a claim without an outcome (the call never reached its
    /// body), so that a repeat runs.
    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Atomically: adds one to the counter `key` and returns its new
    /// value. A counter starts at zero and is forgotten `window` after its
    /// first count.
    fn count<'a>(
        &'a self,
        key: &'a str,
        now: SystemTime,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StoreError>>;

    /// Atomically: takes a token from the bucket `key`, which holds at most
    /// `capacity` tokens and gains `capacity` of them every `period`.
    /// `None` if one was taken; otherwise how long until one is there.
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
        outcome: Value,
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

/// A token bucket as a store keeps it: the tokens left when it was last
/// counted, and when. [`EffectStore::take`] in every store is this
/// arithmetic, done under the store's own atomicity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    /// Tokens left, fractional: the bucket refills evenly.
    pub tokens: f64,
    /// When `tokens` was counted.
    pub at: SystemTime,
}

impl Bucket {
    /// A bucket holding all `capacity` tokens at `now`.
    pub fn full(capacity: u32, now: SystemTime) -> Bucket {
        Bucket {
            tokens: f64::from(capacity),
            at: now,
        }
    }

    /// Takes one token at `now` from a bucket that holds at most
    /// `capacity` and gains `capacity` every `period`: the bucket after,
    /// and `None` if a token was taken, or else how long until one is
    /// there.
    pub fn take(
        self,
        capacity: u32,
        period: Duration,
        now: SystemTime,
    ) -> (Bucket, Option<Duration>) {
        let capacity = f64::from(capacity);
        let rate = capacity / period.as_secs_f64().max(f64::MIN_POSITIVE);
        let elapsed = now.duration_since(self.at).unwrap_or_default();
        let tokens = (self.tokens + elapsed.as_secs_f64() * rate).min(capacity);
        if tokens >= 1.0 {
            return (
                Bucket {
                    tokens: tokens - 1.0,
                    at: now,
                },
                None,
            );
        }
        let wait = Duration::from_secs_f64((1.0 - tokens) / rate);
        (Bucket { tokens, at: now }, Some(wait))
    }

    /// When this bucket holds all `capacity` tokens again: from then on
    /// it is the same as no bucket, and a store may forget it.
    pub fn full_at(&self, capacity: u32, period: Duration) -> SystemTime {
        let capacity = f64::from(capacity);
        let missing = (capacity - self.tokens).max(0.0) / capacity.max(1.0);
        self.at + period.mul_f64(missing.min(1.0))
    }
}

/// Gate 6's state in memory: one process, lost on restart. The default
/// store of a [`Toolbox`](crate::Toolbox).
#[derive(Debug, Default)]
pub struct MemoryStore {
    approvals: Mutex<Swept<Approval>>,
    keys: Mutex<Swept<KeyRecord>>,
    /// Counters: value, and when the window ends.
    counters: Mutex<Swept<(u32, SystemTime)>>,
    /// Token buckets: tokens (fractional), and when they were counted.
    buckets: Mutex<Swept<Bucket>>,
}

/// A map whose expired entries are swept when it has doubled since the
/// last sweep: each sweep's cost is paid for by the inserts before it.
#[derive(Debug)]
struct Swept<T> {
    map: HashMap<String, T>,
    sweep_at: usize,
}

impl<T> Default for Swept<T> {
    fn default() -> Self {
        Swept {
            map: HashMap::new(),
            sweep_at: 1024,
        }
    }
}

impl<T> Swept<T> {
    fn sweep(&mut self, live: impl FnMut(&T) -> bool) {
        let mut live = live;
        if self.map.len() >= self.sweep_at {
            self.map.retain(|_, v| live(v));
            self.sweep_at = (self.map.len() * 2).max(1024);
        }
    }
}

#[derive(Debug)]
struct KeyRecord {
    digest: String,
    state: KeyState,
    retain_until: SystemTime,
}

#[derive(Debug)]
enum KeyState {
    InFlight { lease_until: SystemTime },
    Finished(Value),
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }
}

fn poisoned<T>(_: T) -> StoreError {
    StoreError::new("a lock of the memory store was poisoned")
}

impl EffectStore for MemoryStore {
    fn create_approval(&self, record: Approval) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let mut approvals = self.approvals.lock().map_err(poisoned)?;
            let now = record.created_at;
            approvals.sweep(|r| r.expires_at + super::RETAIN_DECIDED > now);
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
            let Some(record) = approvals.map.get_mut(id) else {
                return Ok(Decided::Unknown);
            };
            if record.state != ApprovalState::Pending {
                return Ok(Decided::AlreadyDecided);
            }
            if now >= record.expires_at {
                return Ok(Decided::Expired);
            }
            record.state = match decision {
                Decision::Approve(by) => ApprovalState::Approved { by },
                Decision::Deny(by) => ApprovalState::Denied { by },
            };
            Ok(Decided::Done)
        })
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Consumed, StoreError>> {
        Box::pin(async move {
            let mut approvals = self.approvals.lock().map_err(poisoned)?;
            let Some(record) = approvals.map.get_mut(id) else {
                return Ok(Consumed::Unknown);
            };
            Ok(match &record.state {
                ApprovalState::Pending if now >= record.expires_at => Consumed::Expired,
                ApprovalState::Pending => Consumed::Pending,
                ApprovalState::Denied { .. } => Consumed::Denied,
                ApprovalState::Used { .. } => Consumed::Used,
                ApprovalState::Approved { .. } if now >= record.expires_at => Consumed::Expired,
                ApprovalState::Approved { by } => {
                    record.state = ApprovalState::Used { by: by.clone() };
                    Consumed::Done
                }
            })
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
            keys.sweep(|r| r.retain_until > now);
            if let Some(record) = keys.map.get(key).filter(|r| r.retain_until > now) {
                if record.digest != digest {
                    return Ok(Claim::Conflict);
                }
                match &record.state {
                    KeyState::Finished(outcome) => return Ok(Claim::Finished(outcome.clone())),
                    KeyState::InFlight { lease_until } if *lease_until > now => {
                        return Ok(Claim::InFlight);
                    }
                    // A lease that ran out: the call that held it died.
                    KeyState::InFlight { .. } => {}
                }
            }
            keys.map.insert(
                key.to_owned(),
                KeyRecord {
                    digest: digest.to_owned(),
                    state: KeyState::InFlight {
                        lease_until: now + lease,
                    },
                    retain_until: now + retain,
                },
            );
            Ok(Claim::Claimed)
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut keys = self.keys.lock().map_err(poisoned)?;
            if let Some(record) = keys.map.get_mut(key) {
                record.state = KeyState::Finished(outcome);
            }
            Ok(())
        })
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut keys = self.keys.lock().map_err(poisoned)?;
            if matches!(
                keys.map.get(key).map(|r| &r.state),
                Some(KeyState::InFlight { .. })
            ) {
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
            counters.sweep(|(_, until)| *until > now);
            let counter = counters
                .map
                .entry(key.to_owned())
                .or_insert((0, now + window));
            if counter.1 <= now {
                *counter = (0, now + window);
            }
            counter.0 = counter.0.saturating_add(1);
            Ok(counter.0)
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
            // A bucket untouched for a whole period is full: as if new.
            buckets.sweep(|b| now.duration_since(b.at).unwrap_or_default() < period);
            let bucket = buckets
                .map
                .entry(key.to_owned())
                .or_insert_with(|| Bucket::full(capacity, now));
            let (after, wait) = bucket.take(capacity, period, now);
            *bucket = after;
            Ok(wait)
        })
    }
}
