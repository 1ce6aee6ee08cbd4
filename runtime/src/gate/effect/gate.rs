//! Gate 6 on one call that passed gates 0–5 and the tool's checks.
//!
//! Every key here belongs to one principal: it is derived from the tenant
//! **and** the actor, so that no caller is ever handed another's stored
//! outcome, approval or budget. And every key is derived from the
//! arguments as the gates accepted them ([`Accepted`]), never from the
//! text the model sent, so that every spelling of one action is one
//! action.
//!
//! An action's outcome lives under its *home* key: the host's call id
//! within the actor's space, or else the action within the conversation
//! (or the request). A plain write claims it, runs and records there; an
//! approved run claims the same key, so that an action runs once whether
//! it is repeated, resumed, stored or approved twice.

use core::time::Duration;
use std::time::SystemTime;

use serde_json::Value;

use super::answers::{Claim, Consumed, Recorded, StoreError};
use super::approval::{Approval, ApprovalState, Seen};
use super::policy::Effects;
use super::unrecorded::record;
use crate::audit::{self, Gate};
use crate::gate::accepted::{Accepted, Objects};
use crate::json::canonical::hex;
use crate::outcome::Failure;
use crate::{Code, Outcome, Rejection, ToolContext, ToolDef};

/// What gate 6 reads of a call: the call path's `Invocation` (see
/// `crate::tool`), which runs the gates in order, is one.
pub(crate) trait Call<'a> {
    /// Who calls, from the host.
    fn ctx(&self) -> &'a ToolContext;
    fn def(&self) -> &'static ToolDef;
    fn effects(&self) -> &'a Effects;
    /// The approval this run resumes, if any.
    fn resuming(&self) -> Option<&'a Approval>;
    /// What gates 4 and 5 found, once the call authorized an object.
    fn objects(&self) -> Option<&Objects>;
    /// The arguments as gates 1–3 accepted them.
    fn accepted(&self) -> Option<&Accepted>;
}

/// Where an action's outcome is kept, and the digest its key is claimed
/// with: a repeat of the action finds its outcome here, and a host call
/// id reused for another action conflicts here.
struct Home {
    key: String,
    digest: String,
}

impl Home {
    /// The home of `text` (the canonical accepted arguments) called by
    /// `actor` of `tenant`: under the host's call id if it gave one, or
    /// else within the conversation, or else within the request.
    fn new(tenant: &str, actor: &str, def: &ToolDef, scope: Scope<'_>, text: &str) -> Home {
        let mut buffer = itoa::Buffer::new();
        let version = buffer.format(def.version());
        let action =
            |scope: &str| digest(&["action", scope, tenant, actor, def.name(), version, text]);
        match scope {
            // A host call id is a key within one actor's space; reused
            // for another tool or other arguments, it conflicts.
            Scope::Call(call_id) => Home {
                key: digest(&["host", tenant, actor, call_id]),
                digest: action(""),
            },
            Scope::Conversation(scope) => {
                let key = action(scope);
                Home {
                    digest: key.clone(),
                    key,
                }
            }
        }
    }

    /// The home of the call `ctx` makes.
    fn of_call(ctx: &ToolContext, def: &ToolDef, text: &str) -> Home {
        let scope = match (ctx.call_id(), ctx.session_id()) {
            (Some(call_id), _) => Scope::Call(call_id),
            (None, Some(session)) => Scope::Conversation(session),
            (None, None) => Scope::Conversation(ctx.request_id()),
        };
        Home::new(ctx.tenant(), ctx.actor(), def, scope, text)
    }

    /// The home of the call an approval stands for, as it was made: a
    /// resume runs under it whoever resumes and from wherever.
    fn of_approval(approval: &Approval, def: &ToolDef, text: &str) -> Home {
        let scope = match (&approval.call_id, &approval.session) {
            (Some(call_id), _) => Scope::Call(call_id),
            (None, Some(session)) => Scope::Conversation(session),
            (None, None) => Scope::Conversation(&approval.request_id),
        };
        Home::new(&approval.tenant, &approval.actor, def, scope, text)
    }

