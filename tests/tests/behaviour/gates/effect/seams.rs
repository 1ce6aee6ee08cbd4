//! Gate 6 where several callers, several spellings of one action, or a
//! failure meet: every outcome belongs to the principal whose call made
//! it, one logical action runs once whichever way it comes back, a person
//! approves exactly what runs, and no budget hides a body that ran.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json, value::RawValue};
use toolgate::testing::ManualClock;
use toolgate::{
    Code, DomainCode, EffectPolicy, MemoryStore, Outcome, StoredCall, ToolContext, ToolError,
    Toolbox, tool,
};

use crate::common::block_on;

#[derive(Default)]
pub struct Desk {
    runs: AtomicUsize,
    /// What each body received, in order.
    received: Mutex<Vec<Value>>,
    /// While set, a body that waits for it waits.
    hold: Mutex<Option<Arc<tokio::sync::Notify>>>,
}

impl Desk {
    fn ran(&self, what: Value) -> Value {
        self.runs.fetch_add(1, Ordering::SeqCst);
        self.received.lock().unwrap().push(what.clone());
        what
    }

    fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }

    async fn wait(&self) {
        let hold = self.hold.lock().unwrap().clone();
        if let Some(hold) = hold {
            hold.notified().await;
        }
    }
}

/// Book a room for the signed-in guest.
#[tool(effect = write)]
fn book_room(
    ctx: &ToolContext,
    desk: &Desk,
    #[garde(pattern(r"^room_[0-9]{1,4}$"))] room: String,
    #[garde(range(min = 1, max = 30))] nights: u32,
    /// A note for the front desk.
    #[serde(default)]
    #[garde(length(chars, max = 200))]
    note: String,
) -> Result<Value, ToolError> {
    Ok(desk.ran(json!({"guest": ctx.actor(), "room": room, "nights": nights, "note": note})))
}

/// How fast a wire goes out.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    Instant,
    Standard,
}

fn instant() -> Speed {
    Speed::Instant
}

/// Send money to one of the caller's saved payees.
#[tool(effect = irreversible)]
fn wire_funds(
    desk: &Desk,
    #[garde(range(min = 1, max = 1_000_000))] amount_cents: u64,
    #[garde(pattern(r"^payee_[0-9]{1,8}$"))] payee: String,
    /// Instant unless the caller asks for standard.
    #[serde(default = "instant")]
    speed: Speed,
) -> Result<Value, ToolError> {
    Ok(desk.ran(json!({"amount_cents": amount_cents, "payee": payee, "speed": speed})))
}

/// Charge a card; the card network's answer makes the body panic.
#[tool(effect = write)]
fn charge(desk: &Desk, #[garde(range(min = 1, max = 9))] n: u8) -> Result<u8, ToolError> {
    desk.ran(json!(n));
    panic!("the card network answered garbage for {n}");
}

/// Charge a card later; the card network's answer makes the body panic.
#[tool(effect = write)]
async fn charge_later(
    desk: &Desk,
    #[garde(range(min = 1, max = 9))] n: u8,
) -> Result<u8, ToolError> {
    desk.ran(json!(n));
    tokio::task::yield_now().await;
    panic!("the card network answered garbage for {n}");
}

/// Post to the ledger: commits at once, then waits for the ledger's
/// answer past the tool's time limit.
#[tool(effect = write, timeout_ms = 50)]
async fn post_entry(desk: &Desk, #[garde(range(min = 1, max = 9))] n: u8) -> Result<u8, ToolError> {
    desk.ran(json!(n));
    core::future::pending::<()>().await;
    Ok(n)
}

const TOO_MUCH: DomainCode = DomainCode::new("TOO_MUCH");

/// Refuse every amount over five, in the body.
#[tool(effect = write)]
fn small_only(desk: &Desk, #[garde(range(min = 1, max = 99))] n: u8) -> Result<u8, ToolError> {
    desk.ran(json!(n));
    if n > 5 {
        return Err(ToolError::reject(TOO_MUCH, "only five or fewer"));
    }
    Ok(n)
}

/// Record something, waiting while the desk holds bodies.
#[tool(effect = write, timeout_ms = 600000)]
async fn slow_record(
    desk: &Desk,
    #[garde(length(chars, max = 20))] what: String,
) -> Result<String, ToolError> {
    desk.wait().await;
    desk.ran(json!(what));
    Ok(what)
}

