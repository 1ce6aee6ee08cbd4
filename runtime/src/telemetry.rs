//! What a call shows to the host's observability: one `tracing` span per
//! call, and with the `metrics` feature a counter and a histogram.
//!
//! The span follows OpenTelemetry's semantic conventions for GenAI tool
//! execution: it is named `execute_tool {gen_ai.tool.name}` (through the
//! `otel.name` field, as tracing-opentelemetry reads it) and is internal
//! (`otel.kind`); it carries `gen_ai.operation.name`, `gen_ai.tool.name`,
//! `gen_ai.tool.type`, `gen_ai.tool.call.id`, `gen_ai.conversation.id`
//! and, when the call did not succeed, `error.type` and
//! `otel.status_code = "error"`. toolgate's own fields say what the
//! boundary decided: `toolgate.outcome`, `toolgate.gate` (the gate that
//! decided) and `toolgate.code`, `toolgate.request.id` and
//! `toolgate.approval.id`. The audit events of the call are its children.
//! Arguments (`gen_ai.tool.call.arguments`) and results
//! (`gen_ai.tool.call.result`) are recorded only when the toolbox opts in,
//! and cut at [`MAX_CONTENT_CHARS`].
//!
//! A host that installs no subscriber, or one that does not want the span,
//! pays for a level check and a branch: nothing is formatted, and the call
//! runs as it would without this module. With the `metrics` feature every
//! call is counted and timed, whatever the subscriber.

use core::cell::Cell;
use core::future::Future;

use tracing::field::Empty;

use crate::audit::field;
use crate::gate::Gate;
use crate::{Code, Outcome, ToolContext};

/// Longest argument or result text a span records, in characters: enough
/// to read a call, not enough for one call to flood a trace backend.
pub(crate) const MAX_CONTENT_CHARS: usize = 4096;

/// What a span records of a call's content: nothing unless the toolbox
/// opts in (the conventions mark both as sensitive).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Content {
    pub(crate) arguments: bool,
    pub(crate) results: bool,
}

/// What the gates noted of the call being polled on this thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Seen {
    /// The gate of the last decision: a refusal, or gate 6's word.
    gate: Option<Gate>,
    /// The registered name the call named, once admission found it: the
    /// metrics' label (the span is named before the call runs).
    #[cfg(feature = "metrics")]
    tool: Option<&'static str>,
}

#[derive(Clone, Copy)]
enum Noting {
    /// No watched call is being polled on this thread.
    Off,
    On(Seen),
}

thread_local! {
    /// The notes of the watched call being polled on this thread: a call
    /// moves between threads only between polls, and each poll puts its
    /// notes here and takes them back ([`Watch::watch`]), as a span is
    /// entered and exited.
    static NOTES: Cell<Noting> = const { Cell::new(Noting::Off) };
}

fn note(change: impl FnOnce(&mut Seen)) {
    NOTES.with(|notes| {
        if let Noting::On(mut seen) = notes.get() {
            change(&mut seen);
            notes.set(Noting::On(seen));
        }
    });
}

/// `gate` decided the call being polled: it refused it, or gate 6 held,
/// replayed or let it through.
pub(crate) fn decided(gate: Gate) {
    note(|seen| seen.gate = Some(gate));
}

/// Admission found the tool the call names registered as `tool`.
#[inline]
pub(crate) fn named(tool: &'static str) {
    #[cfg(feature = "metrics")]
    note(|seen| seen.tool = Some(tool));
    #[cfg(not(feature = "metrics"))]
    let _ = tool;
}

/// One call, watched: its span, and (feature `metrics`) when it started.
pub(crate) struct Watch {
    span: tracing::Span,
    content: Content,
    #[cfg(feature = "metrics")]
    started: std::time::Instant,
}

/// Whether no call can be watched now: no metrics, and no subscriber that
/// takes `INFO` spans. One load and a compare, inlined into every call, so
/// that a host that traces nothing pays for nothing else.
#[inline]
pub(crate) fn quiet() -> bool {
    use tracing::level_filters::{LevelFilter, STATIC_MAX_LEVEL};
    !cfg!(feature = "metrics")
        && (tracing::Level::INFO > STATIC_MAX_LEVEL
            || tracing::Level::INFO > LevelFilter::current())
}

/// Whether a watch is worth keeping for `span`: a subscriber takes it, or
/// the metrics count every call.
fn wanted(span: &tracing::Span) -> bool {
    cfg!(feature = "metrics") || !span.is_disabled()
}

