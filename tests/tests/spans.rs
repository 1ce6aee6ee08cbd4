//! Every call is one span, `execute_tool {tool}`, as OpenTelemetry's GenAI
//! conventions name tool execution: what the boundary decided (the gate,
//! its code, the outcome) is on the span, and the audit events that say
//! why are its children. A refused call, an approved call (the call, the
//! person's approval, the resume) and a replayed call, each as the tree a
//! trace backend would show.

mod common;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Once;

use common::block_on;
use toolgate::{Outcome, ToolContext, ToolError, Toolbox, tool};
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_examples::refund::{IssueRefund, Shop};
use tracing::field::{Field, Visit};
use tracing::span;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// One span as the test saw it: its fields as text, in the order made.
#[derive(Clone, Debug)]
struct Span {
    /// Its place in the trace, counted from 0 (the registry reuses ids).
    seq: usize,
    name: &'static str,
    parent: Option<usize>,
    fields: BTreeMap<String, String>,
    closed: bool,
}

impl Span {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// One event, and the span it happened in.
#[derive(Clone, Debug)]
struct Event {
    parent: Option<usize>,
    fields: BTreeMap<String, String>,
}

impl Event {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

#[derive(Debug, Default)]
struct Trace {
    spans: Vec<Span>,
    events: Vec<Event>,
    /// Fields recorded on a span that already had them: an OpenTelemetry
    /// span would carry the attribute twice.
    twice: Vec<String>,
}

impl Trace {
    /// The spans no span contains.
    fn roots(&self) -> Vec<&Span> {
        self.spans.iter().filter(|s| s.parent.is_none()).collect()
    }

    /// The events that happened in `span`, in order.
    fn children(&self, span: &Span) -> Vec<&Event> {
        self.events
            .iter()
            .filter(|e| e.parent == Some(span.seq))
            .collect()
    }

    /// The audit events, by their message, then the decision or gate.
    fn audit_of(&self, span: &Span) -> Vec<String> {
        self.children(span)
            .into_iter()
            .filter(|e| e.field("target") == Some("toolgate::audit"))
            .map(summary)
            .collect()
    }
}

fn summary(event: &Event) -> String {
    let message = event.field("message").unwrap_or_default();
    match event.field("decision") {
        Some(decision) => format!("{message}: {decision}"),
        None => format!("{message}: {}", event.field("gate").unwrap_or_default()),
    }
}

thread_local! {
    static TRACE: RefCell<Option<Trace>> = const { RefCell::new(None) };
}

/// Its place in the trace, kept with the span.
struct Seq(usize);

struct Fields<'a>(&'a mut BTreeMap<String, String>, &'a mut Vec<String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if self
            .0
            .insert(field.name().to_owned(), value.to_owned())
            .is_some()
        {
            self.1.push(field.name().to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}

/// Records spans, their parents and the events in them, on this thread.
struct Tree;

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Tree {
    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let parent = span
            .parent()
            .and_then(|p| p.extensions().get::<Seq>().map(|s| s.0));
        TRACE.with(|trace| {
            if let Some(trace) = trace.borrow_mut().as_mut() {
                let seq = trace.spans.len();
                let mut fields = BTreeMap::new();
                attrs.record(&mut Fields(&mut fields, &mut trace.twice));
                trace.spans.push(Span {
                    seq,
                    name: attrs.metadata().name(),
                    parent,
                    fields,
                    closed: false,
                });
                span.extensions_mut().insert(Seq(seq));
            }
        });
    }

    fn on_record(&self, id: &span::Id, values: &span::Record<'_>, ctx: Context<'_, S>) {
        let Some(seq) = ctx
            .span(id)
            .and_then(|s| s.extensions().get::<Seq>().map(|s| s.0))
        else {
            return;
        };
        TRACE.with(|trace| {
            if let Some(trace) = trace.borrow_mut().as_mut() {
                let Trace { spans, twice, .. } = trace;
                if let Some(span) = spans.get_mut(seq) {
                    values.record(&mut Fields(&mut span.fields, twice));
                }
            }
        });
    }

    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        let parent = ctx
            .event_span(event)
            .and_then(|s| s.extensions().get::<Seq>().map(|s| s.0));
        TRACE.with(|trace| {
            if let Some(trace) = trace.borrow_mut().as_mut() {
                let mut fields = BTreeMap::new();
                let mut ignored = Vec::new();
                event.record(&mut Fields(&mut fields, &mut ignored));
                fields.insert("target".to_owned(), event.metadata().target().to_owned());
                trace.events.push(Event { parent, fields });
            }
        });
    }

