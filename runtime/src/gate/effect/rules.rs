//! Gate 6's rules, written once: each decision a store makes, as a pure
//! function of the few columns that decide it.
//!
//! A store only reads rows and writes them back atomically; what a row
//! becomes is decided here. The memory store applies these functions under
//! its lock, the SQLite store inside `BEGIN IMMEDIATE`. The PostgreSQL
//! store keeps some decisions as single statements, for speed; each of
//! them names the function below it implements, and the store suite's
//! seeded model test runs every store operation against these functions
//! on all three stores, so that any SQL is an optimisation proven equal to
//! them.
//!
//! Every row has one instant after which it is as good as gone (an
//! approval's [`approval_kept_until`], a key's `kept_until`, a counter's
//! `until`, a bucket's `full_at`): the rules treat a row past it as absent,
//! so a sweep that deletes it, or not yet, changes no answer.
//!
//! ```
//! use std::time::{Duration, SystemTime};
//! use toolgate::store::rules::{self, ClaimRule, Held};
//!
//! let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
//! let minute = Duration::from_secs(60);
//! // A free key is taken, and kept at least as long as it is held.
//! let ClaimRule::Take(hold) = rules::claim(None, "d1", now, minute, Duration::ZERO) else {
//!     unreachable!()
//! };
//! assert_eq!(hold.kept_until, now + minute);
//! // Held by a running call: in flight, until its lease runs out.
//! let held = Held { digest: "d1", finished: false, lease_until: hold.lease_until, kept_until: hold.kept_until };
//! assert_eq!(rules::claim(Some(held), "d1", now, minute, minute), ClaimRule::InFlight);
//! assert_eq!(rules::claim(Some(held), "d2", now, minute, minute), ClaimRule::Conflict);
//! ```

use std::time::{Duration, SystemTime};

use super::answers::{Consumed, Decided, StoreError, Withdrawn};
use super::approval::{Approval, ApprovalState};
use crate::{ApprovalError, ToolContext};

/// How long an approval is kept for lookups past its expiry, by every
/// store: long enough for a person or a host to read what became of it.
pub const APPROVAL_RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

/// Where an approval is in its life: the one column its decisions read.
///
/// ```
/// use toolgate::store::rules::Stage;
///
/// assert_eq!(Stage::parse(Stage::Approved.as_str()), Some(Stage::Approved));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Waiting for a decision.
    Pending,
    /// Approved, not yet run.
    Approved,
    /// Denied.
    Denied,
    /// Approved and run.
    Used,
    /// Withdrawn before it ran.
    Withdrawn,
}

impl Stage {
    /// The stage of `state`.
    pub fn of(state: &ApprovalState) -> Stage {
        match state {
            ApprovalState::Pending => Stage::Pending,
            ApprovalState::Approved { .. } => Stage::Approved,
            ApprovalState::Denied { .. } => Stage::Denied,
            ApprovalState::Used { .. } => Stage::Used,
            ApprovalState::Withdrawn { .. } => Stage::Withdrawn,
        }
    }

    /// The text a database column holds for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Pending => "pending",
            Stage::Approved => "approved",
            Stage::Denied => "denied",
            Stage::Used => "used",
            Stage::Withdrawn => "withdrawn",
        }
    }

    /// The stage a column's text names, if it names one.
    pub fn parse(text: &str) -> Option<Stage> {
        Some(match text {
            "pending" => Stage::Pending,
            "approved" => Stage::Approved,
            "denied" => Stage::Denied,
            "used" => Stage::Used,
            "withdrawn" => Stage::Withdrawn,
            _ => return None,
        })
    }

    /// The approval state of this stage, decided by `by` (ignored while
    /// pending).
    pub fn with_approver(self, by: Option<String>) -> ApprovalState {
        let by = by.unwrap_or_default();
        match self {
            Stage::Pending => ApprovalState::Pending,
            Stage::Approved => ApprovalState::Approved { by },
            Stage::Denied => ApprovalState::Denied { by },
            Stage::Used => ApprovalState::Used { by },
            Stage::Withdrawn => ApprovalState::Withdrawn { by },
        }
    }
}