/// A span for one call; fields known later are declared `Empty`, as a
/// tracing span must declare every field it will record.
macro_rules! call_span {
    ($name:expr, $tool:expr, $call_id:expr, $conversation:expr, $request_id:expr, $approval:expr) => {
        tracing::info_span!(
            target: "toolgate",
            "execute_tool",
            otel.name = $name,
            otel.kind = "internal",
            otel.status_code = Empty,
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = $tool,
            gen_ai.tool.type = "function",
            gen_ai.tool.call.id = $call_id,
            gen_ai.conversation.id = $conversation,
            gen_ai.tool.call.arguments = Empty,
            gen_ai.tool.call.result = Empty,
            error.type = Empty,
            toolgate.outcome = Empty,
            toolgate.gate = Empty,
            toolgate.code = Empty,
            toolgate.request.id = $request_id,
            toolgate.approval.id = $approval,
        )
    };
}

impl Watch {
    /// A call of `name` (as the model sent it) with `arguments`; `tool`
    /// is the registered name it is, if any. `None` if nothing watches.
    pub(crate) fn call(
        ctx: &ToolContext,
        name: &str,
        tool: impl FnOnce() -> Option<&'static str>,
        arguments: &[u8],
        content: Content,
    ) -> Option<Watch> {
        // Only a registered name names the span: a name the model made up
        // is an attribute, never a span name a backend groups by.
        let span = call_span!(
            span_name(tool()),
            field::tool_text(name),
            call_id(ctx),
            ctx.session_id().map(field::text),
            field::text(ctx.request_id()),
            Empty
        );
        if !wanted(&span) {
            return None;
        }
        let watch = Watch::new(span, content);
        watch.arguments(&String::from_utf8_lossy(arguments));
        Some(watch)
    }

    /// A resume of the approval `approval_id`: which tool it runs is known
    /// once the approval is found ([`named`](Self::named)). `None` if
    /// nothing watches.
    pub(crate) fn resume(ctx: &ToolContext, approval_id: &str, content: Content) -> Option<Watch> {
        let span = call_span!(
            Empty,
            Empty,
            call_id(ctx),
            ctx.session_id().map(field::text),
            field::text(ctx.request_id()),
            field::text(approval_id)
        );
        wanted(&span).then(|| Watch::new(span, content))
    }

    /// Names the span after `tool`, before it is first entered: a resume
    /// learns its tool from the approval.
    pub(crate) fn named(&self, tool: &'static str) {
        if !self.span.is_disabled() {
            self.span.record("otel.name", span_name(Some(tool)));
            self.span.record("gen_ai.tool.name", tool);
        }
    }

    fn new(span: tracing::Span, content: Content) -> Watch {
        Watch {
            span,
            content,
            #[cfg(feature = "metrics")]
            started: std::time::Instant::now(),
        }
    }

    /// Records the arguments, if the toolbox opted in.
    pub(crate) fn arguments(&self, text: &str) {
        if self.content.arguments && !self.span.is_disabled() {
            self.span
                .record("gen_ai.tool.call.arguments", content(text));
        }
    }

    /// Drives `call` inside the span, noting which gate decided it, then
    /// records how it ended.
    pub(crate) async fn watch<F: Future<Output = Outcome>>(&self, call: F) -> Outcome {
        let mut call = core::pin::pin!(call);
        let mut seen = Seen::default();
        let outcome = core::future::poll_fn(|cx| {
            let _entered = self.span.enter();
            let _lent = Lent::start(&mut seen);
            call.as_mut().poll(cx)
        })
        .await;
        self.finish(&outcome, seen);
        outcome
    }

    /// Records how the call ended on the span, and counts it.
    fn finish(&self, outcome: &Outcome, seen: Seen) {
        let ended = Ended::of(outcome, seen);
        #[cfg(feature = "metrics")]
        ended.count(seen.tool, self.started.elapsed());
        let span = &self.span;
        if span.is_disabled() {
            return;
        }
        span.record("toolgate.outcome", ended.outcome);
        span.record("toolgate.gate", ended.gate.as_str());
        if let Some(code) = ended.code {
            span.record("toolgate.code", code);
        }
        if let Some(error) = ended.error(outcome) {
            span.record("error.type", error);
            span.record("otel.status_code", "error");
        }
        if let Outcome::ApprovalRequired(approval) = outcome {
            span.record("toolgate.approval.id", field::text(&approval.id));
        }
        if self.content.results
            && let Some(value) = outcome.value()
        {
            span.record("gen_ai.tool.call.result", json(value));
        }
    }
}

