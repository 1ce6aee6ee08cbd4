//! The whole call path, from a tool name and argument bytes chosen by the
//! fuzzer: admission, the bounded parse, serde, garde, resources, checks and
//! bodies of the example tools. No input may panic, and each outcome must
//! hold what the boundary promises:
//!
//! - the example tools never fail with `INTERNAL`, whatever the arguments;
//! - a refusal leaves the state as it was (the side-effect count did not
//!   move), and a completed call moved it by exactly one;
//! - a refusal stays within its bounds: message length, pointer length and
//!   shape, serialized size;
//! - an unknown tool is refused with `NOT_PERMITTED`;
//! - gates 1–3 in one pass (the single-pass reader) answer exactly as the
//!   gates one by one: the same verdict, a rejection word for word;
//! - what gates 1–3 accept, the published schema accepts, as the
//!   jsonschema crate reads it.
//!
//! The example tools' bodies are async or name resources; `tally`, a plain
//! function, takes the other way through a call (the runtime's own future
//! around the body, rather than the tool's generated one). `paint` takes
//! enums that serde reads more laxly than their schema (an alias, a
//! `#[serde(other)]` variant), alone and in arrays; `count`, a set, which
//! serde reads from an array with repeats, and 128-bit integers, which
//! serde_json reads past the range their schema states; `route`, an
//! untagged enum whose bounds only its schema states, which the walk
//! before serde must hold.
#![no_main]

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use libfuzzer_sys::fuzz_target;
use toolgate::{Code, MAX_MESSAGE_CHARS, Outcome, ToolContext, ToolError, Toolbox, tool};
use toolgate_examples::{export, hotel, invoice, refund};

/// How many tallies were kept.
#[derive(Default)]
struct Tallies(AtomicUsize);

/// Keep a tally under a label.
#[tool(effect = write)]
fn tally(
    tallies: &Tallies,
    /// How much to add.
    #[garde(range(min = 1, max = 100))]
    n: u32,
    /// What the tally is for.
    #[garde(length(chars, min = 1, max = 16))]
    label: String,
) -> Result<String, ToolError> {
    tallies.0.fetch_add(1, Ordering::SeqCst);
    Ok(format!("{label}: {n}"))
}

/// A color; serde reads any other name as `Other`, which the schema
/// lists as `"other"` only.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Hue {
    Red,
    Blue,
    #[serde(other)]
    Other,
}

/// A finish; serde also reads `"shiny"`, which the schema does not list.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Finish {
    #[serde(alias = "shiny")]
    Gloss,
    Matte,
}

/// How many walls were painted.
#[derive(Default)]
struct Walls(AtomicUsize);

/// Paint a wall.
#[tool(effect = write)]
fn paint(
    walls: &Walls,
    /// The main color.
    hue: Hue,
    /// The finish.
    finish: Finish,
    /// Accent colors.
    #[garde(length(max = 4))]
    accents: Vec<Hue>,
    /// Finishes to try after it.
    #[garde(length(max = 4))]
    then: Vec<Finish>,
) -> Result<String, ToolError> {
    walls.0.fetch_add(1, Ordering::SeqCst);
    Ok(format!("{hue:?} {finish:?} {accents:?} {then:?}"))
}

/// How many counts were kept.
#[derive(Default)]
struct Counts(AtomicUsize);

/// Count laps under labels.
#[tool(effect = write)]
fn count(
    counts: &Counts,
    /// The labels, each once.
    labels: std::collections::BTreeSet<String>,
    /// The total.
    total: i128,
    /// Each lap.
    #[garde(length(max = 4))]
    laps: Vec<u128>,
) -> Result<String, ToolError> {
    counts.0.fetch_add(1, Ordering::SeqCst);
    Ok(format!("{labels:?} {total} {laps:?}"))
}