    fn on_close(&self, id: span::Id, ctx: Context<'_, S>) {
        let Some(seq) = ctx
            .span(&id)
            .and_then(|s| s.extensions().get::<Seq>().map(|s| s.0))
        else {
            return;
        };
        TRACE.with(|trace| {
            if let Some(span) = trace
                .borrow_mut()
                .as_mut()
                .and_then(|t| t.spans.get_mut(seq))
            {
                span.closed = true;
            }
        });
    }
}

/// Runs `f` and returns what it traced on this thread.
///
/// One global subscriber records into a thread-local trace: tracing
/// caches each call site's interest process-wide, so a subscriber per
/// test would race with the tests on other threads.
fn traced<T>(f: impl FnOnce() -> T) -> (T, Trace) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let subscriber = tracing_subscriber::registry().with(Tree);
        tracing::subscriber::set_global_default(subscriber).expect("no other global subscriber");
    });
    TRACE.with(|t| *t.borrow_mut() = Some(Trace::default()));
    let out = f();
    let trace = TRACE.with(|t| t.borrow_mut().take()).unwrap_or_default();
    (out, trace)
}

/// The one root span of `trace`, which every span must be.
#[track_caller]
fn only_root(trace: &Trace) -> &Span {
    let roots = trace.roots();
    assert_eq!(roots.len(), 1, "{:#?}", trace.spans);
    roots[0]
}