    /// Where an approval asked for this action in `window` is noted, for
    /// a repeat to find it: `generation` 0 first, the next once the one
    /// before was denied, expired or stale.
    fn marker(&self, window: u128, generation: u32) -> String {
        let at = format!("{window}.{generation}");
        digest(&["approval", &self.key, &at])
    }
}

enum Scope<'a> {
    Call(&'a str),
    Conversation(&'a str),
}

/// How many approvals one action may be asked for while earlier ones are
/// still live: each further one needs the one before to have been denied,
/// or its objects to have changed since.
const GENERATIONS: u32 = 8;

/// A store failure: the model may try again, nothing ran; the cause goes
/// to the audit log.
fn unavailable(ctx: &ToolContext, tool: &str, error: &StoreError) -> Outcome {
    audit::store_failed(ctx, tool, error);
    let rejection = Rejection::new(
        Code::Unavailable,
        "The server could not record this call, and nothing was done. Try again shortly.",
    );
    Outcome::Rejected(rejection)
}

fn in_progress(ctx: &ToolContext, tool: &str) -> Outcome {
    audit::effect(ctx, tool, "in_progress", "");
    Outcome::Rejected(Rejection::new(
        Code::InProgress,
        "An identical call is running now. Wait for it, then ask again for its result.",
    ))
}

fn conflict(ctx: &ToolContext, tool: &str) -> Outcome {
    audit::effect(ctx, tool, "idempotency_conflict", "");
    Outcome::Rejected(Rejection::new(
        Code::IdempotencyConflict,
        "This call's id was already used for a call with other arguments.",
    ))
}

fn replayed(ctx: &ToolContext, tool: &str, stored: &Recorded) -> Outcome {
    match stored.to_value() {
        Ok(stored) => {
            audit::effect(ctx, tool, "replayed", "");
            Outcome::Replayed(stored)
        }
        // Kept, but deeper than it can be read back: the call ran and is
        // not run again; its caller is told it failed.
        Err(error) => {
            audit::failed(ctx, tool, &error);
            Outcome::Failed(Failure::new(ctx.request_id()))
        }
    }
}

/// A call the gate lets run: the key it holds. Dropped without
/// [`after`] (the body panicked, or the caller dropped the call's future
/// while the body ran), it leaves the outcome a repeat must read: the
/// body started and may have taken effect, so the key is never given to
/// a second run; the toolbox hands the outcome to the store at its next
/// chance.
pub(crate) struct Run<'a> {
    key: String,
    ctx: &'a ToolContext,
    def: &'static ToolDef,
    effects: &'a Effects,
    /// Until [`after`] takes the outcome.
    open: bool,
}

impl Drop for Run<'_> {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        let outcome = if std::thread::panicking() {
            // As the toolbox answers the caller of a call that panicked.
            Outcome::Failed(Failure::new(self.ctx.request_id()))
        } else {
            audit::effect(self.ctx, self.def.name(), "stopped", "");
            Outcome::Rejected(Rejection::new(
                Code::Timeout,
                format!(
                    "{} was stopped before it finished; it may or may not have taken effect.",
                    self.def.name()
                ),
            ))
        };
        self.effects
            .unrecorded
            .keep(core::mem::take(&mut self.key), Recorded::of(&outcome));
    }
}

/// The arguments were not accepted before gate 6: never, as every tool
/// accepts them when gate 6 may hold its call. Were it ever, the call
/// fails rather than be keyed by nothing.
#[cold]
fn unaccepted(ctx: &ToolContext, def: &ToolDef) -> Outcome {
    let error: Box<dyn std::error::Error> = "gate 6 found no accepted arguments".into();
    audit::failed(ctx, def.name(), &*error);
    Outcome::Failed(Failure::new(ctx.request_id()))
}

