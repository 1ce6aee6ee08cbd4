//! Gate 6: a call that passed gates 0–5 runs only when it may run now.
//! Irreversible calls wait for a person's approval, which is bound to what
//! the person saw and runs once; writes are idempotent; nothing runs on an
//! approval that is unknown, forged, someone else's, pending, denied,
//! expired, used, or for an object that has changed since.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::json;
use toolgate::store::Recorded;
use toolgate::testing::ManualClock;
use toolgate::{
    Approval, ApprovalError, ApprovalRule, Claim, Code, Consumed, Decided, Decision, Effect,
    EffectPolicy, EffectStore, MemoryStore, Outcome, StoreError, ToolContext, ToolError, Toolbox,
    tool,
};
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_examples::refund::{IssueRefund, Shop};

use crate::common;
use crate::common::block_on;

const REFUND: &str = r#"{"order":"ord_1001","amount_cents":2500}"#;

fn agent() -> ToolContext {
    ToolContext::new("agent_1", "tenant_a", "req_1")
        .with_session("conv_1")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"])
}

fn manager() -> ToolContext {
    ToolContext::new("manager_1", "tenant_a", "req_m").with_scopes(["refunds:approve"])
}

fn shop() -> (Toolbox<Shop>, ManualClock) {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    let mut toolbox = Toolbox::new(Shop::demo()).with_clock(clock.clone());
    toolbox.register(IssueRefund).unwrap();
    (toolbox, clock)
}

/// Makes the refund call and returns the approval it asks for.
fn requested(toolbox: &Toolbox<Shop>) -> Approval {
    let outcome = block_on(toolbox.call(&agent(), "issue_refund", REFUND));
    match outcome.approval() {
        Some(approval) => approval.clone(),
        None => panic!("expected an approval request, got {outcome:?}"),
    }
}

fn code(outcome: &Outcome) -> Option<Code> {
    outcome.rejection().map(|r| r.code())
}

#[test]
fn an_irreversible_call_waits_for_approval_and_shows_what_it_will_do() {
    let (toolbox, _) = shop();
    let outcome = block_on(toolbox.call(&agent(), "issue_refund", REFUND));
    assert!(
        toolbox.state().refunds().is_empty(),
        "nothing runs before approval"
    );
    let approval = outcome.approval().expect("approval required").clone();
    let shown = outcome.to_json();
    assert_eq!(shown["status"], "approval_required");
    assert_eq!(shown["approval_id"], json!(approval.id));
    assert_eq!(shown["retryable"], false);
    let mut keys = shown.as_object().unwrap().keys().collect::<Vec<_>>();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "approval_id",
            "retryable",
            "safe_message",
            "status",
            "waits_for"
        ],
        "the model sees who decides, never the preview: {shown}"
    );
    assert!(
        approval.id.starts_with("apr_") && approval.id.len() == 36,
        "{}",
        approval.id
    );
    assert_eq!(approval.tool, "issue_refund");
    assert_eq!(approval.version, 2);
    assert_eq!(
        approval.fingerprint,
        IssueRefund::definition().fingerprint()
    );
    assert_eq!(
        approval.arguments,
        json!({"amount_cents": 2500, "order": "ord_1001"})
    );
    assert_eq!(
        (approval.tenant.as_str(), approval.actor.as_str()),
        ("tenant_a", "agent_1")
    );
    assert_eq!(approval.resources.len(), 1);
    let order = &approval.resources[0];
    assert_eq!(
        (order.field.as_str(), &order.reference),
        ("order", &json!("ord_1001"))
    );
    assert_eq!(order.version, Some(1));
    assert_eq!(
        order.summary,
        Some(json!({"id": "ord_1001", "paid_cents": 10_000, "refunded_cents": 0}))
    );
    assert_eq!(approval.approver_scope.as_deref(), Some("refunds:approve"));
    assert_eq!(
        approval
            .expires_at
            .duration_since(approval.created_at)
            .unwrap(),
        Duration::from_secs(15 * 60)
    );
    // The host finds it again by id, in its tenant only.
    assert_eq!(
        block_on(toolbox.approval(&manager(), &approval.id)).unwrap(),
        Some(approval.clone())
    );
    let elsewhere = ToolContext::new("manager_1", "tenant_b", "r");
    assert_eq!(
        block_on(toolbox.approval(&elsewhere, &approval.id)).unwrap(),
        None
    );
}

#[test]
fn an_approved_call_runs_once_and_a_repeat_replays_it() {
    let (toolbox, _) = shop();
    let approval = requested(&toolbox);
    block_on(toolbox.approve(&manager(), &approval.id)).unwrap();
    let first = block_on(toolbox.resume(&agent(), &approval.id));
    assert_eq!(first.value().unwrap()["remaining_cents"], 7500, "{first:?}");
    assert!(!first.is_replay());
    let again = block_on(toolbox.resume(&agent(), &approval.id));
    assert!(again.is_replay(), "{again:?}");
    assert_eq!(again.value(), first.value());
    assert_eq!(again.to_json()["replayed"], true);
    assert_eq!(
        toolbox.state().refunds().len(),
        1,
        "one approval, one refund"
    );
}

#[test]
fn nothing_runs_on_an_approval_that_is_not_this_callers_live_one() {
    let (toolbox, clock) = shop();
    let approval = requested(&toolbox);
    let resume = |ctx: &ToolContext, id: &str| block_on(toolbox.resume(ctx, id));

    // Not yet decided.
    assert_eq!(
        code(&resume(&agent(), &approval.id)),
        Some(Code::ApprovalPending)
    );
    block_on(toolbox.approve(&manager(), &approval.id)).unwrap();

    // Unknown, forged, another tenant's, another actor's: one flat answer.
    let flat = Some(Code::NotPermitted);
    assert_eq!(
        code(&resume(&agent(), "apr_00000000000000000000000000000000")),
        flat
    );
    assert_eq!(code(&resume(&agent(), "anything at all")), flat);
    let other_tenant = ToolContext::new("agent_1", "tenant_b", "r")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"]);
    assert_eq!(code(&resume(&other_tenant, &approval.id)), flat);
    let other_actor = ToolContext::new("agent_2", "tenant_a", "r")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"]);
    assert_eq!(code(&resume(&other_actor, &approval.id)), flat);
    // The actor, without the tool in this request: gate 0 again.
    let not_allowed = ToolContext::new("agent_1", "tenant_a", "r").with_scopes(["refunds:write"]);
    assert_eq!(code(&resume(&not_allowed, &approval.id)), flat);
    assert!(toolbox.state().refunds().is_empty());

    // Expired.
    clock.advance(Duration::from_secs(15 * 60));
    assert_eq!(
        code(&resume(&agent(), &approval.id)),
        Some(Code::ApprovalExpired)
    );
    assert!(toolbox.state().refunds().is_empty());
}

#[test]
fn a_denied_approval_never_runs_and_cannot_be_approved_after() {
    let (toolbox, _) = shop();
    let approval = requested(&toolbox);
    block_on(toolbox.deny(&manager(), &approval.id)).unwrap();
    assert_eq!(
        block_on(toolbox.approve(&manager(), &approval.id)),
        Err(ApprovalError::AlreadyDecided)
    );
    let outcome = block_on(toolbox.resume(&agent(), &approval.id));
    assert_eq!(code(&outcome), Some(Code::ApprovalDenied));
    assert!(toolbox.state().refunds().is_empty());
}

