//! The behaviour every effect store must show, written once: the memory
//! store's tests, `toolgate-sqlite`'s and `toolgate-postgres`'s each run
//! all of it.
//!
//! Every function takes a way to open the store under test. A durable
//! store opens a new handle on the same database each time, as a
//! restarted server would; the memory store hands back the same one. Each
//! run uses its own conversation ids, so the suite can run again and
//! again against a database that keeps the rows of earlier runs.
//!
//! The functions spawn tasks: call them inside a multi-threaded tokio
//! runtime (see [`runtime`]).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use toolgate::store::{Claim, Consumed, Decided, Recorded, Withdrawn};
use toolgate::testing::{ApprovalCase, ManualClock};
use toolgate::{
    Approval, ApprovalState, Code, Decision, EffectStore, Outcome, ToolContext, Toolbox,
};
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_examples::refund::{IssueRefund, Shop};

pub mod model;

/// A store under test, shared by the toolboxes a test builds.
pub type Store = Arc<dyn EffectStore>;

/// Concurrent calls in the races below.
pub const RACERS: usize = 1000;

/// The runtime the suite expects: four workers, so that racing calls
/// really are in flight together.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A name no earlier run used: conversation ids of this run.
pub fn fresh(what: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{what}-{}-{nanos}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Runs every test of the suite on the store `open` gives.
pub async fn assert_suite<F, Fut>(open: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Store>,
{
    toolgate::testing::assert_store_conforms(&*open().await, 200).await;
    concurrent_identical_writes_run_once(open().await).await;
    concurrent_approved_resumes_run_once(open().await).await;
    approvals_hold(open().await).await;
    a_repeat_after_a_restart_is_a_replay(&open).await;
    approvals_are_listed_to_whoever_may_decide(&*open().await).await;
    withdrawing_stops_a_pending_or_approved_approval(&*open().await).await;
    a_withdrawn_refund_never_runs(open().await).await;
}

fn traveller(session: &str) -> ToolContext {
    ToolContext::new("traveller_7", "tenant_a", "req_1")
        .with_session(session)
        .with_scopes(["bookings:write"])
        .allow_tools(["book_hotel"])
}

fn agent(session: &str) -> ToolContext {
    ToolContext::new("agent_1", "tenant_a", "req_1")
        .with_session(session)
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"])
}

fn manager() -> ToolContext {
    ToolContext::new("manager_1", "tenant_a", "req_m").with_scopes(["refunds:approve"])
}

/// The booking every racer makes.
pub const BOOKING: &str = r#"{"hotel_id":"h_seaview1","nights":3}"#;

/// A hotel toolbox on `store`.
pub fn hotels(store: Store) -> Toolbox<Hotels> {
    let mut toolbox = Toolbox::new(Hotels::demo()).with_effect_store(store);
    toolbox.register(BookHotel).expect("book_hotel registers");
    toolbox
}

/// A hotel toolbox on `store`, reading the time from `clock`.
pub fn hotels_on(store: Store, clock: ManualClock) -> Toolbox<Hotels> {
    let mut toolbox = Toolbox::new(Hotels::demo())
        .with_clock(clock)
        .with_effect_store(store);
    toolbox.register(BookHotel).expect("book_hotel registers");
    toolbox
}

/// `calls` identical bookings in the conversation `session`, all at once;
/// their outcomes.
pub async fn book_at_once(
    toolbox: &Arc<Toolbox<Hotels>>,
    session: &str,
    calls: usize,
) -> Vec<Outcome> {
    let tasks: Vec<_> = (0..calls)
        .map(|_| {
            let toolbox = Arc::clone(toolbox);
            let ctx = traveller(session);
            tokio::spawn(async move { toolbox.call(&ctx, "book_hotel", BOOKING).await })
        })
        .collect();
    let mut outcomes = Vec::with_capacity(calls);
    for task in tasks {
        outcomes.push(task.await.expect("a booking task finishes"));
    }
    outcomes
}

fn code(outcome: &Outcome) -> Option<Code> {
    outcome.rejection().map(|r| r.code())
}

/// Panics unless exactly one outcome ran and every other one was a
/// replay or "in progress".
fn assert_one_ran(outcomes: &[Outcome], what: &str) {
    let ran = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Done(_)))
        .count();
    let waited = outcomes
        .iter()
        .filter(|o| o.is_replay() || code(o) == Some(Code::InProgress))
        .count();
    assert_eq!(
        (ran, waited),
        (1, outcomes.len() - 1),
        "{what}: expected one run and {} replays or waits; first outcomes: {:?}",
        outcomes.len() - 1,
        outcomes.iter().take(3).collect::<Vec<_>>()
    );
}

