//! The server-side record of every refusal and failure.
//!
//! Events go to the `toolgate::audit` tracing target with the request id,
//! the session and call ids where the host set them, actor, tenant, tool
//! and gate. This is where the specific reasons live that the model is not
//! told. An event of a call is a child of the call's span
//! (`execute_tool …`, see `telemetry`), and a decision is noted there too.
//!
//! Every text field of an event (the context's ids, the tool name, the reason,
//! the reference asked for, an error's or a panic's message) passes through
//! [`text`]: escaped as Rust's `Debug` escapes it, so that no newline or
//! control character from a model, a resolver or an error can forge a log
//! line, and cut, so that no one field can flood the log.

use core::fmt::{self, Write as _};

use crate::{Rejection, ToolContext, telemetry};

/// Longest text field of an audit event, in characters after escaping.
pub(crate) const MAX_FIELD_CHARS: usize = 256;

/// Longest tool name in an audit event: registered names are short, and a
/// name the model invented needs no more to be recognised.
const MAX_TOOL_CHARS: usize = 64;

/// Named here too, so that the call path names the gate beside the audit
/// call that records it.
pub(crate) use crate::gate::Gate;

/// Free text as an audit field: at most [`MAX_FIELD_CHARS`] characters, with
/// `\`, newlines, control and other unprintable characters escaped as
/// `char::escape_debug` writes them (`\n`, `\u{1b}`, `\u{202e}`). Quotes stay
/// as they are: the field is recorded as a string, and each subscriber
/// quotes strings in its own format. A cut value ends in `…`.
pub(crate) fn text(raw: &str) -> String {
    escaped(raw, MAX_FIELD_CHARS)
}

/// [`text`] of a value's `Display`, formatting no more of it than the field
/// can show: an error whose message is megabytes long costs a few hundred.
pub(crate) fn text_of(value: &dyn fmt::Display) -> String {
    text(&capped(value))
}

/// Enough bytes for more than [`MAX_FIELD_CHARS`] characters, so that a
/// value that was cut is also cut (and marked) by [`text`].
const CAP: usize = (MAX_FIELD_CHARS + 1) * 4;

/// A value's `Display`, up to [`CAP`] bytes, formatting no more of it.
fn capped(value: &dyn fmt::Display) -> String {
    struct Capped(String);
    impl fmt::Write for Capped {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let room = CAP - self.0.len();
            if s.len() <= room {
                self.0.push_str(s);
                return Ok(());
            }
            let end = s.floor_char_boundary(room);
            self.0.push_str(s.get(..end).unwrap_or_default());
            // Stops the formatting: the rest would be cut anyway.
            Err(fmt::Error)
        }
    }
    let mut capped = Capped(String::new());
    // An `Err` here is the cap, or a `Display` that failed: either way,
    // what was written is what there is to log.
    let _ = write!(capped, "{value}");
    capped.0
}

/// [`text`] of an error and every cause beneath it, `: ` between them, as
/// far as the field can show. A cause whose text its error already ends
/// with (a library that repeats its `source` in its `Display`) is shown
/// once.
pub(crate) fn chain_of(error: &dyn std::error::Error) -> String {
    let mut out = String::new();
    let mut next: Option<&dyn std::error::Error> = Some(error);
    while let Some(error) = next {
        let shown = capped(&error);
        if !out.ends_with(&shown) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&shown);
        }
        if out.len() > CAP {
            break;
        }
        next = error.source();
    }
    text(&out)
}

/// A tool name as an audit field: registered names are short, and a name
/// the model invented is cut where it needs no more to be recognised.
pub(crate) fn tool_text(name: &str) -> String {
    escaped(name, MAX_TOOL_CHARS)
}

fn escaped(raw: &str, max: usize) -> String {
    let mut out = String::with_capacity(raw.len().min(max));
    let mut used = 0;
    // The length of `out` while one more character (the `…`) still fits.
    let mut fits = 0;
    for c in raw.chars() {
        if used > max {
            break;
        }
        if c == '"' || c == '\'' {
            out.push(c);
            used += 1;
        } else {
            for e in c.escape_debug() {
                out.push(e);
                used += 1;
            }
        }
        if used < max {
            fits = out.len();
        }
    }
    if used > max {
        out.truncate(fits);
        out.push('…');
    }
    out
}

