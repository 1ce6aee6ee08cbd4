//! `cargo run --example book_hotel`: the tool's schema and its export for
//! OpenAI, then the calls an attacker would make, each with the outcome
//! the model would read and the audit log's line, then resources (an
//! order in the caller's tenant, and one that is not), then an approval.
//!
//! Gate 6 keeps its records in SQLite: by default a new file for each
//! run, so that every run shows the same thing. With
//! `-- --store effects.db` the records stay in that file: run it twice
//! and the second run's booking is a replay of the first, with nothing
//! booked again.
//!
//! `cargo run --example book_hotel --features cedar -- --cedar` decides
//! the orders by the Cedar policies in `policies/seeds.cedar` instead of
//! the Rust ones: one line chooses (`Shop::demo().with_policies(…)`).

use std::path::PathBuf;

use toolgate::providers::{Strictness, openai};
use toolgate::{ApprovalRule, Effect, EffectPolicy, ToolContext, Toolbox};
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_examples::refund::{IssueRefund, Shop};
use toolgate_sqlite::SqliteStore;

/// The command line: the database file (`--store PATH`, or a new one in
/// the temporary directory, and whether it is ours to delete), and whether
/// Cedar policies decide gate 5 (`--cedar`).
fn options() -> Result<(PathBuf, bool, bool), String> {
    const USAGE: &str = "usage: book_hotel [--store PATH] [--cedar]";
    let mut store = None;
    let mut cedar = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--store" => store = Some(PathBuf::from(args.next().ok_or(USAGE)?)),
            "--cedar" => cedar = true,
            _ => return Err(USAGE.to_owned()),
        }
    }
    Ok(match store {
        Some(path) => (path, false, cedar),
        None => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let name = format!("toolgate-demo-{}-{nanos}.db", std::process::id());
            (std::env::temp_dir().join(name), true, cedar)
        }
    })
}

/// The shop, its policies decided in Rust or, with `--cedar`, by the
/// seeds' Cedar policies (`policies/seeds.cedar`).
#[cfg(feature = "cedar")]
fn shop(cedar: bool) -> Result<Shop, Box<dyn std::error::Error>> {
    Ok(if cedar {
        let policies = toolgate_examples::policies::seeds().map_err(|e| e.to_string())?;
        Shop::demo().with_policies(std::sync::Arc::new(policies))
    } else {
        Shop::demo()
    })
}

