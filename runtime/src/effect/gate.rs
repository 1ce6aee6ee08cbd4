//! Gate 6 on one call that passed gates 0–5 and the tool's checks.

use core::future::Future;

use serde_json::Value;

use super::{Approval, ApprovalState, Claim, Consumed, Seen, StoreError, canonical, digest};
use crate::audit::{self, Gate};
use crate::outcome::Failure;
use crate::tool::Invocation;
use crate::{Code, Outcome, Rejection};

/// The logical action a call performs: what an approval and an
/// idempotency key are bound to.
struct Action {
    arguments: Value,
    /// The canonical text of the arguments.
    text: String,
    resources: Vec<Seen>,
}

impl Action {
    fn of<S>(invocation: &Invocation<'_, S>) -> Result<Action, Outcome> {
        // The bytes passed gates 1–3, so they are one JSON object.
        let arguments: Value = serde_json::from_str(invocation.raw.as_str()).map_err(|e| {
            audit::failed(invocation.ctx, invocation.def.name(), &e);
            Outcome::Failed(Failure::new(invocation.ctx.request_id()))
        })?;
        let text = canonical(&arguments);
        let resources = invocation
            .seen
            .iter()
            .map(|(field, version, summary)| Seen {
                field: (*field).to_owned(),
                reference: arguments.get(*field).cloned().unwrap_or(Value::Null),
                version: *version,
                summary: summary.clone(),
            })
            .collect();
        Ok(Action {
            arguments,
            text,
            resources,
        })
    }

    /// SHA-256 of the canonical arguments: what an approval records.
    fn digest(&self) -> String {
        digest(&[&self.text])
    }

    /// The idempotency key and the digest it is claimed with. A key the
    /// host gave is claimed with the action's digest, so that its reuse for
    /// another action is a conflict; a key derived from the action is
    /// claimed with itself.
    fn key<S>(&self, invocation: &Invocation<'_, S>) -> (String, String) {
        let ctx = invocation.ctx;
        let def = invocation.def;
        let version = def.version().to_string();
        let approval = invocation.resuming.map_or("", |a| a.id.as_str());
        let references: Vec<String> = self
            .resources
            .iter()
            .map(|seen| format!("{}={}", seen.field, canonical(&seen.reference)))
            .collect();
        // Scoped by the conversation, or else by the request.
        let scope = match ctx.call_id() {
            Some(_) => "",
            None => ctx.session_id().unwrap_or(ctx.request_id()),
        };
        let mut parts: Vec<&str> = vec![
            "action",
            scope,
            ctx.tenant(),
            def.name(),
            &version,
            &self.text,
            approval,
        ];
        parts.extend(references.iter().map(String::as_str));
        let action = digest(&parts);
        match ctx.call_id() {
            Some(call_id) => (digest(&["host", ctx.tenant(), def.name(), call_id]), action),
            None => (action.clone(), action),
        }
    }
}

/// A store failure: the model may try again, nothing ran; the cause goes
/// to the audit log.
fn unavailable(ctx: &crate::ToolContext, tool: &str, error: &StoreError) -> Outcome {
    audit::failed(ctx, tool, error);
    let rejection = Rejection::new(
        Code::Unavailable,
        "The server could not record this call, and nothing was done. Try again shortly.",
    );
    Outcome::Rejected(rejection)
}

