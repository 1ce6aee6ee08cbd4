//! Gate 6 against a small reference model, under random sequences of
//! calls, repeats in other spellings, stored calls, host call ids,
//! approvals, denials, resumes, bodies that panic or run past their time
//! limit, and the passing of time, by three principals (two actors of one
//! tenant, and an actor of the same name in another) in two
//! conversations, on the memory store and on SQLite.
//!
//! What must hold after every step:
//!
//! - every outcome a principal reads was made by that principal's own
//!   call, or is a refusal: no result, replay or approval of another's;
//! - an action runs at most once, whichever path brings it back (a
//!   repeat, another spelling, a stored call, a resume, a second
//!   approval), where an action is the principal, the conversation (or
//!   the host's call id), the tool and the arguments as the body receives
//!   them;
//! - an approved run receives exactly what its approval showed;
//! - a replay is the outcome the action's run produced;
//! - a repeat while an approval of the action is live is that approval;
//! - no budget stands in for the outcome of a body that ran.
//!
//! Calls without a host call id are predicted exactly; calls with one
//! are held to the properties above (which outcome a reused id gives
//! depends on how long its records are kept).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolgate::testing::ManualClock;
use toolgate::{
    ApprovalError, Clock, Code, EffectPolicy, EffectStore, MemoryStore, Outcome, StoredCall,
    ToolContext, ToolError, Toolbox, tool,
};

use crate::common::block_on;

/// One body that ran: whose call it was and what it received.
#[derive(Clone, Debug)]
struct Ran {
    tenant: String,
    actor: String,
    received: Value,
    run: u64,
}

#[derive(Default)]
pub struct Ledger {
    ran: Mutex<Vec<Ran>>,
    next: AtomicU64,
}

impl Ledger {
    fn body(&self, ctx: &ToolContext, received: Value) -> Value {
        let run = self.next.fetch_add(1, Ordering::SeqCst);
        self.ran.lock().unwrap().push(Ran {
            tenant: ctx.tenant().to_owned(),
            actor: ctx.actor().to_owned(),
            received,
            run,
        });
        json!({"tenant": ctx.tenant(), "actor": ctx.actor(), "run": run})
    }

    fn runs(&self) -> Vec<Ran> {
        self.ran.lock().unwrap().clone()
    }
}

/// Book a room.
#[tool(effect = write)]
fn book(
    ctx: &ToolContext,
    ledger: &Ledger,
    #[garde(range(min = 1, max = 9))] room: u8,
    #[garde(range(min = 1, max = 30))] nights: u32,
    #[serde(default)]
    #[garde(length(chars, max = 20))]
    note: String,
) -> Result<Value, ToolError> {
    Ok(ledger.body(ctx, json!({"room": room, "nights": nights, "note": note})))
}

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    Instant,
    Standard,
}

fn instant() -> Speed {
    Speed::Instant
}

/// Wire money out.
#[tool(effect = irreversible)]
fn wire(
    ctx: &ToolContext,
    ledger: &Ledger,
    #[garde(range(min = 1, max = 100_000))] amount_cents: u64,
    #[serde(default = "instant")] speed: Speed,
) -> Result<Value, ToolError> {
    Ok(ledger.body(ctx, json!({"amount_cents": amount_cents, "speed": speed})))
}

/// Charge a card; the body panics.
#[tool(effect = write)]
fn crash(
    ctx: &ToolContext,
    ledger: &Ledger,
    #[garde(range(min = 1, max = 9))] n: u8,
) -> Result<Value, ToolError> {
    ledger.body(ctx, json!({"n": n}));
    panic!("the card network answered garbage");
}

/// Post to a ledger that never answers: past the limit.
#[tool(effect = write, timeout_ms = 1)]
async fn stall(
    ctx: &ToolContext,
    ledger: &Ledger,
    #[garde(range(min = 1, max = 9))] n: u8,
) -> Result<Value, ToolError> {
    ledger.body(ctx, json!({"n": n}));
    core::future::pending::<()>().await;
    Ok(Value::Null)
}

const TOOLS: [&str; 4] = ["book", "wire", "crash", "stall"];
const PRINCIPALS: [(&str, &str); 3] = [
    ("tenant_a", "alice"),
    ("tenant_a", "bob"),
    ("tenant_b", "alice"),
];
const SESSIONS: [&str; 2] = ["s1", "s2"];
const CALL_IDS: [Option<&str>; 3] = [None, Some("c1"), Some("c2")];
/// The approvers: a manager of each tenant.
const MANAGERS: [&str; 2] = ["tenant_a", "tenant_b"];

