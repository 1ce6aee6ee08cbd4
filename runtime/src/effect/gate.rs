//! Gate 6 on one call that passed gates 0–5 and the tool's checks.

use core::time::Duration;

use serde_json::Value;

use super::{Approval, ApprovalState, Claim, Consumed, Seen, StoreError, canonical, digest};
use crate::audit::{self, Gate};
use crate::outcome::Failure;
use crate::tool::{Invocation, Objects};
use crate::{Code, Outcome, Rejection};

/// The logical action a call performs: what an approval and an
/// idempotency key are bound to.
struct Action {
    arguments: Value,
    /// The canonical text of the arguments.
    text: String,
}

impl Action {
    fn of<S>(invocation: &Invocation<'_, S>) -> Result<Action, Outcome> {
        // The bytes passed gates 1–3, so they are one JSON object.
        let arguments: Value = serde_json::from_str(invocation.raw.as_str()).map_err(|e| {
            audit::failed(invocation.ctx, invocation.def.name(), &e);
            Outcome::Failed(Failure::new(invocation.ctx.request_id()))
        })?;
        let text = canonical(&arguments);
        Ok(Action { arguments, text })
    }

    /// Each authorized object as an approval records it: only approvals
    /// need these, so a plain write does not build them.
    fn seen(&self, objects: Option<&Objects>) -> Vec<Seen> {
        let Some(objects) = objects else {
            return Vec::new();
        };
        objects
            .seen
            .iter()
            .map(|(field, version, summary)| Seen {
                field: (*field).to_owned(),
                reference: self.arguments.get(*field).cloned().unwrap_or(Value::Null),
                version: *version,
                summary: summary.clone(),
            })
            .collect()
    }

    /// SHA-256 of the canonical arguments: what an approval records.
    fn digest(&self) -> String {
        digest(&[&self.text])
    }

    /// The idempotency key and the digest it is claimed with. A key the
    /// host gave is claimed with the action's digest, so that its reuse for
    /// another action is a conflict; a key derived from the action is
    /// claimed with itself. The resolved references are among the
    /// arguments, so the canonical text covers them.
    fn key<S>(&self, invocation: &Invocation<'_, S>) -> (String, String) {
        self.key_of(
            invocation,
            invocation.resuming.map_or("", |a| a.id.as_str()),
        )
    }

    /// The key of the same action made by the model, not resumed: where
    /// an approved run also records its outcome, so that the model's
    /// repeat in the conversation replays it instead of asking again.
    fn plain_key<S>(&self, invocation: &Invocation<'_, S>) -> (String, String) {
        self.key_of(invocation, "")
    }