fn toolbox(clock: &ManualClock, policy: EffectPolicy) -> Toolbox<Desk> {
    let mut toolbox = Toolbox::new(Desk::default())
        .with_clock(clock.clone())
        .with_effect_policy(policy);
    toolbox
        .register(BookRoom)
        .unwrap()
        .register(WireFunds)
        .unwrap()
        .register(Charge)
        .unwrap()
        .register(ChargeLater)
        .unwrap()
        .register(PostEntry)
        .unwrap()
        .register(SmallOnly)
        .unwrap()
        .register(SlowRecord)
        .unwrap();
    toolbox
}

fn clock() -> ManualClock {
    ManualClock::new(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000))
}

fn person(actor: &str, tenant: &str, session: &str) -> ToolContext {
    ToolContext::new(actor, tenant, format!("req_{actor}"))
        .with_session(session)
        .with_scopes(["payments:approve"])
        .allow_all_tools()
}

fn code(outcome: &Outcome) -> Option<Code> {
    outcome.rejection().map(|r| r.code())
}

const ROOM: &str = r#"{"room":"room_3","nights":2}"#;
const WIRE: &str = r#"{"amount_cents":2500,"payee":"payee_7"}"#;

#[test]
fn two_actors_in_one_conversation_each_get_their_own_outcome() {
    let clock = clock();
    let toolbox = toolbox(&clock, EffectPolicy::default());
    let alice = person("alice", "tenant_a", "shared");
    let bob = person("bob", "tenant_a", "shared");
    let first = block_on(toolbox.call(&alice, "book_room", ROOM));
    let second = block_on(toolbox.call(&bob, "book_room", ROOM));
    assert_eq!(first.value().unwrap()["guest"], "alice");
    assert!(
        !second.is_replay(),
        "bob was handed alice's outcome: {second:?}"
    );
    assert_eq!(second.value().unwrap()["guest"], "bob");
    // And each one's repeat is their own.
    let again = block_on(toolbox.call(&bob, "book_room", ROOM));
    assert!(again.is_replay());
    assert_eq!(again.value().unwrap()["guest"], "bob");
    // The same actor name in another tenant is another principal.
    let other = person("alice", "tenant_b", "shared");
    let third = block_on(toolbox.call(&other, "book_room", ROOM));
    assert!(!third.is_replay(), "{third:?}");
    assert_eq!(toolbox.state().runs(), 3);
}