/// 1,000 concurrent identical writes in one conversation book once.
pub async fn concurrent_identical_writes_run_once(store: Store) {
    let toolbox = Arc::new(hotels(store));
    let outcomes = book_at_once(&toolbox, &fresh("writes"), RACERS).await;
    assert_eq!(
        toolbox.state().bookings().len(),
        1,
        "1,000 identical writes booked more than once"
    );
    assert_one_ran(&outcomes, "1,000 identical writes");
}

fn shop(store: Store, clock: &ManualClock) -> Toolbox<Shop> {
    let mut toolbox = Toolbox::new(Shop::demo())
        .with_clock(clock.clone())
        .with_effect_store(store);
    toolbox
        .register(IssueRefund)
        .expect("issue_refund registers");
    toolbox
}

fn clock() -> ManualClock {
    ManualClock::new(SystemTime::now())
}

/// The refund every test asks approval for.
const REFUND: &str = r#"{"order":"ord_1001","amount_cents":2500}"#;

/// 1,000 concurrent resumes of one approved refund refund once.
pub async fn concurrent_approved_resumes_run_once(store: Store) {
    let clock = clock();
    let toolbox = Arc::new(shop(store, &clock));
    let session = fresh("resumes");
    let asked = toolbox.call(&agent(&session), "issue_refund", REFUND).await;
    let Some(approval) = asked.approval().cloned() else {
        panic!("the refund did not ask for approval: {asked:?}");
    };
    toolbox
        .approve(&manager(), &approval.id)
        .await
        .expect("the manager approves");
    let tasks: Vec<_> = (0..RACERS)
        .map(|_| {
            let toolbox = Arc::clone(&toolbox);
            let ctx = agent(&session);
            let id = approval.id.clone();
            tokio::spawn(async move { toolbox.resume(&ctx, &id).await })
        })
        .collect();
    let mut outcomes = Vec::with_capacity(RACERS);
    for task in tasks {
        outcomes.push(task.await.expect("a resume task finishes"));
    }
    assert_eq!(
        toolbox.state().refunds().len(),
        1,
        "1,000 resumes of one approval refunded more than once"
    );
    assert_one_ran(&outcomes, "1,000 approved resumes");
}

