//! Cedar policies and the same rules written by hand in Rust decide alike.
//!
//! One shop, two tools with one body: `buy_rust`, whose rules are an
//! `Authorize` impl, a `check` and an `approval` expression, and
//! `buy_cedar`, whose rules are the Cedar policies below. For random
//! actors, objects and arguments, both calls must end the same way: done,
//! waiting for approval, or refused.
//!
//! The resolver finds items of every tenant, as a buggy one would, so the
//! tenant rule is decided by the policies, not hidden by the lookup.

mod common;

use std::sync::Arc;

use common::block_on;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolgate::{
    Authorize, Authorized, Denied, Fault, Outcome, Resolved, Resource, ToolContext, ToolError,
    ToolInfo, Toolbox, tool,
};
use toolgate_cedar::{CedarEntity, Policies, Schema};

const POLICIES: &str = r#"
@id("same-tenant")
forbid (principal, action, resource)
unless { resource.tenant == principal.tenant };

@id("owners-and-admins")
permit (principal, action == Action::"buy_cedar", resource is Item)
when { resource.owner == principal.id || principal.scopes.contains("items:admin") };

@id("locked-needs-unlock")
forbid (principal, action == Action::"buy_cedar", resource is Item)
when { resource.locked && !principal.scopes.contains("items:unlock") };

@id("spend-limit")
forbid (principal, action == Action::"buy_cedar", resource is Item)
when { context.quantity * resource.price_cents > 100000 };

@id("express-only-where-offered")
forbid (principal, action == Action::"buy_cedar", resource is Item)
when { context.express && !resource.tags.contains("express") };

@id("big-orders-need-approval")
@approval("more than 100, or a pricey item without a note")
forbid (principal, action == Action::"buy_cedar", resource is Item)
when { context.quantity > 100 || (!(context has note) && resource.price_cents > 50000) };
"#;

/// An item, as the shop stores it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct Item {
    id: String,
    tenant: String,
    owner: String,
    price_cents: i64,
    locked: bool,
    tags: Vec<String>,
}