#[test]
fn only_a_qualified_approver_decides() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let mut toolbox = Toolbox::new(Shop::demo())
        .with_clock(clock.clone())
        .with_effect_policy(EffectPolicy::default().distinct_approver(true));
    toolbox.register(IssueRefund).unwrap();
    let approval = requested(&toolbox);
    let without_scope = ToolContext::new("manager_1", "tenant_a", "r");
    assert_eq!(
        block_on(toolbox.approve(&without_scope, &approval.id)),
        Err(ApprovalError::MissingScope("refunds:approve".to_owned()))
    );
    let the_actor = agent().with_scopes(["refunds:approve"]);
    assert_eq!(
        block_on(toolbox.approve(&the_actor, &approval.id)),
        Err(ApprovalError::OwnCall)
    );
    let other_tenant =
        ToolContext::new("manager_1", "tenant_b", "r").with_scopes(["refunds:approve"]);
    assert_eq!(
        block_on(toolbox.approve(&other_tenant, &approval.id)),
        Err(ApprovalError::NotFound)
    );
    assert_eq!(
        block_on(toolbox.deny(&without_scope, &approval.id)),
        Err(ApprovalError::MissingScope("refunds:approve".to_owned()))
    );
    clock.advance(Duration::from_secs(15 * 60));
    assert_eq!(
        block_on(toolbox.approve(&manager(), &approval.id)),
        Err(ApprovalError::Expired)
    );
    // None of them left a decision behind.
    let outcome = block_on(toolbox.resume(&agent(), &approval.id));
    assert_eq!(code(&outcome), Some(Code::ApprovalExpired));
    assert!(toolbox.state().refunds().is_empty());
}

#[test]
fn an_object_changed_after_approval_asks_again_with_what_it_is_now() {
    let (toolbox, _) = shop();
    let approval = requested(&toolbox);
    block_on(toolbox.approve(&manager(), &approval.id)).unwrap();
    toolbox.state().touch("tenant_a", "ord_1001");
    let outcome = block_on(toolbox.resume(&agent(), &approval.id));
    let fresh = outcome.approval().expect("a fresh approval").clone();
    assert_ne!(fresh.id, approval.id);
    assert_eq!(fresh.resources[0].version, Some(2));
    assert!(
        toolbox.state().refunds().is_empty(),
        "nothing ran against the changed order"
    );
    block_on(toolbox.approve(&manager(), &fresh.id)).unwrap();
    let outcome = block_on(toolbox.resume(&agent(), &fresh.id));
    assert_eq!(
        outcome.value().unwrap()["remaining_cents"],
        7500,
        "{outcome:?}"
    );
    assert_eq!(toolbox.state().refunds().len(), 1);
}

/// A memory store with the faults a test chooses: approvals handed back
/// altered (as an attacker holding an approval id, or a bug in the host,
/// might present them), every call failing (a database that is down), or
/// used approvals reported as consumable (a store that reuses them).
/// How a test alters an approval it reads back.
type Alter = Box<dyn Fn(&mut Approval) + Send + Sync>;

#[derive(Default)]
struct Faulty {
    inner: Arc<MemoryStore>,
    alter: Option<Alter>,
    down: Arc<AtomicBool>,
    reuse: bool,
    /// The failure of a store that is down, if not "connection refused".
    fault: Option<fn() -> StoreError>,
    /// How many completions fail next, the store being up otherwise.
    failing_completes: Arc<AtomicUsize>,
}

impl Faulty {
    fn is_down(&self) -> bool {
        self.down.load(Ordering::SeqCst)
    }

    fn refused<'a, T: Send + 'a>(&self) -> toolgate::BoxFuture<'a, Result<T, StoreError>> {
        let error = match self.fault {
            Some(fault) => fault(),
            None => StoreError::new("connection refused"),
        };
        Box::pin(async { Err(error) })
    }
}

/// An error as a database driver builds one: a summary, with the reason
/// beneath it in its `source`.
#[derive(Debug)]
struct DriverError(std::io::Error);

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("db error")
    }
}

impl std::error::Error for DriverError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl EffectStore for Faulty {
    fn create_approval(&self, record: Approval) -> toolgate::BoxFuture<'_, Result<(), StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        self.inner.create_approval(record)
    }
    fn approval<'a>(
        &'a self,
        id: &'a str,
    ) -> toolgate::BoxFuture<'a, Result<Option<Approval>, StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        Box::pin(async move {
            let mut found = self.inner.approval(id).await?;
            if let (Some(approval), Some(alter)) = (&mut found, &self.alter)
                && approval.state != toolgate::ApprovalState::Pending
            {
                alter(approval);
            }
            Ok(found)
        })
    }
    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
        now: SystemTime,
    ) -> toolgate::BoxFuture<'a, Result<Decided, StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        self.inner.decide(id, decision, now)
    }
    fn consume<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> toolgate::BoxFuture<'a, Result<Consumed, StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        Box::pin(async move {
            match self.inner.consume(id, now).await? {
                Consumed::Used if self.reuse => Ok(Consumed::Done),
                other => Ok(other),
            }
        })
    }
    fn pending_approvals<'a>(
        &'a self,
        approver: &'a toolgate::ToolContext,
        now: SystemTime,
        limit: usize,
    ) -> toolgate::BoxFuture<'a, Result<Vec<Approval>, StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        self.inner.pending_approvals(approver, now, limit)
    }
    fn withdraw<'a>(
        &'a self,
        id: &'a str,
        by: String,
        now: SystemTime,
    ) -> toolgate::BoxFuture<'a, Result<toolgate::Withdrawn, StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        self.inner.withdraw(id, by, now)
    }
    fn claim<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        now: SystemTime,
        lease: Duration,
        retain: Duration,
    ) -> toolgate::BoxFuture<'a, Result<Claim, StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        self.inner.claim(key, digest, now, lease, retain)
    }
    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Recorded,
    ) -> toolgate::BoxFuture<'a, Result<(), StoreError>> {
        let failing =
            self.failing_completes
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        if self.is_down() || failing.is_ok() {
            return self.refused();
        }
        self.inner.complete(key, outcome)
    }
    fn release<'a>(&'a self, key: &'a str) -> toolgate::BoxFuture<'a, Result<(), StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        self.inner.release(key)
    }
    fn count<'a>(
        &'a self,
        key: &'a str,
        now: SystemTime,
        window: Duration,
    ) -> toolgate::BoxFuture<'a, Result<u32, StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        self.inner.count(key, now, window)
    }
    fn take<'a>(
        &'a self,
        key: &'a str,
        capacity: u32,
        period: Duration,
        now: SystemTime,
    ) -> toolgate::BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        if self.is_down() {
            return self.refused();
        }
        self.inner.take(key, capacity, period, now)
    }
}

#[test]
fn an_approval_runs_only_what_was_approved() {
    let alterations: Vec<(&str, Alter, Code)> = vec![
        (
            "arguments changed after approval",
            Box::new(|a| a.arguments["amount_cents"] = json!(9_999)),
            Code::NotPermitted,
        ),
        (
            "another order",
            Box::new(|a| {
                a.arguments["order"] = json!("ord_1002");
                a.resources[0].reference = json!("ord_1002");
            }),
            Code::NotPermitted,
        ),
        (
            "another version of the tool",
            Box::new(|a| a.version = 1),
            Code::VersionMismatch,
        ),
        (
            "another schema",
            Box::new(|a| a.fingerprint = "0".repeat(64)),
            Code::VersionMismatch,
        ),
    ];
    for (name, alter, expected) in alterations {
        let mut toolbox = Toolbox::new(Shop::demo()).with_effect_store(Faulty {
            alter: Some(alter),
            ..Faulty::default()
        });
        toolbox.register(IssueRefund).unwrap();
        let approval = requested(&toolbox);
        block_on(toolbox.approve(&manager(), &approval.id)).unwrap();
        let outcome = block_on(toolbox.resume(&agent(), &approval.id));
        assert_eq!(code(&outcome), Some(expected), "{name}: {outcome:?}");
        assert!(
            toolbox.state().refunds().is_empty(),
            "{name}: the refund ran"
        );
    }
}

#[test]
fn a_thousand_concurrent_resumes_refund_once() {
    let (toolbox, _) = shop();
    let approval = requested(&toolbox);
    block_on(toolbox.approve(&manager(), &approval.id)).unwrap();
    let toolbox = Arc::new(toolbox);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .unwrap();
    let outcomes: Vec<Outcome> = runtime.block_on(async {
        let tasks: Vec<_> = (0..1000)
            .map(|_| {
                let toolbox = Arc::clone(&toolbox);
                let id = approval.id.clone();
                tokio::spawn(async move { toolbox.resume(&agent(), &id).await })
            })
            .collect();
        let mut outcomes = Vec::new();
        for task in tasks {
            outcomes.push(task.await.unwrap());
        }
        outcomes
    });
    assert_eq!(toolbox.state().refunds().len(), 1);
    let ran = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Done(_)))
        .count();
    let others = outcomes
        .iter()
        .filter(|o| o.is_replay() || code(o) == Some(Code::InProgress))
        .count();
    assert_eq!((ran, others), (1, 999));
}