/// Creating an approval: an id names one approval for its whole life, so
/// an id that is taken is refused, never replaced (a replaced approval
/// could turn a used or denied one back into a pending one).
///
/// ```
/// assert!(toolgate::store::rules::create("apr_1", false).is_ok());
/// assert!(toolgate::store::rules::create("apr_1", true).is_err());
/// ```
pub fn create(id: &str, taken: bool) -> Result<(), StoreError> {
    if taken {
        return Err(StoreError::message(format!(
            "an approval with the id {id:?} exists already"
        )));
    }
    Ok(())
}

/// Until when an approval that expires at `expires_at` is kept.
///
/// ```
/// use std::time::SystemTime;
/// use toolgate::store::rules::{self, APPROVAL_RETENTION};
///
/// let expires = SystemTime::UNIX_EPOCH;
/// assert_eq!(rules::approval_kept_until(expires), expires + APPROVAL_RETENTION);
/// ```
pub fn approval_kept_until(expires_at: SystemTime) -> SystemTime {
    expires_at
        .checked_add(APPROVAL_RETENTION)
        .unwrap_or(expires_at)
}

/// Deciding an approval found at `stage` expiring at `expires_at` (or not
/// found): [`Decided::Done`] if the store must record the decision.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolgate::store::{Decided, rules::{self, Stage}};
///
/// let now = SystemTime::UNIX_EPOCH;
/// let later = now + Duration::from_secs(60);
/// assert_eq!(rules::decide(Some((Stage::Pending, later)), now), Decided::Done);
/// assert_eq!(rules::decide(Some((Stage::Pending, now)), now), Decided::Expired);
/// assert_eq!(rules::decide(Some((Stage::Denied, later)), now), Decided::AlreadyDecided);
/// assert_eq!(rules::decide(None, now), Decided::Unknown);
/// ```
pub fn decide(found: Option<(Stage, SystemTime)>, now: SystemTime) -> Decided {
    match found {
        None => Decided::Unknown,
        Some((Stage::Pending, expires_at)) if now < expires_at => Decided::Done,
        Some((Stage::Pending, _)) => Decided::Expired,
        Some(_) => Decided::AlreadyDecided,
    }
}

/// Consuming an approval found at `stage` expiring at `expires_at` (or not
/// found): [`Consumed::Done`] if the store must mark it used.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolgate::store::{Consumed, rules::{self, Stage}};
///
/// let now = SystemTime::UNIX_EPOCH;
/// let later = now + Duration::from_secs(60);
/// assert_eq!(rules::consume(Some((Stage::Approved, later)), now), Consumed::Done);
/// assert_eq!(rules::consume(Some((Stage::Approved, now)), now), Consumed::Expired);
/// assert_eq!(rules::consume(Some((Stage::Used, later)), now), Consumed::Used);
/// ```
pub fn consume(found: Option<(Stage, SystemTime)>, now: SystemTime) -> Consumed {
    let Some((stage, expires_at)) = found else {
        return Consumed::Unknown;
    };
    match stage {
        Stage::Denied => Consumed::Denied,
        Stage::Used => Consumed::Used,
        Stage::Withdrawn => Consumed::Withdrawn,
        _ if now >= expires_at => Consumed::Expired,
        Stage::Pending => Consumed::Pending,
        Stage::Approved => Consumed::Done,
    }
}

/// Withdrawing an approval found at `stage` expiring at `expires_at` (or
/// not found): [`Withdrawn::Done`] if the store must mark it withdrawn.
/// A pending approval and an approved one not yet run can be withdrawn,
/// until they expire; a run one cannot be taken back.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolgate::store::{Withdrawn, rules::{self, Stage}};
///
/// let now = SystemTime::UNIX_EPOCH;
/// let later = now + Duration::from_secs(60);
/// assert_eq!(rules::withdraw(Some((Stage::Pending, later)), now), Withdrawn::Done);
/// assert_eq!(rules::withdraw(Some((Stage::Approved, later)), now), Withdrawn::Done);
/// assert_eq!(rules::withdraw(Some((Stage::Approved, now)), now), Withdrawn::Expired);
/// assert_eq!(rules::withdraw(Some((Stage::Used, later)), now), Withdrawn::Used);
/// assert_eq!(rules::withdraw(Some((Stage::Denied, later)), now), Withdrawn::Closed);
/// assert_eq!(rules::withdraw(None, now), Withdrawn::Unknown);
/// ```
pub fn withdraw(found: Option<(Stage, SystemTime)>, now: SystemTime) -> Withdrawn {
    let Some((stage, expires_at)) = found else {
        return Withdrawn::Unknown;
    };
    match stage {
        Stage::Used => Withdrawn::Used,
        Stage::Denied | Stage::Withdrawn => Withdrawn::Closed,
        _ if now >= expires_at => Withdrawn::Expired,
        Stage::Pending | Stage::Approved => Withdrawn::Done,
    }
}