impl CedarEntity for Item {
    fn entity_id(&self) -> String {
        self.id.clone()
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
struct ItemRef(#[garde(length(chars, max = 8))] String);

struct Lab {
    item: Item,
    policies: Arc<Policies>,
}

impl Resource<Lab> for Item {
    type Ref = ItemRef;

    async fn resolve(_: &ToolContext, lab: &Lab, r: &ItemRef) -> Result<Option<Item>, Fault> {
        // Deliberately not scoped to the tenant.
        Ok((r.0 == lab.item.id).then(|| lab.item.clone()))
    }
}

impl<T: ToolInfo> Authorize<T, Lab> for Item {
    async fn authorize(ctx: &ToolContext, lab: &Lab, item: &Resolved<Item>) -> Result<(), Denied> {
        if T::NAME == "buy_cedar" {
            return lab.policies.authorize(ctx, item);
        }
        let admin = ctx.has_scope("items:admin");
        if item.tenant != ctx.tenant() {
            return Err(Denied::because("another tenant's item"));
        }
        if item.owner != ctx.actor() && !admin {
            return Err(Denied::because("neither owner nor admin"));
        }
        if item.locked && !ctx.has_scope("items:unlock") {
            return Err(Denied::because("locked"));
        }
        Ok(())
    }
}

/// The rules on the arguments, by hand.
fn within_limits(item: &Item, quantity: u32, express: bool) -> Result<(), ToolError> {
    if i64::from(quantity) * item.price_cents > 100_000 {
        return Err(ToolError::not_permitted());
    }
    if express && !item.tags.iter().any(|t| t == "express") {
        return Err(ToolError::not_permitted());
    }
    Ok(())
}

/// Buy an item, by the rules written in Rust.
#[tool(
    effect = write,
    check = within_limits(&item, quantity, express),
    approval = quantity > 100 || (note.is_none() && item.price_cents > 50_000)
)]
async fn buy_rust(
    lab: &Lab,
    item: Authorized<Item>,
    #[garde(range(min = 1, max = 1000))] quantity: u32,
    #[garde(length(chars, max = 40))] note: Option<String>,
    express: bool,
) -> Result<u32, ToolError> {
    let _ = (lab, item, note, express);
    Ok(quantity)
}

/// Buy an item, by the rules written in Cedar.
#[tool(effect = write)]
async fn buy_cedar(
    lab: &Lab,
    item: Authorized<Item>,
    #[garde(range(min = 1, max = 1000))] quantity: u32,
    #[garde(length(chars, max = 40))] note: Option<String>,
    express: bool,
) -> Result<u32, ToolError> {
    let _ = (lab, item, note, express);
    Ok(quantity)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decision {
    Done,
    Approval,
    Refused,
}

fn decision(outcome: &Outcome) -> Decision {
    match outcome {
        Outcome::Done(_) => Decision::Done,
        Outcome::ApprovalRequired(_) => Decision::Approval,
        Outcome::Rejected(r) if r.code().as_str() == "NOT_PERMITTED" => Decision::Refused,
        other => panic!("neither done, waiting nor refused: {other:?}"),
    }
}

fn policies() -> Arc<Policies> {
    let schema = Schema::builder()
        .tool(BuyRust::definition())
        .tool(BuyCedar::definition())
        .resource::<Item>()
        .build()
        .unwrap();
    Arc::new(Policies::from_text(schema, "lab.cedar", POLICIES).unwrap())
}

#[derive(Clone, Debug)]
struct Case {
    actor: &'static str,
    tenant: &'static str,
    scopes: Vec<&'static str>,
    item: Item,
    quantity: u32,
    note: Option<String>,
    express: bool,
}

fn cases() -> impl Strategy<Value = Case> {
    let who = prop::sample::select(vec!["u1", "u2", "u3"]);
    let tenant = prop::sample::select(vec!["t1", "t2"]);
    let scopes = prop::sample::subsequence(vec!["items:admin", "items:unlock"], 0..=2);
    let price = prop_oneof![
        0i64..=2_000,
        900..=1_100i64,
        49_000..=51_000i64,
        0..=1_000_000i64
    ];
    let tags = prop::sample::subsequence(vec!["express".to_owned(), "fragile".to_owned()], 0..=2);
    // Mostly the caller's own tenant and item, so that every rule after
    // the first two is reached often.
    let item = (
        prop::bool::weighted(0.85),
        prop::bool::weighted(0.7),
        who.clone(),
        price,
        prop::bool::weighted(0.2),
        tags,
    );
    let quantity = prop_oneof![1u32..=3, 95u32..=105, 1u32..=1000];
    let note = prop::option::of("[a-z]{0,6}");
    // Each threshold, met exactly and missed by one.
    let edge = (0u8..4, -1i64..=1, 0i64..=20);
    (
        who,
        tenant,
        scopes,
        item,
        quantity,
        note,
        any::<bool>(),
        edge,
    )
        .prop_map(
            |(actor, tenant, scopes, item, quantity, note, express, (edge, by, near))| {
                let (same_tenant, own, other, price_cents, locked, tags) = item;
                let (quantity, price_cents) = match edge {
                    // quantity × price against the spend limit
                    1 => (quantity, 100_000 / i64::from(quantity) + by),
                    // more than 100, within the spend limit
                    2 => (100 + (near % 3) as u32, near * 49),
                    // a pricey item, one or two of it
                    3 => (1 + (near % 2) as u32, 50_000 + by + near - 10),
                    _ => (quantity, price_cents),
                };
                let item = Item {
                    id: "it_1".to_owned(),
                    tenant: if same_tenant {
                        tenant
                    } else if tenant == "t1" {
                        "t2"
                    } else {
                        "t1"
                    }
                    .to_owned(),
                    owner: if own { actor } else { other }.to_owned(),
                    price_cents,
                    locked,
                    tags,
                };
                Case {
                    actor,
                    tenant,
                    scopes,
                    item,
                    quantity,
                    note,
                    express,
                }
            },
        )
}

fn decide(case: &Case, policies: &Arc<Policies>) -> (Decision, Decision) {
    let mut toolbox = Toolbox::new(Lab {
        item: case.item.clone(),
        policies: Arc::clone(policies),
    });
    toolbox.register(BuyRust).unwrap();
    toolbox.register(BuyCedar).unwrap();
    let ctx = ToolContext::new(case.actor, case.tenant, "req")
        .with_scopes(case.scopes.iter().copied())
        .allow_tools(["buy_rust", "buy_cedar"]);
    let args = serde_json::json!({
        "item": "it_1",
        "quantity": case.quantity,
        "note": case.note,
        "express": case.express,
    })
    .to_string();
    block_on(async {
        let rust = toolbox.call(&ctx, "buy_rust", args.as_str()).await;
        let cedar = toolbox.call(&ctx, "buy_cedar", args.as_str()).await;
        (decision(&rust), decision(&cedar))
    })
}

#[test]
fn cedar_and_the_hand_written_policy_decide_alike() {
    let policies = policies();
    let seen = std::cell::RefCell::new([0usize; 3]);
    let mut runner = TestRunner::new(Config {
        cases: 2_000,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&cases(), |case| {
            let (rust, cedar) = decide(&case, &policies);
            prop_assert_eq!(rust, cedar, "{:?}", case);
            seen.borrow_mut()[rust as usize] += 1;
            Ok(())
        })
        .unwrap();
    // Every decision was reached often: the comparison is not vacuous.
    let seen = seen.into_inner();
    assert!(
        seen.iter().all(|n| *n >= 50),
        "done, approval, refused: {seen:?}"
    );
}