/// Everything gate 6 does before the body runs: `Err` with the outcome if
/// it does not run.
pub(crate) async fn before<'a, C: Call<'a>>(
    invocation: &C,
    needs: bool,
    approver: Option<String>,
) -> Result<Run<'a>, Outcome> {
    let ctx = invocation.ctx();
    let def = invocation.def();
    let effects = invocation.effects();
    let store = &*effects.store;
    let policy = &effects.policy;
    let now = effects.clock.now();
    let Some(accepted) = invocation.accepted() else {
        return Err(unaccepted(ctx, def));
    };
    let home = match invocation.resuming() {
        Some(approval) => {
            if let Some(refused) = bound(approval, accepted, invocation) {
                return Err(refused);
            }
            Home::of_approval(approval, def, accepted.text())
        }
        None => Home::of_call(ctx, def, accepted.text()),
    };
    if !effects.unrecorded.is_empty() {
        if let Err(error) = effects.unrecorded.retry(store).await {
            audit::store_failed(ctx, def.name(), &error);
        }
        // Finished here while the store was down: replay it, as the store
        // would have.
        if let Some(stored) = effects.unrecorded.get(&home.key) {
            return Err(replayed(ctx, def.name(), &stored));
        }
    }
    if needs && invocation.resuming().is_none() {
        return Err(ask(invocation, accepted, &home, approver, now).await);
    }
    let (lease, retain) = (policy.lease_of(def), policy.retain_of(def));
    match store
        .claim(&home.key, &home.digest, now, lease, retain)
        .await
    {
        Ok(Claim::Claimed) => {}
        Ok(Claim::Finished(stored)) => return Err(replayed(ctx, def.name(), &stored)),
        Ok(Claim::InFlight) => return Err(in_progress(ctx, def.name())),
        Ok(Claim::Conflict) => return Err(conflict(ctx, def.name())),
        Err(error) => return Err(unavailable(ctx, def.name(), &error)),
    }
    if let Some(approval) = invocation.resuming() {
        // Used, and its run's outcome no longer kept: it never runs again.
        if let ApprovalState::Used { .. } = approval.state {
            let _ = store.release(&home.key).await;
            let rejection = used();
            audit::rejected(ctx, def.name(), Gate::Effect, &rejection);
            return Err(Outcome::Rejected(rejection));
        }
        // The objects changed since the person saw them: ask again, with
        // what they are now. (After the claim: a finished run of this
        // action, which changed them itself, replays above.)
        let seen = seen(accepted, invocation.objects());
        if changed(approval, &seen) {
            let _ = store.release(&home.key).await;
            audit::effect(ctx, def.name(), "stale", &approval.id);
            return Err(ask(invocation, accepted, &home, approver, now).await);
        }
        let refusal = match store.consume(&approval.id, now).await {
            Ok(Consumed::Done) => None,
            Ok(Consumed::Unknown) => Some(Rejection::not_permitted()),
            Ok(Consumed::Pending) => Some(pending()),
            Ok(Consumed::Denied) => Some(denied()),
            Ok(Consumed::Expired) => Some(expired()),
            Ok(Consumed::Used) => Some(used()),
            Ok(Consumed::Withdrawn) => Some(withdrawn()),
            Err(error) => {
                let _ = store.release(&home.key).await;
                return Err(unavailable(ctx, def.name(), &error));
            }
        };
        if let Some(rejection) = refusal {
            let _ = store.release(&home.key).await;
            audit::rejected(ctx, def.name(), Gate::Effect, &rejection);
            return Err(Outcome::Rejected(rejection));
        }
        audit::effect(ctx, def.name(), "approval_used", &approval.id);
    }
    Ok(Run {
        key: home.key,
        ctx,
        def,
        effects,
        open: true,
    })
}