pub(crate) async fn gate<S, F>(
    invocation: Invocation<'_, S>,
    needs: bool,
    approver: Option<String>,
    body: F,
) -> Outcome
where
    F: Future<Output = Outcome>,
{
    let ctx = invocation.ctx;
    let def = invocation.def;
    let effects = invocation.effects;
    let store = &*effects.store;
    let now = effects.clock.now();
    let action = match Action::of(&invocation) {
        Ok(action) => action,
        Err(outcome) => return outcome,
    };
    match invocation.resuming {
        Some(approval) => {
            if let Some(refused) = bound(approval, &action, &invocation) {
                return refused;
            }
        }
        None if needs => return request(&invocation, action, approver, now).await,
        None => {}
    }
    let (key, claimed_with) = action.key(&invocation);
    let policy = &effects.policy;
    match store
        .claim(
            &key,
            &claimed_with,
            now,
            policy.lease_of(),
            policy.retain_of(),
        )
        .await
    {
        Ok(Claim::Claimed) => {}
        Ok(Claim::Finished(stored)) => {
            audit::effect(ctx, def.name(), "replayed", "");
            return Outcome::Replayed(stored);
        }
        Ok(Claim::InFlight) => {
            audit::effect(ctx, def.name(), "in_progress", "");
            return Outcome::Rejected(Rejection::new(
                Code::InProgress,
                "An identical call is running now. Wait for it, then ask again for its result.",
            ));
        }
        Ok(Claim::Conflict) => {
            audit::effect(ctx, def.name(), "idempotency_conflict", "");
            return Outcome::Rejected(Rejection::new(
                Code::IdempotencyConflict,
                "This call's id was already used for a call with other arguments.",
            ));
        }
        Err(error) => return unavailable(ctx, def.name(), &error),
    }
    if let Some(approval) = invocation.resuming {
        // Used, and its run's outcome no longer kept: it never runs again.
        if let ApprovalState::Used { .. } = approval.state {
            let _ = store.release(&key).await;
            let rejection = used();
            audit::rejected(ctx, def.name(), Gate::Effect, &rejection);
            return Outcome::Rejected(rejection);
        }
        // The objects changed since the person saw them: ask again, with
        // what they are now. (After the claim: a finished run of this
        // approval, which changed them itself, replays above.)
        let changed = approval
            .resources
            .iter()
            .zip(&action.resources)
            .any(|(then, now)| then.version != now.version);
        if changed {
            let _ = store.release(&key).await;
            audit::effect(ctx, def.name(), "stale", &approval.id);
            return request(&invocation, action, approver, now).await;
        }
        let refusal = match store.consume(&approval.id, now).await {
            Ok(Consumed::Done) => None,
            Ok(Consumed::Unknown) => Some(Rejection::not_permitted()),
            Ok(Consumed::Pending) => Some(pending()),
            Ok(Consumed::Denied) => Some(denied()),
            Ok(Consumed::Expired) => Some(expired()),
            Ok(Consumed::Used) => Some(used()),
            Err(error) => {
                let _ = store.release(&key).await;
                return unavailable(ctx, def.name(), &error);
            }
        };
        if let Some(rejection) = refusal {
            let _ = store.release(&key).await;
            audit::rejected(ctx, def.name(), Gate::Effect, &rejection);
            return Outcome::Rejected(rejection);
        }
        audit::effect(ctx, def.name(), "approval_used", &approval.id);
    }
    // Timed out: the body may have committed before it was stopped, so its
    // key stays held until the lease runs out.
    let outcome = match timed(effects, ctx, def, body).await {
        Ok(outcome) => outcome,
        Err(timed_out) => return timed_out,
    };
    if outcome.rejection().map(Rejection::code) == Some(Code::Stale) {
        // The body lost a race and changed nothing: no outcome to keep.
        audit::effect(
            ctx,
            def.name(),
            "stale",
            invocation.resuming.map_or("", |a| &a.id),
        );
        if let Err(error) = store.release(&key).await {
            audit::failed(ctx, def.name(), &error);
        }
        return outcome;
    }
    if let Err(error) = store.complete(&key, outcome.to_json()).await {
        // The body ran; its outcome stands. A repeat waits out the lease.
        audit::failed(ctx, def.name(), &error);
    }
    outcome
}

