//! The attacks on a call that needs approval, and the assertion that
//! gate 6 holds against each.

use super::clock::ManualClock;
use crate::{Code, Outcome, ToolContext, Toolbox};

/// A call that needs approval, and what [`assert_approvals_hold`] may do to
/// attack it.
pub struct ApprovalCase<'a, S> {
    /// The tool.
    pub tool: &'a str,
    /// A valid call of it that needs approval.
    pub arguments: &'a str,
    /// Other valid arguments for the same tool, if there are any: an
    /// approval of `arguments` must never run them.
    pub other_arguments: Option<&'a str>,
    /// Changes the object the call names, moving its version: an approval
    /// given before must not run against it.
    pub change: Option<&'a dyn Fn(&S)>,
    /// The toolbox's clock, if it is a [`ManualClock`]: an approval past
    /// its expiry must not run.
    pub clock: Option<&'a ManualClock>,
}

/// Proves that gate 6 holds for a tool whose call needs approval, and
/// panics with every failure listed otherwise.
///
/// The call is made as `ctx`; `approver` may approve it. `side_effects`
/// counts the tool's effect, as for
/// [`assert_all_rejected`](crate::testing::assert_all_rejected). In order:
///
/// - the call asks for approval and does not run;
/// - resuming before a decision is `APPROVAL_PENDING`; a forged id,
///   another tenant's resume and another actor's are the flat
///   `NOT_PERMITTED`; none of them runs anything;
/// - with `other_arguments`, the model's call with them asks for an
///   approval of its own and runs nothing;
/// - with `change`, the approved call runs nothing after the change and
///   asks for a fresh approval, which is approved in turn;
/// - the approved call runs once, with the approved arguments; resuming it
///   again replays it, as does the model's repeat in the same conversation;
/// - the same call in another conversation asks again, and that second
///   approval, denied, never runs;
/// - with `clock`, a third approval, approved and then expired, never runs.
pub async fn assert_approvals_hold<S, F>(
    toolbox: &Toolbox<S>,
    ctx: &ToolContext,
    approver: &ToolContext,
    case: &ApprovalCase<'_, S>,
    side_effects: F,
) where
    S: Send + Sync + 'static,
    F: Fn(&S) -> usize,
{
    let tool = case.tool;
    // The conversation and the call id this run makes up are its own: on
    // a store that keeps the rows of earlier runs (a shared database),
    // another run's approvals are not this run's.
    let run = crate::gate::effect::new_id().unwrap_or_else(|_| "apr_harness".to_owned());
    let count = || side_effects(toolbox.state());
    let mut failures: Vec<String> = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            failures.push(what);
        }
    };
    let code = |outcome: &Outcome| outcome.rejection().map(crate::Rejection::code);
    let start = count();
    let asked = toolbox.call(ctx, tool, case.arguments).await;
    let Some(approval) = asked.approval().cloned() else {
        panic!(
            "the call to `{tool}` did not ask for approval, so there is nothing to prove: {}",
            asked.to_json()
        );
    };
    check(
        count() == start,
        "the call ran before it was approved".into(),
    );

    let pending = toolbox.resume(ctx, &approval.id).await;
    check(
        code(&pending) == Some(Code::ApprovalPending),
        format!("resumed before a decision: {}", pending.to_json()),
    );
    if let Err(error) = toolbox.approve(approver, &approval.id).await {
        panic!("the approver could not approve the call to `{tool}`: {error}");
    }
    let scopes = || ctx.scopes().map(str::to_owned).collect::<Vec<_>>();
    let forged = format!("{}0", approval.id);
    let outsiders = [
        ("a forged id", ctx.clone(), forged.as_str()),
        (
            "another tenant",
            ToolContext::new(
                ctx.actor(),
                "toolgate-testing-other-tenant",
                ctx.request_id(),
            )
            .with_scopes(scopes())
            .allow_all_tools(),
            approval.id.as_str(),
        ),
        (
            "another actor",
            ToolContext::new(
                "toolgate-testing-other-actor",
                ctx.tenant(),
                ctx.request_id(),
            )
            .with_scopes(scopes())
            .allow_all_tools(),
            approval.id.as_str(),
        ),
    ];
    for (who, outsider, id) in &outsiders {
        let outcome = toolbox.resume(outsider, id).await;
        check(
            code(&outcome) == Some(Code::NotPermitted),
            format!("{who} resumed the approval: {}", outcome.to_json()),
        );
    }
    if let Some(other) = case.other_arguments {
        let outcome = toolbox.call(ctx, tool, other).await;
        check(
            outcome.approval().is_some_and(|a| a.id != approval.id),
            format!(
                "other arguments did not ask for their own approval: {}",
                outcome.to_json()
            ),
        );
    }
    check(
        count() == start,
        "a refused resume or call ran the tool".into(),
    );

    let mut id = approval.id.clone();
    if let Some(change) = case.change {
        change(toolbox.state());
        let outcome = toolbox.resume(ctx, &id).await;
        check(
            count() == start,
            "the call ran against a changed object".into(),
        );
        match outcome.approval() {
            Some(fresh) if fresh.id != id => {
                id = fresh.id.clone();
                if let Err(error) = toolbox.approve(approver, &id).await {
                    panic!("the approver could not approve the fresh approval: {error}");
                }
            }
            _ => check(
                false,
                format!(
                    "a changed object did not ask for a fresh approval: {}",
                    outcome.to_json()
                ),
            ),
        }
    }

    let done = toolbox.resume(ctx, &id).await;
    check(
        matches!(done, Outcome::Done(_)) && count() == start + 1,
        format!("the approved call did not run once: {}", done.to_json()),
    );
    let again = toolbox.resume(ctx, &id).await;
    check(
        again.is_replay() && count() == start + 1,
        format!("a repeated resume was not a replay: {}", again.to_json()),
    );

    let repeat = toolbox.call(ctx, tool, case.arguments).await;
    check(
        repeat.is_replay() && count() == start + 1,
        format!(
            "the model's repeat of the approved call was not a replay: {}",
            repeat.to_json()
        ),
    );

    let elsewhere = ctx
        .clone()
        .with_session(format!("toolgate-testing-another-conversation-{run}"));
    let second = toolbox.call(&elsewhere, tool, case.arguments).await;
    match second.approval() {
        Some(second) => {
            let _ = toolbox.deny(approver, &second.id).await;
            let outcome = toolbox.resume(&elsewhere, &second.id).await;
            check(
                code(&outcome) == Some(Code::ApprovalDenied) && count() == start + 1,
                format!(
                    "a denied approval ran or answered otherwise: {}",
                    outcome.to_json()
                ),
            );
        }
        None => check(
            false,
            format!(
                "the same call in another conversation did not ask for approval: {}",
                second.to_json()
            ),
        ),
    }

    if let Some(clock) = case.clock {
        // A call id of this run's own: on a store that keeps earlier runs'
        // records (a shared database), a fixed one would find the approval
        // an earlier run asked for, still live on this run's clock.
        let call_id = match crate::gate::effect::new_id() {
            Ok(id) => format!("toolgate-testing-expiry-{id}"),
            Err(error) => panic!("no random call id for the expiry case: {error}"),
        };
        let third = toolbox
            .call(&ctx.clone().with_call_id(call_id), tool, case.arguments)
            .await;
        match third.approval() {
            Some(third) => {
                if let Err(error) = toolbox.approve(approver, &third.id).await {
                    panic!("the approver could not approve the third approval: {error}");
                }
                let ttl = third
                    .expires_at
                    .duration_since(third.created_at)
                    .unwrap_or_default();
                clock.advance(ttl);
                let outcome = toolbox.resume(ctx, &third.id).await;
                check(
                    code(&outcome) == Some(Code::ApprovalExpired) && count() == start + 1,
                    format!(
                        "an expired approval ran or answered otherwise: {}",
                        outcome.to_json()
                    ),
                );
            }
            None => check(
                false,
                format!("a third call did not ask for approval: {}", third.to_json()),
            ),
        }
    }
    if !failures.is_empty() {
        panic!(
            "gate 6 did not hold for `{tool}`, {} failures:\n  {}",
            failures.len(),
            failures.join("\n  ")
        );
    }
}