#[derive(Clone, Debug)]
enum Step {
    Call {
        who: usize,
        session: usize,
        call_id: usize,
        tool: usize,
        /// Which of two actions of the tool.
        action: usize,
        /// Which spelling of it.
        spelling: usize,
        /// Arguments the gates refuse instead.
        invalid: bool,
        /// Made as a stored call.
        stored: bool,
    },
    Approve {
        approval: usize,
        manager: usize,
    },
    Deny {
        approval: usize,
        manager: usize,
    },
    Resume {
        approval: usize,
        who: usize,
        session: usize,
    },
    Wait {
        minutes: u64,
    },
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let call = (
        0..3usize,
        0..2usize,
        prop_oneof![3 => Just(0usize), 1 => 1..3usize],
        prop_oneof![3 => Just(0usize), 4 => Just(1usize), 1 => Just(2usize), 1 => Just(3usize)],
        0..2usize,
        0..4usize,
        prop::bool::weighted(0.3),
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |(who, session, call_id, tool, action, spelling, invalid, stored)| Step::Call {
                who,
                session,
                call_id,
                tool,
                action,
                spelling,
                invalid,
                stored,
            },
        );
    let step = prop_oneof![
        6 => call,
        3 => (0..8usize, prop_oneof![4 => Just(0usize), 1 => Just(1usize)])
            .prop_map(|(approval, manager)| Step::Approve { approval, manager }),
        1 => (0..8usize, 0..2usize).prop_map(|(approval, manager)| Step::Deny { approval, manager }),
        3 => (0..8usize, prop_oneof![4 => Just(0usize), 1 => 1..3usize], 0..2usize)
            .prop_map(|(approval, who, session)| Step::Resume { approval, who, session }),
        1 => (0..20u64).prop_map(|minutes| Step::Wait { minutes }),
    ];
    prop::collection::vec(step, 1..48)
}

