//! Gate 6 under random interleavings of calls, approvals, denials,
//! resumes, changes to the object and the passing of time: at most one
//! effect per approved action, no effect without a matching live approval,
//! and no effect against an object that changed since it was approved; once
//! an approved refund ran, the model's repeat in the conversation replays;
//! and while an approval of the action is live, a repeat is that approval.

use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use toolgate::testing::ManualClock;
use toolgate::{Approval, Clock, Code, Outcome, ToolContext, Toolbox};
use toolgate_examples::refund::{IssueRefund, Shop};

use crate::common::block_on;

#[derive(Clone, Debug)]
enum Step {
    /// The model makes the refund call.
    Call,
    /// A manager approves approval `i` (modulo how many there are).
    Approve(usize),
    /// A manager denies approval `i`.
    Deny(usize),
    /// The agent resumes approval `i`.
    Resume(usize),
    /// Another actor of the tenant resumes approval `i`.
    ResumeAsOther(usize),
    /// The order changes behind the agent's back.
    Touch,
    /// Minutes pass.
    Wait(u64),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        3 => Just(Step::Call),
        3 => (0usize..8).prop_map(Step::Approve),
        1 => (0usize..8).prop_map(Step::Deny),
        4 => (0usize..8).prop_map(Step::Resume),
        1 => (0usize..8).prop_map(Step::ResumeAsOther),
        1 => Just(Step::Touch),
        1 => (1u64..10).prop_map(Step::Wait),
    ];
    proptest::collection::vec(step, 1..40)
}

/// What the test knows of an approval.
struct Known {
    approval: Approval,
    approved: bool,
    denied: bool,
    /// Whether its run has taken effect.
    ran: bool,
}

fn agent() -> ToolContext {
    ToolContext::new("agent_1", "tenant_a", "req_1")
        .with_session("conv_1")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"])
}

const REFUND: &str = r#"{"order":"ord_1001","amount_cents":100}"#;

/// Notes an approval the toolbox answered with. While an approval of the
/// action is live, undenied and for the order as it is now, a repeat is
/// that approval (one action, one approval); otherwise it is a new one.
fn noted(
    known: &mut Vec<Known>,
    approval: Approval,
    version: u64,
    now: SystemTime,
) -> Result<(), TestCaseError> {
    let live = known.iter().find(|k| {
        !k.denied
            && !k.ran
            && now < k.approval.expires_at
            && k.approval.resources[0].version == Some(version)
    });
    match live {
        Some(live) => prop_assert_eq!(
            &approval.id,
            &live.approval.id,
            "a second approval of one action"
        ),
        None => {
            prop_assert!(
                known.iter().all(|k| k.approval.id != approval.id),
                "an old approval shown again"
            );
            known.push(Known {
                approval,
                approved: false,
                denied: false,
                ran: false,
            });
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn effects_follow_live_approvals_of_unchanged_objects(steps in steps()) {
        let clock = ManualClock::new(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000));
        let mut toolbox = Toolbox::new(Shop::demo()).with_clock(clock.clone());
        toolbox.register(IssueRefund).unwrap();
        let manager = ToolContext::new("manager_1", "tenant_a", "r").with_scopes(["refunds:approve"]);
        let other = ToolContext::new("agent_2", "tenant_a", "r")
            .with_scopes(["refunds:write"])
            .allow_tools(["issue_refund"]);
        let mut known: Vec<Known> = Vec::new();
        // The order's version, as the test tracks it.
        let mut version = 1u64;
        let mut effects = 0usize;

        for step in steps {
            let now = Clock::now(&clock);
            match step {
                Step::Call => {
                    let before = toolbox.state().refunds().len();
                    let outcome = block_on(toolbox.call(&agent(), "issue_refund", REFUND));
                    prop_assert_eq!(toolbox.state().refunds().len(), before, "a call ran: {:?}", outcome);
                    if known.iter().any(|k| k.ran) {
                        // The conversation already made this refund, on an
                        // approval: the repeat replays it.
                        prop_assert!(outcome.is_replay(), "a repeat asked again: {outcome:?}");
                    } else {
                        let approval = outcome.approval().cloned();
                        prop_assert!(approval.is_some(), "a refund ran without approval: {outcome:?}");
                        if let Some(approval) = approval {
                            noted(&mut known, approval, version, now)?;
                        }
                    }
                }
                Step::Approve(i) | Step::Deny(i) if !known.is_empty() => {
                    let i = i % known.len();
                    let entry = &mut known[i];
                    let live = now < entry.approval.expires_at;
                    let undecided = !entry.approved && !entry.denied;
                    let result = if matches!(step, Step::Approve(_)) {
                        block_on(toolbox.approve(&manager, &entry.approval.id))
                    } else {
                        block_on(toolbox.deny(&manager, &entry.approval.id))
                    };
                    prop_assert_eq!(result.is_ok(), live && undecided, "decision on {:?}", step);
                    if result.is_ok() {
                        if matches!(step, Step::Approve(_)) {
                            entry.approved = true;
                        } else {
                            entry.denied = true;
                        }
                    }
                }
                Step::Resume(i) | Step::ResumeAsOther(i) if !known.is_empty() => {
                    let i = i % known.len();
                    let as_other = matches!(step, Step::ResumeAsOther(_));
                    let ctx = if as_other { other.clone() } else { agent() };
                    let before = toolbox.state().refunds().len();
                    let outcome = block_on(toolbox.resume(&ctx, &known[i].approval.id));
                    let after = toolbox.state().refunds().len();
                    let entry = &known[i];
                    if after > before {
                        // An effect: it must be the first of a live, approved
                        // approval, made by its actor, on the object it saw.
                        prop_assert_eq!(after, before + 1);
                        prop_assert!(!as_other, "another actor's resume ran");
                        prop_assert!(entry.approved && !entry.denied, "ran without approval");
                        prop_assert!(!entry.ran, "one approval ran twice");
                        prop_assert!(now < entry.approval.expires_at, "ran after expiry");
                        prop_assert_eq!(
                            entry.approval.resources[0].version,
                            Some(version),
                            "ran against a changed order"
                        );
                        prop_assert!(matches!(outcome, Outcome::Done(_)), "{:?}", outcome);
                        known[i].ran = true;
                        version += 1;
                        effects += 1;
                    } else if let Some(fresh) = outcome.approval() {
                        // The order changed: a fresh approval, with what it is now.
                        prop_assert_eq!(fresh.resources[0].version, Some(version));
                        noted(&mut known, fresh.clone(), version, now)?;
                    } else if as_other {
                        prop_assert_eq!(outcome.rejection().map(|r| r.code()), Some(Code::NotPermitted));
                    } else if entry.ran {
                        prop_assert!(
                            outcome.is_replay(),
                            "a resume after the run was not a replay: {:?}",
                            outcome
                        );
                    }
                }
                Step::Touch => {
                    toolbox.state().touch("tenant_a", "ord_1001");
                    version += 1;
                }
                Step::Wait(minutes) => clock.advance(Duration::from_secs(minutes * 60)),
                _ => {}
            }
        }
        prop_assert_eq!(toolbox.state().refunds().len(), effects);
    }
}