/// Checks that the run matches what was approved. The toolbox checked the
/// tenant, actor, tool, version and state before running gates 0–5.
fn bound<S>(
    approval: &Approval,
    action: &Action,
    invocation: &Invocation<'_, S>,
) -> Option<Outcome> {
    let def = invocation.def;
    let same_objects = approval.resources.len() == action.resources.len()
        && approval
            .resources
            .iter()
            .zip(&action.resources)
            .all(|(a, b)| a.field == b.field && a.reference == b.reference);
    let reason = if approval.tool != def.name() {
        "the approval is for another tool"
    } else if approval.fingerprint != def.fingerprint() || approval.version != def.version() {
        "the tool changed since the approval"
    } else if approval.digest != action.digest() {
        "the arguments differ from those approved"
    } else if !same_objects {
        "the objects differ from those approved"
    } else {
        return None;
    };
    audit::denied(invocation.ctx, def.name(), Gate::Effect, reason);
    Some(Outcome::Rejected(Rejection::not_permitted()))
}

/// Saves a pending approval for the action and answers with it.
async fn request<S>(
    invocation: &Invocation<'_, S>,
    action: Action,
    approver: Option<String>,
    now: std::time::SystemTime,
) -> Outcome {
    let ctx = invocation.ctx;
    let def = invocation.def;
    let effects = invocation.effects;
    let id = match super::approval::new_id() {
        Ok(id) => id,
        Err(error) => {
            return unavailable(ctx, def.name(), &StoreError::new(error.to_string()));
        }
    };
    let approval = Approval {
        id,
        tenant: ctx.tenant().to_owned(),
        actor: ctx.actor().to_owned(),
        session: ctx.session_id().map(str::to_owned),
        tool: def.name().to_owned(),
        version: def.version(),
        fingerprint: def.fingerprint().to_owned(),
        digest: action.digest(),
        arguments: action.arguments,
        resources: action.resources,
        approver_scope: def.approver_scope().map(str::to_owned),
        distinct_approver: effects.policy.distinct(),
        approver,
        created_at: now,
        expires_at: now + effects.policy.approval_ttl_of(),
        state: ApprovalState::Pending,
    };
    if let Err(error) = effects.store.create_approval(approval.clone()).await {
        return unavailable(ctx, def.name(), &error);
    }
    audit::effect(ctx, def.name(), "approval_requested", &approval.id);
    Outcome::ApprovalRequired(Box::new(approval))
}

/// The body, within the tool's time limit (or the toolbox's); `Err` with
/// the `TIMEOUT` outcome if it ran past it, its future dropped.
pub(crate) async fn timed<F>(
    effects: &super::Effects,
    ctx: &crate::ToolContext,
    def: &crate::ToolDef,
    body: F,
) -> Result<Outcome, Outcome>
where
    F: Future<Output = Outcome>,
{
    let Some(limit) = def.timeout().or(effects.policy.timeout_of()) else {
        return Ok(body.await);
    };
    match super::within(limit, body).await {
        Some(outcome) => Ok(outcome),
        None => {
            audit::effect(ctx, def.name(), "timed_out", "");
            let rejection = Rejection::new(
                Code::Timeout,
                format!(
                    "{} took longer than its limit of {} ms and was stopped; it may or may not have taken effect.",
                    def.name(),
                    limit.as_millis()
                ),
            );
            Err(Outcome::Rejected(rejection))
        }
    }
}

pub(crate) fn stale() -> Rejection {
    Rejection::new(
        Code::Stale,
        "What this call changes was changed by someone else just now, and nothing was done. Make the call again.",
    )
}

pub(crate) fn pending() -> Rejection {
    Rejection::new(
        Code::ApprovalPending,
        "No one has decided on this approval yet; the call has not run.",
    )
}

pub(crate) fn denied() -> Rejection {
    Rejection::new(
        Code::ApprovalDenied,
        "A person denied this call; it did not run. Do not repeat it.",
    )
}

pub(crate) fn expired() -> Rejection {
    Rejection::new(
        Code::ApprovalExpired,
        "This approval expired; the call did not run. Make the call again to ask anew.",
    )
}

pub(crate) fn used() -> Rejection {
    Rejection::new(
        Code::ApprovalUsed,
        "This approval was already used; the call will not run again.",
    )
}
