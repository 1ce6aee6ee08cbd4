//! Every security setting of the runtime, each by a test that fails when
//! the setting is ignored: grouped by gate, each test named after the
//! guarantee it checks. The tests of this file were each seen failing
//! with the check they guard removed, inverted or weakened; where another
//! module already catches that (`gates::admission`,
//! `gates::resource::flat_denial`, `gates::effect::decisions`,
//! `gates::effect::seams`, the store suite), the setting is not tested
//! again here.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::json;
use toolgate::testing::ManualClock;
use toolgate::{
    Authorize, Authorized, CallInfo, CallPolicy, Code, Denied, EffectPolicy, Fault, Limits,
    Outcome, Resolved, Resource, ToolContext, ToolError, Toolbox, tool,
};

use crate::common;
use crate::common::{audit, block_on};

/// What every refusal of gates 0, 4 and 5 looks like to the model.
const NOT_PERMITTED: &str = r#"{"status":"rejected","code":"NOT_PERMITTED","path":"","safe_message":"This action is not permitted.","retryable":false}"#;

/// The application state: how many bodies ran, and the clock a slow
/// resolver moves on.
struct Desk {
    runs: AtomicUsize,
    clock: ManualClock,
    /// How long resolving a vault takes, on `clock`.
    resolving: Mutex<Duration>,
}

impl Desk {
    fn new(clock: &ManualClock) -> Self {
        Desk {
            runs: AtomicUsize::new(0),
            clock: clock.clone(),
            resolving: Mutex::new(Duration::ZERO),
        }
    }

    fn ran(&self) -> usize {
        self.runs.fetch_add(1, Ordering::SeqCst) + 1
    }

    fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

/// Note something down.
#[tool(effect = write)]
fn note(desk: &Desk, #[garde(length(chars, max = 8))] what: String) -> Result<String, ToolError> {
    desk.ran();
    Ok(what)
}

/// Archive something: the arguments of `note`, another tool.
#[tool(effect = write)]
fn archive(
    desk: &Desk,
    #[garde(length(chars, max = 8))] what: String,
) -> Result<String, ToolError> {
    desk.ran();
    Ok(what)
}

/// Sum up the quarter's sales: a name longer than sixteen bytes, which
/// the allow-list compares on another path than short ones.
#[tool(effect = read)]
fn summarize_quarterly_sales(desk: &Desk) -> Result<usize, ToolError> {
    Ok(desk.ran())
}

/// A vault, found by a resolver that takes its time.
pub struct Vault {
    id: String,
}

/// `vault_` and digits.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct VaultRef(#[garde(pattern(r"^vault_[0-9]{1,4}$"))] String);

impl Resource<Desk> for Vault {
    type Ref = VaultRef;

    /// Every vault but `vault_404` exists.
    async fn resolve(_: &ToolContext, desk: &Desk, r: &VaultRef) -> Result<Option<Vault>, Fault> {
        let resolving = *desk.resolving.lock().unwrap();
        desk.clock.advance(resolving);
        Ok((r.0 != "vault_404").then(|| Vault { id: r.0.clone() }))
    }
}

/// `vault_0` is sealed; `vault_9` opens only with a second person's
/// approval; every other vault opens.
impl Authorize<OpenVault, Desk> for Vault {
    async fn authorize(_: &ToolContext, _: &Desk, vault: &Resolved<Vault>) -> Result<(), Denied> {
        match vault.id.as_str() {
            "vault_0" => Err(Denied::because("vault_0 is sealed")),
            "vault_9" => Err(Denied::unless_approved("vault_9 needs a second person")),
            _ => Ok(()),
        }
    }
}

/// Open a vault: irreversible, so it waits for a person's approval.
#[tool(effect = irreversible)]
async fn open_vault(desk: &Desk, vault: Authorized<Vault>) -> Result<String, ToolError> {
    desk.ran();
    Ok(vault.id.clone())
}

/// Fail, as a body whose database went away does.
#[tool(effect = read)]
fn fail(desk: &Desk) -> Result<(), ToolError> {
    desk.ran();
    Err(ToolError::internal("the ledger database went away"))
}

/// Crash, as a body with a bug does.
#[tool(effect = read)]
fn crash(desk: &Desk) -> Result<(), ToolError> {
    desk.ran();
    panic!("a bug in the body");
}

fn clock() -> ManualClock {
    ManualClock::new(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000))
}