/// The arguments of action `action` of `tool`, in spelling `spelling`,
/// and the arguments its body receives.
fn arguments(tool: &str, action: usize, spelling: usize, invalid: bool) -> (String, Value) {
    let n = action + 1;
    match tool {
        "book" => {
            let room = if invalid { 0 } else { n };
            let text = match spelling {
                0 => format!(r#"{{"room":{room},"nights":2}}"#),
                1 => format!(r#"{{"nights":2.0,"room":{room}}}"#),
                2 => format!(r#"{{"room":{room},"nights":2,"note":""}}"#),
                _ => format!(r#"{{"room":{room}.0,"nights":2e0,"note":null}}"#),
            };
            (text, json!({"room": n, "nights": 2, "note": ""}))
        }
        "wire" => {
            let amount = if invalid { 0 } else { 100 * n };
            let text = match spelling {
                0 => format!(r#"{{"amount_cents":{amount}}}"#),
                1 => format!(r#"{{"amount_cents":{amount}.0}}"#),
                2 => format!(r#"{{"amount_cents":{amount},"speed":"instant"}}"#),
                _ => format!(r#"{{"speed":"instant","amount_cents":{amount}}}"#),
            };
            (text, json!({"amount_cents": 100 * n, "speed": "instant"}))
        }
        _ => {
            let value = if invalid { 0 } else { n };
            let text = match spelling {
                0 | 2 => format!(r#"{{"n":{value}}}"#),
                _ => format!(r#"{{ "n" : {value}.0 }}"#),
            };
            (text, json!({"n": n}))
        }
    }
}

/// An action, as the model keys it: the principal, the conversation or
/// the host's call id, and (without a call id) the tool and what the body
/// receives. A call id names one action whatever the call says.
type Key = (usize, String, Option<(String, String)>);

fn key(who: usize, session: usize, call_id: usize, tool: &str, receives: &Value) -> Key {
    match CALL_IDS[call_id] {
        Some(id) => (who, format!("call:{id}"), None),
        None => (
            who,
            format!("session:{}", SESSIONS[session]),
            Some((tool.to_owned(), receives.to_string())),
        ),
    }
}

/// An approval as the model knows it.
#[derive(Clone, Debug)]
struct Known {
    id: String,
    who: usize,
    key: Key,
    tool: String,
    shown: Value,
    expires_at: SystemTime,
    state: State,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Pending,
    Approved,
    Denied,
    Used,
}

/// A run the model knows of: what the action did, as the model read it.
#[derive(Clone, Debug)]
struct Done {
    tool: String,
    receives: Value,
    outcome: Value,
}

struct Model {
    toolbox: Toolbox<Ledger>,
    clock: ManualClock,
    approvals: Vec<Known>,
    done: HashMap<Key, Done>,
    seen_runs: usize,
    step: usize,
}

fn context(who: usize, session: usize, call_id: usize, step: usize) -> ToolContext {
    let (tenant, actor) = PRINCIPALS[who];
    let ctx = ToolContext::new(actor, tenant, format!("req_{step}"))
        .with_session(SESSIONS[session])
        .allow_all_tools();
    match CALL_IDS[call_id] {
        Some(id) => ctx.with_call_id(id),
        None => ctx,
    }
}

fn code(outcome: &Outcome) -> Option<Code> {
    outcome.rejection().map(|r| r.code())
}

impl Model {
    fn new(store: Arc<dyn EffectStore>) -> Model {
        let clock = ManualClock::new(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000));
        let mut toolbox = Toolbox::new(Ledger::default())
            .with_clock(clock.clone())
            .with_effect_store(store)
            .with_effect_policy(
                EffectPolicy::default()
                    .retry_budget(1)
                    .conversation_budget(3),
            );
        for tool in [
            toolbox.register(Book).map(|_| ()),
            toolbox.register(Wire).map(|_| ()),
            toolbox.register(Crash).map(|_| ()),
            toolbox.register(Stall).map(|_| ()),
        ] {
            tool.unwrap();
        }
        Model {
            toolbox,
            clock,
            approvals: Vec::new(),
            done: HashMap::new(),
            seen_runs: 0,
            step: 0,
        }
    }

    /// The bodies that ran since the last look.
    fn new_runs(&mut self) -> Vec<Ran> {
        let runs = self.toolbox.state().runs();
        let fresh = runs[self.seen_runs..].to_vec();
        self.seen_runs = runs.len();
        fresh
    }

    fn live(&self, key: &Key, now: SystemTime) -> Option<&Known> {
        self.approvals.iter().rev().find(|k| {
            &k.key == key
                && matches!(k.state, State::Pending | State::Approved)
                && now < k.expires_at
        })
    }

    fn step(&mut self, step: &Step) -> Result<(), TestCaseError> {
        self.step += 1;
        let now = Clock::now(&self.clock);
        match *step {
            Step::Call {
                who,
                session,
                call_id,
                tool,
                action,
                spelling,
                invalid,
                stored,
            } => {
                let tool = TOOLS[tool];
                let (text, receives) = arguments(tool, action, spelling, invalid);
                let ctx = context(who, session, call_id, self.step);
                let outcome = if stored {
                    let def = self.toolbox.definition(tool).unwrap();
                    let call = StoredCall::new(
                        def,
                        serde_json::value::RawValue::from_string(text.clone()).unwrap(),
                    );
                    block_on(self.toolbox.call_stored(&ctx, &call))
                } else {
                    block_on(self.toolbox.call(&ctx, tool, text.as_str()))
                };
                let key = key(who, session, call_id, tool, &receives);
                self.called(
                    who,
                    tool,
                    &key,
                    &receives,
                    invalid,
                    call_id != 0,
                    outcome,
                    now,
                )
            }
            Step::Approve { approval, manager } | Step::Deny { approval, manager } => {
                if self.approvals.is_empty() {
                    return Ok(());
                }
                let i = approval % self.approvals.len();
                let approve = matches!(step, Step::Approve { .. });
                let approver = ToolContext::new("manager", MANAGERS[manager], "req_m");
                let id = self.approvals[i].id.clone();
                let result = if approve {
                    block_on(self.toolbox.approve(&approver, &id))
                } else {
                    block_on(self.toolbox.deny(&approver, &id))
                };
                let known = &mut self.approvals[i];
                let expected = if PRINCIPALS[known.who].0 != MANAGERS[manager] {
                    Err(ApprovalError::NotFound)
                } else if known.state != State::Pending {
                    Err(ApprovalError::AlreadyDecided)
                } else if now >= known.expires_at {
                    Err(ApprovalError::Expired)
                } else {
                    Ok(())
                };
                prop_assert_eq!(&result, &expected, "{:?} of {:?}", step, known);
                if result.is_ok() {
                    known.state = if approve {
                        State::Approved
                    } else {
                        State::Denied
                    };
                }
                prop_assert!(self.new_runs().is_empty(), "a decision ran a body");
                Ok(())
            }
            Step::Resume {
                approval,
                who,
                session,
            } => {
                if self.approvals.is_empty() {
                    return Ok(());
                }
                let i = approval % self.approvals.len();
                let ctx = context(who, session, 0, self.step);
                let id = self.approvals[i].id.clone();
                let outcome = block_on(self.toolbox.resume(&ctx, &id));
                self.resumed(i, who, outcome, now)
            }
            Step::Wait { minutes } => {
                self.clock.advance(Duration::from_secs(minutes * 60));
                Ok(())
            }
        }
    }

    /// Checks a call's outcome against the model, and notes what it did.
    #[allow(clippy::too_many_arguments)]
    fn called(
        &mut self,
        who: usize,
        tool: &str,
        key: &Key,
        receives: &Value,
        invalid: bool,
        with_call_id: bool,
        outcome: Outcome,
        now: SystemTime,
    ) -> Result<(), TestCaseError> {
        let runs = self.new_runs();
        prop_assert!(runs.len() <= 1, "one call ran {} bodies", runs.len());
        let (tenant, actor) = PRINCIPALS[who];
        for ran in &runs {
            prop_assert_eq!((ran.tenant.as_str(), ran.actor.as_str()), (tenant, actor));
            prop_assert_eq!(&ran.received, receives, "the body received other arguments");
        }
        if code(&outcome) == Some(Code::RetryBudgetExhausted) {
            prop_assert!(
                runs.is_empty(),
                "a budget hid a body that ran: {:?}",
                outcome
            );
            return Ok(());
        }
        if invalid {
            prop_assert!(runs.is_empty());
            prop_assert!(outcome.rejection().is_some(), "{:?}", outcome);
            return Ok(());
        }
        let done = self.done.get(key).cloned();
        if let Some(done) = &done {
            prop_assert!(
                runs.is_empty(),
                "an action ran twice: {:?} {:?}",
                key,
                outcome
            );
            let same = done.tool == tool && &done.receives == receives;
            if same {
                prop_assert!(
                    outcome.is_replay(),
                    "a repeat of {:?} was {:?}",
                    key,
                    outcome
                );
                let mut read = outcome.to_json();
                read.as_object_mut().unwrap().remove("replayed");
                prop_assert_eq!(&read, &done.outcome, "a replay of another outcome");
            } else {
                // A host call id reused for another action.
                prop_assert_eq!(
                    code(&outcome),
                    Some(Code::IdempotencyConflict),
                    "{:?}",
                    outcome
                );
            }
            return Ok(());
        }
        if let Some(approval) = outcome.approval() {
            prop_assert!(runs.is_empty());
            prop_assert_eq!(tool, "wire");
            prop_assert_eq!(
                (approval.tenant.as_str(), approval.actor.as_str()),
                (tenant, actor)
            );
            prop_assert_eq!(
                &approval.arguments,
                receives,
                "the preview differs from what runs"
            );
            match self.live(key, now) {
                Some(live) if live.tool == tool && &live.shown == receives => {
                    prop_assert_eq!(
                        &approval.id,
                        &live.id,
                        "a second approval of one live action"
                    );
                }
                Some(_) => prop_assert!(false, "an approval for another action under one call id"),
                None => {
                    prop_assert!(
                        self.approvals.iter().all(|k| k.id != approval.id),
                        "an old approval shown again"
                    );
                    self.approvals.push(Known {
                        id: approval.id.clone(),
                        who,
                        key: key.clone(),
                        tool: tool.to_owned(),
                        shown: approval.arguments.clone(),
                        expires_at: approval.expires_at,
                        state: State::Pending,
                    });
                }
            }
            return Ok(());
        }
        if code(&outcome) == Some(Code::IdempotencyConflict) {
            prop_assert!(with_call_id, "a conflict without a call id: {:?}", outcome);
            prop_assert!(runs.is_empty());
            return Ok(());
        }
        if outcome.is_replay() {
            // Only a call id reused for this action after the model lost
            // track of its records could replay what the model did not
            // see run; the model sees every run.
            prop_assert!(
                false,
                "a replay of nothing the model saw run: {:?}",
                outcome
            );
        }
        // Not run before, no approval: the body runs now.
        prop_assert_eq!(runs.len(), 1, "{} {:?}: {:?}", tool, key, outcome);
        let expected = match tool {
            "book" => matches!(outcome, Outcome::Done(_)),
            "crash" => matches!(outcome, Outcome::Failed(_)),
            "stall" => code(&outcome) == Some(Code::Timeout),
            _ => false,
        };
        prop_assert!(expected, "{} ran and answered {:?}", tool, outcome);
        if let Outcome::Done(value) = &outcome {
            prop_assert_eq!(&value["actor"], actor);
            prop_assert_eq!(&value["tenant"], tenant);
            prop_assert_eq!(&value["run"], runs[0].run, "the outcome of another run");
        }
        self.done.insert(
            key.clone(),
            Done {
                tool: tool.to_owned(),
                receives: receives.clone(),
                outcome: outcome.to_json(),
            },
        );
        Ok(())
    }

    /// Checks a resume's outcome against the model.
    fn resumed(
        &mut self,
        i: usize,
        who: usize,
        outcome: Outcome,
        now: SystemTime,
    ) -> Result<(), TestCaseError> {
        let runs = self.new_runs();
        prop_assert!(runs.len() <= 1);
        let known = self.approvals[i].clone();
        if PRINCIPALS[known.who] != PRINCIPALS[who] {
            prop_assert!(runs.is_empty(), "another principal's resume ran");
            prop_assert_eq!(code(&outcome), Some(Code::NotPermitted), "{:?}", outcome);
            return Ok(());
        }
        let done = self.done.get(&known.key).cloned();
        let expected = match known.state {
            State::Denied => Some(Code::ApprovalDenied),
            State::Used if done.is_none() => Some(Code::ApprovalUsed),
            State::Used => None,
            _ if now >= known.expires_at => Some(Code::ApprovalExpired),
            State::Pending => Some(Code::ApprovalPending),
            State::Approved => None,
        };
        if let Some(expected) = expected {
            prop_assert!(runs.is_empty(), "ran on a {:?} approval", known.state);
            prop_assert_eq!(code(&outcome), Some(expected), "{:?}: {:?}", known, outcome);
            return Ok(());
        }
        if let Some(done) = done {
            prop_assert!(runs.is_empty(), "an approved action ran twice");
            if done.tool == known.tool && done.receives == known.shown {
                prop_assert!(outcome.is_replay(), "{:?}", outcome);
                let mut read = outcome.to_json();
                read.as_object_mut().unwrap().remove("replayed");
                prop_assert_eq!(&read, &done.outcome);
            } else {
                prop_assert_eq!(
                    code(&outcome),
                    Some(Code::IdempotencyConflict),
                    "{:?}",
                    outcome
                );
            }
            return Ok(());
        }
        // Approved, live, and the action has not run: it runs now, once,
        // with what the person saw.
        prop_assert_eq!(runs.len(), 1, "{:?}: {:?}", known, outcome);
        let ran = &runs[0];
        prop_assert_eq!(
            &ran.received,
            &known.shown,
            "the run differs from the approval"
        );
        let (tenant, actor) = PRINCIPALS[who];
        prop_assert_eq!((ran.tenant.as_str(), ran.actor.as_str()), (tenant, actor));
        prop_assert!(matches!(outcome, Outcome::Done(_)), "{:?}", outcome);
        self.approvals[i].state = State::Used;
        self.done.insert(
            known.key.clone(),
            Done {
                tool: known.tool.clone(),
                receives: known.shown.clone(),
                outcome: outcome.to_json(),
            },
        );
        Ok(())
    }
}

fn run(store: Arc<dyn EffectStore>, steps: &[Step]) -> Result<(), TestCaseError> {
    let mut model = Model::new(store);
    for step in steps {
        model.step(step)?;
    }
    // Every body that ran was one the model expected.
    let total = model.toolbox.state().runs().len();
    prop_assert_eq!(total, model.done.len(), "bodies ran that no outcome showed");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn gate_six_holds_for_every_principal_on_the_memory_store(steps in steps()) {
        run(Arc::new(MemoryStore::new()), &steps)?;
    }
}

fn sqlite_store() -> Arc<dyn EffectStore> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "toolgate-effect-model-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = block_on(toolgate_sqlite::SqliteStore::open(dir.join("effects.db"))).unwrap();
    Arc::new(store)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn gate_six_holds_for_every_principal_on_sqlite(steps in steps()) {
        run(sqlite_store(), &steps)?;
    }
}
