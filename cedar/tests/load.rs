//! What is refused when policies are loaded, beyond what Cedar's validator
//! refuses: a string an enumeration never holds, a policy that can never
//! apply, a template. Each refusal names the policy, its line, and why.

mod common;

use std::sync::Arc;

use common::desk;
use common::{block_on, policy_decides};
use toolgate::{ToolContext, Toolbox};
use toolgate_cedar::{LoadError, Policies, Schema};
use toolgate_examples::policies;
use toolgate_examples::refund::{IssueRefund, Order, Shop};

fn desk_policies(text: &str) -> Result<Policies, LoadError> {
    Policies::from_text(desk::schema(), "desk.cedar", text)
}

/// One policy, `@id("p")` on line 2, its scope on line 3 and its
/// condition on line 4.
fn policy(scope: &str, condition: &str) -> String {
    format!("// the policy\n@id(\"p\")\npermit ({scope})\nwhen {{\n  {condition}\n}};\n")
}

const READ: &str = r#"principal, action == Action::"read_document", resource is Document"#;

#[test]
fn a_string_an_enumeration_never_holds_is_refused() {
    let classification = r#""public", "internal", "secret""#;
    let sections = r#""summary", "body", "appendix""#;
    // What is wrong, its wrong string, what is right, the attribute, its
    // values.
    let cases = [
        (
            r#"resource.classification == "secrte""#,
            "secrte",
            r#"resource.classification == "secret""#,
            "`resource.classification`",
            classification,
        ),
        (
            r#""secrte" == resource.classification"#,
            "secrte",
            r#""secret" == resource.classification"#,
            "`resource.classification`",
            classification,
        ),
        (
            r#"resource.classification != "Secret""#,
            "Secret",
            r#"resource.classification != "secret""#,
            "`resource.classification`",
            classification,
        ),
        (
            r#"resource.label.level == "topsecret""#,
            "topsecret",
            r#"resource.label.level == "secret""#,
            "`resource.label.level`",
            classification,
        ),
        (
            r#"resource.audiences.contains("auditor")"#,
            "auditor",
            r#"resource.audiences.contains("auditors")"#,
            "an element of `resource.audiences`",
            r#""staff", "customers", "auditors""#,
        ),
        (
            r#"context.format == "docx""#,
            "docx",
            r#"context.format == "pdf""#,
            "`context.format`",
            r#""text", "pdf""#,
        ),
        (
            r#"["text", "docx"].contains(context.format)"#,
            "docx",
            r#"["text", "pdf"].contains(context.format)"#,
            "`context.format`",
            r#""text", "pdf""#,
        ),
        (
            r#"context.sections.contains("apendix")"#,
            "apendix",
            r#"context.sections.contains("appendix")"#,
            "an element of `context.sections`",
            sections,
        ),
        (
            r#"context.sections.containsAny(["body", "apendix"])"#,
            "apendix",
            r#"context.sections.containsAny(["body", "appendix"])"#,
            "an element of `context.sections`",
            sections,
        ),
        (
            r#"["summary", "apendix"].containsAll(context.sections)"#,
            "apendix",
            r#"["summary", "appendix"].containsAll(context.sections)"#,
            "an element of `context.sections`",
            sections,
        ),
        (
            r#"context.sections == ["apendix"]"#,
            "apendix",
            r#"context.sections == ["appendix"]"#,
            "an element of `context.sections`",
            sections,
        ),
        (
            r#"context.filter == {"classification": "secrte"}"#,
            "secrte",
            r#"context.filter == {"classification": "secret"}"#,
            "`context.filter.classification`",
            classification,
        ),
        (
            r#"context has urgency && context.urgency == "urgent""#,
            "urgent",
            r#"context has urgency && context.urgency == "high""#,
            "`context.urgency`",
            r#""low", "high""#,
        ),
        (
            r#"principal has clearance && principal.clearance.level == "cosmic""#,
            "cosmic",
            r#"principal has clearance && principal.clearance.level == "secret""#,
            "`principal.clearance.level`",
            classification,
        ),
        (
            r#"(if context.express then "secrte" else "public") == resource.classification"#,
            "secrte",
            r#"(if context.express then "secret" else "public") == resource.classification"#,
            "`resource.classification`",
            classification,
        ),
    ];
    for (wrong, literal, right, attribute, values) in cases {
        let error = desk_policies(&policy(READ, wrong)).expect_err(wrong);
        let [problem] = error.problems() else {
            panic!("{wrong}: one problem, not {error}");
        };
        assert_eq!(problem.policy(), Some("p"), "{wrong}: {error}");
        assert_eq!(problem.line(), 5, "{wrong}: {error}");
        let expected = format!("\"{literal}\" is none of the values of {attribute}: {values}");
        assert_eq!(problem.message(), expected, "{wrong}");
        assert!(error.to_string().contains("desk.cedar:5:"), "{error}");

        desk_policies(&policy(READ, right)).unwrap_or_else(|e| panic!("{right}: {e}"));
    }
}

