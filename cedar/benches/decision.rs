//! What a Cedar decision costs, next to the same rule written in Rust: two
//! read tools with one body and one resource, called whole through a
//! toolbox (gates 0–7, the resolver, the body). `get_item_rust` is
//! authorized by an `Authorize` impl, `get_item_cedar` by `Policies`; the
//! difference between the two is the decision's cost, and their ratio is
//! what a user pays per call for writing the rule in Cedar.
//!
//! Two more calls of the Cedar tool: one that Cedar denies (the caller is
//! in the item's tenant but does not own it) and one whose item is not
//! found (the resolver finds nothing, and the policies decide a stand-in,
//! `Authorize::not_found`). A caller must not learn from the time of a
//! refusal whether the object exists: the two should take about as long.
//!
//! `cargo bench -p toolgate-cedar --bench decision` (criterion), or
//! `cargo bench -p toolgate-cedar --bench decision -- rounds [n]`: the four
//! calls in turns, `n` rounds (200) of 1,000 calls each, with the ratios
//! taken round by round.

use std::future::Future;
use std::hint::black_box;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use criterion::{Criterion, criterion_group};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolgate::{
    Authorize, Authorized, Denied, Fault, NotFound, Resolved, Resource, ToolContext, ToolError,
    ToolInfo, Toolbox, tool,
};
use toolgate_cedar::{CedarEntity, Policies, Schema};

const POLICIES: &str = r#"
@id("same-tenant")
forbid (principal, action, resource) unless { resource.tenant == principal.tenant };

@id("owners-read")
permit (principal, action == Action::"get_item_cedar", resource is Item)
when { resource.owner == principal.id && context.fields.contains("price") };
"#;

#[derive(Clone, Debug, Serialize, JsonSchema)]
struct Item {
    id: String,
    tenant: String,
    owner: String,
    price_cents: i64,
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

    async fn resolve(ctx: &ToolContext, lab: &Lab, r: &ItemRef) -> Result<Option<Item>, Fault> {
        Ok((r.0 == lab.item.id && ctx.tenant() == lab.item.tenant).then(|| lab.item.clone()))
    }
}

impl<T: ToolInfo> Authorize<T, Lab> for Item {
    async fn authorize(ctx: &ToolContext, lab: &Lab, item: &Resolved<Item>) -> Result<(), Denied> {
        if T::NAME == "get_item_cedar" {
            return lab.policies.authorize(ctx, item);
        }
        if item.tenant == ctx.tenant() && item.owner == ctx.actor() {
            Ok(())
        } else {
            Err(Denied::because("not the owner"))
        }
    }

    async fn not_found(ctx: &ToolContext, lab: &Lab, missing: &NotFound<'_>) {
        if T::NAME == "get_item_cedar" {
            lab.policies.decide_not_found::<Item>(ctx, missing);
        }
    }
}

/// Read an item's fields, authorized in Rust.
#[tool(effect = read)]
async fn get_item_rust(
    lab: &Lab,
    item: Authorized<Item>,
    #[garde(length(max = 4), inner(length(chars, max = 16)))] fields: Vec<String>,
) -> Result<i64, ToolError> {
    let _ = (lab, fields);
    Ok(item.price_cents)
}

/// Read an item's fields, authorized by Cedar.
#[tool(effect = read)]
async fn get_item_cedar(
    lab: &Lab,
    item: Authorized<Item>,
    #[garde(length(max = 4), inner(length(chars, max = 16)))] fields: Vec<String>,
) -> Result<i64, ToolError> {
    let _ = (lab, fields);
    Ok(item.price_cents)
}

fn now<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}

/// The toolbox with both tools, the owner's context and a stranger's (in
/// the item's tenant, not its owner).
fn lab() -> (Toolbox<Lab>, ToolContext, ToolContext) {
    let schema = Schema::builder()
        .tool(GetItemCedar::definition())
        .resource::<Item>()
        .build()
        .expect("the schema builds");
    let policies = Arc::new(Policies::from_text(schema, "bench.cedar", POLICIES).expect("valid"));
    let item = Item {
        id: "it_1".to_owned(),
        tenant: "t1".to_owned(),
        owner: "u1".to_owned(),
        price_cents: 1_250,
    };
    let mut toolbox = Toolbox::new(Lab { item, policies });
    toolbox.register(GetItemRust).expect("registers");
    toolbox.register(GetItemCedar).expect("registers");
    let ctx = ToolContext::new("u1", "t1", "req").allow_tools(["get_item_rust", "get_item_cedar"]);
    let stranger =
        ToolContext::new("u2", "t1", "req").allow_tools(["get_item_rust", "get_item_cedar"]);
    (toolbox, ctx, stranger)
}

const ARGS: &[u8] = br#"{"item":"it_1","fields":["price","name"]}"#;
const MISSING: &[u8] = br#"{"item":"it_9","fields":["price","name"]}"#;