    fn key_of<S>(&self, invocation: &Invocation<'_, S>, approval: &str) -> (String, String) {
        let ctx = invocation.ctx;
        let def = invocation.def;
        let version = def.version().to_string();
        let action = |scope: &str| {
            digest(&[
                "action",
                scope,
                ctx.tenant(),
                def.name(),
                &version,
                &self.text,
                approval,
            ])
        };
        match ctx.call_id() {
            Some(call_id) => (
                digest(&["host", ctx.tenant(), def.name(), call_id]),
                action(""),
            ),
            // Scoped by the conversation, or else by the request.
            None => {
                let key = action(ctx.session_id().unwrap_or(ctx.request_id()));
                (key.clone(), key)
            }
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

/// A call the gate lets run: its action, and the idempotency key it holds.
pub(crate) struct Run {
    action: Action,
    key: String,
    now: std::time::SystemTime,
}

/// Everything gate 6 does before the body runs: `Err` with the outcome if
/// it does not run.
pub(crate) async fn before<S>(
    invocation: &Invocation<'_, S>,
    needs: bool,
    approver: Option<String>,
) -> Result<Run, Outcome> {
    let ctx = invocation.ctx;
    let def = invocation.def;
    let effects = invocation.effects;
    let store = &*effects.store;
    let now = effects.clock.now();
    let action = Action::of(invocation)?;
    match invocation.resuming {
        Some(approval) => {
            if let Some(refused) = bound(approval, &action, invocation) {
                return Err(refused);
            }
        }
        None if needs => {
            // This action already ran on an approval in this conversation:
            // the repeat replays it, and nobody is asked again.
            let (plain, claimed_with) = action.plain_key(invocation);
            let policy = &effects.policy;
            match store
                .claim(&plain, &claimed_with, now, policy.lease, policy.retain)
                .await
            {
                Ok(Claim::Finished(stored)) => {
                    audit::effect(ctx, def.name(), "replayed", "");
                    return Err(Outcome::Replayed(stored));
                }
                Ok(Claim::Claimed) => {
                    let _ = store.release(&plain).await;
                }
                Ok(_) | Err(_) => {}
            }
            let seen = action.seen(invocation.objects.as_deref());
            return Err(request(invocation, action, seen, approver, now).await);
        }
        None => {}
    }
    let (key, claimed_with) = action.key(invocation);
    if !effects.unrecorded.is_empty() {
        if let Err(error) = effects.unrecorded.retry(store).await {
            audit::failed(ctx, def.name(), &error);
        }
        // Finished here while the store was down: replay it, as the store
        // would have.
        if let Some(stored) = effects.unrecorded.get(&key) {
            audit::effect(ctx, def.name(), "replayed", "");
            return Err(Outcome::Replayed(stored));
        }
    }
    let policy = &effects.policy;
    match store
        .claim(&key, &claimed_with, now, policy.lease, policy.retain)
        .await
    {
        Ok(Claim::Claimed) => {}
        Ok(Claim::Finished(stored)) => {
            audit::effect(ctx, def.name(), "replayed", "");
            return Err(Outcome::Replayed(stored));
        }
        Ok(Claim::InFlight) => {
            audit::effect(ctx, def.name(), "in_progress", "");
            return Err(Outcome::Rejected(Rejection::new(
                Code::InProgress,
                "An identical call is running now. Wait for it, then ask again for its result.",
            )));
        }
        Ok(Claim::Conflict) => {
            audit::effect(ctx, def.name(), "idempotency_conflict", "");
            return Err(Outcome::Rejected(Rejection::new(
                Code::IdempotencyConflict,
                "This call's id was already used for a call with other arguments.",
            )));
        }
        Err(error) => return Err(unavailable(ctx, def.name(), &error)),
    }
    if let Some(approval) = invocation.resuming {
        // Used, and its run's outcome no longer kept: it never runs again.
        if let ApprovalState::Used { .. } = approval.state {
            let _ = store.release(&key).await;
            let rejection = used();
            audit::rejected(ctx, def.name(), Gate::Effect, &rejection);
            return Err(Outcome::Rejected(rejection));
        }
        // The objects changed since the person saw them: ask again, with
        // what they are now. (After the claim: a finished run of this
        // approval, which changed them itself, replays above.)
        let seen = action.seen(invocation.objects.as_deref());
        let changed = approval
            .resources
            .iter()
            .zip(&seen)
            .any(|(then, now)| then.version != now.version);
        if changed {
            let _ = store.release(&key).await;
            audit::effect(ctx, def.name(), "stale", &approval.id);
            return Err(request(invocation, action, seen, approver, now).await);
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
                return Err(unavailable(ctx, def.name(), &error));
            }
        };
        if let Some(rejection) = refusal {
            let _ = store.release(&key).await;
            audit::rejected(ctx, def.name(), Gate::Effect, &rejection);
            return Err(Outcome::Rejected(rejection));
        }
        audit::effect(ctx, def.name(), "approval_used", &approval.id);
    }
    Ok(Run { action, key, now })
}

/// Everything gate 6 does once the body has run: keeps its outcome.
pub(crate) async fn after<S>(
    invocation: &Invocation<'_, S>,
    run: Run,
    outcome: Outcome,
) -> Outcome {
    let ctx = invocation.ctx;
    let def = invocation.def;
    let effects = invocation.effects;
    let store = &*effects.store;
    let Run { action, key, now } = run;
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
        // The body ran; its outcome stands. The key stays in flight in the
        // store, and the outcome waits here until the store takes it.
        audit::failed(ctx, def.name(), &error);
        effects.unrecorded.keep(key, outcome.to_json());
    }
    if invocation.resuming.is_some() {
        // Also under the model's own key, for its repeat to replay.
        let (plain, claimed_with) = action.plain_key(invocation);
        let policy = &effects.policy;
        if let Ok(Claim::Claimed) = store
            .claim(&plain, &claimed_with, now, policy.lease, policy.retain)
            .await
            && let Err(error) = store.complete(&plain, outcome.to_json()).await
        {
            audit::failed(ctx, def.name(), &error);
            let _ = store.release(&plain).await;
        }
    }
    outcome
}

/// Checks that the run has the arguments that were approved. The toolbox
/// checked the tenant, actor, tool, version, fingerprint and state before
/// running gates 0–5; the objects' references are among the arguments.
fn bound<S>(
    approval: &Approval,
    action: &Action,
    invocation: &Invocation<'_, S>,
) -> Option<Outcome> {
    if approval.digest == action.digest() {
        return None;
    }
    let reason = "the arguments differ from those approved";
    audit::denied(invocation.ctx, invocation.def.name(), Gate::Effect, reason);
    Some(Outcome::Rejected(Rejection::not_permitted()))
}

/// Saves a pending approval for the action and answers with it.
async fn request<S>(
    invocation: &Invocation<'_, S>,
    action: Action,
    resources: Vec<Seen>,
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
        resources,
        approver_scope: def.approver_scope().map(str::to_owned),
        distinct_approver: effects.policy.distinct_approver,
        approver,
        created_at: now,
        expires_at: now + effects.policy.approval_ttl,
        state: ApprovalState::Pending,
    };
    if let Err(error) = effects.store.create_approval(approval.clone()).await {
        return unavailable(ctx, def.name(), &error);
    }
    audit::effect(ctx, def.name(), "approval_requested", &approval.id);
    Outcome::ApprovalRequired(Box::new(approval))
}

/// The body was stopped at its time limit.
pub(crate) fn timed_out(
    ctx: &crate::ToolContext,
    def: &crate::ToolDef,
    limit: Duration,
) -> Outcome {
    audit::effect(ctx, def.name(), "timed_out", "");
    let rejection = Rejection::new(
        Code::Timeout,
        format!(
            "{} took longer than its limit of {} ms and was stopped; it may or may not have taken effect.",
            def.name(),
            limit.as_millis()
        ),
    );
    Outcome::Rejected(rejection)
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