/// Everything gate 6 does once the body has run (or was stopped at its
/// time limit): keeps its outcome under the key the call held.
pub(crate) async fn after<'a, C: Call<'a>>(
    invocation: &C,
    mut run: Run<'_>,
    outcome: Outcome,
) -> Outcome {
    run.open = false;
    let ctx = invocation.ctx();
    let def = invocation.def();
    let store = &*run.effects.store;
    let key = core::mem::take(&mut run.key);
    if outcome.rejection().map(Rejection::code) == Some(Code::Stale) {
        // The body lost a race and changed nothing: no outcome to keep.
        audit::effect(
            ctx,
            def.name(),
            "stale",
            invocation.resuming().map_or("", |a| &a.id),
        );
        if let Err(error) = store.release(&key).await {
            audit::store_failed(ctx, def.name(), &error);
        }
        return outcome;
    }
    let within = run.effects.policy.record_within;
    if let Err(error) = record(store, &key, &outcome, within).await {
        // The body ran; its outcome stands. The key stays in flight in the
        // store, and the outcome waits here until the store takes it: on a
        // later call, or when the host flushes the toolbox as it stops.
        audit::store_failed(ctx, def.name(), &error);
        audit::outcome_unrecorded(ctx, def.name(), &key);
        run.effects.unrecorded.keep(key, Recorded::of(&outcome));
    }
    outcome
}

/// Each authorized object as an approval records it: only approvals need
/// these, so a plain write does not build them.
fn seen(accepted: &Accepted, objects: Option<&Objects>) -> Vec<Seen> {
    let Some(objects) = objects else {
        return Vec::new();
    };
    objects
        .seen
        .iter()
        .map(|(field, version, summary)| Seen {
            field: (*field).to_owned(),
            reference: accepted.get(field).cloned().unwrap_or(Value::Null),
            version: *version,
            summary: summary.clone(),
        })
        .collect()
}

/// Whether an object changed since `approval` was asked for.
fn changed(approval: &Approval, seen: &[Seen]) -> bool {
    approval.resources.len() != seen.len()
        || approval
            .resources
            .iter()
            .zip(seen)
            .any(|(then, now)| then.field != now.field || then.version != now.version)
}

/// The digest of the canonical accepted arguments: what an approval records.
fn action_digest(accepted: &Accepted) -> String {
    digest(&[accepted.text()])
}

/// Checks that the run has the arguments that were approved. The toolbox
/// checked the tenant, actor, tool, version, fingerprint and state before
/// running gates 0–5; the objects' references are among the arguments.
fn bound<'a, C: Call<'a>>(
    approval: &Approval,
    accepted: &Accepted,
    invocation: &C,
) -> Option<Outcome> {
    if approval.digest == action_digest(accepted) {
        return None;
    }
    let reason = "the arguments differ from those approved";
    audit::denied(
        invocation.ctx(),
        invocation.def().name(),
        Gate::Effect,
        reason,
    );
    Some(Outcome::Rejected(Rejection::not_permitted()))
}

