//! Seed 000: `schedule_export`, resolved within the tenant, authorized as
//! the resolved account, then checked against the account's own rules.

use std::sync::atomic::Ordering;

use toolgate::{Code, Outcome, ToolContext, Toolbox};
use toolgate_examples::export::{
    Accounts, EXPORTS_DISABLED, PII_EXPORT_DISABLED, ROW_LIMIT_EXCEEDED, ScheduleExport,
};

use crate::common::{audit, block_on};

fn toolbox() -> Toolbox<Accounts> {
    let mut toolbox = Toolbox::new(Accounts::demo());
    toolbox.register(ScheduleExport).unwrap();
    toolbox
}

fn ctx(actor: &str, tenant: &str) -> ToolContext {
    ToolContext::new(actor, tenant, "req_9")
        .with_scopes(["exports:write"])
        .allow_tools(["schedule_export"])
}

fn call(toolbox: &Toolbox<Accounts>, args: &str) -> Outcome {
    block_on(toolbox.call(&ctx("analyst_1", "tenant_a"), "schedule_export", args))
}

fn code(toolbox: &Toolbox<Accounts>, args: &str) -> Option<Code> {
    call(toolbox, args).rejection().map(|r| r.code())
}

const VALID: &str = r#"{"account_ref":"acct_42","format":"csv","columns":["id","status"]}"#;

#[test]
fn a_valid_export_is_queued_for_the_caller() {
    let toolbox = toolbox();
    let outcome = call(&toolbox, VALID);
    let job = outcome.value().expect("done");
    assert_eq!(job["account_id"], "acct_42");
    assert_eq!(job["requested_by"], "analyst_1");
    assert_eq!(toolbox.state().queued().len(), 1);
}

#[test]
fn the_schema_names_a_reference_not_an_account() {
    let schema = ScheduleExport::definition().schema();
    assert_eq!(
        schema["required"],
        serde_json::json!(["account_ref", "format", "columns"])
    );
    let property = |name: &str| {
        let node = &schema["properties"][name];
        match node["$ref"].as_str() {
            Some(reference) => schema.pointer(&reference[1..]).unwrap().clone(),
            None => node.clone(),
        }
    };
    assert_eq!(property("account_ref")["pattern"], "^acct_[a-zA-Z0-9]+$");
    assert_eq!(property("columns")["uniqueItems"], true);
    assert_eq!(property("columns")["minItems"], 1);
    assert_eq!(property("columns")["maxItems"], 3);
    let text = schema.to_string();
    for hidden in ["tenant", "exporters", "row_limit", "rows"] {
        assert!(!text.contains(hidden), "{hidden} in {text}");
    }
}

#[test]
fn argument_attacks_are_refused_before_any_lookup() {
    let toolbox = toolbox();
    for (args, expected) in [
        (
            r#"{"account_ref":"acct-42","format":"csv","columns":["id"]}"#,
            Code::PatternMismatch,
        ),
        (
            r#"{"account_ref":"acct_42","format":"xlsx","columns":["id"]}"#,
            Code::InvalidValue,
        ),
        (
            r#"{"account_ref":"acct_42","format":"csv","columns":[]}"#,
            Code::InvalidLength,
        ),
        (
            r#"{"account_ref":"acct_42","format":"csv","columns":["id","status","created_at","email"]}"#,
            Code::InvalidLength,
        ),
        (
            r#"{"account_ref":"acct_42","format":"csv","columns":["id","id"]}"#,
            Code::InvalidValue,
        ),
        (
            r#"{"account_ref":"acct_42","format":"csv","columns":["password"]}"#,
            Code::InvalidValue,
        ),
        (
            r#"{"account_ref":"acct_42","format":"csv","columns":["id"],"tenant_id":"tenant_b"}"#,
            Code::UnknownField,
        ),
        (
            r#"{"account_ref":"acct_42","format":"csv","columns":["id"],"sql":"DROP TABLE"}"#,
            Code::UnknownField,
        ),
    ] {
        assert_eq!(code(&toolbox, args), Some(expected), "{args}");
    }
    assert!(toolbox.state().queued().is_empty());
}

#[test]
fn another_tenants_account_is_indistinguishable_from_none() {
    let toolbox = toolbox();
    let other_tenant = call(
        &toolbox,
        r#"{"account_ref":"acct_7","format":"csv","columns":["id"]}"#,
    );
    let nonexistent = call(
        &toolbox,
        r#"{"account_ref":"acct_404","format":"csv","columns":["id"]}"#,
    );
    assert_eq!(
        serde_json::to_string(&other_tenant).unwrap(),
        serde_json::to_string(&nonexistent).unwrap()
    );
    assert_eq!(other_tenant.rejection().unwrap().code(), Code::NotPermitted);
    // The same account is fine for its own tenant.
    let own = block_on(toolbox.call(
        &ctx("analyst_1", "tenant_b"),
        "schedule_export",
        r#"{"account_ref":"acct_7","format":"csv","columns":["id"]}"#,
    ));
    assert!(own.value().is_some(), "{own:?}");
    assert_eq!(toolbox.state().queued().len(), 1);
}

#[test]
fn account_rules_are_specific_because_the_caller_may_see_the_account() {
    let toolbox = toolbox();
    let rejection = |args: &str| call(&toolbox, args).rejection().cloned().unwrap();
    let r = rejection(r#"{"account_ref":"acct_frozen","format":"csv","columns":["id"]}"#);
    assert_eq!(r.code(), Code::Domain(EXPORTS_DISABLED));
    let r = rejection(r#"{"account_ref":"acct_42","format":"csv","columns":["id","email"]}"#);
    assert_eq!(
        (r.code(), r.path(), r.is_retryable()),
        (Code::Domain(PII_EXPORT_DISABLED), "/columns", true)
    );
    let r = rejection(r#"{"account_ref":"acct_huge","format":"jsonl","columns":["id"]}"#);
    assert_eq!(r.code(), Code::Domain(ROW_LIMIT_EXCEEDED));
    assert_eq!(
        r.safe_message(),
        "this export would exceed the account's limit of 100000 rows; ask for a narrower export"
    );
    assert!(toolbox.state().queued().is_empty());
}

#[test]
fn account_rules_never_run_for_an_account_the_caller_may_not_use() {
    // acct_frozen has exports disabled, but an actor who is not one of its
    // exporters must not learn that: the answer is the flat denial.
    let toolbox = toolbox();
    let outcome = block_on(toolbox.call(
        &ctx("intruder", "tenant_a"),
        "schedule_export",
        r#"{"account_ref":"acct_frozen","format":"csv","columns":["id"]}"#,
    ));
    assert_eq!(outcome.rejection().unwrap().code(), Code::NotPermitted);
}

#[test]
fn a_resolver_fault_is_the_same_flat_denial() {
    let toolbox = toolbox();
    toolbox.state().outage.store(true, Ordering::Relaxed);
    let (outcome, log) = audit(|| call(&toolbox, VALID));
    assert_eq!(outcome.rejection().unwrap().code(), Code::NotPermitted);
    let event = log.iter().find(|r| r["message"] == "call denied").unwrap();
    assert_eq!(
        event["reason"],
        "resolver failed: accounts database unreachable"
    );
    assert!(toolbox.state().queued().is_empty());
}
