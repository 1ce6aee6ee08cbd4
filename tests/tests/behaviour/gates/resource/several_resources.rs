//! A tool that names two resources, one of them optional: each reference is
//! resolved and authorized on its own, and any refusal is the flat denial.

use std::collections::HashMap;
use std::sync::Mutex;

use toolgate::{
    Authorize, Authorized, Code, Denied, Fault, Outcome, Resolved, Resource, ToolContext,
    ToolError, ToolInfo, Toolbox, tool,
};

use crate::common;
use crate::common::{audit, block_on};

#[derive(Default)]
struct Bank {
    /// (tenant, id) -> (owner, balance)
    accounts: HashMap<(String, String), (String, u64)>,
    transfers: Mutex<Vec<String>>,
}

struct Account {
    id: String,
    owner: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema, garde::Validate)]
#[serde(transparent)]
struct AccountRef(#[garde(pattern(r"^acc_[0-9]+$"))] String);

impl Resource<Bank> for Account {
    type Ref = AccountRef;

    async fn resolve(
        ctx: &ToolContext,
        bank: &Bank,
        r: &AccountRef,
    ) -> Result<Option<Account>, Fault> {
        Ok(bank
            .accounts
            .get(&(ctx.tenant().to_owned(), r.0.clone()))
            .map(|(owner, _)| Account {
                id: r.0.clone(),
                owner: owner.clone(),
            }))
    }
}

impl<T: ToolInfo> Authorize<T, Bank> for Account {
    async fn authorize(
        ctx: &ToolContext,
        _: &Bank,
        account: &Resolved<Account>,
    ) -> Result<(), Denied> {
        if account.owner == ctx.actor() {
            Ok(())
        } else {
            Err(Denied::because("not the owner"))
        }
    }
}

/// Move money between two of the caller's accounts, optionally noting a third.
#[tool(effect = irreversible)]
fn transfer(
    bank: &Bank,
    from: Authorized<Account>,
    to: Authorized<Account>,
    cc: Option<Authorized<Account>>,
    #[garde(range(min = 1))] cents: u64,
) -> Result<String, ToolError> {
    let line = format!(
        "{} -> {} {cents} cc {:?}",
        from.id,
        to.id,
        cc.map(|a| a.into_inner().id)
    );
    bank.transfers.lock().unwrap().push(line.clone());
    Ok(line)
}

fn toolbox() -> Toolbox<Bank> {
    let mut bank = Bank::default();
    for (tenant, id, owner) in [
        ("t1", "acc_1", "ana"),
        ("t1", "acc_2", "ana"),
        ("t1", "acc_3", "ben"),
        ("t2", "acc_4", "ana"),
    ] {
        bank.accounts
            .insert((tenant.into(), id.into()), (owner.into(), 100));
    }
    let mut toolbox = Toolbox::new(bank).with_effect_policy(common::no_approvals());
    toolbox.register(Transfer).unwrap();
    toolbox
}

fn call(toolbox: &Toolbox<Bank>, args: &str) -> (Outcome, Vec<common::Record>) {
    let ctx = ToolContext::new("ana", "t1", "r").allow_tools(["transfer"]);
    audit(|| block_on(toolbox.call(&ctx, "transfer", args)))
}

#[test]
fn both_references_and_the_optional_one_are_authorized() {
    let toolbox = toolbox();
    let (outcome, _) = call(
        &toolbox,
        r#"{"from":"acc_1","to":"acc_2","cc":null,"cents":5}"#,
    );
    assert_eq!(
        outcome.value(),
        Some(&serde_json::json!("acc_1 -> acc_2 5 cc None"))
    );
    let (outcome, _) = call(
        &toolbox,
        r#"{"from":"acc_1","to":"acc_2","cc":"acc_2","cents":5}"#,
    );
    assert_eq!(
        outcome.value(),
        Some(&serde_json::json!("acc_1 -> acc_2 5 cc Some(\"acc_2\")"))
    );
    let (outcome, _) = call(&toolbox, r#"{"from":"acc_2","to":"acc_1","cents":5}"#);
    assert!(outcome.value().is_some());
    assert_eq!(toolbox.state().transfers.lock().unwrap().len(), 3);
}

#[test]
fn any_refused_reference_stops_the_call() {
    let toolbox = toolbox();
    for (args, field) in [
        (r#"{"from":"acc_3","to":"acc_2","cents":5}"#, "from"),
        (r#"{"from":"acc_1","to":"acc_3","cents":5}"#, "to"),
        (r#"{"from":"acc_1","to":"acc_4","cents":5}"#, "to"),
        (
            r#"{"from":"acc_1","to":"acc_2","cc":"acc_3","cents":5}"#,
            "cc",
        ),
    ] {
        let (outcome, log) = call(&toolbox, args);
        assert_eq!(
            outcome.rejection().map(|r| r.code()),
            Some(Code::NotPermitted),
            "{args}"
        );
        let denial = log.iter().find(|r| r["message"] == "call denied").unwrap();
        assert_eq!(denial["field"], field, "{args}");
    }
    assert!(toolbox.state().transfers.lock().unwrap().is_empty());
}

#[test]
fn references_are_fields_of_their_ref_type() {
    let schema = Transfer::definition().schema();
    assert_eq!(
        schema["required"],
        serde_json::json!(["from", "to", "cents"])
    );
    assert!(schema["properties"]["cc"].is_object());
    assert_eq!(schema["$defs"]["AccountRef"]["pattern"], "^acc_[0-9]+$");
}
