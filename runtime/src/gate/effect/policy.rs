//! Gate 6's policy, clock and store, as a toolbox holds them.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::hook::Notifier;
use super::store::{EffectStore, MemoryStore};
use super::unrecorded::Unrecorded;
use crate::Effect;

/// Where gate 6 reads the time: the system clock, or a clock a test moves.
pub trait Clock: Send + Sync + 'static {
    /// Now.
    fn now(&self) -> SystemTime;
}

/// The system's clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// Whether calls of an effect class need approval, toolbox-wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalRule {
    /// The tool decides: its `approval = …` expression, or its class's
    /// default (`irreversible` needs approval; `read` and `write` do not).
    ToolDecides,
    /// Every call of the class needs approval.
    Always,
    /// No call of the class needs approval.
    Never,
}

/// Gate 6's settings for a toolbox.
///
/// ```
/// use std::time::Duration;
/// use toolgate::{ApprovalRule, Effect, EffectPolicy};
///
/// // Every write needs approval too, approvals last 5 minutes, and no one
/// // approves their own calls.
/// let policy = EffectPolicy::default()
///     .approval(Effect::Write, ApprovalRule::Always)
///     .approval_ttl(Duration::from_secs(300))
///     .distinct_approver(true);
/// # let _ = policy;
/// ```
#[derive(Clone, Debug)]
pub struct EffectPolicy {
    read: ApprovalRule,
    write: ApprovalRule,
    irreversible: ApprovalRule,
    pub(crate) approval_ttl: Duration,
    pub(crate) lease: Duration,
    pub(crate) retain: Duration,
    pub(crate) distinct_approver: bool,
    pub(crate) retry_budget: u32,
    pub(crate) conversation_budget: u32,
    rate: Option<(u32, Duration)>,
    rates: Vec<(String, u32, Duration)>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) record_within: Duration,
}

impl Default for EffectPolicy {
    fn default() -> Self {
        EffectPolicy {
            read: ApprovalRule::ToolDecides,
            write: ApprovalRule::ToolDecides,
            irreversible: ApprovalRule::ToolDecides,
            approval_ttl: Duration::from_secs(15 * 60),
            lease: Duration::from_secs(5 * 60),
            retain: Duration::from_secs(24 * 60 * 60),
            distinct_approver: false,
            retry_budget: 3,
            conversation_budget: 20,
            rate: None,
            rates: Vec::new(),
            timeout: None,
            record_within: Duration::from_secs(1),
        }
    }
}

impl EffectPolicy {
    /// Overrides whether calls of `effect` need approval.
    #[must_use]
    pub fn approval(mut self, effect: Effect, rule: ApprovalRule) -> Self {
        *self.rule(effect) = rule;
        self
    }

    fn rule(&mut self, effect: Effect) -> &mut ApprovalRule {
        match effect {
            Effect::Read => &mut self.read,
            Effect::Write => &mut self.write,
            Effect::Irreversible => &mut self.irreversible,
        }
    }

    /// How long an approval may be decided and resumed (default 15 minutes).
    #[must_use]
    pub fn approval_ttl(mut self, ttl: Duration) -> Self {
        self.approval_ttl = ttl;
        self
    }

    /// How long a call holds its idempotency key before a repeat may run
    /// again (default 5 minutes): the recovery after a process dies in a
    /// body. A tool with a time limit (`#[tool(timeout_ms = …)]` or
    /// [`timeout`](Self::timeout)) holds its key for at least that limit,
    /// so that no repeat runs beside a body that is still running.
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// How long a finished call's outcome is kept for replay (default 24
    /// hours). Never shorter than a call's lease: a record that is still
    /// held by a running call is kept at least as long as the hold.
    #[must_use]
    pub fn retain(mut self, retain: Duration) -> Self {
        self.retain = retain;
        self
    }

    /// Whether the approver must be someone other than the actor who made
    /// the call (default `false`).
    #[must_use]
    pub fn distinct_approver(mut self, distinct: bool) -> Self {
        self.distinct_approver = distinct;
        self
    }

    /// How often a conversation may make one rejected call (same tool,
    /// same bytes) before the next rejection of it is
    /// `RETRY_BUDGET_EXHAUSTED` (default 3).
    #[must_use]
    pub fn retry_budget(mut self, attempts: u32) -> Self {
        self.retry_budget = attempts;
        self
    }