fn decision(c: &mut Criterion) {
    let (toolbox, ctx, stranger) = lab();
    let args = ARGS;
    for tool in ["get_item_rust", "get_item_cedar"] {
        let outcome = now(toolbox.call(&ctx, tool, args));
        assert_eq!(outcome.value(), Some(&serde_json::json!(1_250)), "{tool}");
    }
    // Not the owner: the tenant's `forbid` does not apply and no `permit`
    // does, so Cedar denies.
    let missing = MISSING;
    let denied = now(toolbox.call(&stranger, "get_item_cedar", args));
    let not_found = now(toolbox.call(&ctx, "get_item_cedar", missing));
    assert!(denied.value().is_none() && not_found.value().is_none());
    assert_eq!(
        serde_json::to_value(&denied).expect("serializes")["code"],
        serde_json::to_value(&not_found).expect("serializes")["code"],
        "a denial reads as a not-found"
    );
    let mut group = c.benchmark_group("decision");
    for tool in ["get_item_rust", "get_item_cedar"] {
        group.bench_function(tool, |b| {
            b.iter(|| now(toolbox.call(black_box(&ctx), tool, black_box(args))));
        });
    }
    group.bench_function("get_item_cedar_denied", |b| {
        b.iter(|| now(toolbox.call(black_box(&stranger), "get_item_cedar", black_box(args))));
    });
    group.bench_function("get_item_cedar_not_found", |b| {
        b.iter(|| now(toolbox.call(black_box(&ctx), "get_item_cedar", black_box(missing))));
    });
    group.finish();
}

/// `n` calls of one kind, for callgrind: `probe <rust|cedar|denied|missing> <n>`.
fn probe(kind: &str, n: usize) {
    let (toolbox, ctx, stranger) = lab();
    let (caller, tool, args) = match kind {
        "rust" => (&ctx, "get_item_rust", ARGS),
        "cedar" => (&ctx, "get_item_cedar", ARGS),
        "denied" => (&stranger, "get_item_cedar", ARGS),
        "missing" => (&ctx, "get_item_cedar", MISSING),
        _ => panic!("probe <rust|cedar|denied|missing> <n>"),
    };
    for _ in 0..n {
        black_box(now(toolbox.call(black_box(caller), tool, black_box(args))));
    }
}

/// The four calls in turns, `rounds` times `BATCH` calls of each, the kind
/// that goes first moving on each round: each call's time, as the median
/// of its rounds, and the ratios that matter as the median of each round's
/// own (a round's calls are made within milliseconds of each other, so the
/// machine's drift, which moves criterion's separate runs apart, falls on
/// both sides of a ratio).
fn rounds(rounds: usize) {
    const BATCH: u32 = 1_000;
    let (toolbox, ctx, stranger) = lab();
    let kinds = [
        ("rust", &ctx, "get_item_rust", ARGS),
        ("cedar", &ctx, "get_item_cedar", ARGS),
        ("denied", &stranger, "get_item_cedar", ARGS),
        ("not found", &ctx, "get_item_cedar", MISSING),
    ];
    let mut times = vec![Vec::with_capacity(rounds); kinds.len()];
    for round in 0..=rounds {
        for turn in 0..kinds.len() {
            let at = (round + turn) % kinds.len();
            let (_, caller, tool, args) = kinds[at];
            let start = std::time::Instant::now();
            for _ in 0..BATCH {
                black_box(now(toolbox.call(black_box(caller), tool, black_box(args))));
            }
            // The first round warms up.
            if round > 0 {
                times[at].push(start.elapsed().as_secs_f64() * 1e6 / f64::from(BATCH));
            }
        }
    }
    let median = |mut values: Vec<f64>| {
        values.sort_unstable_by(f64::total_cmp);
        values[values.len() / 2]
    };
    println!("{rounds} rounds of {BATCH} calls of each, in turns");
    for ((name, ..), times) in kinds.iter().zip(&times) {
        println!("{name:<10} {:>8.3} us", median(times.clone()));
    }
    let ratio =
        |a: usize, b: usize| median(times[a].iter().zip(&times[b]).map(|(a, b)| a / b).collect());
    println!("cedar / rust:          {:.2}", ratio(1, 0));
    println!("denied / not found:    {:.2}", ratio(2, 3));
}

criterion_group!(benches, decision);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "probe") {
        let n = args
            .get(at + 2)
            .and_then(|n| n.parse().ok())
            .expect("probe <rust|cedar|denied|missing> <n>");
        probe(args.get(at + 1).map_or("", String::as_str), n);
        return;
    }
    if let Some(at) = args.iter().position(|a| a == "rounds") {
        let n = args
            .get(at + 1)
            .and_then(|n| n.parse().ok())
            .filter(|n| *n > 0)
            .unwrap_or(200);
        rounds(n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