/// A stop on a route: untagged, and every bound is the schema's alone
/// (no garde rule backs it), so only the walk before serde holds them.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum Stop {
    Code(#[schemars(regex(pattern = r"^[A-Z]{3}$"), length(max = 3))] String),
    Legs(#[schemars(length(min = 1, max = 3))] Vec<u16>),
    Km(#[schemars(extend("exclusiveMinimum" = 0, "multipleOf" = 0.5), range(max = 500))] f64),
}

/// How many routes were planned.
#[derive(Default)]
struct Routes(AtomicUsize);

/// Plan a route.
#[tool(effect = write)]
fn route(
    routes: &Routes,
    /// The stops, in order.
    #[garde(length(max = 4))]
    stops: Vec<Stop>,
) -> Result<String, ToolError> {
    routes.0.fetch_add(1, Ordering::SeqCst);
    let stops: Vec<String> = stops
        .iter()
        .map(|stop| match stop {
            Stop::Code(code) => code.clone(),
            Stop::Legs(legs) => format!("{} legs", legs.len()),
            Stop::Km(km) => format!("{km} km"),
        })
        .collect();
    Ok(stops.join(", "))
}

/// Whether the published schema of tool `name` accepts `arguments`, by
/// the jsonschema crate: one validator for each tool, built once.
fn schema_accepts(name: &'static str, schema: &serde_json::Value, arguments: &[u8]) -> bool {
    thread_local! {
        static VALIDATORS: RefCell<HashMap<&'static str, jsonschema::Validator>> =
            RefCell::new(HashMap::new());
    }
    let Ok(instance) = serde_json::from_slice::<serde_json::Value>(arguments) else {
        return false;
    };
    VALIDATORS.with_borrow_mut(|validators| {
        validators
            .entry(name)
            .or_insert_with(|| jsonschema::validator_for(schema).expect("a valid schema"))
            .is_valid(&instance)
    })
}

fn ctx() -> &'static ToolContext {
    static CTX: OnceLock<ToolContext> = OnceLock::new();
    CTX.get_or_init(|| {
        ToolContext::new("analyst_1", "tenant_a", "req_fuzz")
            .with_scopes([
                "bookings:write",
                "exports:write",
                "refunds:write",
                "billing:refund",
            ])
            .allow_all_tools()
    })
}

/// What one call did: its outcome, and the side-effect count before and
/// after it.
struct Call {
    outcome: Outcome,
    before: usize,
    after: usize,
}

/// A fresh toolbox per input, so that state written by one input (a
/// booking, a refund) cannot accumulate across millions of runs.
fn call<S: Send + Sync + 'static, T: toolgate::Tool<S>>(
    state: S,
    tool: T,
    name: &'static str,
    arguments: &[u8],
    side_effects: impl Fn(&S) -> usize,
) -> Call {
    // Irreversible bodies run without approval here, so that the fuzzer
    // reaches them; gate 6's approvals have tests of their own.
    let policy = toolgate::EffectPolicy::default().approval(
        toolgate::Effect::Irreversible,
        toolgate::ApprovalRule::Never,
    );
    let mut toolbox = Toolbox::new(state).with_effect_policy(policy);
    toolbox.register(tool).expect("one tool");
    let one_pass = toolgate::testing::check_arguments(&toolbox, name, arguments);
    let gate_by_gate = toolgate::testing::check_arguments_gate_by_gate(&toolbox, name, arguments);
    assert_eq!(
        one_pass, gate_by_gate,
        "{name}: one pass and gate by gate disagree"
    );
    if let (Some(Ok(())), Some(def)) = (&one_pass, toolbox.definition(name)) {
        assert!(
            schema_accepts(name, def.schema(), arguments),
            "{name}: gates 1-3 accepted what the schema refuses: {}",
            String::from_utf8_lossy(arguments)
        );
    }
    let before = side_effects(toolbox.state());
    let outcome = now(toolbox.call(ctx(), name, arguments));
    let after = side_effects(toolbox.state());
    Call {
        outcome,
        before,
        after,
    }
}

/// The example tools never wait: one poll completes a call.
fn now<F: Future>(future: F) -> F::Output {
    match pin!(future)
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("an in-memory call waited"),
    }
}

const NAMES: [&str; 9] = [
    "book_hotel",
    "schedule_export",
    "issue_refund",
    "refund_invoice",
    "tally",
    "no_such_tool",
    "paint",
    "count",
    "route",
];

/// A rejection is a few hundred bytes: a code, a pointer of at most 128
/// bytes and a message of at most `MAX_MESSAGE_CHARS` characters.
const MAX_REJECTION_BYTES: usize = 2048;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, arguments)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(selector) % NAMES.len()];
    let Call {
        outcome,
        before,
        after,
    } = match name {
        "book_hotel" => call(
            hotel::Hotels::demo(),
            hotel::BookHotel,
            name,
            arguments,
            |h| h.bookings().len(),
        ),
        "schedule_export" => call(
            export::Accounts::demo(),
            export::ScheduleExport,
            name,
            arguments,
            |a| a.queued().len(),
        ),
        "issue_refund" => call(
            refund::Shop::demo(),
            refund::IssueRefund,
            name,
            arguments,
            |s| s.refunds().len(),
        ),
        "tally" => call(Tallies::default(), Tally, name, arguments, |t| {
            t.0.load(Ordering::SeqCst)
        }),
        "paint" => call(Walls::default(), Paint, name, arguments, |w| {
            w.0.load(Ordering::SeqCst)
        }),
        "count" => call(Counts::default(), Count, name, arguments, |c| {
            c.0.load(Ordering::SeqCst)
        }),
        "route" => call(Routes::default(), Route, name, arguments, |r| {
            r.0.load(Ordering::SeqCst)
        }),
        _ => call(
            invoice::Billing::demo(),
            invoice::RefundInvoice,
            name,
            arguments,
            |b| b.refunds().len(),
        ),
    };
    let json = outcome.to_json();
    match &outcome {
        Outcome::Done(_) => {
            assert_ne!(name, "no_such_tool", "an unknown tool ran: {json}");
            assert_eq!(
                after,
                before + 1,
                "{name} completed with {before} side effects before and {after} after"
            );
            assert_eq!(json["status"], "done");
        }
        Outcome::Rejected(rejection) => {
            assert_eq!(
                after, before,
                "{name} refused a call after changing the state: {json}"
            );
            assert_ne!(rejection.code(), Code::Internal, "{name}: {json}");
            if name == "no_such_tool" {
                assert_eq!(rejection.code(), Code::NotPermitted, "{json}");
            }
            assert!(rejection.safe_message().chars().count() <= MAX_MESSAGE_CHARS);
            assert!(rejection.path().len() <= 128);
            assert!(rejection.path().is_empty() || rejection.path().starts_with('/'));
            assert_eq!(json["status"], "rejected");
            assert_eq!(json["code"], rejection.code().as_str());
            let size = json.to_string().len();
            assert!(size <= MAX_REJECTION_BYTES, "{size} bytes: {json}");
        }
        Outcome::Failed(_) => panic!("{name} failed with INTERNAL: {json}"),
        // Gate 6: an irreversible call waits for approval and runs nothing.
        Outcome::ApprovalRequired(_) => {
            assert_eq!(
                after, before,
                "{name} changed the state before approval: {json}"
            );
            assert_eq!(json["status"], "approval_required");
            assert_eq!(json["retryable"], false);
        }
        // Each input gets a fresh toolbox: nothing to replay.
        other => panic!("{name} answered {other:?}"),
    }
});