/// Every approval attack of the effect gate fails, approvals expire and
/// are single use: [`toolgate::testing::assert_approvals_hold`] on the
/// refund tool.
pub async fn approvals_hold(store: Store) {
    let clock = clock();
    let toolbox = shop(store, &clock);
    let touch = |shop: &Shop| shop.touch("tenant_a", "ord_1001");
    let case = ApprovalCase {
        tool: "issue_refund",
        arguments: REFUND,
        other_arguments: Some(r#"{"order":"ord_1001","amount_cents":9999}"#),
        change: Some(&touch),
        clock: Some(&clock),
    };
    toolgate::testing::assert_approvals_hold(
        &toolbox,
        &agent(&fresh("approvals")),
        &manager(),
        &case,
        |shop| shop.refunds().len(),
    )
    .await;
    assert_eq!(toolbox.state().refunds().len(), 1);
}

/// A booking made, the server restarted (a new toolbox, a new handle on
/// the store), the same booking again: a replay, and no second booking.
pub async fn a_repeat_after_a_restart_is_a_replay<F, Fut>(open: &F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Store>,
{
    let session = fresh("restart");
    let first = {
        let toolbox = hotels(open().await);
        let outcome = toolbox
            .call(&traveller(&session), "book_hotel", BOOKING)
            .await;
        assert_eq!(toolbox.state().bookings().len(), 1, "{outcome:?}");
        outcome
    };
    let toolbox = hotels(open().await);
    let again = toolbox
        .call(&traveller(&session), "book_hotel", BOOKING)
        .await;
    assert!(again.is_replay(), "the repeat after a restart: {again:?}");
    assert_eq!(again.value(), first.value());
    assert!(
        toolbox.state().bookings().is_empty(),
        "the repeat after a restart booked again"
    );
}

/// Fills `store` with 300 idempotency records, counters and rate-limit
/// buckets that are all gone (expired, or full again) one hour after
/// `t0`, and returns that instant, for a store's sweep test: sweeping an
/// empty store at it must remove them 256 per table per sweep.
pub async fn expiring_rows(store: &dyn EffectStore, t0: SystemTime) -> SystemTime {
    let s = Duration::from_secs;
    for i in 0..300 {
        let key = format!("sweep-{i}");
        store
            .claim(&key, "d", t0, s(1), s(1))
            .await
            .expect("a claim");
        store.count(&key, t0, s(1)).await.expect("a count");
        store.take(&key, 5, s(1), t0).await.expect("a take");
    }
    t0 + s(3600)
}

/// Checks that the sweeps a store runs by itself, every so many writes,
/// spare rows that are live on the system clock even when the writes come
/// from a toolbox whose clock runs far ahead (a test's): several toolboxes,
/// on their own clocks, share one database.
///
/// Writes at a time ten days ahead until a counter that expired an hour
/// ago on the system clock is gone (so a sweep ran), then asks for a
/// finished record that is kept for another hour: it must still replay.
/// For stores that sweep by themselves; the memory store does not.
pub async fn assert_sweeps_spare_live_rows(store: &dyn EffectStore) {
    let s = Duration::from_secs;
    let now = SystemTime::now();
    let live = fresh("live");
    let claim = store.claim(&live, "d", now, s(60), s(3600)).await;
    assert_eq!(claim.expect("a claim"), Claim::Claimed);
    store
        .complete(&live, Recorded::from_value(&"kept".into()))
        .await
        .expect("a completion");
    let ahead = now + s(10 * 24 * 3600);
    let marker = fresh("marker");
    let then = now - s(2 * 3600);
    store.count(&marker, then, s(3600)).await.expect("a count");
    let mut swept = false;
    for round in 0..40 {
        for i in 0..256 {
            let key = format!("{marker}-{round}-{i}");
            store
                .claim(&key, "d", ahead, s(1), s(1))
                .await
                .expect("a claim ahead");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        // One again if the sweep removed the expired counter.
        if store.count(&marker, then, s(3600)).await.expect("a count") == 1 {
            swept = true;
            break;
        }
    }
    assert!(swept, "no sweep ran in 10,240 writes");
    let again = store.claim(&live, "d", now, s(60), s(3600)).await;
    assert_eq!(
        again.expect("a claim"),
        Claim::Finished(Recorded::from_value(&"kept".into())),
        "a sweep at a clock ten days ahead removed a record still kept on the system clock"
    );
}

// Two OS processes on one database. The test binary runs itself again
// as the second process, running only an ignored test that reads what to
// do from environment variables.

/// The variable naming the conversation of a two-process test.
pub const SESSION_VAR: &str = "TOOLGATE_SUITE_SESSION";

/// Starts this test binary again as a second process that runs only the
/// ignored test `test`, with `SESSION_VAR` set to `session` and the
/// variables in `vars`. Its standard output is piped.
pub fn spawn_second_process(
    test: &str,
    session: &str,
    vars: &[(&str, &std::ffi::OsStr)],
) -> std::process::Child {
    let mut command =
        std::process::Command::new(std::env::current_exe().expect("the path of this test binary"));
    command
        .args([
            "--exact",
            test,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SESSION_VAR, session)
        .stdout(std::process::Stdio::piped());
    for (name, value) in vars {
        command.env(name, value);
    }
    command.spawn().expect("the second process starts")
}

/// The variable naming the approval a second process resumes; without
/// it, the second process books.
pub const APPROVAL_VAR: &str = "TOOLGATE_SUITE_APPROVAL";

/// The effects a second process reported (`effects=N` on its output),
/// once it has exited successfully.
pub fn effects_of(child: std::process::Child) -> usize {
    let output = child.wait_with_output().expect("the second process ends");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the second process failed: {text}");
    text.lines()
        .find_map(|l| l.split_once("effects=").map(|(_, n)| n))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("the second process said: {text}"))
}

/// The second process's half of a race, on `store`: the resumes of the
/// approval in `APPROVAL_VAR` if it is set, else the bookings, in the
/// conversation `SESSION_VAR` names. Prints `effects=N`. Does nothing if
/// `SESSION_VAR` is unset (the test run on its own).
pub async fn second_half(store: impl Future<Output = Store>) {
    let Ok(session) = std::env::var(SESSION_VAR) else {
        return;
    };
    let store = store.await;
    let effects = match std::env::var(APPROVAL_VAR) {
        Ok(id) => half_of_the_resumes(store, &session, &id).await,
        Err(_) => half_of_the_bookings(store, &session).await,
    };
    println!("effects={effects}");
}

/// Half of a two-process race, run in each process: 500 identical
/// bookings in `session` on `store`; returns how many booked.
pub async fn half_of_the_bookings(store: Store, session: &str) -> usize {
    let toolbox = Arc::new(hotels(store));
    book_at_once(&toolbox, session, RACERS / 2).await;
    toolbox.state().bookings().len()
}

/// A refund asked for in `session` and approved, on the system clock (a
/// second process must find it live): its approval id.
pub async fn an_approved_refund(store: Store, session: &str) -> String {
    let mut toolbox = Toolbox::new(Shop::demo()).with_effect_store(store);
    toolbox
        .register(IssueRefund)
        .expect("issue_refund registers");
    let asked = toolbox.call(&agent(session), "issue_refund", REFUND).await;
    let Some(approval) = asked.approval().cloned() else {
        panic!("the refund did not ask for approval: {asked:?}");
    };
    toolbox
        .approve(&manager(), &approval.id)
        .await
        .expect("the manager approves");
    approval.id
}

/// Half of a two-process race, run in each process: 500 concurrent
/// resumes of the approval `id` on `store`; returns how many refunded.
pub async fn half_of_the_resumes(store: Store, session: &str, id: &str) -> usize {
    let mut toolbox = Toolbox::new(Shop::demo()).with_effect_store(store);
    toolbox
        .register(IssueRefund)
        .expect("issue_refund registers");
    let toolbox = Arc::new(toolbox);
    let tasks: Vec<_> = (0..RACERS / 2)
        .map(|_| {
            let toolbox = Arc::clone(&toolbox);
            let ctx = agent(session);
            let id = id.to_owned();
            tokio::spawn(async move { toolbox.resume(&ctx, &id).await })
        })
        .collect();
    for task in tasks {
        let outcome = task.await.expect("a resume task finishes");
        // A store past its deadline answers UNAVAILABLE and runs nothing:
        // on a loaded machine some of 500 racing resumes may wait that
        // long for a connection. Exactly-once is the count of refunds.
        assert!(
            matches!(outcome, Outcome::Done(_))
                || outcome.is_replay()
                || matches!(code(&outcome), Some(Code::InProgress | Code::Unavailable)),
            "{outcome:?}"
        );
    }
    toolbox.state().refunds().len()
}

/// What the doomed process prints once it is inside the body.
pub const IN_THE_BODY: &str = "in the body";

/// A booking whose body says it started and then never finishes: the
/// process running it is killed there.
#[toolgate::tool(effect = write, name = "book_hotel")]
async fn book_and_hang(
    #[garde(length(chars, min = 1, max = 32))] hotel_id: String,
    #[garde(range(min = 1, max = 30))] nights: u32,
) -> Result<u32, toolgate::ToolError> {
    use std::io::Write as _;
    let _ = (hotel_id, nights);
    println!("{IN_THE_BODY}");
    let _ = std::io::stdout().flush();
    std::future::pending::<()>().await;
    Ok(nights)
}

/// Where the doomed process's clock starts, and the server's that takes
/// over: the same instant, so that only the lease separates them.
fn doomed_start() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

/// Run by the doomed process: one booking in `session` that hangs in its
/// body until the process is killed.
pub async fn doomed_booking(store: Store, session: &str) {
    let mut toolbox = Toolbox::new(())
        .with_clock(ManualClock::new(doomed_start()))
        .with_effect_store(store);
    toolbox
        .register(BookAndHang)
        .expect("the hanging booking registers");
    let ctx = traveller(session);
    let outcome = toolbox.call(&ctx, "book_hotel", BOOKING).await;
    panic!("the hanging body finished: {outcome:?}");
}

/// Kills `child` (SIGKILL) once it says it is inside the body, then takes
/// over as another server on `store`: the dead process's record holds the
/// key (`IN_PROGRESS`) until its lease runs out, then the booking runs,
/// once.
pub async fn take_over_after_a_kill(mut child: std::process::Child, store: Store, session: &str) {
    use std::io::BufRead as _;
    let stdout = child.stdout.take().expect("the doomed process's output");
    let reached = tokio::task::spawn_blocking(move || {
        std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.contains(IN_THE_BODY))
    })
    .await
    .expect("reading the doomed process");
    assert!(reached, "the doomed process never reached the body");
    child.kill().expect("the doomed process is killed");
    child.wait().expect("the doomed process is reaped");

    let clock = ManualClock::new(doomed_start());
    let mut toolbox = Toolbox::new(Hotels::demo())
        .with_clock(clock.clone())
        .with_effect_store(store);
    toolbox.register(BookHotel).expect("book_hotel registers");
    let ctx = traveller(session);
    let outcome = toolbox.call(&ctx, "book_hotel", BOOKING).await;
    assert_eq!(code(&outcome), Some(Code::InProgress), "{outcome:?}");
    clock.advance(Duration::from_secs(5 * 60));
    let outcome = toolbox.call(&ctx, "book_hotel", BOOKING).await;
    assert!(matches!(outcome, Outcome::Done(_)), "{outcome:?}");
    assert_eq!(toolbox.state().bookings().len(), 1);
}

/// An approval as gate 6 saves one, for the listing tests: asked by
/// `actor` of `tenant`, `at` milliseconds after `t0`, live for ten
/// minutes.
fn asked(tenant: &str, actor: &str, scope: Option<&str>, t0: SystemTime, at: u64) -> Approval {
    let created_at = t0 + Duration::from_millis(at);
    Approval {
        id: fresh("apr"),
        tenant: tenant.to_owned(),
        actor: actor.to_owned(),
        session: Some(fresh("conversation")),
        call_id: Some(format!("call-{at}")),
        request_id: format!("req-{at}"),
        tool: "issue_refund".to_owned(),
        version: 2,
        fingerprint: "sha256:0".to_owned(),
        arguments: serde_json::json!({"order": "ord_1001", "amount_cents": at}),
        digest: "d".to_owned(),
        resources: Vec::new(),
        approver_scope: scope.map(str::to_owned),
        distinct_approver: false,
        approver: None,
        created_at,
        expires_at: created_at + Duration::from_secs(600),
        state: ApprovalState::Pending,
    }
}

/// The ids `approver` is listed at `now`, at most `limit`.
async fn listed(
    store: &dyn EffectStore,
    approver: &ToolContext,
    now: SystemTime,
    limit: usize,
) -> Vec<String> {
    store
        .pending_approvals(approver, now, limit)
        .await
        .expect("the store lists")
        .into_iter()
        .map(|a| a.id)
        .collect()
}

/// Each person is listed exactly the pending, unexpired approvals of
/// their own tenant that they may decide: two tenants, two actors who
/// ask, two approver scopes, a distinct approver and a named one. Never
/// another tenant's, never an expired or decided one, oldest first, each
/// with its whole preview.
pub async fn approvals_are_listed_to_whoever_may_decide(store: &dyn EffectStore) {
    let (a, b) = (fresh("tenant_a"), fresh("tenant_b"));
    let t0 = SystemTime::now();
    let refunds = "refunds:approve";
    let ops = "ops:approve";
    // Asked by asker_1, for someone other than asker_1 with the refunds
    // scope.
    let own = Approval {
        distinct_approver: true,
        ..asked(&a, "asker_1", Some(refunds), t0, 1)
    };
    // Asked by asker_2, for anyone with the ops scope.
    let ops_call = asked(&a, "asker_2", Some(ops), t0, 2);
    // For the one actor the call names.
    let named = Approval {
        approver: Some("named_1".to_owned()),
        ..asked(&a, "asker_1", None, t0, 3)
    };
    // Expired before the listing; decided before it.
    let expired = Approval {
        expires_at: t0 + Duration::from_millis(4),
        ..asked(&a, "asker_1", Some(refunds), t0, 0)
    };
    let decided = asked(&a, "asker_1", Some(refunds), t0, 5);
    // The same refund, in the other tenant.
    let elsewhere = asked(&b, "asker_1", Some(refunds), t0, 6);
    for approval in [&own, &ops_call, &named, &expired, &decided, &elsewhere] {
        store
            .create_approval(approval.clone())
            .await
            .expect("the store saves the approval");
    }
    let now = t0 + Duration::from_millis(10);
    let decision = Decision::Approve("manager_1".to_owned());
    assert_eq!(
        store.decide(&decided.id, decision, now).await.ok(),
        Some(Decided::Done)
    );
    let person = |tenant: &str, actor: &str, scopes: &[&str]| {
        ToolContext::new(actor, tenant, "req_list").with_scopes(scopes.iter().copied())
    };
    let cases: [(&str, ToolContext, Vec<&str>); 8] = [
        (
            "a refunds approver",
            person(&a, "manager_1", &[refunds]),
            vec![&own.id],
        ),
        (
            "an ops approver",
            person(&a, "ops_1", &[ops]),
            vec![&ops_call.id],
        ),
        (
            "the asker of the distinct-approver call, with both scopes",
            person(&a, "asker_1", &[refunds, ops]),
            vec![&ops_call.id],
        ),
        (
            "the other asker, with both scopes",
            person(&a, "asker_2", &[refunds, ops]),
            vec![&own.id, &ops_call.id],
        ),
        (
            "the named approver, without scopes",
            person(&a, "named_1", &[]),
            vec![&named.id],
        ),
        (
            "someone of the tenant without an approver's scope",
            person(&a, "clerk_1", &["refunds:write"]),
            vec![],
        ),
        (
            "a refunds approver of the other tenant",
            person(&b, "manager_1", &[refunds]),
            vec![&elsewhere.id],
        ),
        (
            "an approver of a third tenant",
            person(&fresh("tenant_c"), "manager_1", &[refunds, ops]),
            vec![],
        ),
    ];
    for (who, approver, expected) in cases {
        let got = listed(store, &approver, now, 50).await;
        assert_eq!(got, expected, "{who} is listed other approvals");
    }
    // At most `limit`, oldest first.
    let first = listed(store, &person(&a, "asker_2", &[refunds, ops]), now, 1).await;
    assert_eq!(first, vec![own.id.clone()]);
    // Each with its whole preview, as saved.
    let shown = store
        .pending_approvals(&person(&a, "ops_1", &[ops]), now, 50)
        .await
        .expect("the store lists");
    assert_eq!(shown, vec![ops_call.clone()]);
    // Expired by the clock: gone from the list.
    let later = ops_call.expires_at;
    assert!(
        listed(store, &person(&a, "ops_1", &[ops]), later, 50)
            .await
            .is_empty()
    );
}

/// A pending approval and an approved one not yet used can be withdrawn,
/// and then can be neither decided nor used nor listed; a used one, an
/// expired one, an unknown one cannot be.
pub async fn withdrawing_stops_a_pending_or_approved_approval(store: &dyn EffectStore) {
    let tenant = fresh("tenant_w");
    let t0 = SystemTime::now();
    let scope = "refunds:approve";
    let pending = asked(&tenant, "asker_1", Some(scope), t0, 1);
    let approved = asked(&tenant, "asker_1", Some(scope), t0, 2);
    let used = asked(&tenant, "asker_1", Some(scope), t0, 3);
    for approval in [&pending, &approved, &used] {
        store
            .create_approval(approval.clone())
            .await
            .expect("saved");
    }
    let now = t0 + Duration::from_millis(10);
    let by = || "manager_1".to_owned();
    for id in [&approved.id, &used.id] {
        let decided = store.decide(id, Decision::Approve(by()), now).await;
        assert_eq!(decided.ok(), Some(Decided::Done));
    }
    assert_eq!(
        store.consume(&used.id, now).await.ok(),
        Some(Consumed::Done)
    );

    let withdraw = |id: String| async move { store.withdraw(&id, by(), now).await.ok() };
    assert_eq!(withdraw(pending.id.clone()).await, Some(Withdrawn::Done));
    assert_eq!(withdraw(approved.id.clone()).await, Some(Withdrawn::Done));
    assert_eq!(withdraw(used.id.clone()).await, Some(Withdrawn::Used));
    assert_eq!(withdraw(pending.id.clone()).await, Some(Withdrawn::Closed));
    assert_eq!(withdraw(fresh("apr")).await, Some(Withdrawn::Unknown));
    let late = pending.expires_at;
    let expired = asked(&tenant, "asker_1", Some(scope), t0, 4);
    store.create_approval(expired.clone()).await.expect("saved");
    assert_eq!(
        store
            .withdraw(&expired.id, by(), late + Duration::from_secs(1))
            .await
            .ok(),
        Some(Withdrawn::Expired)
    );

    let decision = Decision::Approve(by());
    assert_eq!(
        store.decide(&pending.id, decision, now).await.ok(),
        Some(Decided::AlreadyDecided)
    );
    assert_eq!(
        store.consume(&approved.id, now).await.ok(),
        Some(Consumed::Withdrawn)
    );
    let state = store
        .approval(&approved.id)
        .await
        .expect("read")
        .map(|a| a.state);
    assert_eq!(state, Some(ApprovalState::Withdrawn { by: by() }));
    let approver = ToolContext::new("manager_1", tenant.as_str(), "req").with_scopes([scope]);
    assert_eq!(listed(store, &approver, now, 50).await, vec![expired.id]);
}

/// A refund approved and then withdrawn by the agent who asked never runs
/// when resumed, and its repeat asks for a new approval. Only the asker
/// and those who may decide may withdraw: a bystander of the tenant and
/// the same manager in another tenant are refused, as for an approval
/// that does not exist.
pub async fn a_withdrawn_refund_never_runs(store: Store) {
    let clock = clock();
    let toolbox = shop(store, &clock);
    let session = fresh("withdraw");
    let asked = toolbox.call(&agent(&session), "issue_refund", REFUND).await;
    let Some(approval) = asked.approval().cloned() else {
        panic!("the refund did not ask for approval: {asked:?}");
    };
    toolbox
        .approve(&manager(), &approval.id)
        .await
        .expect("the manager approves");
    let bystander = ToolContext::new("clerk_1", "tenant_a", "req_b");
    let elsewhere =
        ToolContext::new("manager_1", "tenant_b", "req_e").with_scopes(["refunds:approve"]);
    // A bystander of the tenant lacks the approver's scope; the manager
    // of another tenant finds nothing. Neither withdraws.
    let missing = toolgate::ApprovalError::MissingScope("refunds:approve".to_owned());
    for (who, refused) in [
        (&bystander, missing),
        (&elsewhere, toolgate::ApprovalError::NotFound),
    ] {
        assert_eq!(toolbox.withdraw(who, &approval.id).await, Err(refused));
    }
    toolbox
        .withdraw(&agent(&session), &approval.id)
        .await
        .expect("the agent who asked withdraws");
    let resumed = toolbox.resume(&agent(&session), &approval.id).await;
    assert_eq!(code(&resumed), Some(Code::ApprovalDenied), "{resumed:?}");
    assert!(
        toolbox.state().refunds().is_empty(),
        "a withdrawn refund ran"
    );
    let again = toolbox.call(&agent(&session), "issue_refund", REFUND).await;
    let Some(renewed) = again.approval() else {
        panic!("the repeat did not ask anew: {again:?}");
    };
    assert_ne!(renewed.id, approval.id);
    assert!(toolbox.state().refunds().is_empty());
}