pub(crate) fn denied(ctx: &ToolContext, tool: &str, gate: Gate, reason: &str) {
    telemetry::decided(gate);
    tracing::warn!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        session_id = ctx.session_id().map(text),
        call_id = ctx.call_id().map(text),
        tool = escaped(tool, MAX_TOOL_CHARS),
        gate = gate.as_str(),
        reason = text(reason),
        "call denied"
    );
}

/// A policy allowed an object at gate 5 only with a person's approval
/// ([`Denied::unless_approved`](crate::Denied::unless_approved)): gate 6
/// will ask for one.
pub(crate) fn approval_asked(ctx: &ToolContext, tool: &str, field: &str, reason: &str) {
    tracing::info!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        session_id = ctx.session_id().map(text),
        call_id = ctx.call_id().map(text),
        tool = escaped(tool, MAX_TOOL_CHARS),
        gate = Gate::Authorize.as_str(),
        field = text(field),
        reason = text(reason),
        "approval asked by policy"
    );
}

/// A flat denial at gates 4–5: the specific reason stays here.
pub(crate) fn refused(
    ctx: &ToolContext,
    tool: &str,
    gate: Gate,
    field: &str,
    resource: &str,
    reference: &str,
    reason: &str,
) {
    telemetry::decided(gate);
    tracing::warn!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        session_id = ctx.session_id().map(text),
        call_id = ctx.call_id().map(text),
        tool = escaped(tool, MAX_TOOL_CHARS),
        gate = gate.as_str(),
        field = text(field),
        resource = text(resource),
        reference = text(reference),
        reason = text(reason),
        "call denied"
    );
}

pub(crate) fn rejected(ctx: &ToolContext, tool: &str, gate: Gate, rejection: &Rejection) {
    telemetry::decided(gate);
    tracing::info!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        session_id = ctx.session_id().map(text),
        call_id = ctx.call_id().map(text),
        tool = escaped(tool, MAX_TOOL_CHARS),
        gate = gate.as_str(),
        code = rejection.code().as_str(),
        path = text(rejection.path()),
        "call rejected"
    );
}

pub(crate) fn failed(ctx: &ToolContext, tool: &str, error: &dyn std::error::Error) {
    tracing::error!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        session_id = ctx.session_id().map(text),
        call_id = ctx.call_id().map(text),
        tool = escaped(tool, MAX_TOOL_CHARS),
        gate = Gate::Execute.as_str(),
        error = chain_of(error),
        "tool failed"
    );
}

/// A body ran and its call answered, but the store would not take its
/// outcome: the toolbox keeps it, under `key`, until the store does.
pub(crate) fn outcome_unrecorded(ctx: &ToolContext, tool: &str, key: &str) {
    tracing::warn!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        tool = escaped(tool, MAX_TOOL_CHARS),
        gate = Gate::Effect.as_str(),
        decision = "outcome_unrecorded",
        key = text(key),
        "effect decision"
    );
}

/// An outcome of a body that ran, which the store never took before the
/// toolbox stopped (or before a flush gave up): its key, and the outcome
/// the caller read, for an operator to reconcile. Once this process ends
/// no server can replay it, and a repeat after the lease runs the body
/// again.
pub(crate) fn unrecorded_at_shutdown(key: &str, outcome: &serde_json::Value) {
    tracing::error!(
        target: "toolgate::audit",
        gate = Gate::Effect.as_str(),
        key = text(key),
        outcome = text_of(outcome),
        "outcome unrecorded at shutdown"
    );
}

/// Gate 6's store failed: the call answers a retryable `UNAVAILABLE` (or,
/// after its body ran, keeps its outcome until the store takes it). The
/// error goes here with every cause beneath it: the reason an operator
/// needs (a lock timeout, a refused password) is usually the deepest.
pub(crate) fn store_failed(ctx: &ToolContext, tool: &str, error: &dyn std::error::Error) {
    tracing::error!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        tool = escaped(tool, MAX_TOOL_CHARS),
        gate = Gate::Effect.as_str(),
        error = chain_of(error),
        "effect store failed"
    );
}