/// The notes of one watched call, put where the gates note on this thread
/// for one poll, and taken back after it (also when the poll panics).
struct Lent<'a> {
    seen: &'a mut Seen,
    outer: Noting,
}

impl<'a> Lent<'a> {
    fn start(seen: &'a mut Seen) -> Self {
        let outer = NOTES.with(|notes| notes.replace(Noting::On(*seen)));
        Lent { seen, outer }
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        // A call polled inside this one (a body that calls a toolbox) put
        // its notes back before this poll ended: these are this call's.
        if let Noting::On(seen) = NOTES.with(|notes| notes.replace(self.outer)) {
            *self.seen = seen;
        }
    }
}

/// The span's name for a call of `tool`: `execute_tool` and the tool's
/// registered name, or `execute_tool` alone for a name no tool has.
fn span_name(tool: Option<&'static str>) -> String {
    match tool {
        Some(tool) => format!("execute_tool {tool}"),
        None => "execute_tool".to_owned(),
    }
}

/// The call's id: the host's (a provider's tool-call id), or else the
/// request id, which names this call and no other.
fn call_id(ctx: &ToolContext) -> String {
    field::text(ctx.call_id().unwrap_or(ctx.request_id()))
}

/// How a call ended, as the span and the metrics say it.
struct Ended {
    outcome: &'static str,
    gate: Gate,
    /// The code of a refusal or failure.
    code: Option<&'static str>,
}

impl Ended {
    fn of(outcome: &Outcome, seen: Seen) -> Ended {
        let (name, gate, code) = match outcome {
            Outcome::Done(_) => ("done", Gate::Execute, None),
            Outcome::ApprovalRequired(_) => ("approval_required", Gate::Effect, None),
            Outcome::Replayed(_) => ("replayed", Gate::Effect, None),
            Outcome::Failed(_) => ("failed", Gate::Execute, Some(Code::Internal.as_str())),
            Outcome::Rejected(rejection) => {
                let code = rejection.code();
                // A refusal no gate noted is gate 6's (a store that did not
                // answer) or the body's.
                let gate = seen.gate.unwrap_or(if effect_code(code) {
                    Gate::Effect
                } else {
                    Gate::Execute
                });
                ("rejected", gate, Some(code.as_str()))
            }
        };
        Ended {
            outcome: name,
            gate,
            code,
        }
    }

    /// `error.type`: the code of a call that did not succeed; for a replay,
    /// the code of the outcome it replays, if that was not `done`.
    fn error(&self, outcome: &Outcome) -> Option<String> {
        match outcome {
            Outcome::Replayed(stored) => {
                let status = stored.get("status").and_then(|s| s.as_str());
                match status {
                    Some("done") => None,
                    _ => Some(field::text(
                        stored
                            .get("code")
                            .and_then(|c| c.as_str())
                            .unwrap_or("_OTHER"),
                    )),
                }
            }
            _ => self.code.map(str::to_owned),
        }
    }

    /// Counts the call and records its duration through the `metrics`
    /// facade: `toolgate.calls` by tool, gate, outcome and code, and
    /// `gen_ai.execute_tool.duration` (seconds) by tool, outcome and
    /// `error.type`, as the GenAI conventions name it.
    #[cfg(feature = "metrics")]
    fn count(&self, tool: Option<&'static str>, took: core::time::Duration) {
        use metrics::Label;
        describe();
        // A name no tool has is the model's: one series for all of them.
        let tool = tool.unwrap_or("_OTHER");
        // Each list allocated once, at its size: a refusal's cost is
        // bounded, and counted (`tests/tests/allocation`).
        let mut counted = Vec::with_capacity(4);
        let mut labels = Vec::with_capacity(4);
        for list in [&mut counted, &mut labels] {
            list.push(Label::from_static_parts("gen_ai.tool.name", tool));
            list.push(Label::from_static_parts("toolgate.outcome", self.outcome));
        }
        counted.push(Label::from_static_parts(
            "toolgate.gate",
            self.gate.as_str(),
        ));
        if let Some(code) = self.code {
            counted.push(Label::from_static_parts("toolgate.code", code));
            labels.push(Label::from_static_parts("error.type", code));
        }
        labels.push(Label::from_static_parts(
            "gen_ai.operation.name",
            "execute_tool",
        ));
        metrics::counter!(CALLS, counted).increment(1);
        metrics::histogram!(DURATION, labels).record(took.as_secs_f64());
    }
}

/// The counter of calls.
#[cfg(feature = "metrics")]
pub(crate) const CALLS: &str = "toolgate.calls";

/// The histogram of call durations, in seconds.
#[cfg(feature = "metrics")]
pub(crate) const DURATION: &str = "gen_ai.execute_tool.duration";

