//! What a failing body shows the model (a reference, nothing else) and what
//! it leaves in the audit log (everything).

use toolgate::{Code, DomainCode, Outcome, ToolContext, Toolbox};

use crate::common;
use crate::common::tools::{OpenLocker, Risky, Spy};
use crate::common::{audit, block_on};

fn run(mode: &str) -> (Outcome, Vec<common::Record>) {
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox.register(Risky).unwrap();
    let ctx = ToolContext::new("agent_9", "tenant_b", "req_77").allow_tools(["risky"]);
    let args = format!(r#"{{"mode":"{mode}"}}"#);
    audit(|| block_on(toolbox.call(&ctx, "risky", args.as_str())))
}

#[test]
fn an_internal_error_reaches_the_model_as_a_reference_only() {
    for mode in ["fail", "parse"] {
        let (outcome, log) = run(mode);
        let text = serde_json::to_string(&outcome).unwrap();
        assert_eq!(
            text,
            r#"{"status":"failed","code":"INTERNAL","safe_message":"The tool failed on the server. Nothing in this call needs changing; reference req_77.","retryable":false,"request_id":"req_77"}"#
        );
        let event = log
            .iter()
            .find(|r| r["message"] == "tool failed")
            .expect("logged");
        assert_eq!(event["request_id"], "req_77");
        assert_eq!(event["actor"], "agent_9");
        assert_eq!(event["tenant"], "tenant_b");
        assert_eq!(event["tool"], "risky");
        assert_eq!(event["level"], "ERROR");
        assert!(!event["error"].is_empty());
    }
    let (_, log) = run("fail");
    let event = log.iter().find(|r| r["message"] == "tool failed").unwrap();
    assert!(event["error"].contains("password authentication failed"));
}

#[test]
fn a_body_rejects_with_its_own_code() {
    let (outcome, log) = run("reject");
    let rejection = outcome.rejection().unwrap();
    assert_eq!(rejection.code(), Code::Domain(DomainCode::new("NOT_TODAY")));
    assert_eq!(
        serde_json::to_string(rejection).unwrap(),
        r#"{"status":"rejected","code":"NOT_TODAY","path":"","safe_message":"try again tomorrow","retryable":false}"#
    );
    assert!(log.iter().any(|r| r["message"] == "call rejected"
        && r["code"] == "NOT_TODAY"
        && r["gate"] == "execute"));
}

#[test]
fn a_body_result_is_the_done_value() {
    let (outcome, _) = run("ok");
    assert_eq!(
        serde_json::to_string(&outcome).unwrap(),
        r#"{"status":"done","result":"agent_9 did ok"}"#
    );
}

#[test]
fn gate_rejections_are_logged_with_their_gate() {
    let (_, log) = run("");
    let event = log
        .iter()
        .find(|r| r["message"] == "call rejected")
        .unwrap();
    assert_eq!(
        (
            event["gate"].as_str(),
            event["code"].as_str(),
            event["path"].as_str()
        ),
        ("rules", "INVALID_LENGTH", "/mode")
    );
}

const NOT_PERMITTED: &str = r#"{"status":"rejected","code":"NOT_PERMITTED","path":"","safe_message":"This action is not permitted.","retryable":false}"#;

#[test]
fn a_body_denies_with_the_gates_own_bytes_and_its_reason_goes_to_the_log() {
    let (outcome, log) = run("deny");
    assert_eq!(serde_json::to_string(&outcome).unwrap(), NOT_PERMITTED);
    // The same bytes as admission's answer for a tool that does not exist.
    let toolbox = Toolbox::new(Spy::default());
    let ctx = ToolContext::new("agent_9", "tenant_b", "req_78");
    let gate = block_on(toolbox.call(&ctx, "no_such_tool", "{}"));
    assert_eq!(outcome, gate);
    let event = log
        .iter()
        .find(|r| r["message"] == "call denied")
        .expect("logged");
    assert_eq!(event["gate"], "execute");
    assert_eq!(event["reason"], "ord_3 exists but belongs to tenant_b");
    assert_eq!(event["request_id"], "req_77");
    assert_eq!(event["level"], "WARN");
}

fn failed(request_id: &str) -> String {
    format!(
        r#"{{"status":"failed","code":"INTERNAL","safe_message":"The tool failed on the server. Nothing in this call needs changing; reference {request_id}.","retryable":false,"request_id":"{request_id}"}}"#
    )
}

/// Asserts that the call labelled `label` failed as a contained panic
/// does, under `request_id`, and gives the panic's audit entry.
fn contained<'l>(
    outcome: &Outcome,
    log: &'l [common::Record],
    request_id: &str,
    label: &str,
) -> &'l common::Record {
    assert_eq!(
        serde_json::to_string(outcome).unwrap(),
        failed(request_id),
        "{label}"
    );
    log.iter()
        .find(|r| r["message"] == "tool panicked")
        .unwrap_or_else(|| panic!("no audit entry for {label}: {log:?}"))
}

#[test]
fn a_panicking_body_fails_like_an_internal_error() {
    let (outcome, log) = run("panic");
    assert_eq!(serde_json::to_string(&outcome).unwrap(), failed("req_77"));
    let event = log
        .iter()
        .find(|r| r["message"] == "tool panicked")
        .expect("logged");
    assert_eq!(event["panic"], "the body panicked on panic");
    assert_eq!(
        (
            event["request_id"].as_str(),
            event["actor"].as_str(),
            event["tenant"].as_str(),
            event["tool"].as_str(),
            event["level"].as_str(),
            event["target"].as_str(),
        ),
        (
            "req_77",
            "agent_9",
            "tenant_b",
            "risky",
            "ERROR",
            "toolgate::audit"
        )
    );

    let (outcome, log) = run("panic any");
    assert_eq!(serde_json::to_string(&outcome).unwrap(), failed("req_77"));
    let event = log
        .iter()
        .find(|r| r["message"] == "tool panicked")
        .unwrap();
    assert_eq!(event["panic"], "a panic whose payload is not text");
}

