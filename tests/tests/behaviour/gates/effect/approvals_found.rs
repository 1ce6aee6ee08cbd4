//! Approvals a person can find: the toolbox lists to each person the
//! approvals they may decide, tells the host of each one created through
//! a hook that cannot change or hold up the call, and names the tool in
//! the audit event of a refused decision.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolgate::{EffectPolicy, ToolContext, Toolbox};
use toolgate_examples::refund::{IssueRefund, Shop};

use crate::common::{audit, block_on};

const REFUND: &str = r#"{"order":"ord_1001","amount_cents":2500}"#;

fn agent(session: &str) -> ToolContext {
    ToolContext::new("agent_1", "tenant_a", "req_1")
        .with_session(session)
        .with_scopes(["refunds:write", "refunds:approve"])
        .allow_tools(["issue_refund"])
}

fn shop(toolbox: Toolbox<Shop>) -> Toolbox<Shop> {
    let mut toolbox = toolbox;
    toolbox.register(IssueRefund).unwrap();
    toolbox
}

#[test]
fn a_refused_decision_names_its_tool_in_the_audit_log() {
    let toolbox = shop(Toolbox::new(Shop::demo()));
    let held = block_on(toolbox.call(&agent("c1"), "issue_refund", REFUND));
    let id = held.approval().unwrap().id.clone();
    let clerk = ToolContext::new("clerk_1", "tenant_a", "req_2");
    let (refused, log) = audit(|| block_on(toolbox.approve(&clerk, &id)));
    assert!(refused.is_err());
    let event = log
        .iter()
        .find(|r| r["message"] == "call denied")
        .expect("the refusal is audited");
    assert_eq!(event["tool"], "issue_refund", "{event:?}");
    assert!(event["reason"].contains("refunds:approve"), "{event:?}");
}

#[test]
fn the_asker_is_not_listed_their_own_call_when_another_must_decide() {
    let policy = EffectPolicy::default().distinct_approver(true);
    let toolbox = shop(Toolbox::new(Shop::demo()).with_effect_policy(policy));
    let held = block_on(toolbox.call(&agent("c1"), "issue_refund", REFUND));
    let id = held.approval().unwrap().id.clone();
    // The agent holds the approver's scope, but asked.
    let asker = agent("c2");
    assert!(
        block_on(toolbox.pending_approvals(&asker, 10))
            .unwrap()
            .is_empty()
    );
    let manager =
        ToolContext::new("manager_1", "tenant_a", "req_m").with_scopes(["refunds:approve"]);
    let listed = block_on(toolbox.pending_approvals(&manager, 10)).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, id);
    assert_eq!(listed[0].arguments["amount_cents"], 2500);
    assert_eq!(listed[0].actor, "agent_1");
    let elsewhere =
        ToolContext::new("manager_1", "tenant_b", "req_m").with_scopes(["refunds:approve"]);
    assert!(
        block_on(toolbox.pending_approvals(&elsewhere, 10))
            .unwrap()
            .is_empty()
    );
    // Decided, it is no longer pending.
    block_on(toolbox.approve(&manager, &id)).unwrap();
    assert!(
        block_on(toolbox.pending_approvals(&manager, 10))
            .unwrap()
            .is_empty()
    );
}

/// The hook blocks until the test lets it go: the call answers meanwhile.
/// (Run inline, the call would wait for the hook forever; the channel's
/// wait only bounds how long this test waits to see that.)
#[test]
fn a_hook_that_does_not_return_holds_up_no_call() {
    let (release, released) = mpsc::channel::<()>();
    let released = Mutex::new(released);
    let heard = Arc::new(Mutex::new(Vec::new()));
    let heard_by_hook = Arc::clone(&heard);
    let toolbox = shop(Toolbox::new(Shop::demo()).on_approval(move |approval| {
        heard_by_hook.lock().unwrap().push(approval.id.clone());
        let _ = released.lock().unwrap().recv();
    }));
    let toolbox = Arc::new(toolbox);
    let (answered, answer) = mpsc::channel();
    let caller = Arc::clone(&toolbox);
    std::thread::spawn(move || {
        let outcome = block_on(caller.call(&agent("c1"), "issue_refund", REFUND));
        let _ = answered.send(outcome);
    });
    let outcome = answer
        .recv_timeout(Duration::from_secs(60))
        .expect("the call answered while the hook was blocked");
    let id = outcome.approval().expect("approval_required").id.clone();
    // The repeat of the same call shows the same approval: no new notice.
    let again = block_on(toolbox.call(&agent("c1"), "issue_refund", REFUND));
    assert_eq!(again.approval().map(|a| a.id.clone()), Some(id.clone()));
    release.send(()).unwrap();
    release.send(()).unwrap();
    // Another conversation's call is another approval, and another notice.
    let other = block_on(toolbox.call(&agent("c2"), "issue_refund", REFUND));
    let other = other.approval().unwrap().id.clone();
    let expected = vec![id, other];
    for _ in 0..600 {
        if *heard.lock().unwrap() == expected {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(*heard.lock().unwrap(), expected);
}

#[test]
fn a_panicking_hook_breaks_no_call_and_hears_the_next_approval() {
    let (heard, hearing) = mpsc::channel();
    let toolbox = shop(Toolbox::new(Shop::demo()).on_approval(move |approval| {
        let _ = heard.send(approval.id.clone());
        if approval.session.as_deref() == Some("c1") {
            panic!("the notifier is down");
        }
    }));
    let first = block_on(toolbox.call(&agent("c1"), "issue_refund", REFUND));
    let first = first.approval().expect("approval_required").id.clone();
    let second = block_on(toolbox.call(&agent("c2"), "issue_refund", REFUND));
    let second = second.approval().expect("approval_required").id.clone();
    let wait = Duration::from_secs(60);
    assert_eq!(hearing.recv_timeout(wait).unwrap(), first);
    assert_eq!(hearing.recv_timeout(wait).unwrap(), second);
    // The approval the hook panicked on stands, and can be decided.
    let manager =
        ToolContext::new("manager_1", "tenant_a", "req_m").with_scopes(["refunds:approve"]);
    block_on(toolbox.approve(&manager, &first)).unwrap();
    let done = block_on(toolbox.resume(&agent("c1"), &first));
    assert!(done.value().is_some(), "{done:?}");
}