#[test]
fn a_host_call_id_is_a_key_within_one_actors_space() {
    let clock = clock();
    let toolbox = toolbox(&clock, EffectPolicy::default());
    let alice = person("alice", "tenant_a", "a").with_call_id("toolu_1");
    let bob = person("bob", "tenant_a", "b").with_call_id("toolu_1");
    let first = block_on(toolbox.call(&alice, "book_room", ROOM));
    let second = block_on(toolbox.call(&bob, "book_room", ROOM));
    assert_eq!(first.value().unwrap()["guest"], "alice");
    assert!(!second.is_replay(), "{second:?}");
    assert_eq!(second.value().unwrap()["guest"], "bob");
    // Bob's other arguments under the same id do not conflict with
    // alice's key: they are his own first use of it.
    let bob_other = person("bob", "tenant_a", "b").with_call_id("toolu_2");
    let third = block_on(toolbox.call(&bob_other, "book_room", r#"{"room":"room_4","nights":1}"#));
    assert!(third.value().is_some(), "{third:?}");
    assert_eq!(toolbox.state().runs(), 3);
}

#[test]
fn each_actor_has_their_own_retry_budget_in_a_shared_conversation() {
    let clock = clock();
    let toolbox = toolbox(&clock, EffectPolicy::default().conversation_budget(2));
    let alice = person("alice", "tenant_a", "shared");
    let bob = person("bob", "tenant_a", "shared");
    let wrong = r#"{"room":"room_3","nights":0}"#;
    let mut last = None;
    for _ in 0..3 {
        last = Some(block_on(toolbox.call(&alice, "book_room", wrong)));
    }
    assert_eq!(code(&last.unwrap()), Some(Code::RetryBudgetExhausted));
    let bobs = block_on(toolbox.call(&bob, "book_room", wrong));
    assert_eq!(code(&bobs), Some(Code::OutOfRange), "{bobs:?}");
}

#[test]
fn every_spelling_of_one_action_runs_once_and_different_actions_each_run() {
    let clock = clock();
    let toolbox = toolbox(&clock, EffectPolicy::default());
    let ctx = person("alice", "tenant_a", "conv");
    let first = block_on(toolbox.call(&ctx, "book_room", ROOM));
    assert!(first.value().is_some(), "{first:?}");
    for spelling in [
        r#"{"nights":2,"room":"room_3"}"#,
        r#"{"room":"room_3","nights":2.0}"#,
        r#"{"room":"room_3","nights":2e0}"#,
        r#"{"room":"room_3","nights":0.2e1}"#,
        r#"{"room":"room_3","nights":2,"note":""}"#,
        r#"{"room":"room_3","nights":2,"note":null}"#,
        r#"{ "room" : "room_3" , "nights" : 2 , "note" : null }"#,
        r#"{"room":"room\u005f3","nights":2}"#,
    ] {
        let again = block_on(toolbox.call(&ctx, "book_room", spelling));
        assert!(again.is_replay(), "{spelling} ran again: {again:?}");
        assert_eq!(again.value(), first.value());
    }
    assert_eq!(toolbox.state().runs(), 1);
    for other in [
        r#"{"room":"room_3","nights":3}"#,
        r#"{"room":"room_4","nights":2}"#,
        r#"{"room":"room_3","nights":2,"note":"late"}"#,
        r#"{"room":"room_3","nights":2,"note":" "}"#,
    ] {
        let outcome = block_on(toolbox.call(&ctx, "book_room", other));
        assert!(!outcome.is_replay(), "{other} replayed another action");
        assert!(outcome.value().is_some(), "{outcome:?}");
    }
    assert_eq!(toolbox.state().runs(), 5);
}

#[test]
fn a_person_approves_every_value_the_body_receives() {
    let clock = clock();
    let toolbox = toolbox(&clock, EffectPolicy::default());
    let ctx = person("alice", "tenant_a", "conv");
    let asked = block_on(toolbox.call(&ctx, "wire_funds", WIRE));
    let approval = asked.approval().expect("an approval").clone();
    assert_eq!(
        approval.arguments,
        json!({"amount_cents": 2500, "payee": "payee_7", "speed": "instant"})
    );
    let manager = person("manager", "tenant_a", "m");
    block_on(toolbox.approve(&manager, &approval.id)).unwrap();
    let done = block_on(toolbox.resume(&ctx, &approval.id));
    assert!(matches!(done, Outcome::Done(_)), "{done:?}");
    assert_eq!(
        toolbox.state().received.lock().unwrap()[0],
        approval.arguments
    );
}

#[test]
fn a_repeat_while_an_approval_is_pending_is_that_approval_and_the_action_runs_once() {
    let clock = clock();
    let store = Arc::new(MemoryStore::new());
    let toolbox = toolbox(&clock, EffectPolicy::default()).with_effect_store(Arc::clone(&store));
    let ctx = person("alice", "tenant_a", "conv");
    let first = block_on(toolbox.call(&ctx, "wire_funds", WIRE));
    let second = block_on(toolbox.call(
        &ctx,
        "wire_funds",
        r#"{"payee":"payee_7","amount_cents":2500.0,"speed":"instant"}"#,
    ));
    let id = first.approval().expect("an approval").id.clone();
    assert_eq!(
        second.approval().map(|a| a.id.as_str()),
        Some(id.as_str()),
        "{second:?}"
    );
    // Another actor's identical call is their own approval.
    let bob = person("bob", "tenant_a", "conv");
    let bobs = block_on(toolbox.call(&bob, "wire_funds", WIRE));
    assert_ne!(bobs.approval().expect("an approval").id, id);
    let manager = person("manager", "tenant_a", "m");
    block_on(toolbox.approve(&manager, &id)).unwrap();
    // Approved, not yet run: a repeat is still the same approval.
    let third = block_on(toolbox.call(&ctx, "wire_funds", WIRE));
    assert_eq!(third.approval().map(|a| a.id.as_str()), Some(id.as_str()));
    let done = block_on(toolbox.resume(&ctx, &id));
    assert!(matches!(done, Outcome::Done(_)), "{done:?}");
    // Every path back to the action replays it.
    let resumed = block_on(toolbox.resume(&ctx, &id));
    assert!(resumed.is_replay(), "{resumed:?}");
    let repeated = block_on(toolbox.call(&ctx, "wire_funds", WIRE));
    assert!(repeated.is_replay(), "{repeated:?}");
    let stored = StoredCall::new(
        WireFunds::definition(),
        RawValue::from_string(WIRE.to_owned()).unwrap(),
    );
    let from_storage = block_on(toolbox.call_stored(&ctx, &stored));
    assert!(from_storage.is_replay(), "{from_storage:?}");
    assert_eq!(repeated.value(), done.value());
    assert_eq!(toolbox.state().runs(), 1);
}

#[test]
fn two_live_approvals_of_one_action_run_it_once() {
    // An approval whose object changed is asked again; so the store can
    // hold two approvals of one action. However both are decided, the
    // action runs once: the run claims the action's own key.
    let clock = clock();
    let store = Arc::new(MemoryStore::new());
    let here = toolbox(&clock, EffectPolicy::default()).with_effect_store(Arc::clone(&store));
    let ctx = person("alice", "tenant_a", "conv");
    let first = block_on(here.call(&ctx, "wire_funds", WIRE))
        .approval()
        .unwrap()
        .clone();
    // A second approval for the same action, written straight to the
    // store as a second server's could have been.
    let mut twin = first.clone();
    twin.id = "apr_00000000000000000000000000000002".to_owned();
    block_on(toolgate::EffectStore::create_approval(
        &*store,
        twin.clone(),
    ))
    .unwrap();
    let manager = person("manager", "tenant_a", "m");
    block_on(here.approve(&manager, &first.id)).unwrap();
    block_on(here.approve(&manager, &twin.id)).unwrap();
    let done = block_on(here.resume(&ctx, &first.id));
    assert!(matches!(done, Outcome::Done(_)), "{done:?}");
    let other = block_on(here.resume(&ctx, &twin.id));
    assert!(other.is_replay(), "{other:?}");
    assert_eq!(here.state().runs(), 1);
}

#[test]
fn a_host_call_id_gives_an_approved_call_stripes_semantics() {
    let clock = clock();
    let toolbox = toolbox(&clock, EffectPolicy::default());
    let ctx = person("alice", "tenant_a", "conv").with_call_id("toolu_42");
    let asked = block_on(toolbox.call(&ctx, "wire_funds", WIRE));
    let id = asked.approval().expect("an approval").id.clone();
    // Repeated while pending: the same approval; with other arguments: a
    // conflict.
    let pending = block_on(toolbox.call(&ctx, "wire_funds", WIRE));
    assert_eq!(pending.approval().map(|a| a.id.as_str()), Some(id.as_str()));
    let other = r#"{"amount_cents":9900,"payee":"payee_7"}"#;
    let conflict = block_on(toolbox.call(&ctx, "wire_funds", other));
    assert_eq!(
        code(&conflict),
        Some(Code::IdempotencyConflict),
        "{conflict:?}"
    );
    let manager = person("manager", "tenant_a", "m");
    block_on(toolbox.approve(&manager, &id)).unwrap();
    // Resumed by a host that does not pass the call id along.
    let resumer = person("alice", "tenant_a", "elsewhere");
    let done = block_on(toolbox.resume(&resumer, &id));
    assert!(matches!(done, Outcome::Done(_)), "{done:?}");
    let again = block_on(toolbox.call(&ctx, "wire_funds", WIRE));
    assert!(again.is_replay(), "{again:?}");
    assert_eq!(again.value(), done.value());
    let conflict = block_on(toolbox.call(&ctx, "wire_funds", other));
    assert_eq!(
        code(&conflict),
        Some(Code::IdempotencyConflict),
        "{conflict:?}"
    );
    assert_eq!(toolbox.state().runs(), 1);
}

#[test]
fn a_panicked_body_s_outcome_is_kept_and_replayed() {
    for tool in ["charge", "charge_later"] {
        let clock = clock();
        let store = Arc::new(MemoryStore::new());
        let here = toolbox(&clock, EffectPolicy::default()).with_effect_store(Arc::clone(&store));
        let there = toolbox(&clock, EffectPolicy::default()).with_effect_store(Arc::clone(&store));
        let ctx = person("alice", "tenant_a", "conv");
        let first = block_on(here.call(&ctx, tool, r#"{"n":1}"#));
        assert!(matches!(first, Outcome::Failed(_)), "{tool}: {first:?}");
        // Not IN_PROGRESS (nothing runs), and not a second run.
        let again = block_on(here.call(&ctx, tool, r#"{"n":1}"#));
        assert!(again.is_replay(), "{tool}: {again:?}");
        assert_eq!(again.to_json()["code"], "INTERNAL");
        assert_eq!(again.to_json()["request_id"], first.to_json()["request_id"]);
        // Another server sharing the store reads the same, at once.
        let elsewhere = block_on(there.call(&ctx, tool, r#"{"n":1}"#));
        assert!(elsewhere.is_replay(), "{tool}: {elsewhere:?}");
        assert_eq!(here.state().runs() + there.state().runs(), 1, "{tool}");
    }
}

#[test]
fn no_budget_replaces_the_outcome_of_a_body_that_started() {
    let clock = clock();
    let toolbox = toolbox(&clock, EffectPolicy::default().conversation_budget(1));
    let ctx = person("alice", "tenant_a", "conv");
    for _ in 0..2 {
        let _ = block_on(toolbox.call(&ctx, "book_room", r#"{"room":"room_3","nights":0}"#));
    }
    // The conversation's budget is spent. A write that committed and then
    // ran past its limit says so.
    let timed_out = block_on(toolbox.call(&ctx, "post_entry", r#"{"n":1}"#));
    assert_eq!(code(&timed_out), Some(Code::Timeout), "{timed_out:?}");
    // A body's own refusal is the body's answer too.
    let refused = block_on(toolbox.call(&ctx, "small_only", r#"{"n":7}"#));
    assert_eq!(refused.to_json()["code"], "TOO_MUCH", "{refused:?}");
    // A gate's refusal past the budget is still the budget's.
    let gate = block_on(toolbox.call(&ctx, "small_only", r#"{"n":100}"#));
    assert_eq!(code(&gate), Some(Code::RetryBudgetExhausted), "{gate:?}");
    assert_eq!(toolbox.state().runs(), 2);
}

#[test]
fn a_stored_call_passes_the_rate_limit_and_the_retry_budget() {
    let clock = clock();
    let toolbox = toolbox(
        &clock,
        EffectPolicy::default()
            .rate_limit(1, Duration::from_secs(3600))
            .retry_budget(1),
    );
    let ctx = person("alice", "tenant_a", "conv");
    let stored = |n: u32| {
        StoredCall::new(
            BookRoom::definition(),
            RawValue::from_string(format!(r#"{{"room":"room_{n}","nights":1}}"#)).unwrap(),
        )
    };
    let first = block_on(toolbox.call_stored(&ctx, &stored(1)));
    assert!(first.value().is_some(), "{first:?}");
    for n in 2..6 {
        let limited = block_on(toolbox.call_stored(&ctx, &stored(n)));
        assert_eq!(code(&limited), Some(Code::RateLimited), "{limited:?}");
    }
    assert_eq!(toolbox.state().runs(), 1);

    let unlimited = toolbox_with_budget(&clock);
    let wrong = StoredCall::new(
        BookRoom::definition(),
        RawValue::from_string(r#"{"room":"room_1","nights":0}"#.to_owned()).unwrap(),
    );
    let first = block_on(unlimited.call_stored(&ctx, &wrong));
    assert_eq!(code(&first), Some(Code::OutOfRange));
    let second = block_on(unlimited.call_stored(&ctx, &wrong));
    assert_eq!(
        code(&second),
        Some(Code::RetryBudgetExhausted),
        "{second:?}"
    );
}

fn toolbox_with_budget(clock: &ManualClock) -> Toolbox<Desk> {
    toolbox(clock, EffectPolicy::default().retry_budget(1))
}

/// Polls `call` once, with a waker that does nothing: the body starts
/// and waits.
fn started<F: std::future::Future>(call: std::pin::Pin<&mut F>) {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(call.poll(&mut cx).is_pending(), "the body waits");
}

#[test]
fn a_running_call_is_never_forgotten_by_a_short_retention_or_a_long_time_limit() {
    for policy in [
        // Kept for less time than the call holds its key.
        EffectPolicy::default().retain(Duration::from_secs(60)),
        // The tool's 10-minute limit is longer than the 5-minute lease.
        EffectPolicy::default(),
    ] {
        let clock = clock();
        let toolbox = toolbox(&clock, policy);
        let ctx = person("alice", "tenant_a", "conv");
        *toolbox.state().hold.lock().unwrap() = Some(Arc::new(tokio::sync::Notify::new()));
        let mut running = std::pin::pin!(toolbox.call(&ctx, "slow_record", r#"{"what":"x"}"#));
        started(running.as_mut());
        for minutes in [1, 5, 3] {
            clock.advance(Duration::from_secs(60 * minutes + 1));
            let repeat = block_on(toolbox.call(&ctx, "slow_record", r#"{"what":"x"}"#));
            assert_eq!(
                code(&repeat),
                Some(Code::InProgress),
                "at {minutes} min: {repeat:?}"
            );
        }
        assert_eq!(toolbox.state().runs(), 0);
    }
}