/// Whether `approver` may decide `approval`, as far as who they are goes
/// (its state and expiry aside): the same tenant, the tool's approver
/// scope held, someone other than the actor who asked where the policy
/// says so ([`EffectPolicy::distinct_approver`](crate::EffectPolicy::distinct_approver)),
/// and the one actor the call names where it names one. The first rule
/// broken, otherwise.
///
/// Deciding, listing and MCP's elicitation all ask this one function, so
/// that a person is shown exactly what they may decide.
///
/// ```
/// use toolgate::{ApprovalError, ToolContext, rules};
/// # let mut approval: toolgate::Approval = serde_json::from_value(serde_json::json!({
/// #   "id":"apr_1","tenant":"tenant_a","actor":"agent_1","session":null,"tool":"issue_refund",
/// #   "version":1,"fingerprint":"f","arguments":{},"digest":"d","resources":[],
/// #   "approver_scope":"refunds:approve","distinct_approver":true,"approver":null,
/// #   "created_at":{"secs_since_epoch":0,"nanos_since_epoch":0},
/// #   "expires_at":{"secs_since_epoch":60,"nanos_since_epoch":0},"state":{"state":"pending"}
/// # })).unwrap();
/// let manager = ToolContext::new("manager_1", "tenant_a", "r").with_scopes(["refunds:approve"]);
/// assert!(rules::may_decide(&approval, &manager).is_ok());
/// // The agent who asked holds the scope too, but the policy wants someone else.
/// let agent = ToolContext::new("agent_1", "tenant_a", "r").with_scopes(["refunds:approve"]);
/// assert_eq!(rules::may_decide(&approval, &agent), Err(ApprovalError::OwnCall));
/// let other_tenant = ToolContext::new("manager_1", "tenant_b", "r").with_scopes(["refunds:approve"]);
/// assert_eq!(rules::may_decide(&approval, &other_tenant), Err(ApprovalError::NotFound));
/// ```
pub fn may_decide(approval: &Approval, approver: &ToolContext) -> Result<(), ApprovalError> {
    if approval.tenant != approver.tenant() {
        return Err(ApprovalError::NotFound);
    }
    if let Some(scope) = &approval.approver_scope
        && !approver.has_scope(scope)
    {
        return Err(ApprovalError::MissingScope(scope.to_owned()));
    }
    if approval.distinct_approver && approval.actor == approver.actor() {
        return Err(ApprovalError::OwnCall);
    }
    if let Some(named) = &approval.approver
        && named != approver.actor()
    {
        return Err(ApprovalError::NotTheNamedApprover(named.clone()));
    }
    Ok(())
}

/// Whether [`EffectStore::pending_approvals`](super::EffectStore::pending_approvals)
/// lists `approval` to `approver` at `now`: pending, unexpired, and
/// theirs to decide ([`may_decide`]).
pub fn listed(approval: &Approval, approver: &ToolContext, now: SystemTime) -> bool {
    Stage::of(&approval.state) == Stage::Pending
        && now < approval.expires_at
        && may_decide(approval, approver).is_ok()
}

/// The order pending approvals are listed in: oldest first, by the
/// instant asked in whole microseconds (as the databases keep it), then
/// by id. A store sorts by this key and keeps the first `limit`.
pub fn listing_order(approval: &Approval) -> (u128, &str) {
    let micros = approval
        .created_at
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    (micros, approval.id.as_str())
}

/// An idempotency record as a claim reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held<'a> {
    /// The digest the key was claimed with.
    pub digest: &'a str,
    /// Whether it holds an outcome.
    pub finished: bool,
    /// Until when the call that claimed it holds it.
    pub lease_until: SystemTime,
    /// Until when the record is kept; after that it is as good as gone.
    pub kept_until: SystemTime,
}