fn desk(clock: &ManualClock, policy: EffectPolicy) -> Toolbox<Desk> {
    let mut toolbox = Toolbox::new(Desk::new(clock))
        .with_clock(clock.clone())
        .with_effect_policy(policy);
    toolbox
        .register(Note)
        .unwrap()
        .register(Archive)
        .unwrap()
        .register(SummarizeQuarterlySales)
        .unwrap()
        .register(OpenVault)
        .unwrap()
        .register(Fail)
        .unwrap()
        .register(Crash)
        .unwrap();
    toolbox
}

/// The audit log's denials: (reason, request id).
fn denials(log: &[common::Record]) -> Vec<(&str, &str)> {
    log.iter()
        .filter(|r| r.get("message").is_some_and(|m| m == "call denied"))
        .map(|r| (r["reason"].as_str(), r["request_id"].as_str()))
        .collect()
}

fn person(actor: &str, tenant: &str, session: &str) -> ToolContext {
    ToolContext::new(actor, tenant, format!("req_{actor}_{tenant}_{session}"))
        .with_session(session)
        .allow_all_tools()
}

fn code(outcome: &Outcome) -> Option<Code> {
    outcome.rejection().map(|r| r.code())
}

/// A call `note` and `archive` refuse at gate 3.
const TOO_LONG: &str = r#"{"what":"far too long"}"#;

// --- Gate 0: admission ---

#[test]
fn a_long_tool_name_is_admitted_only_when_the_request_lists_it() {
    let clock = clock();
    let toolbox = desk(&clock, EffectPolicy::default());
    let name = "summarize_quarterly_sales";
    assert!(name.len() > 16);
    // Listing another long name, or nothing, admits nothing.
    for ctx in [
        ToolContext::new("u", "t", "r").allow_tools(["summarize_quarterly_costs"]),
        ToolContext::new("u", "t", "r").allow_tools(["note"]),
        ToolContext::new("u", "t", "r"),
    ] {
        let outcome = block_on(toolbox.call(&ctx, name, "{}"));
        assert_eq!(serde_json::to_string(&outcome).unwrap(), NOT_PERMITTED);
        assert!(toolbox.definitions_for(&ctx).all(|d| d.name() != name));
    }
    assert_eq!(toolbox.state().runs(), 0);
    let listed = ToolContext::new("u", "t", "r").allow_tools([name]);
    let outcome = block_on(toolbox.call(&listed, name, "{}"));
    assert_eq!(outcome.value(), Some(&json!(1)), "{outcome:?}");
    assert_eq!(toolbox.definitions_for(&listed).count(), 1);
}

// --- Gate 1: limits ---

#[test]
fn the_toolbox_s_limits_are_the_widest_of_its_own_and_its_tools_bound_by_bound() {
    let clock = clock();
    let own = Limits::default();
    let mut toolbox = Toolbox::new(Desk::new(&clock)).with_limits(own);
    // Each bound widest at another tool, and each tool narrower than the
    // toolbox in some other bound.
    toolbox
        .register_with_limits(Note, own.max_bytes(128 * 1024).max_depth(2))
        .unwrap()
        .register_with_limits(
            Archive,
            own.max_nodes(8192).max_string_bytes(16 * 1024).max_depth(3),
        )
        .unwrap()
        .register_with_limits(SummarizeQuarterlySales, own.max_depth(32).max_bytes(1024))
        .unwrap();
    let widest = toolbox.limits();
    assert_eq!(
        (
            widest.bytes(),
            widest.depth(),
            widest.nodes(),
            widest.string_bytes()
        ),
        (128 * 1024, 32, 8192, 16 * 1024)
    );
}

