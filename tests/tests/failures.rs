//! What a failing body shows the model (a reference, nothing else) and what
//! it leaves in the audit log (everything).

mod common;

use common::tools::{Risky, Spy};
use common::{audit, block_on};
use toolgate::{Code, DomainCode, Outcome, ToolContext, Toolbox};

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