/// A claim the store writes: the key is held until `lease_until`, and the
/// record kept until `kept_until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hold {
    /// Until when the claiming call holds the key.
    pub lease_until: SystemTime,
    /// Until when the record is kept.
    pub kept_until: SystemTime,
}

/// What a claim decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimRule {
    /// The key is this call's: the store writes a new in-flight record,
    /// with no outcome and the claim's digest, in place of any other.
    Take(Hold),
    /// Another call holds the key: nothing changes.
    InFlight,
    /// The key holds an outcome: the store answers with it; nothing changes.
    Finished,
    /// The key was claimed with another digest: nothing changes.
    Conflict,
}

/// The hold a claim at `now` writes: a record is kept `retain`, and never
/// less than its lease, so that no record a running call holds is ever
/// swept or taken over before its lease runs out.
///
/// ```
/// use std::time::{Duration, SystemTime};
///
/// let now = SystemTime::UNIX_EPOCH;
/// let hold = toolgate::store::rules::hold(now, Duration::from_secs(300), Duration::from_secs(60));
/// assert_eq!(hold.kept_until, hold.lease_until);
/// ```
pub fn hold(now: SystemTime, lease: Duration, retain: Duration) -> Hold {
    let at = |span: Duration| now.checked_add(span).unwrap_or(now);
    Hold {
        lease_until: at(lease),
        kept_until: at(retain.max(lease)),
    }
}

/// Claiming a key held as `held` (or free) at `now` with `digest`.
///
/// A record past `kept_until` is as good as gone. A live record claimed
/// with another digest conflicts; one with an outcome answers with it;
/// one whose lease has not run out is in flight; one whose lease ran out
/// (its call died) is taken over.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolgate::store::rules::{self, ClaimRule, Held};
///
/// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(60);
/// let ran_out = Held { digest: "d", finished: false, lease_until: now, kept_until: now + Duration::from_secs(60) };
/// // Its call died: the lease ran out, and a repeat takes the key over.
/// assert!(matches!(rules::claim(Some(ran_out), "d", now, Duration::ZERO, Duration::ZERO), ClaimRule::Take(_)));
/// let done = Held { finished: true, ..ran_out };
/// assert_eq!(rules::claim(Some(done), "d", now, Duration::ZERO, Duration::ZERO), ClaimRule::Finished);
/// ```
pub fn claim(
    held: Option<Held<'_>>,
    digest: &str,
    now: SystemTime,
    lease: Duration,
    retain: Duration,
) -> ClaimRule {
    match held.filter(|h| h.kept_until > now) {
        Some(h) if h.digest != digest => ClaimRule::Conflict,
        Some(h) if h.finished => ClaimRule::Finished,
        Some(h) if h.lease_until > now => ClaimRule::InFlight,
        _ => ClaimRule::Take(hold(now, lease, retain)),
    }
}

/// Completing a key found `finished` or not (or not found): whether the
/// store writes the outcome. Only an in-flight record takes one: the first
/// outcome recorded stands, so that every replay reads the same one; a
/// record that is gone stays gone.
///
/// ```
/// assert!(toolgate::store::rules::complete(Some(false)));
/// assert!(!toolgate::store::rules::complete(Some(true)));
/// assert!(!toolgate::store::rules::complete(None));
/// ```
pub fn complete(finished: Option<bool>) -> bool {
    finished == Some(false)
}

/// Releasing a key found `finished` or not (or not found): whether the
/// store deletes the record. Only a claim without an outcome is given up.
///
/// ```
/// assert!(toolgate::store::rules::release(Some(false)));
/// assert!(!toolgate::store::rules::release(Some(true)));
/// ```
pub fn release(finished: Option<bool>) -> bool {
    finished == Some(false)
}

/// A counter as a store keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counter {
    /// The count.
    pub value: u32,
    /// When its window ends; after that it is as good as gone.
    pub until: SystemTime,
}