    /// How many rejections a conversation may collect in all before each
    /// further one is `RETRY_BUDGET_EXHAUSTED` (default 20).
    #[must_use]
    pub fn conversation_budget(mut self, rejections: u32) -> Self {
        self.conversation_budget = rejections;
        self
    }

    /// Limits each actor to `calls` calls of each tool per `period`
    /// (a token bucket: bursts up to `calls`, refilled evenly). Past it, a
    /// call is a retryable `RATE_LIMITED` that says when to try again.
    #[must_use]
    pub fn rate_limit(mut self, calls: u32, period: Duration) -> Self {
        self.rate = Some((calls, period));
        self
    }

    /// A rate limit for one tool, in place of the toolbox-wide one.
    #[must_use]
    pub fn rate_limit_tool(mut self, tool: &str, calls: u32, period: Duration) -> Self {
        self.rates.retain(|(t, _, _)| t != tool);
        self.rates.push((tool.to_owned(), calls, period));
        self
    }

    /// How long a body may run, for tools without `#[tool(timeout_ms =
    /// …)]` (default: no limit). Past it, the body's future is dropped and
    /// the model reads `TIMEOUT`. A write's `TIMEOUT` is its outcome: the
    /// body may have committed before it was stopped, so a repeat replays
    /// the `TIMEOUT` ("may or may not have taken effect") rather than run
    /// the body again.
    #[must_use]
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// How long a call whose body ran keeps trying to record its outcome
    /// before it answers, if the store fails (default 1 second; each try
    /// is bounded by the store's own deadline). An outcome still
    /// unrecorded then is kept by the toolbox, replayed to a repeat, and
    /// handed to the store on later calls and by
    /// [`Toolbox::flush`](crate::Toolbox::flush).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolgate::EffectPolicy;
    ///
    /// let policy = EffectPolicy::default().record_within(Duration::from_secs(3));
    /// # let _ = policy;
    /// ```
    #[must_use]
    pub fn record_within(mut self, within: Duration) -> Self {
        self.record_within = within;
        self
    }

    /// How long a call of `def` holds its idempotency key: the lease, or
    /// the tool's time limit if that is longer.
    pub(crate) fn lease_of(&self, def: &crate::ToolDef) -> Duration {
        let limit = def.timeout().or(self.timeout).unwrap_or_default();
        self.lease.max(limit)
    }

    /// How long a record of a call of `def` is kept: never less than its
    /// lease, so that a running claim is never swept.
    pub(crate) fn retain_of(&self, def: &crate::ToolDef) -> Duration {
        self.retain.max(self.lease_of(def))
    }

    #[inline]
    pub(crate) fn rate_of(&self, tool: &str) -> Option<(u32, Duration)> {
        if self.rates.is_empty() {
            return self.rate;
        }
        self.rates
            .iter()
            .find(|(t, _, _)| t == tool)
            .map(|(_, calls, period)| (*calls, *period))
            .or(self.rate)
    }

    /// Whether a call of `effect` needs approval, given what the tool's own
    /// `approval = …` expression said (`None` without one).
    pub(crate) fn needs_approval(&self, effect: Effect, tool_says: Option<bool>) -> bool {
        let rule = match effect {
            Effect::Read => self.read,
            Effect::Write => self.write,
            Effect::Irreversible => self.irreversible,
        };
        match rule {
            ApprovalRule::Always => true,
            ApprovalRule::Never => false,
            ApprovalRule::ToolDecides => tool_says.unwrap_or(effect == Effect::Irreversible),
        }
    }
}

/// A toolbox's policies past gate 4: gate 5's policy for calls that name
/// no object, and gate 6's policy, store and clock.
pub(crate) struct Effects {
    pub(crate) policy: EffectPolicy,
    pub(crate) store: Arc<dyn EffectStore>,
    pub(crate) clock: Arc<dyn Clock>,
    /// Outcomes of bodies that ran while the store could not record them,
    /// by idempotency key: kept until the store takes them.
    pub(crate) unrecorded: Unrecorded,
    /// Gate 5 for a call that authorized no object.
    pub(crate) call_policy: Option<Arc<dyn crate::CallPolicy>>,
    /// Told of each approval created ([`Toolbox::on_approval`](crate::Toolbox::on_approval)).
    pub(crate) notifier: Option<Notifier>,
}

impl Default for Effects {
    fn default() -> Self {
        Effects {
            policy: EffectPolicy::default(),
            store: Arc::new(MemoryStore::new()),
            clock: Arc::new(SystemClock),
            unrecorded: Unrecorded::default(),
            call_policy: None,
            notifier: None,
        }
    }
}
