//! Gate 0: a tool runs only if it is registered, allowed in this request and
//! the caller holds its scope; the three refusals are one answer to the
//! model and three reasons in the audit log.

use toolgate::{Code, RegisterError, ToolContext, Toolbox};

use crate::common::tools::{Add, ExportRows, Risky, Spy};
use crate::common::{audit, block_on};

const ARGS: &str = r#"{"accountRef":"acct_42","format":"csv","window":{"lastDays":7},"columns":["id"],"dry_run":true}"#;

fn toolbox() -> Toolbox<Spy> {
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox
        .register(ExportRows)
        .unwrap()
        .register(Add)
        .unwrap()
        .register(Risky)
        .unwrap();
    toolbox
}

#[test]
fn unknown_not_allowed_and_unscoped_are_byte_identical() {
    let toolbox = toolbox();
    let allowed_scoped = ToolContext::new("u1", "t1", "req_a")
        .with_scopes(["exports:read"])
        .allow_tools(["export_rows"]);
    let not_allowed = ToolContext::new("u1", "t1", "req_b")
        .with_scopes(["exports:read"])
        .allow_tools(["add"]);
    let unscoped = ToolContext::new("u1", "t1", "req_c").allow_tools(["export_rows"]);
    let nothing = ToolContext::new("u1", "t1", "req_d").with_scopes(["exports:read"]);

    let (outcomes, log) = audit(|| {
        [
            block_on(toolbox.call(&allowed_scoped, "export_rowz", ARGS)),
            block_on(toolbox.call(&not_allowed, "export_rows", ARGS)),
            block_on(toolbox.call(&unscoped, "export_rows", ARGS)),
            block_on(toolbox.call(&nothing, "export_rows", ARGS)),
        ]
    });
    let bytes: Vec<String> = outcomes
        .iter()
        .map(|o| serde_json::to_string(o).unwrap())
        .collect();
    assert_eq!(
        bytes[0],
        r#"{"status":"rejected","code":"NOT_PERMITTED","path":"","safe_message":"This action is not permitted.","retryable":false}"#
    );
    assert!(bytes.iter().all(|b| b == &bytes[0]), "{bytes:#?}");
    assert_eq!(toolbox.state().count(), 0);

    let reasons: Vec<(String, String)> = log
        .into_iter()
        .filter(|r| r["target"] == "toolgate::audit")
        .map(|r| (r["request_id"].clone(), r["reason"].clone()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("req_a".into(), "no tool has this name".into()),
            (
                "req_b".into(),
                "the tool is not in this request's allow-list".into()
            ),
            (
                "req_c".into(),
                "the caller does not hold the tool's scope".into()
            ),
            (
                "req_d".into(),
                "the tool is not in this request's allow-list".into()
            ),
        ]
    );
}

#[test]
fn an_allowed_call_runs() {
    let toolbox = toolbox();
    let ctx = ToolContext::new("u1", "t1", "r")
        .with_scopes(["exports:read"])
        .allow_tools(["export_rows"]);
    let outcome = block_on(toolbox.call(&ctx, "export_rows", ARGS));
    assert_eq!(outcome.value(), Some(&serde_json::json!(1)));
    assert_eq!(toolbox.state().count(), 1);
}

#[test]
fn admission_comes_before_parsing() {
    // A malformed body to a tool the caller may not call reveals nothing
    // about the tool's arguments.
    let toolbox = toolbox();
    let ctx = ToolContext::new("u1", "t1", "r");
    let outcome = block_on(toolbox.call(&ctx, "add", "not json"));
    assert_eq!(outcome.rejection().unwrap().code(), Code::NotPermitted);
}

#[test]
fn the_toolbox_lists_only_what_a_context_may_call() {
    let toolbox = toolbox();
    let names = |ctx: &ToolContext| {
        toolbox
            .definitions_for(ctx)
            .map(|d| d.name())
            .collect::<Vec<_>>()
    };
    assert!(names(&ToolContext::new("u", "t", "r")).is_empty());
    assert_eq!(
        names(&ToolContext::new("u", "t", "r").allow_all_tools()),
        ["add", "risky"]
    );
    assert_eq!(
        names(
            &ToolContext::new("u", "t", "r")
                .allow_all_tools()
                .with_scopes(["exports:read"])
        ),
        ["add", "export_rows", "risky"]
    );
    assert_eq!(
        names(
            &ToolContext::new("u", "t", "r")
                .allow_tools(["export_rows", "missing"])
                .with_scopes(["exports:read"])
        ),
        ["export_rows"]
    );
}

#[test]
fn registering_a_name_twice_is_an_error() {
    let mut toolbox = toolbox();
    let error = toolbox.register(Add).unwrap_err();
    assert_eq!(error, RegisterError::DuplicateName("add"));
    assert_eq!(
        error.to_string(),
        "a tool named `add` is already registered in this toolbox"
    );
}

#[test]
fn a_hostile_tool_name_cannot_forge_audit_lines() {
    let toolbox = toolbox();
    let name = format!("x\n2026-01-01 INFO forged line{}", "y".repeat(500));
    let ctx = ToolContext::new("u", "t", "r");
    let (_, log) = audit(|| block_on(toolbox.call(&ctx, &name, "{}")));
    let logged = &log[0]["tool"];
    assert!(!logged.contains('\n'), "{logged}");
    assert!(logged.len() < 100, "{logged}");
}