/// Counting one more on a counter held as `held` (or absent) at `now`:
/// the counter the store writes, whose value the count answers. A counter
/// whose window ended starts over; the count stops at `u32::MAX` rather
/// than wrap or fail.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolgate::store::rules::{self, Counter};
///
/// let now = SystemTime::UNIX_EPOCH;
/// let minute = Duration::from_secs(60);
/// let first = rules::count(None, now, minute);
/// assert_eq!(first, Counter { value: 1, until: now + minute });
/// assert_eq!(rules::count(Some(first), now, minute).value, 2);
/// assert_eq!(rules::count(Some(first), now + minute, minute).value, 1);
/// let full = Counter { value: u32::MAX, until: now + minute };
/// assert_eq!(rules::count(Some(full), now, minute).value, u32::MAX);
/// ```
pub fn count(held: Option<Counter>, now: SystemTime, window: Duration) -> Counter {
    match held.filter(|c| c.until > now) {
        Some(c) => Counter {
            value: c.value.saturating_add(1),
            until: c.until,
        },
        None => Counter {
            value: 1,
            until: now.checked_add(window).unwrap_or(now),
        },
    }
}

/// A token bucket as a store keeps it: the tokens left when it was last
/// counted, and when. [`EffectStore::take`](super::EffectStore::take) in
/// every store is [`take`], done under the store's own atomicity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    /// Tokens left, fractional: the bucket refills evenly.
    pub tokens: f64,
    /// When `tokens` was counted.
    pub at: SystemTime,
}

impl Bucket {
    /// A bucket holding all `capacity` tokens at `now`.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use toolgate::store::Bucket;
    ///
    /// let now = SystemTime::UNIX_EPOCH;
    /// let (after, wait) = Bucket::full(2, now).take(2, Duration::from_secs(60), now);
    /// assert_eq!((after.tokens, wait), (1.0, None));
    /// assert_eq!(after.full_at(2, Duration::from_secs(60)), now + Duration::from_secs(30));
    /// ```
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
        // A bucket of no capacity never refills: the longest wait there is.
        let wait = Duration::try_from_secs_f64((1.0 - tokens) / rate).unwrap_or(Duration::MAX);
        (Bucket { tokens, at: now }, Some(wait))
    }

    /// When this bucket holds all `capacity` tokens again: from then on
    /// it is the same as no bucket, and a store may forget it.
    pub fn full_at(&self, capacity: u32, period: Duration) -> SystemTime {
        let capacity = f64::from(capacity);
        let missing = (capacity - self.tokens).max(0.0) / capacity.max(1.0);
        let refill = period.mul_f64(missing.min(1.0));
        // Whole microseconds, rounded up, as the databases keep instants:
        // a bucket is forgotten at one instant in every store.
        let refill = Duration::from_micros(
            u64::try_from(refill.as_nanos().div_ceil(1_000)).unwrap_or(u64::MAX),
        );
        self.at.checked_add(refill).unwrap_or(self.at)
    }
}

/// Taking a token at `now` from a bucket held as `held` with the instant
/// it is full again (or absent): the bucket the store writes with its own
/// `full_at`, and the answer. A bucket full again is the same as none.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolgate::store::rules;
///
/// let now = SystemTime::UNIX_EPOCH;
/// let minute = Duration::from_secs(60);
/// let (first, wait) = rules::take(None, 1, minute, now);
/// assert_eq!(wait, None);
/// let (_, wait) = rules::take(Some(first), 1, minute, now);
/// assert_eq!(wait, Some(minute));
/// ```
pub fn take(
    held: Option<(Bucket, SystemTime)>,
    capacity: u32,
    period: Duration,
    now: SystemTime,
) -> ((Bucket, SystemTime), Option<Duration>) {
    let bucket = match held {
        Some((bucket, full_at)) if full_at > now => bucket,
        _ => Bucket::full(capacity, now),
    };
    let (after, wait) = bucket.take(capacity, period, now);
    ((after, after.full_at(capacity, period)), wait)
}

/// Whether a row whose last instant is `until` is gone at `now`: what a
/// sweep deletes, and what every rule above treats as absent.
///
/// ```
/// use std::time::{Duration, SystemTime};
///
/// let until = SystemTime::UNIX_EPOCH + Duration::from_secs(1);
/// assert!(!toolgate::store::rules::gone(until, SystemTime::UNIX_EPOCH));
/// assert!(toolgate::store::rules::gone(until, until));
/// ```
pub fn gone(until: SystemTime, now: SystemTime) -> bool {
    until <= now
}