#[test]
fn a_pattern_no_value_matches_is_refused() {
    let error = desk_policies(&policy(READ, r#"resource.classification like "sec*x""#))
        .expect_err("no classification ends in x");
    assert_eq!(
        error.problems()[0].message(),
        r#"the pattern "sec*x" matches none of the values of `resource.classification`: "public", "internal", "secret""#
    );
    assert_eq!(error.problems()[0].line(), 5, "{error}");
    desk_policies(&policy(READ, r#"resource.classification like "sec*""#)).unwrap();
}

#[test]
fn every_wrong_string_of_a_file_is_refused_at_once() {
    let text = format!(
        "{}{}",
        policy(READ, r#"resource.classification == "secrte""#),
        policy(READ, r#"context.format == "docx""#).replace("\"p\"", "\"q\""),
    );
    let error = desk_policies(&text).unwrap_err();
    let found: Vec<(Option<&str>, usize)> = error
        .problems()
        .iter()
        .map(|p| (p.policy(), p.line()))
        .collect();
    assert_eq!(found, [(Some("p"), 5), (Some("q"), 11)], "{error}");
}

#[test]
fn a_string_is_judged_by_every_type_the_resource_can_have() {
    // A folder's classification is free text: any string may match it.
    let either = "principal, action, resource";
    let condition = r#"resource has classification && resource.classification == "secrte""#;
    desk_policies(&policy(either, condition)).unwrap();
    // A document's is not, and its policy says it is a document.
    let documents = r#"principal, action, resource is Document"#;
    let error = desk_policies(&policy(documents, condition)).unwrap_err();
    assert!(
        error.problems()[0]
            .message()
            .starts_with(r#""secrte" is none"#),
        "{error}"
    );
}

#[test]
fn strings_compared_with_free_text_load() {
    for condition in [
        r#"resource.id == "doc_1""#,
        r#"resource.label.note == "anything""#,
        r#"principal.scopes.contains("whatever:scope")"#,
        r#"resource.tenant like "tenant_*""#,
    ] {
        desk_policies(&policy(READ, condition)).unwrap_or_else(|e| panic!("{condition}: {e}"));
    }
}

#[test]
fn cedar_s_in_on_strings_is_refused_too() {
    // `in` is for entity hierarchies: the validator refuses strings.
    let error = desk_policies(&policy(READ, r#"context.format in ["text", "docx"]"#)).unwrap_err();
    assert!(
        error.problems()[0]
            .message()
            .contains("try using `contains`"),
        "{error}"
    );
}

#[test]
fn a_policy_that_can_never_apply_is_refused() {
    let examples = || policies::schema().unwrap();
    for (what, schema, text, says) in [
        (
            "a tool that never takes that resource type",
            examples(),
            r#"forbid (principal, action == Action::"schedule_export", resource is Order);"#,
            "its scope admits no tool that takes a resource of the type it names",
        ),
        (
            "an effect class without a tool",
            Schema::builder()
                .tool(IssueRefund::definition())
                .resource::<Order>()
                .build()
                .unwrap(),
            r#"permit (principal, action in Action::"write", resource);"#,
            "or no tool at all",
        ),
        (
            "a condition that is always false",
            examples(),
            r#"forbid (principal, action == Action::"issue_refund", resource) when { resource is Invoice };"#,
            "its condition is false for every request the schema allows",
        ),
    ] {
        let text = format!("// {what}\n@id(\"never\")\n{text}\n");
        let error = Policies::from_text(schema, "never.cedar", &text).expect_err(what);
        let [problem] = error.problems() else {
            panic!("{what}: one problem, not {error}");
        };
        assert_eq!(problem.policy(), Some("never"), "{what}: {error}");
        // Where the policy starts: the whole of it is what never applies.
        assert_eq!(problem.line(), 2, "{what}: {error}");
        assert!(
            problem
                .message()
                .starts_with("this policy can never apply: "),
            "{what}: {error}"
        );
        assert!(problem.message().contains(says), "{what}: {error}");
    }
}

#[test]
fn a_reload_with_a_policy_that_can_never_apply_keeps_the_policies_in_force() {
    let policies = Arc::new(policies::seeds().unwrap());
    let mut toolbox = Toolbox::new(Shop::demo().with_policies(Arc::clone(&policies)))
        .with_effect_policy(policy_decides());
    toolbox.register(IssueRefund).unwrap();
    let ctx = ToolContext::new("agent_1", "tenant_a", "req_1")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"]);
    let refund = |amount: u64| {
        let args = format!(r#"{{"order":"ord_1001","amount_cents":{amount}}}"#);
        block_on(toolbox.call(&ctx, "issue_refund", args.as_str()))
    };
    assert!(refund(100).value().is_some());

    // Meant to close refunds, it closes nothing: refused, the seeds stay.
    let refused = policies.replace(
        "next.cedar",
        r#"forbid (principal, action == Action::"issue_refund", resource is Account);"#,
    );
    let error = refused.unwrap_err();
    assert!(
        error.problems()[0].message().contains("can never apply"),
        "{error}"
    );
    assert!(refund(101).value().is_some());
    assert_eq!(toolbox.state().refunds().len(), 2);
}

#[test]
fn a_warning_about_how_a_policy_reads_does_not_refuse_it() {
    // A Cyrillic `е` among Latin letters: Cedar warns of mixed scripts.
    desk_policies(&policy(READ, r#"resource.label.note == "drаft""#)).unwrap();
}

#[test]
fn templates_are_refused() {
    let error = desk_policies(r#"permit (principal == ?principal, action, resource);"#)
        .expect_err("a template");
    assert!(
        error.problems()[0].message().contains("templates"),
        "{error}"
    );
}

#[test]
fn the_tenant_is_the_resource_of_a_call_that_names_no_object() {
    let schema = desk::schema().to_cedarschema();
    for expected in [
        "entity Tenant = {\n  tenant: __cedar::String\n};",
        "resource: [Tenant],",
        "resource: [Folder, Tenant],",
        "resource: [Document],",
    ] {
        assert!(schema.contains(expected), "{expected} in:\n{schema}");
    }
    // An attribute of some resources only is read after saying which.
    let error = desk_policies(
        r#"forbid (principal, action, resource) when { resource.classification == "secret" };"#,
    )
    .unwrap_err();
    assert!(
        error.problems()[0].message().contains("classification"),
        "{error}"
    );
    // The tenant check reads alike for every tool.
    desk_policies(
        r#"forbid (principal, action, resource) unless { resource.tenant == principal.tenant };
        forbid (principal, action == Action::"archive_documents", resource);"#,
    )
    .unwrap();
}

#[test]
fn a_policy_for_calls_that_name_no_object_loads_and_decides_them() {
    let list = r#"{"format":"pdf","limit":5}"#;
    let archive = r#"{"older_than_days":3}"#;
    let ctx = ToolContext::new("agent_1", "tenant_a", "req_1").allow_all_tools();
    let call = |text: &str, tool: &str, args: &str| {
        let policies = Arc::new(desk_policies(text).expect(text));
        let toolbox = desk::toolbox(policies);
        let outcome = block_on(toolbox.call(&ctx, tool, args));
        outcome.rejection().map(|r| r.code().as_str().to_owned())
    };
    let permit_all = "permit (principal, action, resource);\n";
    for scope in [
        r#"principal, action == Action::"list_documents", resource"#,
        r#"principal, action == Action::"list_documents", resource is Tenant"#,
    ] {
        let forbid = format!("{permit_all}forbid ({scope});");
        assert_eq!(
            call(&forbid, "list_documents", list).as_deref(),
            Some("NOT_PERMITTED"),
            "{scope}"
        );
        assert_eq!(call(permit_all, "list_documents", list), None, "{scope}");
    }
    // Default deny: a permit for objects alone lets no call without one run.
    let objects = r#"permit (principal, action, resource is Folder);
        permit (principal, action, resource is Document);"#;
    assert_eq!(
        call(objects, "list_documents", list).as_deref(),
        Some("NOT_PERMITTED")
    );
    assert_eq!(
        call(objects, "archive_documents", archive).as_deref(),
        Some("NOT_PERMITTED")
    );
    // The tenant as the resource: its own tenant, and the call's context.
    let own = r#"permit (principal, action == Action::"archive_documents", resource is Tenant)
        when { resource.tenant == principal.tenant && context.older_than_days < 10 };"#;
    assert_eq!(call(own, "archive_documents", archive), None);
    let old = r#"{"older_than_days":20}"#;
    assert_eq!(
        call(own, "archive_documents", old).as_deref(),
        Some("NOT_PERMITTED")
    );
}

#[test]
fn a_resource_type_cannot_take_the_tenant_s_name() {
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Tenant {
        id: String,
    }
    impl toolgate_cedar::CedarEntity for Tenant {
        fn entity_id(&self) -> String {
            self.id.clone()
        }
    }
    let error = Schema::builder()
        .resource::<Tenant>()
        .build()
        .expect_err("the schema's own name");
    assert!(
        error
            .to_string()
            .contains("cannot be the Cedar entity type `Tenant`"),
        "{error}"
    );
}