/// A call that needs a person's approval, not resumed: the outcome of the
/// action if it ran, the approval already asked for it if one is live,
/// or else a new one.
async fn ask<'a, C: Call<'a>>(
    invocation: &C,
    accepted: &Accepted,
    home: &Home,
    approver: Option<String>,
    now: SystemTime,
) -> Outcome {
    let ctx = invocation.ctx();
    let def = invocation.def();
    let effects = invocation.effects();
    let store = &*effects.store;
    let policy = &effects.policy;
    let (lease, retain) = (policy.lease_of(def), policy.retain_of(def));
    // The action already ran (on an approval, or as a plain call): its
    // repeat replays it, and nobody is asked again.
    match store
        .claim(&home.key, &home.digest, now, lease, retain)
        .await
    {
        Ok(Claim::Claimed) => {
            let _ = store.release(&home.key).await;
        }
        Ok(Claim::Finished(stored)) => return replayed(ctx, def.name(), &stored),
        Ok(Claim::InFlight) => return in_progress(ctx, def.name()),
        Ok(Claim::Conflict) => return conflict(ctx, def.name()),
        Err(error) => return unavailable(ctx, def.name(), &error),
    }
    let seen = seen(accepted, invocation.objects());
    // Approvals are noted by the approval TTL's window they were asked in,
    // and each note is kept for two windows: every approval still live
    // was asked in this window or the one before, and the notes of both
    // are all there, generation 0 upward with no gap.
    let ttl = policy.approval_ttl.max(Duration::from_millis(1));
    let since = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let window = since.as_nanos() / ttl.as_nanos();
    let mut refused = false;
    for window in [window.saturating_sub(1), window] {
        let last = window == since.as_nanos() / ttl.as_nanos();
        for generation in 0..GENERATIONS {
            let marker = home.marker(window, generation);
            let claimed = store
                .claim(&marker, &home.digest, now, lease, ttl.saturating_mul(2))
                .await;
            let noted = match claimed {
                // The window before ends here: no approval noted past it.
                Ok(Claim::Claimed) if !last => {
                    let _ = store.release(&marker).await;
                    break;
                }
                Ok(Claim::Claimed) => {
                    let outcome = request(invocation, accepted, seen, approver, now).await;
                    let noted = match &outcome {
                        Outcome::ApprovalRequired(approval) => {
                            let note = serde_json::json!({ "approval": approval.id });
                            store.complete(&marker, Recorded::from_value(&note)).await
                        }
                        _ => store.release(&marker).await,
                    };
                    if let Err(error) = noted {
                        // The approval stands; a repeat reads IN_PROGRESS
                        // until the note's lease runs out.
                        audit::store_failed(ctx, def.name(), &error);
                    }
                    return outcome;
                }
                Ok(Claim::Finished(noted)) => noted,
                Ok(Claim::InFlight) => return in_progress(ctx, def.name()),
                Ok(Claim::Conflict) => return conflict(ctx, def.name()),
                Err(error) => return unavailable(ctx, def.name(), &error),
            };
            let noted = noted.to_value().unwrap_or_default();
            let id = noted.get("approval").and_then(Value::as_str).unwrap_or("");
            let approval = match store.approval(id).await {
                Ok(Some(approval)) => approval,
                // Gone from the store: as if expired.
                Ok(None) => continue,
                Err(error) => return unavailable(ctx, def.name(), &error),
            };
            let live = now < approval.expires_at;
            match approval.state {
                ApprovalState::Pending | ApprovalState::Approved { .. }
                    if live && !changed(&approval, &seen) =>
                {
                    audit::effect(ctx, def.name(), "approval_repeated", &approval.id);
                    return Outcome::ApprovalRequired(Box::new(approval));
                }
                // Denied: a person may be asked again, as for a new call.
                ApprovalState::Denied { .. } => refused = true,
                // Expired, its objects changed since, or used by a run that
                // left no outcome at home (its body lost a race and changed
                // nothing, or the outcome outlived its retention): the next
                // generation.
                _ => {}
            }
        }
    }
    // Every generation is taken by a live approval that cannot be shown
    // again: a person denied this action that often, or its objects keep
    // changing.
    let rejection = if refused { denied() } else { stale() };
    audit::rejected(ctx, def.name(), Gate::Effect, &rejection);
    Outcome::Rejected(rejection)
}