#[test]
fn a_thousand_concurrent_identical_writes_in_one_conversation_book_once() {
    let mut toolbox = Toolbox::new(Hotels::demo());
    toolbox.register(BookHotel).unwrap();
    let toolbox = Arc::new(toolbox);
    let ctx = ToolContext::new("traveller_7", "tenant_a", "req_1")
        .with_session("conv_9")
        .with_scopes(["bookings:write"])
        .allow_tools(["book_hotel"]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .unwrap();
    runtime.block_on(async {
        let tasks: Vec<_> = (0..1000)
            .map(|_| {
                let toolbox = Arc::clone(&toolbox);
                let ctx = ctx.clone();
                tokio::spawn(async move {
                    toolbox
                        .call(
                            &ctx,
                            "book_hotel",
                            r#"{"hotel_id":"h_seaview1","nights":3}"#,
                        )
                        .await
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    assert_eq!(toolbox.state().bookings().len(), 1);
    // Another conversation is another action.
    let elsewhere = ctx.clone().with_session("conv_10");
    let outcome = block_on(toolbox.call(
        &elsewhere,
        "book_hotel",
        r#"{"hotel_id":"h_seaview1","nights":3}"#,
    ));
    assert!(matches!(outcome, Outcome::Done(_)), "{outcome:?}");
    assert_eq!(toolbox.state().bookings().len(), 2);
}

#[test]
fn a_host_call_id_replays_its_call_and_refuses_other_arguments() {
    let mut toolbox = Toolbox::new(Hotels::demo());
    toolbox.register(BookHotel).unwrap();
    let ctx = ToolContext::new("traveller_7", "tenant_a", "req_1")
        .with_scopes(["bookings:write"])
        .allow_tools(["book_hotel"])
        .with_call_id("call_abc");
    let first = block_on(toolbox.call(
        &ctx,
        "book_hotel",
        r#"{"hotel_id":"h_seaview1","nights":3}"#,
    ));
    assert!(matches!(first, Outcome::Done(_)), "{first:?}");
    // The same call, its keys in another order: the same action.
    let again = block_on(toolbox.call(
        &ctx,
        "book_hotel",
        r#"{"nights":3,"hotel_id":"h_seaview1"}"#,
    ));
    assert!(again.is_replay(), "{again:?}");
    assert_eq!(again.value(), first.value());
    let other = block_on(toolbox.call(
        &ctx,
        "book_hotel",
        r#"{"hotel_id":"h_seaview1","nights":4}"#,
    ));
    assert_eq!(code(&other), Some(Code::IdempotencyConflict));
    assert!(!other.rejection().unwrap().is_retryable());
    assert_eq!(toolbox.state().bookings().len(), 1);
}

// A write whose body the test holds, to see the record a call leaves
// while it runs and after it is dropped.

#[derive(Default)]
struct Gate {
    runs: AtomicUsize,
    hold: Mutex<Option<Arc<tokio::sync::Notify>>>,
    stale_first: AtomicUsize,
}

/// Record something.
#[tool(effect = write)]
async fn record(
    gate: &Gate,
    #[garde(length(chars, max = 8))] what: String,
) -> Result<String, ToolError> {
    let hold = gate.hold.lock().unwrap().clone();
    if let Some(hold) = hold {
        hold.notified().await;
    }
    if gate.stale_first.fetch_sub(1, Ordering::SeqCst) > 0 {
        return Err(ToolError::stale());
    }
    gate.stale_first.store(0, Ordering::SeqCst);
    gate.runs.fetch_add(1, Ordering::SeqCst);
    Ok(what)
}

/// Pay someone: needs approval only above 10,000 cents.
#[tool(effect = write, approval = amount_cents > 10_000)]
fn pay(
    gate: &Gate,
    #[garde(range(min = 1, max = 1_000_000))] amount_cents: u64,
) -> Result<u64, ToolError> {
    gate.runs.fetch_add(1, Ordering::SeqCst);
    Ok(amount_cents)
}

/// Look something up: a secret needs a person's approval.
#[tool(effect = read, approval = secret)]
fn look(gate: &Gate, #[garde(skip)] secret: bool) -> Result<bool, ToolError> {
    gate.runs.fetch_add(1, Ordering::SeqCst);
    Ok(secret)
}

#[test]
fn a_read_call_that_needs_approval_waits_for_it() {
    let ctx = ToolContext::new("u", "t", "req")
        .with_session("conv")
        .allow_all_tools();
    let mut toolbox = Toolbox::new(Gate::default());
    toolbox.register(Look).unwrap();
    let plain = block_on(toolbox.call(&ctx, "look", r#"{"secret":false}"#));
    assert_eq!(plain.value(), Some(&json!(false)), "{plain:?}");
    let secret = block_on(toolbox.call(&ctx, "look", r#"{"secret":true}"#));
    assert!(secret.approval().is_some(), "{secret:?}");
    assert_eq!(toolbox.state().runs.load(Ordering::SeqCst), 1);

    // The toolbox's policy for reads, over what the tool says.
    let mut strict = Toolbox::new(Gate::default())
        .with_effect_policy(EffectPolicy::default().approval(Effect::Read, ApprovalRule::Always));
    strict.register(Look).unwrap();
    let outcome = block_on(strict.call(&ctx, "look", r#"{"secret":false}"#));
    assert!(outcome.approval().is_some(), "{outcome:?}");
    assert_eq!(strict.state().runs.load(Ordering::SeqCst), 0);
}

fn recorder(clock: &ManualClock) -> (Toolbox<Gate>, ToolContext) {
    let mut toolbox = Toolbox::new(Gate::default()).with_clock(clock.clone());
    toolbox.register(Record).unwrap().register(Pay).unwrap();
    let ctx = ToolContext::new("u", "t", "req")
        .with_session("conv")
        .allow_all_tools();
    (toolbox, ctx)
}

#[test]
fn a_call_dropped_mid_body_leaves_an_outcome_that_says_so_and_never_runs_again() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let store = Arc::new(MemoryStore::new());
    let (here, ctx) = recorder(&clock);
    let here = here.with_effect_store(Arc::clone(&store));
    let (there, _) = recorder(&clock);
    let there = there.with_effect_store(Arc::clone(&store));
    *here.state().hold.lock().unwrap() = Some(Arc::new(tokio::sync::Notify::new()));
    {
        let mut call = std::pin::pin!(here.call(&ctx, "record", r#"{"what":"x"}"#));
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        assert!(call.as_mut().poll(&mut cx).is_pending(), "the body waits");
    } // dropped mid-body: the caller went away
    *here.state().hold.lock().unwrap() = None;
    // No body runs now: IN_PROGRESS would say one does. The body started
    // and may have taken effect, so the repeat reads that, and it is not
    // retried into a second run.
    let outcome = block_on(here.call(&ctx, "record", r#"{"what":"x"}"#));
    assert!(outcome.is_replay(), "{outcome:?}");
    assert_eq!(outcome.to_json()["code"], "TIMEOUT", "{outcome:?}");
    assert_eq!(
        outcome.to_json()["safe_message"],
        "record was stopped before it finished; it may or may not have taken effect."
    );
    // The store has it too: another server replays it, also past the lease.
    clock.advance(Duration::from_secs(10 * 60));
    let elsewhere = block_on(there.call(&ctx, "record", r#"{"what":"x"}"#));
    assert_eq!(elsewhere.to_json(), outcome.to_json());
    assert_eq!(here.state().runs.load(Ordering::SeqCst), 0);
    assert_eq!(there.state().runs.load(Ordering::SeqCst), 0);
}

#[test]
fn a_body_that_lost_its_race_leaves_no_record_and_may_run_again() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let (toolbox, ctx) = recorder(&clock);
    toolbox.state().stale_first.store(1, Ordering::SeqCst);
    let outcome = block_on(toolbox.call(&ctx, "record", r#"{"what":"y"}"#));
    assert_eq!(code(&outcome), Some(Code::Stale));
    assert!(outcome.rejection().unwrap().is_retryable());
    let outcome = block_on(toolbox.call(&ctx, "record", r#"{"what":"y"}"#));
    assert_eq!(outcome.value(), Some(&json!("y")), "{outcome:?}");
    assert!(!outcome.is_replay());
    assert_eq!(toolbox.state().runs.load(Ordering::SeqCst), 1);
}

#[test]
fn approval_follows_the_tools_own_condition_and_the_toolboxs_override() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let (toolbox, ctx) = recorder(&clock);
    let small = block_on(toolbox.call(&ctx, "pay", r#"{"amount_cents":10000}"#));
    assert_eq!(small.value(), Some(&json!(10_000)), "{small:?}");
    let large = block_on(toolbox.call(&ctx, "pay", r#"{"amount_cents":10001}"#));
    assert!(large.approval().is_some(), "{large:?}");
    assert_eq!(toolbox.state().runs.load(Ordering::SeqCst), 1);

    // The toolbox can require approval for a whole class, or waive it.
    let mut strict = Toolbox::new(Gate::default())
        .with_effect_policy(EffectPolicy::default().approval(Effect::Write, ApprovalRule::Always));
    strict.register(Pay).unwrap();
    let outcome = block_on(strict.call(&ctx, "pay", r#"{"amount_cents":5}"#));
    assert!(outcome.approval().is_some(), "{outcome:?}");
    let mut lax = Toolbox::new(Gate::default())
        .with_effect_policy(EffectPolicy::default().approval(Effect::Write, ApprovalRule::Never));
    lax.register(Pay).unwrap();
    let outcome = block_on(lax.call(&ctx, "pay", r#"{"amount_cents":50000}"#));
    assert_eq!(outcome.value(), Some(&json!(50_000)), "{outcome:?}");
}

#[test]
fn with_the_store_down_nothing_runs_and_the_model_may_retry_without_internals() {
    let mut toolbox = Toolbox::new(Gate::default()).with_effect_store(Faulty {
        down: Arc::new(AtomicBool::new(true)),
        ..Faulty::default()
    });
    toolbox.register(Record).unwrap().register(Pay).unwrap();
    let ctx = ToolContext::new("u", "t", "req").allow_all_tools();
    let (outcome, log) =
        common::audit(|| block_on(toolbox.call(&ctx, "record", r#"{"what":"z"}"#)));
    assert_eq!(code(&outcome), Some(Code::Unavailable));
    assert!(outcome.rejection().unwrap().is_retryable());
    assert!(
        !outcome.to_json().to_string().contains("connection"),
        "{outcome:?}"
    );
    assert!(
        log.iter().any(|r| r
            .get("error")
            .is_some_and(|e| e.contains("connection refused"))),
        "{log:?}"
    );
    let outcome = block_on(toolbox.call(&ctx, "pay", r#"{"amount_cents":20000}"#));
    assert_eq!(code(&outcome), Some(Code::Unavailable));
    assert_eq!(toolbox.state().runs.load(Ordering::SeqCst), 0);
}

#[test]
fn the_cause_of_a_store_failure_reaches_the_audit_log_once() {
    let mut toolbox = Toolbox::new(Gate::default()).with_effect_store(Faulty {
        down: Arc::new(AtomicBool::new(true)),
        fault: Some(|| {
            let reason = std::io::Error::other("canceling statement due to lock timeout");
            StoreError::context("claim failed", DriverError(reason))
        }),
        ..Faulty::default()
    });
    toolbox.register(Record).unwrap();
    let ctx = ToolContext::new("u", "t", "req").allow_all_tools();
    let (outcome, log) =
        common::audit(|| block_on(toolbox.call(&ctx, "record", r#"{"what":"z"}"#)));
    assert_eq!(code(&outcome), Some(Code::Unavailable));
    assert!(
        !outcome.to_json().to_string().contains("lock"),
        "{outcome:?}"
    );
    let event = log
        .iter()
        .find(|r| r["message"] == "effect store failed")
        .unwrap_or_else(|| panic!("{log:?}"));
    assert_eq!(
        event["error"],
        "effect store: claim failed: db error: canceling statement due to lock timeout"
    );
    assert_eq!(event["gate"], "effect");
    assert_eq!(event["request_id"], "req");
}

#[test]
fn an_outcome_the_store_failed_to_record_is_replayed_and_recorded_later() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let shared = Arc::new(MemoryStore::new());
    let down = Arc::new(AtomicBool::new(false));
    let faulty = || Faulty {
        inner: Arc::clone(&shared),
        down: Arc::clone(&down),
        ..Faulty::default()
    };
    // One try to record (the store fails at once), so that the call
    // answers on the poll after its body; the retries have a test of
    // their own.
    let mut here = Toolbox::new(Gate::default())
        .with_clock(clock.clone())
        .with_effect_policy(EffectPolicy::default().record_within(Duration::ZERO))
        .with_effect_store(faulty());
    here.register(Record).unwrap();
    let mut there = Toolbox::new(Gate::default())
        .with_clock(clock.clone())
        .with_effect_store(faulty());
    there.register(Record).unwrap();
    let ctx = ToolContext::new("u", "t", "req")
        .with_session("conv")
        .allow_all_tools();

    // The store fails while the body runs: its claim was taken, its
    // outcome cannot be written.
    let release = Arc::new(tokio::sync::Notify::new());
    *here.state().hold.lock().unwrap() = Some(Arc::clone(&release));
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let mut call = std::pin::pin!(here.call(&ctx, "record", r#"{"what":"paid"}"#));
    assert!(call.as_mut().poll(&mut cx).is_pending(), "the body waits");
    down.store(true, Ordering::SeqCst);
    release.notify_one();
    let std::task::Poll::Ready(first) = call.as_mut().poll(&mut cx) else {
        panic!("the body finished");
    };
    assert_eq!(first.value(), Some(&json!("paid")), "{first:?}");
    *here.state().hold.lock().unwrap() = None;

    // Still down: the repeat here is the kept outcome, not a second run.
    let again = block_on(here.call(&ctx, "record", r#"{"what":"paid"}"#));
    assert!(again.is_replay(), "{again:?}");
    assert_eq!(again.value(), first.value());
    assert_eq!(here.state().runs.load(Ordering::SeqCst), 1);

    // Back up: the next call here hands the store the kept outcome, so a
    // server sharing the store replays it too, even after the lease.
    down.store(false, Ordering::SeqCst);
    let other = block_on(here.call(&ctx, "record", r#"{"what":"other"}"#));
    assert_eq!(other.value(), Some(&json!("other")), "{other:?}");
    clock.advance(Duration::from_secs(10 * 60));
    let elsewhere = block_on(there.call(&ctx, "record", r#"{"what":"paid"}"#));
    assert!(elsewhere.is_replay(), "{elsewhere:?}");
    assert_eq!(elsewhere.value(), first.value());
    assert_eq!(there.state().runs.load(Ordering::SeqCst), 0);
}

/// Two servers sharing one store whose completions fail `failing` times
/// next: the first records with `policy`.
fn two_servers(
    failing: usize,
    policy: EffectPolicy,
) -> (Toolbox<Gate>, Toolbox<Gate>, ManualClock) {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let shared = Arc::new(MemoryStore::new());
    let mut here = Toolbox::new(Gate::default())
        .with_clock(clock.clone())
        .with_effect_policy(policy)
        .with_effect_store(Faulty {
            inner: Arc::clone(&shared),
            failing_completes: Arc::new(AtomicUsize::new(failing)),
            ..Faulty::default()
        });
    here.register(Record).unwrap();
    let mut there = Toolbox::new(Gate::default())
        .with_clock(clock.clone())
        .with_effect_store(Arc::clone(&shared));
    there.register(Record).unwrap();
    (here, there, clock)
}

fn conversation() -> ToolContext {
    ToolContext::new("u", "t", "req")
        .with_session("conv")
        .allow_all_tools()
}

#[test]
fn an_outcome_is_recorded_before_the_call_answers_when_the_store_recovers_in_time() {
    // Three completions fail, then the store takes the outcome: the call
    // tries again within its second before it answers.
    let (here, there, clock) = two_servers(3, EffectPolicy::default());
    let first = block_on(here.call(&conversation(), "record", r#"{"what":"paid"}"#));
    assert_eq!(first.value(), Some(&json!("paid")), "{first:?}");
    // Another server, after the lease, replays it: it was recorded.
    clock.advance(Duration::from_secs(10 * 60));
    let elsewhere = block_on(there.call(&conversation(), "record", r#"{"what":"paid"}"#));
    assert!(elsewhere.is_replay(), "{elsewhere:?}");
    assert_eq!(there.state().runs.load(Ordering::SeqCst), 0);
}

#[test]
fn a_flush_hands_the_store_what_it_failed_to_record() {
    let policy = EffectPolicy::default().record_within(Duration::ZERO);
    let (here, there, clock) = two_servers(1, policy);
    let (first, log) =
        common::audit(|| block_on(here.call(&conversation(), "record", r#"{"what":"paid"}"#)));
    assert_eq!(first.value(), Some(&json!("paid")), "{first:?}");
    assert!(
        log.iter()
            .any(|r| r.get("decision").map(String::as_str) == Some("outcome_unrecorded")),
        "{log:?}"
    );
    // The server stops: it flushes, and the store takes the outcome.
    block_on(here.flush(Duration::from_secs(5))).unwrap();
    drop(here);
    clock.advance(Duration::from_secs(10 * 60));
    let elsewhere = block_on(there.call(&conversation(), "record", r#"{"what":"paid"}"#));
    assert!(elsewhere.is_replay(), "{elsewhere:?}");
    assert_eq!(elsewhere.value(), first.value());
    assert_eq!(there.state().runs.load(Ordering::SeqCst), 0);
}

#[test]
fn a_flush_that_cannot_finish_says_so_and_logs_each_outcome_it_keeps() {
    let policy = EffectPolicy::default().record_within(Duration::ZERO);
    let (here, _, _) = two_servers(usize::MAX, policy);
    let first = block_on(here.call(&conversation(), "record", r#"{"what":"paid"}"#));
    assert_eq!(first.value(), Some(&json!("paid")), "{first:?}");
    let (flushed, log) = common::audit(|| block_on(here.flush(Duration::from_millis(100))));
    let error = flushed.unwrap_err();
    assert_eq!(error.remaining(), 1);
    let cause = std::error::Error::source(&error).map(ToString::to_string);
    assert_eq!(cause.as_deref(), Some("effect store: the operation failed"));
    let lost = log
        .iter()
        .find(|r| r["message"] == "outcome unrecorded at shutdown")
        .unwrap_or_else(|| panic!("{log:?}"));
    assert!(lost["outcome"].contains("paid"), "{lost:?}");
    assert_eq!(lost["key"].len(), 64);
    // Logged once: dropping the toolbox does not log it again.
    let ((), log) = common::audit(|| drop(here));
    assert!(log.is_empty(), "{log:?}");
}

#[test]
fn an_approval_is_single_use_even_after_its_runs_record_is_gone() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let mut toolbox = Toolbox::new(Shop::demo())
        .with_clock(clock.clone())
        .with_effect_policy(
            EffectPolicy::default()
                .lease(Duration::from_secs(30))
                .retain(Duration::from_secs(60)),
        );
    toolbox.register(IssueRefund).unwrap();
    let approval = requested(&toolbox);
    block_on(toolbox.approve(&manager(), &approval.id)).unwrap();
    let first = block_on(toolbox.resume(&agent(), &approval.id));
    assert!(matches!(first, Outcome::Done(_)), "{first:?}");
    // The outcome is no longer kept for replay; the approval still says used.
    clock.advance(Duration::from_secs(120));
    let again = block_on(toolbox.resume(&agent(), &approval.id));
    assert_eq!(code(&again), Some(Code::ApprovalUsed), "{again:?}");
    assert_eq!(toolbox.state().refunds().len(), 1);
}

#[test]
fn gate_sixs_outcomes_render_for_mcp_anthropic_and_openai() {
    use toolgate::providers::{anthropic, mcp, openai};
    let (toolbox, _) = shop();
    let asked = block_on(toolbox.call(&agent(), "issue_refund", REFUND));
    let approval = asked.approval().unwrap().clone();
    block_on(toolbox.approve(&manager(), &approval.id)).unwrap();
    let done = block_on(toolbox.resume(&agent(), &approval.id));
    let replayed = block_on(toolbox.resume(&agent(), &approval.id));
    assert!(replayed.is_replay());

    // Waiting for approval is not an error; the model reads why. Except
    // in MCP, where a result without structured content must be an error
    // for a tool with an output schema.
    let result = mcp::call_tool_result(&asked);
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        serde_json::to_string(&asked).unwrap()
    );
    assert!(result.get("structuredContent").is_none());
    assert_eq!(anthropic::tool_result("toolu_1", &asked)["is_error"], false);
    let text = openai::chat_tool_message("call_1", &asked)["content"].clone();
    assert!(
        text.as_str().unwrap().contains("approval_required"),
        "{text}"
    );

    // A replayed result is the result, with its structured content.
    let first = mcp::call_tool_result(&done);
    let again = mcp::call_tool_result(&replayed);
    assert_eq!(again["isError"], false);
    assert_eq!(again["structuredContent"], first["structuredContent"]);
    let shown = replayed.to_json();
    assert_eq!(shown["status"], "done");
    assert_eq!(shown["replayed"], true);
    assert_eq!(shown["result"], done.to_json()["result"]);
    assert_eq!(
        anthropic::tool_result("toolu_2", &replayed)["is_error"],
        false
    );

    // A replayed rejection is still an error.
    let refused = Outcome::Replayed(json!({"status": "rejected", "code": "EXCEEDS_REFUNDABLE"}));
    assert_eq!(mcp::call_tool_result(&refused)["isError"], true);
}

#[test]
fn a_conversation_cannot_retry_one_rejected_call_indefinitely() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let (toolbox, ctx) = recorder(&clock);
    let bad = r#"{"what":"far too long"}"#;
    for attempt in 1..=3 {
        let outcome = block_on(toolbox.call(&ctx, "record", bad));
        assert_eq!(
            code(&outcome),
            Some(Code::InvalidLength),
            "attempt {attempt}"
        );
    }
    let (outcome, log) = common::audit(|| block_on(toolbox.call(&ctx, "record", bad)));
    assert_eq!(code(&outcome), Some(Code::RetryBudgetExhausted));
    assert!(!outcome.rejection().unwrap().is_retryable());
    assert_eq!(
        denial_reasons(&log),
        ["the same rejected call, past its retry budget"]
    );
    // Another conversation has its own budget; a corrected call still runs.
    let other = ctx.clone().with_session("conv_2");
    assert_eq!(
        code(&block_on(toolbox.call(&other, "record", bad))),
        Some(Code::InvalidLength)
    );
    let fixed = block_on(toolbox.call(&ctx, "record", r#"{"what":"short"}"#));
    assert_eq!(fixed.value(), Some(&json!("short")), "{fixed:?}");
    // Without a conversation there is nothing to count in.
    let no_session = ToolContext::new("u", "t", "req").allow_all_tools();
    for _ in 0..5 {
        let outcome = block_on(toolbox.call(&no_session, "record", bad));
        assert_eq!(code(&outcome), Some(Code::InvalidLength));
    }
}

#[test]
fn a_conversation_has_a_total_rejection_budget() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let mut toolbox = Toolbox::new(Gate::default())
        .with_clock(clock.clone())
        .with_effect_policy(EffectPolicy::default().conversation_budget(5));
    toolbox.register(Record).unwrap();
    let ctx = ToolContext::new("u", "t", "req")
        .with_session("conv")
        .allow_all_tools();
    let (codes, log) = common::audit(|| {
        (0..7)
            .map(|i| {
                let args = format!(r#"{{"what":"too long {i}"}}"#);
                code(&block_on(toolbox.call(&ctx, "record", args.as_str())))
            })
            .collect::<Vec<Option<Code>>>()
    });
    assert_eq!(codes[..5], [Some(Code::InvalidLength); 5]);
    assert_eq!(codes[5..], [Some(Code::RetryBudgetExhausted); 2]);
    // Each call was new: the conversation's budget, not one call's.
    assert_eq!(
        denial_reasons(&log),
        ["the conversation's rejections, past their budget"; 2]
    );
}

#[test]
fn a_call_at_its_retry_budget_that_spends_the_conversation_s_is_the_conversation_s() {
    let mut toolbox = Toolbox::new(Gate::default()).with_effect_policy(
        EffectPolicy::default()
            .retry_budget(3)
            .conversation_budget(2),
    );
    toolbox.register(Record).unwrap();
    let ctx = ToolContext::new("u", "t", "req")
        .with_session("conv")
        .allow_all_tools();
    let bad = r#"{"what":"far too long"}"#;
    let (codes, log) = common::audit(|| {
        (0..3)
            .map(|_| code(&block_on(toolbox.call(&ctx, "record", bad))))
            .collect::<Vec<_>>()
    });
    // The third rejection is the call's third (at, not past, its budget of
    // 3) and the conversation's third (past its budget of 2).
    assert_eq!(
        codes,
        [
            Some(Code::InvalidLength),
            Some(Code::InvalidLength),
            Some(Code::RetryBudgetExhausted)
        ]
    );
    assert_eq!(
        denial_reasons(&log),
        ["the conversation's rejections, past their budget"]
    );
}

/// The reasons of the audit log's denials.
fn denial_reasons(log: &[common::Record]) -> Vec<&str> {
    log.iter()
        .filter(|r| r.get("message").is_some_and(|m| m == "call denied"))
        .filter_map(|r| r.get("reason").map(String::as_str))
        .collect()
}

#[test]
fn a_rate_limit_refuses_with_when_to_try_again() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    let mut toolbox = Toolbox::new(Gate::default())
        .with_clock(clock.clone())
        .with_effect_policy(EffectPolicy::default().rate_limit_tool(
            "record",
            2,
            Duration::from_secs(60),
        ));
    toolbox.register(Record).unwrap().register(Pay).unwrap();
    let ctx =
        |actor: &str, n: usize| ToolContext::new(actor, "t", format!("req_{n}")).allow_all_tools();
    for n in 0..2 {
        let outcome = block_on(toolbox.call(&ctx("u", n), "record", r#"{"what":"x"}"#));
        assert!(outcome.value().is_some(), "{outcome:?}");
    }
    let outcome = block_on(toolbox.call(&ctx("u", 2), "record", r#"{"what":"x"}"#));
    let rejection = outcome.rejection().expect("rate limited");
    assert_eq!(rejection.code(), Code::RateLimited);
    assert!(rejection.is_retryable());
    assert_eq!(
        rejection.safe_message(),
        "too many calls of record; try again in 30 seconds"
    );
    // A wait with a fraction of a second is rounded up: 27.5 s is 28.
    clock.advance(Duration::from_millis(2_500));
    let outcome = block_on(toolbox.call(&ctx("u", 2), "record", r#"{"what":"x"}"#));
    assert_eq!(
        outcome.rejection().map(|r| r.safe_message()),
        Some("too many calls of record; try again in 28 seconds")
    );
    // Per actor and per tool.
    assert!(
        block_on(toolbox.call(&ctx("v", 3), "record", r#"{"what":"x"}"#))
            .value()
            .is_some()
    );
    assert!(
        block_on(toolbox.call(&ctx("u", 4), "pay", r#"{"amount_cents":5}"#))
            .value()
            .is_some()
    );
    clock.advance(Duration::from_secs(30));
    let outcome = block_on(toolbox.call(&ctx("u", 5), "record", r#"{"what":"x"}"#));
    assert!(outcome.value().is_some(), "{outcome:?}");
    assert_eq!(toolbox.state().runs.load(Ordering::SeqCst), 5);
}

/// Wait for a signal that never comes.
#[tool(effect = read, timeout_ms = 50)]
async fn wait_forever(gate: &Gate) -> Result<(), ToolError> {
    let _ = gate;
    core::future::pending::<()>().await;
    Ok(())
}

#[test]
fn a_body_past_its_time_limit_is_stopped_and_a_write_keeps_its_timeout_as_its_outcome() {
    let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
    // The tool's own limit.
    let mut toolbox = Toolbox::new(Gate::default()).with_clock(clock.clone());
    toolbox.register(WaitForever).unwrap();
    let ctx = ToolContext::new("u", "t", "req")
        .with_session("conv")
        .allow_all_tools();
    let outcome = block_on(toolbox.call(&ctx, "wait_forever", "{}"));
    let rejection = outcome.rejection().expect("stopped");
    assert_eq!(rejection.code(), Code::Timeout);
    assert!(!rejection.is_retryable());
    assert_eq!(
        rejection.safe_message(),
        "wait_forever took longer than its limit of 50 ms and was stopped; it may or may not have taken effect."
    );

    // The toolbox's limit, on a write held forever.
    let mut toolbox = Toolbox::new(Gate::default())
        .with_clock(clock.clone())
        .with_effect_policy(EffectPolicy::default().timeout(Duration::from_millis(50)));
    toolbox.register(Record).unwrap();
    *toolbox.state().hold.lock().unwrap() = Some(Arc::new(tokio::sync::Notify::new()));
    let outcome = block_on(toolbox.call(&ctx, "record", r#"{"what":"t"}"#));
    assert_eq!(code(&outcome), Some(Code::Timeout));
    *toolbox.state().hold.lock().unwrap() = None;
    // It may have taken effect: the TIMEOUT is its outcome. A repeat reads
    // it again (never IN_PROGRESS: no body runs), and the body never runs
    // a second time, also past the lease; no budget hides it.
    for _ in 0..3 {
        let again = block_on(toolbox.call(&ctx, "record", r#"{"what":"t"}"#));
        assert!(again.is_replay(), "{again:?}");
        assert_eq!(again.to_json()["code"], "TIMEOUT", "{again:?}");
        clock.advance(Duration::from_secs(5 * 60));
    }
    assert_eq!(toolbox.state().runs.load(Ordering::SeqCst), 0);
}

#[test]
fn a_large_export_waits_for_approval_and_a_small_one_runs() {
    use toolgate_examples::export::{Accounts, ScheduleExport};
    let mut toolbox = Toolbox::new(Accounts::demo());
    toolbox.register(ScheduleExport).unwrap();
    let ctx = ToolContext::new("analyst_1", "tenant_a", "req_1")
        .with_scopes(["exports:write"])
        .allow_tools(["schedule_export"]);
    let small = block_on(toolbox.call(
        &ctx,
        "schedule_export",
        r#"{"account_ref":"acct_42","format":"csv","columns":["id"]}"#,
    ));
    assert!(matches!(small, Outcome::Done(_)), "{small:?}");
    // 50,000 rows, over the account's threshold of 10,000.
    let large = block_on(toolbox.call(
        &ctx,
        "schedule_export",
        r#"{"account_ref":"acct_big","format":"csv","columns":["id"]}"#,
    ));
    let approval = large.approval().expect("approval for a large export");
    assert_eq!(approval.resources[0].reference, json!("acct_big"));
    assert_eq!(toolbox.state().queued().len(), 1);
}

#[test]
fn a_goodwill_refund_waits_for_the_person_it_names() {
    use toolgate_examples::invoice::{Billing, RefundInvoice};
    let mut toolbox = Toolbox::new(Billing::demo());
    toolbox.register(RefundInvoice).unwrap();
    let agent = ToolContext::new("agent_1", "tenant_a", "req_1")
        .with_scopes(["billing:refund"])
        .allow_tools(["refund_invoice"]);
    let outcome = block_on(toolbox.call(
        &agent,
        "refund_invoice",
        r#"{"invoice_id":"inv_88","amount_cents":100,"reason":{"kind":"goodwill","approver_id":"usr_lena"}}"#,
    ));
    // The model wrote an approver; that approves nothing.
    let approval = outcome.approval().expect("approval required").clone();
    assert_eq!(approval.approver.as_deref(), Some("usr_lena"));
    assert!(toolbox.state().refunds().is_empty());
    let someone_else = ToolContext::new("usr_max", "tenant_a", "r");
    assert_eq!(
        block_on(toolbox.approve(&someone_else, &approval.id)),
        Err(ApprovalError::NotTheNamedApprover("usr_lena".to_owned()))
    );
    let lena = ToolContext::new("usr_lena", "tenant_a", "r");
    block_on(toolbox.approve(&lena, &approval.id)).unwrap();
    let done = block_on(toolbox.resume(&agent, &approval.id));
    assert!(matches!(done, Outcome::Done(_)), "{done:?}");
    assert_eq!(toolbox.state().refunds().len(), 1);
    // A refund for another reason names no one: any approver may decide.
    let outcome = block_on(toolbox.call(
        &agent,
        "refund_invoice",
        r#"{"invoice_id":"inv_88","amount_cents":100,"reason":{"kind":"duplicate"}}"#,
    ));
    assert_eq!(outcome.approval().map(|a| a.approver.clone()), Some(None));
}

/// Close the books: only the controller may approve it.
#[toolgate::tool(effect = irreversible, approver = "usr_controller")]
fn close_books(
    #[garde(range(min = 2000, max = 2100))] year: u16,
) -> Result<u16, toolgate::ToolError> {
    Ok(year)
}

/// Close a ledger: its keeper approves, named as an owned string.
#[toolgate::tool(effect = irreversible, approver = format!("usr_{keeper}"))]
fn close_ledger(
    #[garde(pattern(r"^[a-z]{1,12}$"))] keeper: String,
) -> Result<String, toolgate::ToolError> {
    Ok(keeper)
}

/// Seal a ledger: its keeper approves, named by reference to a parameter.
#[toolgate::tool(effect = irreversible, approver = &keeper)]
fn seal_ledger(
    #[garde(pattern(r"^usr_[a-z]{1,12}$"))] keeper: String,
) -> Result<String, toolgate::ToolError> {
    Ok(keeper)
}

#[test]
fn an_approver_computed_as_a_string_or_borrowed_is_the_one_named() {
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(CloseLedger)
        .unwrap()
        .register(SealLedger)
        .unwrap();
    let agent = ToolContext::new("agent_1", "tenant_a", "req_1").allow_all_tools();
    for (tool, args) in [
        ("close_ledger", r#"{"keeper":"ada"}"#),
        ("seal_ledger", r#"{"keeper":"usr_ada"}"#),
    ] {
        let outcome = block_on(toolbox.call(&agent, tool, args));
        let approval = outcome.approval().expect("approval required").clone();
        assert_eq!(approval.approver.as_deref(), Some("usr_ada"), "{tool}");
        let someone_else = ToolContext::new("usr_max", "tenant_a", "r");
        assert_eq!(
            block_on(toolbox.approve(&someone_else, &approval.id)),
            Err(ApprovalError::NotTheNamedApprover("usr_ada".to_owned())),
            "{tool}"
        );
        let keeper = ToolContext::new("usr_ada", "tenant_a", "r");
        block_on(toolbox.approve(&keeper, &approval.id)).unwrap();
        let done = block_on(toolbox.resume(&agent, &approval.id));
        assert!(matches!(done, Outcome::Done(_)), "{tool}: {done:?}");
    }
}

#[test]
fn an_approver_written_as_a_string_is_the_only_one_who_may_approve() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(CloseBooks).unwrap();
    let agent = ToolContext::new("agent_1", "tenant_a", "req_1").allow_tools(["close_books"]);
    let outcome = block_on(toolbox.call(&agent, "close_books", r#"{"year":2026}"#));
    let approval = outcome.approval().expect("approval required").clone();
    assert_eq!(approval.approver.as_deref(), Some("usr_controller"));
    let someone_else = ToolContext::new("usr_max", "tenant_a", "r");
    assert_eq!(
        block_on(toolbox.approve(&someone_else, &approval.id)),
        Err(ApprovalError::NotTheNamedApprover(
            "usr_controller".to_owned()
        ))
    );
    let controller = ToolContext::new("usr_controller", "tenant_a", "r");
    block_on(toolbox.approve(&controller, &approval.id)).unwrap();
    let done = block_on(toolbox.resume(&agent, &approval.id));
    assert!(matches!(done, Outcome::Done(_)), "{done:?}");
}

#[test]
fn the_approval_harness_holds_for_the_refund_tool() {
    let (toolbox, clock) = shop();
    let touch = |shop: &Shop| shop.touch("tenant_a", "ord_1001");
    let case = toolgate::testing::ApprovalCase {
        tool: "issue_refund",
        arguments: REFUND,
        other_arguments: Some(r#"{"order":"ord_1001","amount_cents":9999}"#),
        change: Some(&touch),
        clock: Some(&clock),
    };
    block_on(toolgate::testing::assert_approvals_hold(
        &toolbox,
        &agent(),
        &manager(),
        &case,
        |shop| shop.refunds().len(),
    ));
    assert_eq!(toolbox.state().refunds().len(), 1);
}

#[test]
fn the_approval_harness_fails_where_gate_six_does_not_hold() {
    // An object without versions: a change between approval and resume
    // goes unseen, and the harness says so.
    let mut toolbox = Toolbox::new(Hotels::demo())
        .with_effect_policy(EffectPolicy::default().approval(Effect::Write, ApprovalRule::Always));
    toolbox.register(BookHotel).unwrap();
    let ctx = ToolContext::new("traveller_7", "tenant_a", "req_1")
        .with_session("conv")
        .with_scopes(["bookings:write"])
        .allow_tools(["book_hotel"]);
    let manager = ToolContext::new("manager_1", "tenant_a", "r");
    let nothing = |_: &Hotels| {};
    let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let case = toolgate::testing::ApprovalCase {
            tool: "book_hotel",
            arguments: r#"{"hotel_id":"h_seaview1","nights":2}"#,
            other_arguments: None,
            change: Some(&nothing),
            clock: None,
        };
        block_on(toolgate::testing::assert_approvals_hold(
            &toolbox,
            &ctx,
            &manager,
            &case,
            |hotels| hotels.bookings().len(),
        ));
    }));
    let message = failed.expect_err("the harness must fail");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.contains("a changed object did not ask for a fresh approval"),
        "{message}"
    );
}

#[test]
fn a_stored_call_cannot_skip_an_approval_or_run_twice() {
    use serde_json::value::RawValue;
    use toolgate::StoredCall;
    let (toolbox, _) = shop();
    let refund = StoredCall::new(
        IssueRefund::definition(),
        RawValue::from_string(REFUND.to_owned()).unwrap(),
    );
    let outcome = block_on(toolbox.call_stored(&agent(), &refund));
    assert!(outcome.approval().is_some(), "{outcome:?}");
    assert!(toolbox.state().refunds().is_empty());

    let mut hotels = Toolbox::new(Hotels::demo());
    hotels.register(BookHotel).unwrap();
    let ctx = ToolContext::new("traveller_7", "tenant_a", "req_1")
        .with_session("conv")
        .with_scopes(["bookings:write"])
        .allow_tools(["book_hotel"]);
    let booking = StoredCall::new(
        BookHotel::definition(),
        RawValue::from_string(r#"{"hotel_id":"h_seaview1","nights":2}"#.to_owned()).unwrap(),
    );
    let first = block_on(hotels.call_stored(&ctx, &booking));
    let again = block_on(hotels.call_stored(&ctx, &booking));
    assert!(matches!(first, Outcome::Done(_)), "{first:?}");
    assert!(again.is_replay(), "{again:?}");
    assert_eq!(hotels.state().bookings().len(), 1);
}

#[test]
fn a_compare_and_set_lost_after_approval_asks_again_and_refunds_nothing() {
    let (toolbox, _) = shop();
    let approval = requested(&toolbox);
    block_on(toolbox.approve(&manager(), &approval.id)).unwrap();
    // Gate 6 finds the order as approved; someone changes it just before
    // the refund's write, whose compare-and-set then matches nothing.
    toolbox.state().interfere_at_commit();
    let outcome = block_on(toolbox.resume(&agent(), &approval.id));
    let fresh = outcome.approval().expect("a fresh approval").clone();
    assert_eq!(fresh.resources[0].version, Some(2));
    assert!(toolbox.state().refunds().is_empty());
    block_on(toolbox.approve(&manager(), &fresh.id)).unwrap();
    let done = block_on(toolbox.resume(&agent(), &fresh.id));
    assert!(matches!(done, Outcome::Done(_)), "{done:?}");
    assert_eq!(toolbox.state().refunds().len(), 1);
}

/// Fail on the server.
#[tool(effect = write)]
fn fail_once(gate: &Gate, #[garde(range(min = 1, max = 9))] n: u8) -> Result<u8, ToolError> {
    gate.runs.fetch_add(1, Ordering::SeqCst);
    Err(ToolError::internal(format!("the ledger for {n} is down")))
}

#[test]
fn a_finished_bodys_failure_is_kept_and_replayed_not_run_again() {
    let mut toolbox = Toolbox::new(Gate::default());
    toolbox.register(FailOnce).unwrap();
    let ctx = ToolContext::new("u", "t", "req_9")
        .with_session("conv")
        .allow_all_tools();
    let first = block_on(toolbox.call(&ctx, "fail_once", r#"{"n":1}"#));
    assert!(matches!(first, Outcome::Failed(_)), "{first:?}");
    let again = block_on(toolbox.call(&ctx, "fail_once", r#"{"n":1}"#));
    assert!(again.is_replay(), "{again:?}");
    assert_eq!(again.to_json()["code"], "INTERNAL");
    assert_eq!(again.to_json()["request_id"], "req_9");
    assert_eq!(
        toolbox.state().runs.load(Ordering::SeqCst),
        1,
        "an irreversible write never runs twice"
    );
}

#[test]
fn the_memory_store_conforms() {
    block_on(toolgate::testing::assert_store_conforms(
        &MemoryStore::new(),
        1000,
    ));
}

#[test]
fn the_store_suite_fails_a_store_that_reuses_approvals() {
    let failed = std::panic::catch_unwind(|| {
        block_on(toolgate::testing::assert_store_conforms(
            &Faulty {
                reuse: true,
                ..Faulty::default()
            },
            10,
        ));
    });
    let message = failed.expect_err("the suite must fail");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.contains("an approval is consumed once"),
        "{message}"
    );
    assert!(
        message.contains("exactly one of many concurrent consumes wins"),
        "{message}"
    );
}

#[test]
fn every_decision_of_gate_six_goes_to_the_audit_log() {
    let (toolbox, _) = shop();
    let (approval, log) = common::audit(|| requested(&toolbox));
    let decisions = |log: &[common::Record]| -> Vec<(String, String)> {
        log.iter()
            .filter(|r| r.get("gate").map(String::as_str) == Some("effect"))
            .map(|r| {
                (
                    r.get("decision").cloned().unwrap_or_default(),
                    r.get("actor").cloned().unwrap_or_default(),
                )
            })
            .collect()
    };
    assert_eq!(
        decisions(&log),
        [("approval_requested".to_owned(), "agent_1".to_owned())]
    );
    assert!(
        log.iter().any(|r| r.get("approval") == Some(&approval.id)),
        "{log:?}"
    );
    let (_, log) = common::audit(|| block_on(toolbox.approve(&manager(), &approval.id)).unwrap());
    assert_eq!(
        decisions(&log),
        [("approval_granted".to_owned(), "manager_1".to_owned())]
    );
    let (_, log) = common::audit(|| block_on(toolbox.resume(&agent(), &approval.id)));
    assert_eq!(
        decisions(&log),
        [("approval_used".to_owned(), "agent_1".to_owned())]
    );
    let (_, log) = common::audit(|| block_on(toolbox.resume(&agent(), &approval.id)));
    assert_eq!(
        decisions(&log),
        [("replayed".to_owned(), "agent_1".to_owned())]
    );
    // The repeat in this conversation replays; another conversation asks.
    let repeat = block_on(toolbox.call(&agent(), "issue_refund", REFUND));
    assert!(repeat.is_replay(), "{repeat:?}");
    let elsewhere = agent().with_session("conv_2");
    let second = block_on(toolbox.call(&elsewhere, "issue_refund", REFUND));
    let second = second
        .approval()
        .cloned()
        .expect("another conversation asks again");
    let (_, log) = common::audit(|| block_on(toolbox.deny(&manager(), &second.id)).unwrap());
    assert_eq!(
        decisions(&log),
        [("approval_denied".to_owned(), "manager_1".to_owned())]
    );
}

/// Count a plain function's runs.
#[tool(effect = write, approval = n > 5)]
fn tally(gate: &Gate, #[garde(range(min = 1, max = 9))] n: u8) -> Result<u8, ToolError> {
    gate.runs.fetch_add(1, Ordering::SeqCst);
    Ok(n)
}

/// Count an async function's runs.
#[tool(effect = write, approval = n > 5)]
async fn tally_later(
    gate: &Gate,
    #[garde(range(min = 1, max = 9))] n: u8,
) -> Result<u8, ToolError> {
    std::future::ready(()).await;
    gate.runs.fetch_add(1, Ordering::SeqCst);
    Ok(n)
}

// A tool whose body is a plain function is driven by the runtime, one
// with an async body by its own generated future: gate 6 must treat both
// alike, before the body and after it.
#[test]
fn a_plain_body_and_an_async_one_pass_gate_six_alike() {
    for name in ["tally", "tally_later"] {
        let mut toolbox = Toolbox::new(Gate::default());
        toolbox
            .register(Tally)
            .unwrap()
            .register(TallyLater)
            .unwrap();
        let ctx = ToolContext::new("u", "t", "req")
            .with_session("conv")
            .allow_all_tools();
        let runs = |toolbox: &Toolbox<Gate>| toolbox.state().runs.load(Ordering::SeqCst);

        // Refused at gate 3: the body never runs, and nothing is kept.
        let refused = block_on(toolbox.call(&ctx, name, r#"{"n":0}"#));
        assert_eq!(
            code(&refused),
            Some(Code::OutOfRange),
            "{name}: {refused:?}"
        );
        // A write runs once; the same call again replays its outcome.
        let first = block_on(toolbox.call(&ctx, name, r#"{"n":2}"#));
        assert_eq!(
            first.value(),
            Some(&serde_json::json!(2)),
            "{name}: {first:?}"
        );
        let again = block_on(toolbox.call(&ctx, name, r#"{"n":2}"#));
        assert!(again.is_replay(), "{name}: {again:?}");
        assert_eq!(again.value(), first.value(), "{name}");
        assert_eq!(runs(&toolbox), 1, "{name}");
        // Above the tool's own condition, it waits for a person's approval,
        // then runs once.
        let pending = block_on(toolbox.call(&ctx, name, r#"{"n":7}"#));
        let Some(approval) = pending.approval() else {
            panic!("{name}: expected an approval request, got {pending:?}");
        };
        assert_eq!(runs(&toolbox), 1, "{name}");
        let boss = ToolContext::new("boss", "t", "req_b");
        block_on(toolbox.approve(&boss, &approval.id)).unwrap();
        let resumed = block_on(toolbox.resume(&ctx, &approval.id));
        assert_eq!(
            resumed.value(),
            Some(&serde_json::json!(7)),
            "{name}: {resumed:?}"
        );
        assert_eq!(runs(&toolbox), 2, "{name}");
    }
}
