//! Cedar deciding gates 5 and 6 for the examples' tools: the seeds'
//! policies, refusals at start-up, the audit log, and reloads.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{audit, block_on, policy_decides};
use toolgate::{Outcome, ToolContext, Toolbox};
use toolgate_cedar::{Policies, Schema};
use toolgate_examples::export::{Accounts, ScheduleExport};
use toolgate_examples::policies;
use toolgate_examples::refund::{IssueRefund, Order, Shop};

fn agent() -> ToolContext {
    ToolContext::new("agent_1", "tenant_a", "req_1")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"])
}

fn manager() -> ToolContext {
    ToolContext::new("manager_1", "tenant_a", "req_m").with_scopes(["refunds:approve"])
}

fn shop(policies: Policies) -> Toolbox<Shop> {
    let mut toolbox = Toolbox::new(Shop::demo().with_policies(Arc::new(policies)))
        .with_effect_policy(policy_decides());
    toolbox.register(IssueRefund).unwrap();
    toolbox
}

fn refund(toolbox: &Toolbox<Shop>, order: &str, amount: u64) -> Outcome {
    let args = format!(r#"{{"order":"{order}","amount_cents":{amount}}}"#);
    block_on(toolbox.call(&agent(), "issue_refund", args.as_str()))
}

#[track_caller]
fn assert_not_permitted(outcome: &Outcome) {
    let code = outcome.rejection().map(|r| r.code().as_str());
    assert_eq!(code, Some("NOT_PERMITTED"), "{outcome:?}");
}

fn refund_policies(text: &str) -> Result<Policies, toolgate_cedar::LoadError> {
    let schema = Schema::builder()
        .tool(IssueRefund::definition())
        .resource::<Order>()
        .build()
        .unwrap();
    Policies::from_text(schema, "test.cedar", text)
}

#[test]
fn the_seeds_policies_validate_against_the_examples_tools() {
    let policies = policies::seeds().unwrap();
    let schema = policies.schema().to_cedarschema();
    for expected in [
        "entity Actor",
        "entity Order",
        "entity Account",
        "entity Invoice",
        r#"action "issue_refund""#,
        r#"action "schedule_export""#,
        "amount_cents: __cedar::Long",
    ] {
        assert!(schema.contains(expected), "{expected} in:\n{schema}");
    }
}

#[test]
fn the_seeds_rules_decide_refunds() {
    let toolbox = shop(policies::seeds().unwrap());
    // Within what is left, under the approval threshold: it runs.
    let done = refund(&toolbox, "ord_1001", 500);
    assert_eq!(
        done.value().and_then(|v| v["amount_cents"].as_u64()),
        Some(500)
    );
    // A disputed order, more than is left, another tenant's order: flat.
    assert_not_permitted(&refund(&toolbox, "ord_1002", 500));
    assert_not_permitted(&refund(&toolbox, "ord_1001", 9_501));
    assert_not_permitted(&refund(&toolbox, "ord_2001", 500));
    assert_eq!(toolbox.state().refunds().len(), 1);
}

#[test]
fn a_policy_asks_for_approval_and_the_approved_call_runs_once() {
    let toolbox = shop(policies::seeds().unwrap());
    let asked = refund(&toolbox, "ord_1001", 6_000);
    let approval = asked
        .approval()
        .expect("over 50 EUR needs a person")
        .clone();
    assert!(toolbox.state().refunds().is_empty());
    block_on(toolbox.approve(&manager(), &approval.id)).unwrap();
    let (ran, log) = audit(|| block_on(toolbox.resume(&agent(), &approval.id)));
    // The policy still matches; the approval being resumed meets it.
    assert!(
        log.iter()
            .all(|e| e.get("message").map(String::as_str) != Some("approval asked by policy")),
        "{log:?}"
    );
    assert_eq!(
        ran.value().and_then(|v| v["amount_cents"].as_u64()),
        Some(6_000)
    );
    assert_eq!(toolbox.state().refunds().len(), 1);
    // The approval is spent: resuming it again runs nothing.
    let again = block_on(toolbox.resume(&agent(), &approval.id));
    assert!(again.value().is_none() || again.is_replay(), "{again:?}");
    assert_eq!(toolbox.state().refunds().len(), 1);
}

#[test]
fn exports_of_personal_data_follow_the_account() {
    let mut toolbox =
        Toolbox::new(Accounts::demo().with_policies(Arc::new(policies::seeds().unwrap())));
    toolbox.register(ScheduleExport).unwrap();
    let analyst = ToolContext::new("analyst_1", "tenant_a", "req_2")
        .with_scopes(["exports:write"])
        .allow_tools(["schedule_export"]);
    let export = |ctx: &ToolContext, columns: &str| {
        let args = format!(r#"{{"account_ref":"acct_42","format":"csv","columns":{columns}}}"#);
        block_on(toolbox.call(ctx, "schedule_export", args.as_str()))
    };
    assert!(export(&analyst, r#"["id","status"]"#).value().is_some());
    assert_not_permitted(&export(&analyst, r#"["id","email"]"#));
    let stranger = ToolContext::new("intern_2", "tenant_a", "req_3")
        .with_scopes(["exports:write"])
        .allow_tools(["schedule_export"]);
    assert_not_permitted(&export(&stranger, r#"["id"]"#));
}

#[test]
fn the_audit_log_names_the_policies_that_decided() {
    let toolbox = shop(policies::seeds().unwrap());
    let (_, log) = audit(|| refund(&toolbox, "ord_1001", 500));
    let allowed = log
        .iter()
        .find(|e| e.get("message").map(String::as_str) == Some("authorized by policy"))
        .expect("an allowed object is logged");
    assert_eq!(allowed["policies"], "`refund-orders`");
    assert_eq!(allowed["field"], "order");

    let (_, log) = audit(|| refund(&toolbox, "ord_1002", 500));
    let denied = log
        .iter()
        .find(|e| e.contains_key("reason"))
        .expect("a denial is logged");
    assert_eq!(
        denied["reason"],
        "Cedar: forbidden by `no-refund-on-a-disputed-order`"
    );

    let (_, log) = audit(|| refund(&toolbox, "ord_1001", 6_000));
    let asked = log
        .iter()
        .find(|e| e.get("message").map(String::as_str) == Some("approval asked by policy"))
        .expect("the policy's ask is logged");
    assert!(
        asked["reason"].contains("`large-refunds-need-approval` (refunds over 50 EUR"),
        "{asked:?}"
    );
}

#[test]
fn an_order_not_found_is_decided_as_a_stand_in_and_refused() {
    // The stand-in is the entity the model named (`Order::"ord_4242"`),
    // in the caller's tenant, with each other attribute the least of its
    // type: `refunded_cents` 0, `disputed` false, `id` "".
    let toolbox = shop(
        refund_policies(
            r#"
            @id("unrefunded")
            permit (principal, action, resource) when {
                resource.tenant == principal.tenant && resource.refunded_cents == 0 && !resource.disputed
            };
            @id("not-that-one")
            forbid (principal, action, resource == Order::"ord_4242");
            "#,
        )
        .unwrap(),
    );
    let stand_in = |log: &[common::Record]| {
        let decided: Vec<_> = log
            .iter()
            .filter(|e| {
                e.get("message").map(String::as_str)
                    == Some("a stand-in decided for an object not found")
            })
            .collect();
        assert!(
            log.iter()
                .all(|e| e.get("message").map(String::as_str) != Some("authorized by policy")),
            "a stand-in is never logged as allowed: {log:?}"
        );
        assert_eq!(decided.len(), 1, "{log:?}");
        assert_eq!(decided[0]["field"], "order");
        assert_eq!(decided[0]["actor"], "agent_1");
        assert_eq!(decided[0]["outcome"], "refused");
        decided[0]["stand_in_decided"].clone()
    };
    // Not in any tenant, and another tenant's order: each refused flat,
    // after a stand-in decided as the policies decide it.
    for (order, decided) in [
        ("ord_9999", "permit"),
        ("ord_2001", "permit"),
        ("ord_4242", "deny"),
    ] {
        let (outcome, log) = audit(|| refund(&toolbox, order, 100));
        assert_not_permitted(&outcome);
        assert_eq!(stand_in(&log), decided, "{order}");
    }
    // A found order is decided as itself, with no stand-in.
    let (outcome, log) = audit(|| refund(&toolbox, "ord_1001", 100));
    assert!(outcome.value().is_some(), "{outcome:?}");
    assert!(log.iter().all(|e| !e.contains_key("stand_in")), "{log:?}");
}

#[test]
fn a_policy_naming_what_does_not_exist_is_refused_at_start_up() {
    for (what, policy, says) in [
        (
            "a tool",
            r#"permit (principal, action == Action::"refund_everything", resource);"#,
            "refund_everything",
        ),
        (
            "an argument",
            r#"permit (principal, action == Action::"issue_refund", resource) when { context.amount > 1 };"#,
            "amount",
        ),
        (
            "an attribute",
            r#"permit (principal, action == Action::"issue_refund", resource) when { resource.owner == principal.id };"#,
            "owner",
        ),
        (
            "an entity type",
            r#"permit (principal, action, resource is Customer);"#,
            "Customer",
        ),
        (
            "a principal attribute",
            r#"permit (principal, action, resource) when { principal.role == "admin" };"#,
            "role",
        ),
    ] {
        let text = format!("// {what}\n@id(\"the-policy\")\n{policy}\n");
        let error = refund_policies(&text).expect_err(what);
        let problem = &error.problems()[0];
        assert_eq!(problem.policy(), Some("the-policy"), "{what}: {error}");
        assert_eq!(problem.line(), 3, "{what}: {error}");
        assert!(problem.message().contains(says), "{what}: {error}");
        assert!(error.to_string().contains("test.cedar:3:"), "{error}");
    }
}

#[test]
fn a_policy_that_does_not_parse_is_refused_where_it_breaks() {
    let error = refund_policies(
        "permit (principal, action, resource);\nforbid (principal action, resource);\n",
    )
    .unwrap_err();
    assert_eq!(error.problems()[0].line(), 2, "{error}");
}

#[test]
fn an_approval_rule_must_be_a_forbid_and_ids_are_unique() {
    let error =
        refund_policies("@id(\"a\")\n@approval(\"why\")\npermit (principal, action, resource);\n")
            .unwrap_err();
    assert!(
        error.problems()[0].message().contains("must be a `forbid`"),
        "{error}"
    );
    let error = refund_policies(
        "@id(\"a\")\npermit (principal, action, resource);\n@id(\"a\")\nforbid (principal, action, resource);\n",
    )
    .unwrap_err();
    assert_eq!(error.problems()[0].line(), 3, "{error}");
}

#[test]
fn a_tool_whose_resource_type_is_not_an_entity_is_refused() {
    let error = Schema::builder()
        .tool(IssueRefund::definition())
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains("add `.resource::<Order>()`"),
        "{error}"
    );
}

#[test]
fn a_tool_the_schema_does_not_have_is_denied() {
    let schema = Schema::builder()
        .tool(ScheduleExport::definition())
        .resource::<toolgate_examples::export::Account>()
        .resource::<Order>()
        .build()
        .unwrap();
    let policies =
        Policies::from_text(schema, "t.cedar", "permit (principal, action, resource);").unwrap();
    let toolbox = shop(policies);
    let (outcome, log) = audit(|| refund(&toolbox, "ord_1001", 500));
    assert_not_permitted(&outcome);
    assert!(
        log.iter().any(|e| e
            .get("reason")
            .is_some_and(|r| r.contains("not in the Cedar schema"))),
        "{log:?}"
    );
}

#[test]
fn nothing_is_allowed_that_no_permit_allows_and_a_forbid_wins() {
    let none = refund_policies("").unwrap();
    assert_not_permitted(&refund(&shop(none), "ord_1001", 500));
    let both = refund_policies(
        "permit (principal, action, resource);\nforbid (principal, action, resource) when { context.amount_cents == 500 };",
    )
    .unwrap();
    let toolbox = shop(both);
    assert_not_permitted(&refund(&toolbox, "ord_1001", 500));
    assert!(refund(&toolbox, "ord_1001", 501).value().is_some());
}

#[test]
fn a_policy_that_fails_to_evaluate_denies() {
    // Cedar alone would skip the failing forbid and allow.
    let policies = refund_policies(
        "permit (principal, action, resource);\n@id(\"overflows\")\nforbid (principal, action, resource) when { context.amount_cents * 9223372036854775807 > 0 };",
    )
    .unwrap();
    let toolbox = shop(policies);
    let (outcome, log) = audit(|| refund(&toolbox, "ord_1001", 500));
    assert_not_permitted(&outcome);
    assert!(
        log.iter().any(|e| e
            .get("reason")
            .is_some_and(|r| r.contains("failed to evaluate"))),
        "{log:?}"
    );
}

#[test]
fn a_reload_that_fails_keeps_the_policies_in_force() {
    let policies = Arc::new(refund_policies("permit (principal, action, resource);").unwrap());
    let mut toolbox = Toolbox::new(Shop::demo().with_policies(Arc::clone(&policies)))
        .with_effect_policy(policy_decides());
    toolbox.register(IssueRefund).unwrap();
    assert!(refund(&toolbox, "ord_1001", 100).value().is_some());

    let refused = policies.replace(
        "next.cedar",
        "permit (principal, action, resource) when { context.nope };",
    );
    assert!(refused.is_err());
    assert!(refund(&toolbox, "ord_1001", 100).value().is_some());

    policies
        .replace("next.cedar", "forbid (principal, action, resource);")
        .unwrap();
    assert_not_permitted(&refund(&toolbox, "ord_1001", 100));
}

#[test]
fn a_watched_file_is_reloaded_when_it_changes() {
    let path = std::env::temp_dir().join(format!("toolgate-cedar-{}.cedar", std::process::id()));
    std::fs::write(&path, "permit (principal, action, resource);").unwrap();
    let schema = Schema::builder()
        .tool(IssueRefund::definition())
        .resource::<Order>()
        .build()
        .unwrap();
    let policies = Arc::new(Policies::from_file(schema, &path).unwrap());
    let watch = policies.watch(Duration::from_millis(10));
    let mut toolbox = Toolbox::new(Shop::demo().with_policies(Arc::clone(&policies)))
        .with_effect_policy(policy_decides());
    toolbox.register(IssueRefund).unwrap();
    assert!(refund(&toolbox, "ord_1001", 100).value().is_some());

    // A broken file is refused; the watcher keeps what it had.
    std::fs::write(
        &path,
        "permit (principal, action, resource) when { resource.nope };",
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert!(policies.reload().is_err());
    assert!(refund(&toolbox, "ord_1001", 100).value().is_some());

    std::fs::write(&path, "// closed\nforbid (principal, action, resource);").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while refund(&toolbox, "ord_1001", 100).value().is_some() {
        assert!(Instant::now() < deadline, "the watcher never reloaded");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(watch);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn context_extensions_are_principal_attributes() {
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Claims {
        department: String,
    }
    let schema = Schema::builder()
        .tool(IssueRefund::definition())
        .resource::<Order>()
        .principal_attribute::<Claims>("claims")
        .build()
        .unwrap();
    let policies = Policies::from_text(
        schema,
        "claims.cedar",
        r#"permit (principal, action, resource) when { principal has claims && principal.claims.department == "finance" };"#,
    )
    .unwrap();
    let toolbox = shop(policies);
    let mut finance = toolgate::Extensions::new();
    finance.insert(Claims {
        department: "finance".to_owned(),
    });
    let call = |ctx: ToolContext| {
        block_on(toolbox.call(
            &ctx,
            "issue_refund",
            r#"{"order":"ord_1001","amount_cents":100}"#,
        ))
    };
    assert!(call(agent().with_extensions(&finance)).value().is_some());
    assert_not_permitted(&call(agent()));
    let mut sales = toolgate::Extensions::new();
    sales.insert(Claims {
        department: "sales".to_owned(),
    });
    assert_not_permitted(&call(agent().with_extensions(&sales)));
}

#[test]
fn one_policy_covers_an_effect_class() {
    let group = |class: &str| {
        let text = format!(r#"permit (principal, action in Action::"{class}", resource);"#);
        Policies::from_text(policies::schema().unwrap(), "groups.cedar", &text).unwrap()
    };
    assert!(
        refund(&shop(group("irreversible")), "ord_1001", 100)
            .value()
            .is_some()
    );
    // `schedule_export` is a write; a refund is not.
    assert_not_permitted(&refund(&shop(group("write")), "ord_1001", 100));
}

#[test]
fn an_effect_class_named_in_a_condition_is_decided_as_in_the_scope() {
    // The scope's action constraint is decided when the set loads; one in
    // a condition is left to Cedar, which looks up the tool's action and
    // its group, by the variable or by the action's own uid.
    let group = |condition: &str| {
        let text = format!("permit (principal, action, resource) when {{ {condition} }};");
        Policies::from_text(policies::schema().unwrap(), "groups.cedar", &text).unwrap()
    };
    for allowed in [
        r#"action in Action::"irreversible""#,
        r#"Action::"issue_refund" in Action::"irreversible""#,
        r#"action in [Action::"write", Action::"irreversible"]"#,
    ] {
        let outcome = refund(&shop(group(allowed)), "ord_1001", 100);
        assert!(outcome.value().is_some(), "{allowed}: {outcome:?}");
    }
    for refused in [
        r#"action in Action::"write""#,
        r#"!(action in Action::"irreversible")"#,
    ] {
        assert_not_permitted(&refund(&shop(group(refused)), "ord_1001", 100));
    }
    // An approval rule naming the class: the only condition that does.
    let asks = Policies::from_text(
        policies::schema().unwrap(),
        "groups.cedar",
        r#"
        permit (principal, action, resource);
        @approval("irreversible calls need a person")
        forbid (principal, action, resource) when { action in Action::"irreversible" };
        "#,
    )
    .unwrap();
    let asked = refund(&shop(asks), "ord_1001", 100);
    assert!(asked.approval().is_some(), "{asked:?}");
}

#[test]
fn a_toolbox_s_tools_make_a_schema() {
    let mut toolbox = Toolbox::new(Shop::demo());
    toolbox.register(IssueRefund).unwrap();
    let schema = Schema::builder()
        .tools(toolbox.definitions())
        .resource::<Order>()
        .build()
        .unwrap();
    assert!(
        schema
            .to_cedarschema()
            .contains(r#"action "issue_refund" in [Action::"irreversible"]"#)
    );
}

#[test]
fn an_approval_rule_that_fails_to_evaluate_asks_for_approval() {
    // Cedar alone would skip the failing rule, and the refund would run
    // with no person asked.
    let policies = refund_policies(
        r#"
        @id("all")
        permit (principal, action, resource);

        @id("overflows")
        @approval("every refund, when its amount times a large factor is positive")
        forbid (principal, action, resource)
        when { context.amount_cents * 9223372036854775807 > 0 };
        "#,
    )
    .unwrap();
    let toolbox = shop(policies);
    let (asked, log) = audit(|| refund(&toolbox, "ord_1001", 500));
    let approval = asked.approval().expect("approval required").clone();
    assert!(toolbox.state().refunds().is_empty());
    assert!(
        log.iter().any(|e| e
            .get("reason")
            .is_some_and(|r| r.contains("approval rule failed to evaluate"))),
        "{log:?}"
    );
    // The person's approval is what lets it run.
    block_on(toolbox.approve(&manager(), &approval.id)).unwrap();
    let ran = block_on(toolbox.resume(&agent(), &approval.id));
    assert_eq!(
        ran.value().and_then(|v| v["amount_cents"].as_u64()),
        Some(500)
    );
    assert_eq!(toolbox.state().refunds().len(), 1);
}

#[test]
fn a_permit_that_fails_to_evaluate_permits_nothing_even_beside_one_that_permits() {
    let alone = refund_policies(
        "permit (principal, action, resource) when { context.amount_cents * 9223372036854775807 > 0 };",
    )
    .unwrap();
    assert_not_permitted(&refund(&shop(alone), "ord_1001", 500));
    // Cedar alone would skip the failing permit and let the other allow.
    let beside = refund_policies(
        "permit (principal, action, resource) when { context.amount_cents * 9223372036854775807 > 0 };\npermit (principal, action, resource);",
    )
    .unwrap();
    let toolbox = shop(beside);
    assert_not_permitted(&refund(&toolbox, "ord_1001", 500));
    assert!(toolbox.state().refunds().is_empty());
}

#[test]
fn a_policy_names_an_object_by_its_entity_id() {
    let policies = refund_policies(
        r#"permit (principal, action, resource);
        forbid (principal, action, resource == Order::"ord_1002");"#,
    )
    .unwrap();
    let toolbox = shop(policies);
    assert_not_permitted(&refund(&toolbox, "ord_1002", 100));
    assert!(refund(&toolbox, "ord_1001", 100).value().is_some());
}

#[test]
fn a_value_cedar_cannot_hold_denies() {
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Rate {
        factor: f64,
    }
    let schema = Schema::builder()
        .tool(IssueRefund::definition())
        .resource::<Order>()
        .principal_attribute::<Rate>("rate")
        .build()
        .unwrap();
    let policies = Policies::from_text(
        schema,
        "rate.cedar",
        "permit (principal, action, resource);",
    )
    .unwrap();
    let toolbox = shop(policies);
    let with = |factor: f64| {
        let mut extensions = toolgate::Extensions::new();
        extensions.insert(Rate { factor });
        let ctx = agent().with_extensions(&extensions);
        audit(|| {
            block_on(toolbox.call(
                &ctx,
                "issue_refund",
                r#"{"order":"ord_1001","amount_cents":100}"#,
            ))
        })
    };
    // Four digits after the point is all a Cedar decimal has.
    let (outcome, log) = with(0.12345);
    assert_not_permitted(&outcome);
    assert!(
        log.iter().any(|e| e
            .get("reason")
            .is_some_and(|r| r.contains("principal/rate/factor"))),
        "{log:?}"
    );
    assert!(toolbox.state().refunds().is_empty());
    assert!(with(0.5).0.value().is_some());
}

/// A tool named as the examples' `issue_refund`, taking another resource
/// type: a schema built from other definitions than the toolbox's.
mod stale {
    use toolgate::{Authorize, Authorized, Denied, Fault, Resolved, Resource, ToolContext};
    use toolgate::{ToolError, ToolInfo, tool};
    use toolgate_cedar::{CedarEntity, Policies};

    #[derive(serde::Serialize, schemars::JsonSchema)]
    pub struct Parcel {
        id: String,
    }

    impl CedarEntity for Parcel {
        fn entity_id(&self) -> String {
            self.id.clone()
        }
    }

    #[derive(Debug, serde::Deserialize, schemars::JsonSchema, garde::Validate)]
    #[serde(transparent)]
    pub struct ParcelRef(#[garde(length(chars, max = 8))] String);

    pub struct Post(pub Policies);

    impl Resource<Post> for Parcel {
        type Ref = ParcelRef;
        async fn resolve(_: &ToolContext, _: &Post, r: &ParcelRef) -> Result<Option<Self>, Fault> {
            Ok(Some(Parcel { id: r.0.clone() }))
        }
    }

    impl<T: ToolInfo> Authorize<T, Post> for Parcel {
        async fn authorize(
            ctx: &ToolContext,
            post: &Post,
            p: &Resolved<Self>,
        ) -> Result<(), Denied> {
            post.0.authorize(ctx, p)
        }
    }

    /// Refund a parcel.
    #[tool(effect = write)]
    pub fn issue_refund(post: &Post, parcel: Authorized<Parcel>) -> Result<(), ToolError> {
        let _ = (post, parcel);
        Ok(())
    }
}

#[test]
fn a_resource_type_the_schema_does_not_have_is_denied() {
    let policies = refund_policies("permit (principal, action, resource);").unwrap();
    let mut toolbox = Toolbox::new(stale::Post(policies));
    toolbox.register(stale::IssueRefund).unwrap();
    let (outcome, log) =
        audit(|| block_on(toolbox.call(&agent(), "issue_refund", r#"{"parcel":"p_1"}"#)));
    assert_not_permitted(&outcome);
    assert!(
        log.iter().any(|e| e
            .get("reason")
            .is_some_and(|r| r.contains("is not a Cedar entity in the schema"))),
        "{log:?}"
    );
}

/// Copy one document onto another: a call that names two objects.
#[toolgate::tool(effect = read)]
fn copy_document(
    desk: &common::desk::Desk,
    from: toolgate::Authorized<common::desk::Document>,
    to: toolgate::Authorized<common::desk::Document>,
) -> Result<String, toolgate::ToolError> {
    desk.ran.lock().unwrap().push("copy_document");
    Ok(format!("{} -> {}", from.id, to.id))
}

#[test]
fn a_call_naming_two_objects_is_decided_by_one_set_while_sets_are_swapped() {
    use common::desk::{Clearance, Desk, Document, Folder};
    use std::sync::atomic::{AtomicBool, Ordering};
    // Each set allows one of the two objects: no set allows the call.
    const FIRST: &str =
        r#"permit (principal, action, resource is Document) when { resource.id == "doc_1" };"#;
    const SECOND: &str =
        r#"permit (principal, action, resource is Document) when { resource.id == "doc_2" };"#;
    let schema = Schema::builder()
        .tool(CopyDocument::definition())
        .resource::<Document>()
        .resource::<Folder>()
        .principal_attribute::<Clearance>("clearance")
        .build()
        .unwrap();
    let policies = Arc::new(Policies::from_text(schema, "first.cedar", FIRST).unwrap());
    let mut toolbox = Toolbox::new(Desk {
        policies: Arc::clone(&policies),
        ran: std::sync::Mutex::default(),
    })
    .with_call_policy(Arc::clone(&policies));
    toolbox.register(CopyDocument).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (policies, stop) = (Arc::clone(&policies), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                policies.replace("second.cedar", SECOND).unwrap();
                policies.replace("first.cedar", FIRST).unwrap();
            }
        })
    };
    let ctx = ToolContext::new("agent_1", "tenant_a", "req").allow_all_tools();
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut calls = 0;
    while Instant::now() < deadline && calls < 4000 {
        let outcome =
            block_on(toolbox.call(&ctx, "copy_document", r#"{"from":"doc_1","to":"doc_2"}"#));
        assert_eq!(
            outcome.rejection().map(|r| r.code().as_str()),
            Some("NOT_PERMITTED"),
            "call {calls}: {outcome:?}"
        );
        calls += 1;
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(toolbox.state().ran.lock().unwrap().is_empty());
}