/// Saves a pending approval for the action and answers with it.
async fn request<'a, C: Call<'a>>(
    invocation: &C,
    accepted: &Accepted,
    resources: Vec<Seen>,
    approver: Option<String>,
    now: SystemTime,
) -> Outcome {
    let ctx = invocation.ctx();
    let def = invocation.def();
    let effects = invocation.effects();
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
        call_id: ctx.call_id().map(str::to_owned),
        request_id: ctx.request_id().to_owned(),
        tool: def.name().to_owned(),
        version: def.version(),
        fingerprint: def.fingerprint().to_owned(),
        digest: action_digest(accepted),
        arguments: accepted.value(),
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
    if let Some(notifier) = &effects.notifier {
        notifier.notify(&approval);
    }
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

pub(crate) fn withdrawn() -> Rejection {
    Rejection::new(
        Code::ApprovalDenied,
        "This approval was withdrawn; the call did not run. Do not repeat it unless asked to.",
    )
}

pub(crate) fn used() -> Rejection {
    Rejection::new(
        Code::ApprovalUsed,
        "This approval was already used; the call will not run again.",
    )
}

/// BLAKE3 of `parts`, each after its length (LEB128: seven bits a byte,
/// low first, the high bit set on all but the last), so that no two lists
/// of parts hash alike; as hex. 256 bits, so that no caller can find two
/// actions with one key. A key's parts are mostly short: one length byte
/// each keeps an action's parts within one 64-byte block of BLAKE3.
pub(crate) fn digest(parts: &[&str]) -> String {
    // Hashed in one piece where the parts fit on the stack, as a key's
    // parts mostly do: BLAKE3 costs a little for each update.
    let mut bytes = [0; 512];
    let mut len = 0;
    for part in parts {
        let Some(at) = put_length(&mut bytes, len, part.len()) else {
            return hex(streamed(parts).as_bytes());
        };
        let Some(room) = bytes.get_mut(at..at + part.len()) else {
            return hex(streamed(parts).as_bytes());
        };
        room.copy_from_slice(part.as_bytes());
        len = at + part.len();
    }
    hex(blake3::hash(bytes.get(..len).unwrap_or_default()).as_bytes())
}

/// [`digest`]'s hash of parts too long to gather first.
#[cold]
fn streamed(parts: &[&str]) -> blake3::Hash {
    let mut hasher = blake3::Hasher::new();
    for part in parts {
        let mut length = [0; 10];
        let end = put_length(&mut length, 0, part.len()).unwrap_or_default();
        hasher.update(length.get(..end).unwrap_or_default());
        hasher.update(part.as_bytes());
    }
    hasher.finalize()
}

/// Writes `n` in LEB128 into `out` from `at`: where it ends, or `None`
/// where `out` is too short.
#[inline(always)]
fn put_length(out: &mut [u8], mut at: usize, mut n: usize) -> Option<usize> {
    loop {
        let byte = out.get_mut(at)?;
        // The low seven bits: the cast keeps exactly them.
        *byte = (n & 0x7f) as u8;
        at += 1;
        n >>= 7;
        if n == 0 {
            return Some(at);
        }
        *byte |= 0x80;
    }
}

#[cfg(test)]
mod tests {
    use super::{Home, Scope};

    /// BLAKE3 over each part's length (LEB128) then its bytes, in hex:
    /// the key and digest bytes the SQLite and PostgreSQL stores keep. A
    /// change here orphans every key they hold, so that a repeat after an
    /// upgrade would run its body again. The figures were computed apart
    /// from this code (the `blake3` package for Python).
    #[test]
    fn an_action_is_keyed_by_the_bytes_the_stores_already_hold() {
        let def = crate::__private::definition_for_tests(serde_json::json!({"type": "object"}));
        let text = r#"{"n":7}"#;
        let call = Home::new("acme", "alice", &def, Scope::Call("call_1"), text);
        assert_eq!(
            call.key,
            "aadc37d2a6fda4aaa344edf51d34404448812c7f63527bb7178dd0fe7c3b0d6a"
        );
        assert_eq!(
            call.digest,
            "3900745a9b6445d29882e7086784c0046bac045294929cd557d2b92e877cde8a"
        );
        let talk = Home::new("acme", "alice", &def, Scope::Conversation("sess_1"), text);
        let action = "9d52dc7fe70aa681ff23ad112d6119b271b194752cf440893b22dd0d50f57f08";
        assert_eq!((talk.key.as_str(), talk.digest.as_str()), (action, action));
        assert_eq!(
            super::digest(&[text]),
            "ccd15f1ed97f000be33a234940fc3ef7ba7d4860d37bf907d54073ac646dd36c"
        );
        // A length of two LEB128 bytes (300 is `ac 02`), and an empty part.
        assert_eq!(
            super::digest(&["a", &"x".repeat(300), ""]),
            "65338e2a7a2291c02b9dcca4086b3c2fd4b45e0b383281068b7cd5c4a6967a59"
        );
        // Too long to gather on the stack: hashed as it streams, alike.
        assert_eq!(
            super::digest(&[&"y".repeat(600), "z"]),
            "2d65cf66820918cc92c23a273a428f800b199b39942d9e38ccfa6484e33e6dd6"
        );
    }
}