#[test]
fn the_toolbox_still_works_after_a_panic() {
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox.register(Risky).unwrap();
    let ctx = ToolContext::new("agent_9", "tenant_b", "req_1").allow_tools(["risky"]);
    let outcome = block_on(toolbox.call(&ctx, "risky", r#"{"mode":"panic"}"#));
    assert!(matches!(outcome, Outcome::Failed(_)), "{outcome:?}");
    let outcome = block_on(toolbox.call(&ctx, "risky", r#"{"mode":"ok"}"#));
    assert_eq!(outcome.value(), Some(&serde_json::json!("agent_9 did ok")));
    assert_eq!(toolbox.state().count(), 2);
}

#[test]
fn a_panic_in_a_resolver_a_policy_or_a_check_is_contained_too() {
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox.register(OpenLocker).unwrap();
    let ctx = ToolContext::new("agent_9", "tenant_b", "req_5").allow_tools(["open_locker"]);
    for (label, message) in [
        ("panic in resolve", "resolver panicked on panic in resolve"),
        (
            "panic in authorize",
            "policy panicked on panic in authorize",
        ),
        ("panic in check", "check panicked on panic in check"),
        ("panic in body", "body panicked on panic in body"),
    ] {
        let args = serde_json::json!({ "locker": label }).to_string();
        let (outcome, log) = audit(|| block_on(toolbox.call(&ctx, "open_locker", args.as_str())));
        let event = contained(&outcome, &log, "req_5", label);
        assert_eq!(event["panic"], message);
        assert_eq!(event["request_id"], "req_5");
    }
    assert_eq!(toolbox.state().count(), 0);
    let outcome = block_on(toolbox.call(&ctx, "open_locker", r#"{"locker":"blue"}"#));
    assert_eq!(outcome.value(), Some(&serde_json::json!("opened blue")));
}

#[test]
fn a_check_and_a_body_deny_flatly_with_a_reason_for_the_log() {
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox.register(OpenLocker).unwrap();
    let ctx = ToolContext::new("agent_9", "tenant_b", "req_6").allow_tools(["open_locker"]);
    for (label, gate, reason) in [
        ("refuse in check", "checks", "lockers are closed on Sundays"),
        (
            "belongs to another tenant",
            "execute",
            "belongs to another tenant: ord_3 exists but belongs to tenant_b",
        ),
        ("missing", "resolve", "not found in the caller's tenant"),
    ] {
        let args = serde_json::json!({ "locker": label }).to_string();
        let (outcome, log) = audit(|| block_on(toolbox.call(&ctx, "open_locker", args.as_str())));
        assert_eq!(
            serde_json::to_string(&outcome).unwrap(),
            NOT_PERMITTED,
            "{label}"
        );
        let event = log.iter().find(|r| r["message"] == "call denied").unwrap();
        assert_eq!(
            (event["gate"].as_str(), event["reason"].as_str()),
            (gate, reason)
        );
    }
}

/// Tools whose code runs while the toolbox starts the call, before any
/// future: a plain body, and a rule of gate 3.
mod at_once {
    use toolgate::{ToolError, tool};

    /// Panic in a plain body, read or write, as the argument asks.
    #[tool(effect = read)]
    pub fn peek(#[garde(length(min = 1, max = 16))] mode: String) -> Result<String, ToolError> {
        if mode == "panic" {
            panic!("peek panicked");
        }
        Ok(mode)
    }

    /// The same as a write, which gate 6 holds.
    #[tool(effect = write)]
    pub fn poke(#[garde(length(min = 1, max = 16))] mode: String) -> Result<String, ToolError> {
        if mode == "panic" {
            panic!("poke panicked");
        }
        Ok(mode)
    }

    fn fussy(mode: &str, _: &()) -> garde::Result {
        if mode == "panic" {
            panic!("the rule panicked");
        }
        Ok(())
    }

    /// Panic in a custom rule of gate 3.
    #[tool(effect = read)]
    pub fn judge(#[garde(custom(fussy))] mode: String) -> Result<String, ToolError> {
        Ok(mode)
    }
}

#[test]
fn a_panic_in_a_plain_body_or_a_rule_is_contained_as_the_call_starts() {
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(at_once::Peek)
        .unwrap()
        .register(at_once::Poke)
        .unwrap()
        .register(at_once::Judge)
        .unwrap();
    for (tool, message) in [
        ("peek", "peek panicked"),
        ("poke", "poke panicked"),
        ("judge", "the rule panicked"),
    ] {
        let ctx = ToolContext::new("agent_9", "tenant_b", "req_8")
            .allow_tools([tool])
            .with_call_id(format!("call_{tool}"));
        let (outcome, log) = audit(|| block_on(toolbox.call(&ctx, tool, r#"{"mode":"panic"}"#)));
        let event = contained(&outcome, &log, "req_8", tool);
        assert_eq!(event["panic"], message);
        assert_eq!(event["tool"], tool);
        let ctx = ctx.with_call_id(format!("call_{tool}_2"));
        let outcome = block_on(toolbox.call(&ctx, tool, r#"{"mode":"ok"}"#));
        assert_eq!(outcome.value(), Some(&serde_json::json!("ok")), "{tool}");
    }
}