#[cfg(not(feature = "cedar"))]
fn shop(cedar: bool) -> Result<Shop, Box<dyn std::error::Error>> {
    if cedar {
        return Err("Cedar policies need the `cedar` feature: cargo run --example book_hotel --features cedar -- --cedar".into());
    }
    Ok(Shop::demo())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // toolgate writes its audit log to the `toolgate::audit` tracing
    // target: a logger shows it, one line per decision.
    tracing_subscriber::fmt()
        .with_ansi(false)
        .without_time()
        .with_target(false)
        .init();
    let (path, scratch, cedar) = options()?;
    let store = SqliteStore::open(&path).await?;
    let mut toolbox = Toolbox::new(Hotels::demo()).with_effect_store(store.clone());
    toolbox.register(BookHotel)?;

    let def = BookHotel::definition();
    println!(
        "tool {} v{} ({})",
        def.name(),
        def.version(),
        def.fingerprint()
    );
    println!("{}\n", serde_json::to_string_pretty(def.schema())?);
    println!("as an OpenAI tool (strict):");
    println!(
        "{}\n",
        serde_json::to_string(&openai::chat_tool(def, Strictness::Strict)?)?
    );

    let ctx = ToolContext::new("traveller_7", "tenant_a", "req_1")
        .with_scopes(["bookings:write"])
        .allow_tools(["book_hotel"]);

    let deep = format!("{{\"hotel_id\":{}1{}}}", "[".repeat(40), "]".repeat(40));
    let huge = format!("{{\"hotel_id\":\"{}\"}}", "a".repeat(100 * 1024));
    let calls: Vec<(&str, &str, String)> = vec![
        (
            "a valid booking",
            "book_hotel",
            r#"{"hotel_id":"h_seaview1","nights":3}"#.into(),
        ),
        (
            "the model sets the price",
            "book_hotel",
            r#"{"hotel_id":"h_seaview1","nights":3,"price":1}"#.into(),
        ),
        (
            "a hotel that does not exist",
            "book_hotel",
            r#"{"hotel_id":"h_nothing0","nights":3}"#.into(),
        ),
        (
            "a negative stay",
            "book_hotel",
            r#"{"hotel_id":"h_seaview1","nights":-1}"#.into(),
        ),
        (
            "too many nights",
            "book_hotel",
            r#"{"hotel_id":"h_seaview1","nights":31}"#.into(),
        ),
        (
            "an id of the wrong form",
            "book_hotel",
            r#"{"hotel_id":"../../admin","nights":2}"#.into(),
        ),
        (
            "a float for an integer",
            "book_hotel",
            r#"{"hotel_id":"h_seaview1","nights":2.5}"#.into(),
        ),
        (
            "nights missing",
            "book_hotel",
            r#"{"hotel_id":"h_seaview1"}"#.into(),
        ),
        (
            "a duplicate key",
            "book_hotel",
            r#"{"hotel_id":"h_seaview1","nights":1,"nights":30}"#.into(),
        ),
        ("deep nesting", "book_hotel", deep),
        ("100 KiB of arguments", "book_hotel", huge),
        ("not an object", "book_hotel", "[\"h_seaview1\", 3]".into()),
        (
            "a tool this request may not call",
            "cancel_all_bookings",
            "{}".into(),
        ),
    ];

    println!("{:<34} outcome", "call");
    for (what, tool, args) in &calls {
        let outcome = toolbox.call(&ctx, tool, args.as_str()).await;
        println!("{what:<34} {}", serde_json::to_string(&outcome)?);
    }
    println!("\nbookings written: {}", toolbox.state().bookings().len());

    // Resources: the model names an order; gate 4 looks it up inside the
    // caller's tenant and gate 5 authorizes the object it found. Another
    // tenant's order, a disputed one and one that does not exist are
    // refused alike, so a refusal tells the model nothing about what
    // exists. (Approvals are off here, unless a policy asks for one; the
    // next part shows them.) With `--cedar`, the seeds' Cedar policies
    // decide instead of the Rust ones, and one of them asks a person to
    // approve refunds over 50 EUR.
    let mut shop = Toolbox::new(shop(cedar)?).with_effect_policy(
        EffectPolicy::default().approval(Effect::Irreversible, ApprovalRule::Never),
    );
    shop.register(IssueRefund)?;
    let clerk = ToolContext::new("clerk_3", "tenant_a", "req_3")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"]);
    println!(
        "\nresources, decided by {}:",
        if cedar {
            "Cedar (policies/seeds.cedar)"
        } else {
            "Rust (run with --features cedar -- --cedar for Cedar)"
        }
    );
    for (what, args) in [
        (
            "an order of tenant_a",
            r#"{"order":"ord_1001","amount_cents":500}"#,
        ),
        (
            "an order of tenant_b",
            r#"{"order":"ord_2001","amount_cents":500}"#,
        ),
        (
            "a disputed order",
            r#"{"order":"ord_1002","amount_cents":500}"#,
        ),
        (
            "an order that does not exist",
            r#"{"order":"ord_9999","amount_cents":500}"#,
        ),
        (
            "a refund of 60 EUR",
            r#"{"order":"ord_1001","amount_cents":6000}"#,
        ),
    ] {
        let outcome = shop.call(&clerk, "issue_refund", args).await;
        println!("{what:<34} {}", serde_json::to_string(&outcome)?);
    }

    // Gate 6: a toolbox whose writes need a person's approval. The call
    // does not run; the host shows the preview, a manager approves, and
    // the approved call runs once.
    let mut guarded = Toolbox::new(Hotels::demo())
        .with_effect_store(store)
        .with_effect_policy(EffectPolicy::default().approval(Effect::Write, ApprovalRule::Always));
    guarded.register(BookHotel)?;
    let ctx = ctx.with_session("conversation_1");
    println!("\nwith approvals:");
    let asked = guarded
        .call(
            &ctx,
            "book_hotel",
            r#"{"hotel_id":"h_seaview1","nights":2}"#,
        )
        .await;
    println!(
        "{:<34} {}",
        "the model's call",
        serde_json::to_string(&asked)?
    );
    let approval = asked.approval().ok_or("the call should need approval")?;
    println!(
        "{:<34} {} v{} {} {}",
        "the preview a person sees",
        approval.tool,
        approval.version,
        approval.arguments,
        serde_json::to_string(&approval.resources)?
    );
    let manager = ToolContext::new("manager_1", "tenant_a", "req_2");
    guarded.approve(&manager, &approval.id).await?;
    let done = guarded.resume(&ctx, &approval.id).await;
    println!(
        "{:<34} {}",
        "approved and resumed",
        serde_json::to_string(&done)?
    );
    let again = guarded.resume(&ctx, &approval.id).await;
    println!("{:<34} {}", "resumed again", serde_json::to_string(&again)?);
    println!("bookings written: {}", guarded.state().bookings().len());
    if scratch {
        for suffix in ["", "-wal", "-shm"] {
            let mut file = path.clone().into_os_string();
            file.push(suffix);
            let _ = std::fs::remove_file(file);
        }
    } else {
        println!("\ngate 6's records are in {}", path.display());
    }
    Ok(())
}
