//! Seed 001: `issue_refund`. The order is resolved within the tenant; the
//! amount is checked against the resolved order before the body and again,
//! atomically, at commit.

use std::sync::Arc;
use std::time::Duration;

use toolgate::{Code, Outcome, ToolContext, Toolbox};
use toolgate_examples::refund::{EXCEEDS_REFUNDABLE, IssueRefund, Shop};

use crate::common;
use crate::common::block_on;

fn toolbox() -> Toolbox<Shop> {
    let mut toolbox = Toolbox::new(Shop::demo()).with_effect_policy(common::no_approvals());
    toolbox.register(IssueRefund).unwrap();
    toolbox
}

fn ctx() -> ToolContext {
    ToolContext::new("agent_1", "tenant_a", "req_5")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"])
}

fn call(toolbox: &Toolbox<Shop>, args: &str) -> Outcome {
    block_on(toolbox.call(&ctx(), "issue_refund", args))
}

#[test]
fn a_refund_within_the_refundable_amount_commits() {
    let toolbox = toolbox();
    let outcome = call(&toolbox, r#"{"order":"ord_1001","amount_cents":2500}"#);
    assert_eq!(outcome.value().unwrap()["remaining_cents"], 7500);
    let outcome = call(&toolbox, r#"{"order":"ord_1001","amount_cents":7500}"#);
    assert_eq!(outcome.value().unwrap()["remaining_cents"], 0);
    assert_eq!(toolbox.state().refunds().len(), 2);
}

#[test]
fn amounts_are_positive_bounded_and_not_above_refundable() {
    let toolbox = toolbox();
    for (args, expected) in [
        (r#"{"order":"ord_1001","amount_cents":0}"#, Code::OutOfRange),
        (
            r#"{"order":"ord_1001","amount_cents":-100}"#,
            Code::OutOfRange,
        ),
        (
            r#"{"order":"ord_1001","amount_cents":50001}"#,
            Code::OutOfRange,
        ),
        (
            r#"{"order":"ord_1001","amount_cents":12.5}"#,
            Code::WrongType,
        ),
        (
            r#"{"order":"ord_1001","amount_cents":10001}"#,
            Code::Domain(EXCEEDS_REFUNDABLE),
        ),
        (
            r#"{"order":"1001","amount_cents":100}"#,
            Code::PatternMismatch,
        ),
        (
            r#"{"order":"ord_1001","amount_cents":100,"refundable_cents":999999}"#,
            Code::UnknownField,
        ),
    ] {
        let outcome = call(&toolbox, args);
        assert_eq!(
            outcome.rejection().map(|r| r.code()),
            Some(expected),
            "{args}"
        );
    }
    assert!(toolbox.state().refunds().is_empty());
}

#[test]
fn another_tenants_order_and_a_disputed_one_get_the_flat_denial() {
    let toolbox = toolbox();
    let other_tenant = call(&toolbox, r#"{"order":"ord_2001","amount_cents":100}"#);
    let nonexistent = call(&toolbox, r#"{"order":"ord_9999","amount_cents":100}"#);
    let disputed = call(&toolbox, r#"{"order":"ord_1002","amount_cents":100}"#);
    let bytes = |o: &Outcome| serde_json::to_string(o).unwrap();
    assert_eq!(bytes(&other_tenant), bytes(&nonexistent));
    assert_eq!(bytes(&disputed), bytes(&nonexistent));
    assert_eq!(nonexistent.rejection().unwrap().code(), Code::NotPermitted);
    // The refundable amount of an order the caller may not see is never revealed.
    let over = call(&toolbox, r#"{"order":"ord_2001","amount_cents":20000}"#);
    assert_eq!(bytes(&over), bytes(&nonexistent));
    assert!(toolbox.state().refunds().is_empty());
}

#[test]
fn concurrent_refunds_cannot_both_pass() {
    // Eight refunds of 60% each race for the same order. The shop holds
    // each one just before its commit until all eight are there, so each has
    // passed the early check against the full refundable amount (a call
    // refused there never arrives, and the timeout below reports it). Only
    // the atomic check at commit can let exactly one through, in every run.
    const CALLS: usize = 8;
    let mut toolbox =
        Toolbox::new(Shop::demo().race_at_commit(CALLS)).with_effect_policy(common::no_approvals());
    toolbox.register(IssueRefund).unwrap();
    let toolbox = Arc::new(toolbox);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    let outcomes: Vec<Outcome> = runtime.block_on(async {
        let calls: Vec<_> = (0..CALLS)
            .map(|i| {
                let toolbox = Arc::clone(&toolbox);
                // Eight separate calls, each with its own id: identical calls
                // without one would be one action to gate 6.
                let ctx = ctx().with_call_id(format!("call_{i}"));
                tokio::spawn(async move {
                    toolbox
                        .call(
                            &ctx,
                            "issue_refund",
                            r#"{"order":"ord_1001","amount_cents":6000}"#,
                        )
                        .await
                })
            })
            .collect();
        let mut outcomes = Vec::new();
        for call in calls {
            let outcome = tokio::time::timeout(Duration::from_secs(30), call)
                .await
                .expect("every refund passed the early check and reached the commit");
            outcomes.push(outcome.unwrap());
        }
        outcomes
    });
    let done = outcomes.iter().filter(|o| o.value().is_some()).count();
    // The commit's compare-and-set on the order's version refuses every
    // refund after the first as STALE (the order moved on); without it,
    // the amount re-check would refuse them as EXCEEDS_REFUNDABLE. Either
    // way, one refund commits.
    let refused = outcomes
        .iter()
        .filter(|o| {
            let code = o.rejection().map(|r| r.code());
            code == Some(Code::Stale) || code == Some(Code::Domain(EXCEEDS_REFUNDABLE))
        })
        .count();
    assert_eq!((done, refused), (1, CALLS - 1), "{outcomes:?}");
    let refunds = toolbox.state().refunds();
    assert_eq!(refunds.iter().map(|r| r.amount_cents).sum::<u64>(), 6000);
}
