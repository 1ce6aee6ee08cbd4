//! The server-side record of every refusal and failure.
//!
//! Events go to the `toolgate::audit` tracing target with the request id,
//! actor, tenant, tool and gate. This is where the specific reasons live that
//! the model is not told.

use crate::{Rejection, ToolContext};

/// Where in the call path a decision was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    Admission,
    BoundedParse,
    Structure,
    Rules,
    Version,
    Resolve,
    Authorize,
    Checks,
    Execute,
}

impl Gate {
    fn as_str(self) -> &'static str {
        match self {
            Gate::Admission => "admission",
            Gate::BoundedParse => "bounded_parse",
            Gate::Structure => "structure",
            Gate::Rules => "rules",
            Gate::Version => "version",
            Gate::Resolve => "resolve",
            Gate::Authorize => "authorize",
            Gate::Checks => "checks",
            Gate::Execute => "execute",
        }
    }
}

/// A tool name as the model sent it, cut and escaped so that it cannot forge
/// log lines or flood the log.
fn shown(name: &str) -> String {
    let cut: String = name.chars().take(64).collect();
    format!("{cut:?}")
}

pub(crate) fn denied(ctx: &ToolContext, tool: &str, gate: Gate, reason: &str) {
    tracing::warn!(
        target: "toolgate::audit",
        request_id = ctx.request_id(),
        actor = ctx.actor(),
        tenant = ctx.tenant(),
        tool = %shown(tool),
        gate = gate.as_str(),
        reason,
        "call denied"
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
    tracing::warn!(
        target: "toolgate::audit",
        request_id = ctx.request_id(),
        actor = ctx.actor(),
        tenant = ctx.tenant(),
        tool,
        gate = gate.as_str(),
        field,
        resource,
        reference,
        reason,
        "call denied"
    );
}

pub(crate) fn rejected(ctx: &ToolContext, tool: &str, gate: Gate, rejection: &Rejection) {
    tracing::info!(
        target: "toolgate::audit",
        request_id = ctx.request_id(),
        actor = ctx.actor(),
        tenant = ctx.tenant(),
        tool,
        gate = gate.as_str(),
        code = rejection.code().as_str(),
        path = rejection.path(),
        "call rejected"
    );
}

pub(crate) fn failed(ctx: &ToolContext, tool: &str, error: &dyn std::error::Error) {
    tracing::error!(
        target: "toolgate::audit",
        request_id = ctx.request_id(),
        actor = ctx.actor(),
        tenant = ctx.tenant(),
        tool,
        gate = Gate::Execute.as_str(),
        error = %error,
        "tool failed"
    );
}