/// A decision of gate 6: an approval requested, granted, denied or used, a
/// stale object, a replay, a call in progress, a conflicting key.
pub(crate) fn effect(ctx: &ToolContext, tool: &str, decision: &str, approval: &str) {
    telemetry::decided(Gate::Effect);
    tracing::info!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        session_id = ctx.session_id().map(text),
        call_id = ctx.call_id().map(text),
        tool = escaped(tool, MAX_TOOL_CHARS),
        gate = Gate::Effect.as_str(),
        decision,
        approval = text(approval),
        "effect decision"
    );
}

/// The host's approval hook could not be told of an approval: it
/// panicked, it is too far behind, or its thread is gone. The approval
/// stands either way; this says who was not notified of it.
pub(crate) fn hook_failed(tool: &str, approval: &str, reason: &str) {
    tracing::error!(
        target: "toolgate::audit",
        tool = escaped(tool, MAX_TOOL_CHARS),
        gate = Gate::Effect.as_str(),
        approval = text(approval),
        reason = text(reason),
        "approval hook failed"
    );
}

/// A panic anywhere in a call after gate 1: in a rule, a resolver, a policy,
/// a check or the body. Which one is not known here; the panic's message
/// usually says.
pub(crate) fn panicked(ctx: &ToolContext, tool: &str, message: &str) {
    tracing::error!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        session_id = ctx.session_id().map(text),
        call_id = ctx.call_id().map(text),
        tool = escaped(tool, MAX_TOOL_CHARS),
        panic = text(message),
        "tool panicked"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_bounded() {
        assert_eq!(text("not found"), "not found");
        assert_eq!(
            text("a\nb\\c\u{1b}\u{202e}\"'"),
            "a\\nb\\\\c\\u{1b}\\u{202e}\"'"
        );
        let long = text(&"x".repeat(10_000));
        assert_eq!(long.chars().count(), MAX_FIELD_CHARS);
        assert!(long.ends_with('…'));
        let exact = "y".repeat(MAX_FIELD_CHARS);
        assert_eq!(text(&exact), exact);
        // An escape is never cut in half.
        let controls = text(&"\u{1}".repeat(1_000));
        assert!(controls.chars().count() <= MAX_FIELD_CHARS);
        assert!(controls.trim_end_matches('…').ends_with("\\u{1}"));
    }

    #[test]
    fn text_of_formats_no_more_than_it_shows() {
        struct Huge;
        impl fmt::Display for Huge {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for _ in 0..1_000_000 {
                    f.write_str("é\n")?;
                }
                Ok(())
            }
        }
        let shown = text_of(&Huge);
        assert_eq!(shown.chars().count(), MAX_FIELD_CHARS);
        assert!(shown.starts_with("é\\né\\n"));
        assert_eq!(text_of(&"short"), "short");
    }

    /// An error as tokio-postgres builds them: its `Display` a summary,
    /// the reason in its `source`.
    #[derive(Debug)]
    struct Summary(&'static str, Option<Box<dyn std::error::Error + 'static>>);
    impl fmt::Display for Summary {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for Summary {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref()
        }
    }

    #[test]
    fn the_chain_shows_every_cause_once() {
        let deepest = Summary("canceling statement due to lock timeout", None);
        let error = Summary("db error", Some(Box::new(deepest)));
        assert_eq!(
            chain_of(&error),
            "db error: canceling statement due to lock timeout"
        );
        // A library that repeats its cause in its own text.
        let repeated = Summary(
            "connect failed: password authentication failed",
            Some(Box::new(Summary("password authentication failed", None))),
        );
        assert_eq!(
            chain_of(&repeated),
            "connect failed: password authentication failed"
        );
        let long = Summary("x", Some(Box::new(Summary("\n", None))));
        assert_eq!(chain_of(&long), "x: \\n");
    }
}