/// What every call's span says, whatever became of it.
#[track_caller]
fn assert_execute_tool(span: &Span, tool: &str) {
    assert_eq!(span.name, "execute_tool");
    assert_eq!(
        span.field("otel.name"),
        Some(format!("execute_tool {tool}").as_str())
    );
    assert_eq!(span.field("otel.kind"), Some("internal"));
    assert_eq!(span.field("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(span.field("gen_ai.tool.name"), Some(tool));
    assert_eq!(span.field("gen_ai.tool.type"), Some("function"));
    assert!(span.closed, "{span:#?}");
}

const REFUND: &str = r#"{"order":"ord_1001","amount_cents":2500}"#;

fn agent(request: &str) -> ToolContext {
    ToolContext::new("agent_1", "tenant_a", request)
        .with_session("conv_1")
        .with_scopes(["refunds:write", "bookings:write"])
        .allow_tools(["issue_refund", "book_hotel"])
}

fn manager() -> ToolContext {
    ToolContext::new("manager_1", "tenant_a", "req_m").with_scopes(["refunds:approve"])
}

fn shop() -> Toolbox<Shop> {
    let mut toolbox = Toolbox::new(Shop::demo());
    toolbox.register(IssueRefund).unwrap();
    toolbox
}

#[test]
fn a_refused_call_is_one_span_with_the_gate_that_refused_and_why_beneath() {
    let toolbox = shop();
    // Another tenant's order: the model reads the flat NOT_PERMITTED.
    let other = r#"{"order":"ord_2001","amount_cents":2500}"#;
    let (outcome, trace) =
        traced(|| block_on(toolbox.call(&agent("req_1"), "issue_refund", other)));
    assert_eq!(
        outcome.rejection().map(|r| r.code().as_str()),
        Some("NOT_PERMITTED")
    );
    assert!(trace.twice.is_empty(), "recorded twice: {:?}", trace.twice);
    let span = only_root(&trace);
    assert_eq!(trace.spans.len(), 1);
    assert_execute_tool(span, "issue_refund");
    // The span says which gate: the model was not told.
    assert_eq!(span.field("toolgate.outcome"), Some("rejected"));
    assert_eq!(span.field("toolgate.gate"), Some("resolve"));
    assert_eq!(span.field("toolgate.code"), Some("NOT_PERMITTED"));
    assert_eq!(span.field("error.type"), Some("NOT_PERMITTED"));
    assert_eq!(span.field("otel.status_code"), Some("error"));
    assert_eq!(span.field("gen_ai.tool.call.id"), Some("req_1"));
    assert_eq!(span.field("gen_ai.conversation.id"), Some("conv_1"));
    assert_eq!(span.field("toolgate.request.id"), Some("req_1"));
    // Arguments and results only when the toolbox opts in.
    assert_eq!(span.field("gen_ai.tool.call.arguments"), None);
    // Why, beneath it: the audit event, with the session it belongs to.
    assert_eq!(trace.audit_of(span), ["call denied: resolve"]);
    let denied = trace.children(span)[0];
    assert_eq!(denied.field("session_id"), Some("conv_1"));
    assert_eq!(denied.field("request_id"), Some("req_1"));
    assert!(denied.field("reason").is_some(), "{denied:?}");
    // Nothing outside the span.
    assert!(
        trace.events.iter().all(|e| e.parent.is_some()),
        "{:#?}",
        trace.events
    );
}

#[test]
fn a_call_refused_at_admission_names_no_tool_the_model_made_up() {
    let toolbox = shop();
    let hotels_only = ToolContext::new("agent_1", "tenant_a", "req_2").allow_tools(["book_hotel"]);
    let (_, trace) = traced(|| {
        block_on(toolbox.call(&hotels_only, "issue_refund", REFUND));
        block_on(toolbox.call(&agent("req_3"), "drop_tables\n", "{}"));
    });
    let roots = trace.roots();
    assert_eq!(roots.len(), 2, "{:#?}", trace.spans);
    let (not_allowed, made_up) = (roots[0], roots[1]);
    assert_execute_tool(not_allowed, "issue_refund");
    assert_eq!(not_allowed.field("toolgate.gate"), Some("admission"));
    assert_eq!(not_allowed.field("toolgate.code"), Some("NOT_PERMITTED"));
    assert_eq!(not_allowed.field("gen_ai.conversation.id"), None);
    // A name no tool has is an attribute, escaped, never the span's name.
    assert_eq!(made_up.field("otel.name"), Some("execute_tool"));
    assert_eq!(made_up.field("gen_ai.tool.name"), Some("drop_tables\\n"));
    assert_eq!(made_up.field("toolgate.gate"), Some("admission"));
    assert_eq!(made_up.field("toolgate.code"), Some("NOT_PERMITTED"));
    assert_eq!(trace.audit_of(made_up), ["call denied: admission"]);
}

#[test]
fn an_approved_call_is_a_held_call_a_decision_and_a_resume() {
    let toolbox = shop();
    let (outcome, trace) = traced(|| {
        let held = block_on(toolbox.call(&agent("req_4"), "issue_refund", REFUND));
        let approval = held.approval().expect("held for approval").id.clone();
        block_on(toolbox.approve(&manager(), &approval)).unwrap();
        let ran = block_on(toolbox.resume(&agent("req_5"), &approval));
        (approval, ran)
    });
    let (approval, ran) = outcome;
    assert!(ran.value().is_some(), "{ran:?}");
    assert!(trace.twice.is_empty(), "recorded twice: {:?}", trace.twice);
    // Two spans, the call and the resume; the decision between them is
    // the approver's, in no call.
    let roots = trace.roots();
    assert_eq!(roots.len(), 2, "{:#?}", trace.spans);
    assert_eq!(trace.spans.len(), 2);
    let (held, resumed) = (roots[0], roots[1]);

    assert_execute_tool(held, "issue_refund");
    assert_eq!(held.field("toolgate.outcome"), Some("approval_required"));
    assert_eq!(held.field("toolgate.gate"), Some("effect"));
    assert_eq!(held.field("toolgate.code"), None);
    assert_eq!(held.field("toolgate.approval.id"), Some(approval.as_str()));
    // Waiting for a person is not an error.
    assert_eq!(held.field("error.type"), None);
    assert_eq!(held.field("otel.status_code"), None);
    assert_eq!(
        trace.audit_of(held),
        ["effect decision: approval_requested"]
    );

    let decisions: Vec<String> = trace
        .events
        .iter()
        .filter(|e| e.parent.is_none())
        .map(summary)
        .collect();
    assert_eq!(decisions, ["effect decision: approval_granted"]);
    let granted = trace.events.iter().find(|e| e.parent.is_none()).unwrap();
    assert_eq!(granted.field("actor"), Some("manager_1"));
    assert_eq!(granted.field("approval"), Some(approval.as_str()));

    // The resume learns its tool from the approval, and runs the body.
    assert_execute_tool(resumed, "issue_refund");
    assert_eq!(
        resumed.field("toolgate.approval.id"),
        Some(approval.as_str())
    );
    assert_eq!(resumed.field("toolgate.request.id"), Some("req_5"));
    assert_eq!(resumed.field("toolgate.outcome"), Some("done"));
    assert_eq!(resumed.field("toolgate.gate"), Some("execute"));
    assert_eq!(resumed.field("error.type"), None);
    assert_eq!(trace.audit_of(resumed), ["effect decision: approval_used"]);
}

/// Book a room, saying so in the trace.
#[tool(effect = write)]
fn book_room(#[garde(range(min = 1, max = 9))] room: u8) -> Result<u8, ToolError> {
    tracing::info!(room, "room booked");
    Ok(room)
}

#[test]
fn a_replayed_call_is_a_span_whose_body_did_not_run() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(BookRoom).unwrap();
    let ctx = |request: &str| {
        ToolContext::new("agent_1", "tenant_a", request)
            .with_session("conv_1")
            .with_call_id("toolu_01")
            .allow_tools(["book_room"])
    };
    let (outcomes, trace) = traced(|| {
        [
            block_on(toolbox.call(&ctx("req_6"), "book_room", r#"{"room":3}"#)),
            block_on(toolbox.call(&ctx("req_7"), "book_room", r#"{"room":3}"#)),
        ]
    });
    assert!(matches!(outcomes[0], Outcome::Done(_)), "{outcomes:?}");
    assert!(outcomes[1].is_replay(), "{outcomes:?}");
    assert!(trace.twice.is_empty(), "recorded twice: {:?}", trace.twice);
    let roots = trace.roots();
    assert_eq!(roots.len(), 2, "{:#?}", trace.spans);
    let (first, again) = (roots[0], roots[1]);
    for span in [first, again] {
        assert_execute_tool(span, "book_room");
        // The host's call id is the call's id.
        assert_eq!(span.field("gen_ai.tool.call.id"), Some("toolu_01"));
    }
    assert_eq!(first.field("toolgate.outcome"), Some("done"));
    assert_eq!(first.field("toolgate.gate"), Some("execute"));
    // The body's own event is in the span.
    let body: Vec<_> = trace
        .children(first)
        .into_iter()
        .filter_map(|e| e.field("message"))
        .collect();
    assert_eq!(body, ["room booked"]);

    assert_eq!(again.field("toolgate.outcome"), Some("replayed"));
    assert_eq!(again.field("toolgate.gate"), Some("effect"));
    assert_eq!(again.field("error.type"), None);
    assert_eq!(trace.audit_of(again), ["effect decision: replayed"]);
    let replayed = trace.children(again)[0];
    assert_eq!(replayed.field("call_id"), Some("toolu_01"));
    assert_eq!(replayed.field("request_id"), Some("req_7"));
}

#[test]
fn arguments_and_results_are_traced_only_when_asked_and_bounded() {
    let hotel = r#"{"hotel_id":"h_seaview1","nights":2}"#;
    let booked = |toolbox: &Toolbox<Hotels>| {
        traced(|| block_on(toolbox.call(&agent("req_8"), "book_hotel", hotel))).1
    };
    let mut plain = Toolbox::new(Hotels::demo());
    plain.register(BookHotel).unwrap();
    let trace = booked(&plain);
    let span = only_root(&trace);
    assert_eq!(span.field("toolgate.outcome"), Some("done"));
    assert_eq!(span.field("gen_ai.tool.call.arguments"), None);
    assert_eq!(span.field("gen_ai.tool.call.result"), None);

    let mut open = Toolbox::new(Hotels::demo())
        .with_traced_arguments(true)
        .with_traced_results(true);
    open.register(BookHotel).unwrap();
    let trace = booked(&open);
    let span = only_root(&trace);
    assert_eq!(span.field("gen_ai.tool.call.arguments"), Some(hotel));
    let result: serde_json::Value =
        serde_json::from_str(span.field("gen_ai.tool.call.result").unwrap()).unwrap();
    assert_eq!(result["nights"], 2, "{result}");

    // A refused call records what was sent, cut, on one line.
    let long = format!(
        "{{\"hotel_id\":\"h_seaview1\",\n\"nights\":{}}}",
        "9".repeat(10_000)
    );
    let (_, trace) = traced(|| block_on(open.call(&agent("req_9"), "book_hotel", long.as_str())));
    let span = only_root(&trace);
    let arguments = span.field("gen_ai.tool.call.arguments").unwrap();
    assert_eq!(arguments.chars().count(), 4097);
    assert!(arguments.starts_with("{\"hotel_id\":\"h_seaview1\", \"nights\":999"));
    assert!(arguments.ends_with('…'));
    assert_eq!(span.field("gen_ai.tool.call.result"), None);
}

#[test]
fn a_failed_call_is_an_error_span_whose_failure_is_beneath() {
    let (_, trace) = traced(|| {
        let mut toolbox = Toolbox::new(());
        toolbox.register(Broken).unwrap();
        block_on(toolbox.call(&agent("req_10").allow_tools(["broken"]), "broken", "{}"))
    });
    let span = only_root(&trace);
    assert_eq!(span.field("toolgate.outcome"), Some("failed"));
    assert_eq!(span.field("toolgate.gate"), Some("execute"));
    assert_eq!(span.field("error.type"), Some("INTERNAL"));
    assert_eq!(span.field("otel.status_code"), Some("error"));
    assert_eq!(trace.audit_of(span), ["tool failed: execute"]);
}

/// Fail inside.
#[tool(effect = read)]
fn broken() -> Result<u8, ToolError> {
    Err(ToolError::internal(std::io::Error::other("disk on fire")))
}