// --- Gate 5: authorization of calls that name no object ---

/// Denies every call, with a reason only the audit log may read.
struct NoCalls;

const SECRET_REASON: &str = "the caller's account is frozen for fraud review";

impl CallPolicy for NoCalls {
    fn authorize_call(&self, _: &ToolContext, _: &CallInfo<'_>) -> Result<(), Denied> {
        Err(Denied::because(SECRET_REASON))
    }
}

#[test]
fn a_call_policy_s_denial_is_the_flat_answer_and_its_reason_only_logged() {
    let clock = clock();
    let toolbox = desk(&clock, EffectPolicy::default()).with_call_policy(NoCalls);
    let ctx = person("alice", "tenant_a", "conv");
    let (outcome, log) = audit(|| block_on(toolbox.call(&ctx, "note", r#"{"what":"x"}"#)));
    assert_eq!(serde_json::to_string(&outcome).unwrap(), NOT_PERMITTED);
    assert_eq!(toolbox.state().runs(), 0);
    let denied: Vec<_> = log
        .iter()
        .filter(|r| r.get("message").is_some_and(|m| m == "call denied"))
        .collect();
    assert_eq!(denied.len(), 1, "{log:?}");
    assert_eq!(denied[0]["reason"], SECRET_REASON);
    assert_eq!(denied[0]["gate"], "authorize");
    assert_eq!(denied[0]["request_id"], ctx.request_id());
}

// --- Gate 6: approvals ---

#[test]
fn an_approval_that_expires_while_its_call_is_resolved_does_not_run() {
    let clock = clock();
    let toolbox = desk(&clock, EffectPolicy::default());
    let ctx = person("alice", "tenant_a", "conv");
    let asked = block_on(toolbox.call(&ctx, "open_vault", r#"{"vault":"vault_7"}"#));
    let approval = asked.approval().expect("an approval").clone();
    let manager = ToolContext::new("manager", "tenant_a", "req_m");
    block_on(toolbox.approve(&manager, &approval.id)).unwrap();
    // Live when the resume starts; past its expiry by the time the vault
    // is resolved and the approval is consumed.
    *toolbox.state().resolving.lock().unwrap() = Duration::from_secs(15 * 60);
    let outcome = block_on(toolbox.resume(&ctx, &approval.id));
    assert_eq!(code(&outcome), Some(Code::ApprovalExpired), "{outcome:?}");
    assert_eq!(toolbox.state().runs(), 0);
}

#[test]
fn a_resume_of_an_approval_not_the_caller_s_is_the_flat_answer_and_why_only_logged() {
    let clock = clock();
    let toolbox = desk(&clock, EffectPolicy::default());
    let alice = person("alice", "tenant_a", "conv");
    let asked = block_on(toolbox.call(&alice, "open_vault", r#"{"vault":"vault_7"}"#));
    let approval = asked.approval().expect("an approval").clone();
    let manager = ToolContext::new("manager", "tenant_a", "req_m");
    block_on(toolbox.approve(&manager, &approval.id)).unwrap();
    let forged = "apr_00000000000000000000000000000000";
    for (ctx, id) in [
        (person("mallory", "tenant_a", "conv"), approval.id.as_str()),
        (person("alice", "tenant_b", "conv"), approval.id.as_str()),
        (alice.clone(), forged),
    ] {
        let (outcome, log) = audit(|| block_on(toolbox.resume(&ctx, id)));
        assert_eq!(serde_json::to_string(&outcome).unwrap(), NOT_PERMITTED);
        assert_eq!(
            denials(&log),
            [(
                "no such approval for this tenant and actor",
                ctx.request_id()
            )]
        );
    }
    assert_eq!(toolbox.state().runs(), 0);
}

#[test]
fn a_refused_decision_on_an_approval_is_logged_with_why() {
    let clock = clock();
    let toolbox = desk(&clock, EffectPolicy::default().distinct_approver(true));
    let alice = person("alice", "tenant_a", "conv");
    let asked = block_on(toolbox.call(&alice, "open_vault", r#"{"vault":"vault_7"}"#));
    let id = asked.approval().expect("an approval").id.clone();
    let (refused, log) = audit(|| block_on(toolbox.approve(&alice, &id)));
    assert!(refused.is_err());
    assert_eq!(
        denials(&log),
        [(
            "approval_granted refused: the approver made the call, and may not approve it",
            alice.request_id()
        )]
    );
    let elsewhere = ToolContext::new("manager", "tenant_b", "req_b");
    let (refused, log) = audit(|| block_on(toolbox.deny(&elsewhere, &id)));
    assert!(refused.is_err());
    assert_eq!(
        denials(&log),
        [(
            "approval_denied refused: no such approval in this tenant",
            "req_b"
        )]
    );
}

// --- Gate 6: retry budgets ---

#[test]
fn each_tenant_has_its_own_budgets_for_one_actor_name_and_conversation_id() {
    let clock = clock();
    let policy = EffectPolicy::default()
        .retry_budget(1)
        .conversation_budget(1);
    let toolbox = desk(&clock, policy);
    let a = person("alice", "tenant_a", "conv");
    let b = person("alice", "tenant_b", "conv");
    let calls =
        |ctx: &ToolContext| [1, 2].map(|_| code(&block_on(toolbox.call(ctx, "note", TOO_LONG))));
    let spent = [Some(Code::InvalidLength), Some(Code::RetryBudgetExhausted)];
    assert_eq!(calls(&a), spent);
    assert_eq!(calls(&b), spent, "tenant_b paid for tenant_a's rejections");
}

#[test]
fn the_retry_budget_of_one_call_is_its_tool_s() {
    let clock = clock();
    let toolbox = desk(&clock, EffectPolicy::default().retry_budget(1));
    let ctx = person("alice", "tenant_a", "conv");
    let spent = [Some(Code::InvalidLength), Some(Code::RetryBudgetExhausted)];
    for tool in ["note", "archive"] {
        let codes = [1, 2].map(|_| code(&block_on(toolbox.call(&ctx, tool, TOO_LONG))));
        assert_eq!(codes, spent, "{tool}");
    }
}

#[test]
fn each_conversation_has_its_own_total_budget() {
    let clock = clock();
    let toolbox = desk(&clock, EffectPolicy::default().conversation_budget(1));
    for session in ["conv_1", "conv_2"] {
        let ctx = person("alice", "tenant_a", session);
        let codes =
            ["note", "archive"].map(|tool| code(&block_on(toolbox.call(&ctx, tool, TOO_LONG))));
        assert_eq!(
            codes,
            [Some(Code::InvalidLength), Some(Code::RetryBudgetExhausted)],
            "{session}"
        );
    }
}

#[test]
fn a_spent_budget_stays_spent_while_its_window_lasts_and_then_starts_over() {
    let clock = clock();
    let policy = EffectPolicy::default()
        .retry_budget(1)
        .retain(Duration::from_secs(60 * 60));
    let toolbox = desk(&clock, policy);
    let ctx = person("alice", "tenant_a", "conv");
    let call = || code(&block_on(toolbox.call(&ctx, "note", TOO_LONG)));
    assert_eq!(call(), Some(Code::InvalidLength));
    // Waiting does not buy another try within the window.
    clock.advance(Duration::from_secs(59 * 60));
    assert_eq!(call(), Some(Code::RetryBudgetExhausted));
    clock.advance(Duration::from_secs(2 * 60));
    assert_eq!(call(), Some(Code::InvalidLength));
}

// --- Gate 6: rate limits ---

#[test]
fn a_rate_limit_is_per_tenant_and_per_tool() {
    let clock = clock();
    let policy = EffectPolicy::default().rate_limit(1, Duration::from_secs(60));
    let toolbox = desk(&clock, policy);
    let ok = |ctx: &ToolContext, tool: &str| {
        let outcome = block_on(toolbox.call(ctx, tool, r#"{"what":"x"}"#));
        assert!(outcome.value().is_some(), "{tool}: {outcome:?}");
    };
    let a = ToolContext::new("alice", "tenant_a", "r").allow_all_tools();
    ok(&a, "note");
    let limited = block_on(toolbox.call(&a, "note", r#"{"what":"y"}"#));
    assert_eq!(code(&limited), Some(Code::RateLimited));
    // The same actor name in another tenant, and another tool.
    ok(
        &ToolContext::new("alice", "tenant_b", "r").allow_all_tools(),
        "note",
    );
    ok(&a, "archive");
    assert_eq!(toolbox.state().runs(), 3);
}

#[test]
fn a_tool_s_own_rate_limit_replaces_the_toolbox_s() {
    let clock = clock();
    let minute = Duration::from_secs(60);
    let policy = EffectPolicy::default()
        .rate_limit(1, minute)
        .rate_limit_tool("note", 1, minute)
        // The last limit set for a tool is its limit.
        .rate_limit_tool("note", 3, minute);
    let toolbox = desk(&clock, policy);
    let ctx = ToolContext::new("alice", "tenant_a", "r").allow_all_tools();
    let codes = |tool: &str, calls: usize| {
        (0..calls)
            .map(|i| {
                let args = format!(r#"{{"what":"{i}"}}"#);
                code(&block_on(toolbox.call(&ctx, tool, args.as_str())))
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        codes("note", 4),
        [None, None, None, Some(Code::RateLimited)]
    );
    // Every other tool keeps the toolbox's limit.
    assert_eq!(codes("archive", 2), [None, Some(Code::RateLimited)]);
}

// --- The audit log ---

#[test]
fn every_audit_record_names_the_request_it_belongs_to() {
    let clock = clock();
    let toolbox = desk(&clock, EffectPolicy::default());
    let ctx = person("alice", "tenant_a", "conv");
    let oversize = format!(r#"{{"what":"{}"}}"#, "x".repeat(70_000));
    let calls: [(&str, &str); 8] = [
        // Gate 0, gate 1, gates 4 and 5, a policy's approval (and gate
        // 6's decision to ask), gate 3, a body's failure and its panic.
        ("open_safe", "{}"),
        ("note", &oversize),
        ("open_vault", r#"{"vault":"vault_404"}"#),
        ("open_vault", r#"{"vault":"vault_0"}"#),
        ("open_vault", r#"{"vault":"vault_9"}"#),
        ("note", TOO_LONG),
        ("fail", "{}"),
        ("crash", "{}"),
    ];
    let (_, log) = audit(|| {
        for (tool, arguments) in calls {
            block_on(toolbox.call(&ctx, tool, arguments));
        }
    });
    let audit: Vec<_> = log
        .iter()
        .filter(|r| r["target"] == "toolgate::audit")
        .collect();
    let mut logged: Vec<(&str, &str)> = audit
        .iter()
        .map(|r| {
            (
                r["message"].as_str(),
                r.get("gate").map_or("", String::as_str),
            )
        })
        .collect();
    logged.sort_unstable();
    logged.dedup();
    assert_eq!(
        logged,
        [
            ("approval asked by policy", "authorize"),
            ("call denied", "admission"),
            ("call denied", "authorize"),
            ("call denied", "resolve"),
            ("call rejected", "bounded_parse"),
            ("call rejected", "rules"),
            ("effect decision", "effect"),
            ("tool failed", "execute"),
            ("tool panicked", ""),
        ]
    );
    for record in audit {
        assert_eq!(
            record.get("request_id").map(String::as_str),
            Some(ctx.request_id()),
            "{record:?}"
        );
    }
}
