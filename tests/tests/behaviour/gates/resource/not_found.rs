//! A reference gate 4 finds nothing for: the resource's
//! `Authorize::not_found` is asked in place of `authorize`, with the call as
//! gates 1–3 accepted it, so that a policy can decide a stand-in and a
//! refusal take as long whether the object exists or not. The call is
//! refused either way, byte for byte as a denial.

use std::collections::HashMap;
use std::sync::Mutex;

use toolgate::{
    Authorize, Authorized, Denied, Fault, NotFound, Outcome, Resolved, Resource, ToolContext,
    ToolError, ToolInfo, Toolbox, tool,
};

use crate::common::{self, block_on};

#[derive(Default)]
struct Vault {
    /// (tenant, id) -> owner
    boxes: HashMap<(String, String), String>,
    /// What the policy was asked, in order.
    asked: Mutex<Vec<String>>,
}

struct Locker {
    id: String,
    owner: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema, garde::Validate)]
#[serde(transparent)]
struct LockerRef(#[garde(pattern(r"^box_[0-9]+$"))] String);

impl Resource<Vault> for Locker {
    type Ref = LockerRef;

    async fn resolve(
        ctx: &ToolContext,
        vault: &Vault,
        r: &LockerRef,
    ) -> Result<Option<Locker>, Fault> {
        if r.0 == "box_500" {
            return Err(Fault::new("the store is down"));
        }
        Ok(vault
            .boxes
            .get(&(ctx.tenant().to_owned(), r.0.clone()))
            .map(|owner| Locker {
                id: r.0.clone(),
                owner: owner.clone(),
            }))
    }
}

impl<T: ToolInfo> Authorize<T, Vault> for Locker {
    async fn authorize(
        ctx: &ToolContext,
        vault: &Vault,
        locker: &Resolved<Locker>,
    ) -> Result<(), Denied> {
        let line = format!("authorize {} {}", locker.field(), locker.id);
        vault.asked.lock().unwrap().push(line);
        if locker.owner == ctx.actor() {
            Ok(())
        } else {
            Err(Denied::because("not the owner"))
        }
    }

    async fn not_found(ctx: &ToolContext, vault: &Vault, missing: &NotFound<'_>) {
        let line = format!(
            "not_found {} {} {} by {} in {}: {}",
            missing.tool().name(),
            missing.field(),
            missing.argument(missing.field()).unwrap(),
            ctx.actor(),
            ctx.tenant(),
            missing.arguments(),
        );
        vault.asked.lock().unwrap().push(line);
    }
}

/// Move what is in one of the caller's lockers to another.
#[tool(effect = write)]
fn move_contents(
    vault: &Vault,
    from: Authorized<Locker>,
    to: Authorized<Locker>,
) -> Result<String, ToolError> {
    let _ = vault;
    Ok(format!("{} -> {}", from.id, to.id))
}

fn toolbox() -> Toolbox<Vault> {
    let mut vault = Vault::default();
    for (tenant, id, owner) in [
        ("t1", "box_1", "ana"),
        ("t1", "box_2", "ana"),
        ("t1", "box_3", "ben"),
        ("t2", "box_4", "ana"),
    ] {
        vault.boxes.insert((tenant.into(), id.into()), owner.into());
    }
    let mut toolbox = Toolbox::new(vault).with_effect_policy(common::no_approvals());
    toolbox.register(MoveContents).unwrap();
    toolbox
}

fn call(toolbox: &Toolbox<Vault>, actor: &str, tenant: &str, args: &str) -> (Outcome, Vec<String>) {
    let ctx = ToolContext::new(actor, tenant, "r").allow_tools(["move_contents"]);
    let outcome = block_on(toolbox.call(&ctx, "move_contents", args));
    let asked = std::mem::take(&mut *toolbox.state().asked.lock().unwrap());
    (outcome, asked)
}

#[test]
fn a_missing_object_is_decided_by_not_found_with_the_accepted_call() {
    let toolbox = toolbox();
    // The second reference is missing; the arguments are the accepted ones
    // (keys sorted, no whitespace), whatever was sent.
    let (outcome, asked) = call(
        &toolbox,
        "ana",
        "t1",
        r#"{ "to": "box_9", "from": "box_1" }"#,
    );
    assert_eq!(
        asked,
        [
            "authorize from box_1",
            r#"not_found move_contents to "box_9" by ana in t1: {"from":"box_1","to":"box_9"}"#,
        ]
    );
    let denied = call(&toolbox, "ana", "t1", r#"{"from":"box_1","to":"box_3"}"#).0;
    assert_eq!(
        outcome.to_json(),
        denied.to_json(),
        "a not-found reads as a denial"
    );
    assert_eq!(
        outcome.rejection().map(|r| r.code().as_str()),
        Some("NOT_PERMITTED")
    );
}

#[test]
fn another_tenant_s_object_is_not_found_for_the_caller() {
    let toolbox = toolbox();
    // `box_4` exists, in `t2`: from `t1` it is missing, for the same actor.
    let (_, asked) = call(&toolbox, "ana", "t1", r#"{"from":"box_4","to":"box_1"}"#);
    assert_eq!(
        asked,
        [r#"not_found move_contents from "box_4" by ana in t1: {"from":"box_4","to":"box_1"}"#]
    );
    let (outcome, asked) = call(&toolbox, "ana", "t2", r#"{"from":"box_4","to":"box_4"}"#);
    assert_eq!(asked, ["authorize from box_4", "authorize to box_4"]);
    assert!(outcome.value().is_some(), "{outcome:?}");
}

#[test]
fn found_objects_and_a_failing_resolver_ask_nothing_of_not_found() {
    let toolbox = toolbox();
    let (outcome, asked) = call(&toolbox, "ana", "t1", r#"{"from":"box_1","to":"box_2"}"#);
    assert!(outcome.value().is_some(), "{outcome:?}");
    assert_eq!(asked, ["authorize from box_1", "authorize to box_2"]);
    let (_, asked) = call(&toolbox, "ana", "t1", r#"{"from":"box_1","to":"box_3"}"#);
    assert_eq!(asked, ["authorize from box_1", "authorize to box_3"]);
    // A resolver that fails found nothing to stand in for: refused, unasked.
    let (outcome, asked) = call(&toolbox, "ana", "t1", r#"{"from":"box_500","to":"box_1"}"#);
    assert!(asked.is_empty(), "{asked:?}");
    assert_eq!(
        outcome.rejection().map(|r| r.code().as_str()),
        Some("NOT_PERMITTED")
    );
}
