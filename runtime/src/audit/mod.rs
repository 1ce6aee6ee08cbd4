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
//! [`text`] (see `field`): escaped as Rust's `Debug` escapes it, so that no newline or
//! control character from a model, a resolver or an error can forge a log
//! line, and cut, so that no one field can flood the log.

pub(crate) mod field;

pub(crate) use field::{chain_of, text, tool_text};

use crate::{Rejection, ToolContext, telemetry};

/// Named here too, so that the call path names the gate beside the audit
/// call that records it.
pub(crate) use crate::gate::Gate;

pub(crate) fn denied(ctx: &ToolContext, tool: &str, gate: Gate, reason: &str) {
    telemetry::decided(gate);
    tracing::warn!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        session_id = ctx.session_id().map(text),
        call_id = ctx.call_id().map(text),
        tool = tool_text(tool),
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
        tool = tool_text(tool),
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
        tool = tool_text(tool),
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
        tool = tool_text(tool),
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
        tool = tool_text(tool),
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
        tool = tool_text(tool),
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
pub(crate) fn unrecorded_at_shutdown(key: &str, outcome: &str) {
    tracing::error!(
        target: "toolgate::audit",
        gate = Gate::Effect.as_str(),
        key = text(key),
        outcome = text(outcome),
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
        tool = tool_text(tool),
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
        tool = tool_text(tool),
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
        tool = tool_text(tool),
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
        tool = tool_text(tool),
        panic = text(message),
        "tool panicked"
    );
}
