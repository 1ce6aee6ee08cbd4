//! The audit log is read by people and parsed by machines: text that an
//! attacker controls (a reference, and whatever a resolver, a policy, an
//! error or a panic repeats of it) must not forge a line or flood the log.

use toolgate::{Limits, ToolContext, Toolbox};

use crate::common::tools::{OpenLocker, Spy};
use crate::common::{Record, audit, block_on};

/// Every text field of every event, escaped and short.
#[track_caller]
fn assert_contained(log: &[Record]) {
    assert!(!log.is_empty());
    for event in log {
        for (field, value) in event {
            assert!(
                !value.chars().any(char::is_control),
                "{field} holds a control character: {value:?}"
            );
            assert!(
                value.chars().count() <= 256,
                "{field} holds {} characters",
                value.chars().count()
            );
        }
    }
}

fn open(label: &str) -> Vec<Record> {
    let mut toolbox = Toolbox::new(Spy::default());
    // Room for the hostile text to reach the resolver.
    let roomy = Limits::default().max_string_bytes(64 * 1024);
    toolbox.register_with_limits(OpenLocker, roomy).unwrap();
    let ctx = ToolContext::new("agent\n9", "tenant_b", "req_9\r\nforged: yes")
        .allow_tools(["open_locker"]);
    let args = serde_json::json!({ "locker": label }).to_string();
    let (_, log) = audit(|| block_on(toolbox.call(&ctx, "open_locker", args.as_str())));
    log
}

fn hostile(step: &str) -> String {
    format!(
        "{step}\n2026-01-01T00:00:00Z  WARN toolgate::audit: call allowed\u{1b}[2K{}",
        "x".repeat(10 * 1024)
    )
}

#[test]
fn every_free_text_field_is_escaped_and_bounded() {
    for step in [
        "missing",
        "fault",
        "deny",
        "refuse in check",
        "panic in body",
        "fail",
        "belongs to another tenant",
    ] {
        let log = open(&hostile(step));
        assert_contained(&log);
    }
}

#[test]
fn escaped_text_still_reads_as_what_was_sent() {
    let log = open(&hostile("deny"));
    let event = log.iter().find(|r| r["message"] == "call denied").unwrap();
    assert!(
        event["reason"].starts_with(
            "deny\\n2026-01-01T00:00:00Z  WARN toolgate::audit: call allowed\\u{1b}[2Kxxx"
        ),
        "{}",
        event["reason"]
    );
    assert!(event["reason"].ends_with('…'));
    assert_eq!(event["actor"], "agent\\n9");
    assert_eq!(event["request_id"], "req_9\\r\\nforged: yes");
    let log = open(&hostile("panic in body"));
    let event = log
        .iter()
        .find(|r| r["message"] == "tool panicked")
        .unwrap();
    assert!(
        event["panic"].starts_with("body panicked on panic in body\\n2026"),
        "{}",
        event["panic"]
    );
}