/// Describes both metrics to the recorder, once.
#[cfg(feature = "metrics")]
fn describe() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        metrics::describe_counter!(
            CALLS,
            metrics::Unit::Count,
            "Tool calls, by the gate that decided them and its code."
        );
        metrics::describe_histogram!(
            DURATION,
            metrics::Unit::Seconds,
            "Duration of tool calls, from admission to the outcome."
        );
    });
}

/// Codes only gate 6 gives.
fn effect_code(code: Code) -> bool {
    matches!(
        code,
        Code::InProgress
            | Code::IdempotencyConflict
            | Code::ApprovalPending
            | Code::ApprovalDenied
            | Code::ApprovalExpired
            | Code::ApprovalUsed
            | Code::RetryBudgetExhausted
            | Code::RateLimited
            | Code::Unavailable
    )
}

/// A value as JSON text for a span, bounded.
fn json(value: &serde_json::Value) -> String {
    /// Enough bytes for more than [`MAX_CONTENT_CHARS`] characters.
    const CAP: usize = (MAX_CONTENT_CHARS + 1) * 4;
    struct Capped(Vec<u8>);
    impl std::io::Write for Capped {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let room = CAP - self.0.len();
            let taken = bytes.get(..room.min(bytes.len())).unwrap_or_default();
            self.0.extend_from_slice(taken);
            if taken.len() < bytes.len() {
                // Stops the serializer: the rest would be cut anyway.
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut capped = Capped(Vec::new());
    // An error here is the cap: what was written is what there is.
    let _ = serde_json::to_writer(&mut capped, value);
    content(&String::from_utf8_lossy(&capped.0))
}

/// Arguments or a result as a span records them: at most
/// [`MAX_CONTENT_CHARS`] characters (a cut value ends in `…`), JSON text
/// kept JSON. Line breaks and tabs, which JSON allows only between tokens,
/// become spaces; any other control or unprintable character becomes a
/// JSON escape (`\u001b`, `\u202e`), the same string to a JSON reader. So
/// no value can break a line of a text log, or reorder what is shown.
pub(crate) fn content(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len().min(MAX_CONTENT_CHARS));
    for (count, c) in raw.chars().enumerate() {
        if count == MAX_CONTENT_CHARS {
            out.push('…');
            break;
        }
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            // `escape_debug` escapes what does not print as itself; `\`
            // and quotes print as themselves and are JSON's own.
            '\\' | '"' | '\'' => out.push(c),
            c if c.escape_debug().len() > 1 => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_stays_json_and_bounded() {
        let sent = "{\n\t\"note\": \"a\\\"b\u{1b}[2K\u{202e}\"\r\n}";
        let shown = content(sent);
        assert_eq!(shown, "{  \"note\": \"a\\\"b\\u001b[2K\\u202e\"  }");
        let read: serde_json::Value = serde_json::from_str(&shown).unwrap();
        let escaped = sent.replace('\u{1b}', "\\u001b");
        let meant: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(read, meant);
        let long = content(&"x".repeat(10_000));
        assert_eq!(long.chars().count(), MAX_CONTENT_CHARS + 1);
        assert!(long.ends_with('…'));
        let exact = "y".repeat(MAX_CONTENT_CHARS);
        assert_eq!(content(&exact), exact);
    }

    #[test]
    fn a_result_is_serialized_no_further_than_shown() {
        let huge = serde_json::Value::String("z".repeat(1_000_000));
        let shown = json(&huge);
        assert_eq!(shown.chars().count(), MAX_CONTENT_CHARS + 1);
        assert!(shown.starts_with("\"zzz"));
        assert_eq!(json(&serde_json::json!({"a": 1})), r#"{"a":1}"#);
    }

    #[test]
    fn notes_are_kept_only_inside_a_watched_poll() {
        // Outside a watched call, noting does nothing.
        decided(Gate::Rules);
        assert!(matches!(NOTES.with(Cell::get), Noting::Off));
        let mut seen = Seen::default();
        {
            let _outer = Lent::start(&mut seen);
            decided(Gate::Resolve);
            let mut inner = Seen::default();
            {
                // A call polled inside another keeps its own notes.
                let _inner = Lent::start(&mut inner);
                decided(Gate::Admission);
            }
            assert_eq!(inner.gate, Some(Gate::Admission));
            decided(Gate::Authorize);
        }
        assert_eq!(seen.gate, Some(Gate::Authorize));
        assert!(matches!(NOTES.with(Cell::get), Noting::Off));
    }
}
