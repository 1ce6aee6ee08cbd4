//! What each effect store adds to a `write` call, measured on the demo's
//! `book_hotel` registered in a toolbox: latency at p50 and p99 with 1
//! and 16 concurrent callers, and calls per second, each store beside the
//! memory store in the same run.
//!
//! ```sh
//! cargo bench -p toolgate-store-suite --bench stores
//! TOOLGATE_POSTGRES_URL=postgres://user:password@127.0.0.1/db cargo bench -p toolgate-store-suite --bench stores
//! ```
//!
//! Every call is a new action (its own conversation), so each one claims
//! a key, runs the body and records the outcome: the full write path of
//! gate 6, never a replay. Wall-clock figures on a shared machine are
//! noisy; compare the stores within one run, not across runs.
//!
//! SQLite runs twice: with `Durability::Full` (the default: every commit
//! flushed to disk) and with `Durability::Normal` (a power cut may roll
//! back the last commits). The last lines give the one against the other.
//!
//! `TOOLGATE_BENCH_CALLS` sets the calls per row (default 4,000), and
//! `TOOLGATE_BENCH_STORES` the stores measured (a comma-separated list of
//! `memory`, `sqlite-full`, `sqlite-normal`, `postgres`; default all), so
//! that one store can run under an instruction counter:
//!
//! ```sh
//! TOOLGATE_BENCH_STORES=sqlite-normal TOOLGATE_BENCH_CALLS=1000 \
//!   valgrind --tool=callgrind target/release/deps/stores-* --bench
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use toolgate::{MemoryStore, ToolContext, Toolbox};
use toolgate_examples::hotel::Hotels;
use toolgate_sqlite::{Durability, SqliteOptions};
use toolgate_store_suite::{BOOKING, Store, hotels};

/// Calls measured per store and concurrency unless `TOOLGATE_BENCH_CALLS`
/// says otherwise, after a warm-up.
const CALLS: usize = 4_000;
const WARM_UP: usize = 400;

fn calls() -> usize {
    std::env::var("TOOLGATE_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CALLS)
}

/// Whether `TOOLGATE_BENCH_STORES` (if set) names the store `name`.
fn measured(name: &str) -> bool {
    match std::env::var("TOOLGATE_BENCH_STORES") {
        Ok(names) if !names.trim().is_empty() => names.split(',').any(|n| n.trim() == name),
        _ => true,
    }
}

struct Run {
    p50: Duration,
    p99: Duration,
    per_second: f64,
}

fn ctx(run: &str, i: usize) -> ToolContext {
    ToolContext::new("traveller_7", "tenant_a", "req")
        .with_session(format!("{run}-{i}"))
        .with_scopes(["bookings:write"])
        .allow_tools(["book_hotel"])
}

/// `calls` bookings by `callers` concurrent callers, each waiting for its
/// call before making the next.
async fn measure(toolbox: &Arc<Toolbox<Hotels>>, callers: usize, calls: usize) -> Run {
    let run = toolgate_store_suite::fresh("bench");
    for i in 0..WARM_UP {
        let _ = toolbox
            .call(&ctx(&format!("{run}-warm"), i), "book_hotel", BOOKING)
            .await;
    }
    let started = Instant::now();
    let tasks: Vec<_> = (0..callers)
        .map(|caller| {
            let toolbox = Arc::clone(toolbox);
            let run = format!("{run}-{caller}");
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(calls / callers);
                for i in 0..calls / callers {
                    let ctx = ctx(&run, i);
                    let start = Instant::now();
                    let outcome = toolbox.call(&ctx, "book_hotel", BOOKING).await;
                    latencies.push(start.elapsed());
                    assert!(matches!(outcome, toolgate::Outcome::Done(_)), "{outcome:?}");
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(calls);
    for task in tasks {
        latencies.extend(task.await.expect("a caller finishes"));
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    let at = |q: f64| {
        let i = ((latencies.len() as f64 - 1.0) * q).round() as usize;
        latencies.get(i).copied().unwrap_or_default()
    };
    Run {
        p50: at(0.50),
        p99: at(0.99),
        per_second: latencies.len() as f64 / elapsed.as_secs_f64(),
    }
}

fn micros(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn main() {
    let rt = toolgate_store_suite::runtime();
    let dir = std::env::temp_dir().join(format!("toolgate-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let mut stores: Vec<(&str, Store)> = Vec::new();
    if measured("memory") {
        stores.push(("memory", Arc::new(MemoryStore::new())));
    }
    rt.block_on(async {
        if measured("sqlite-full") {
            let sqlite = toolgate_sqlite::SqliteStore::open(dir.join("effects.db"))
                .await
                .expect("the SQLite store opens");
            stores.push(("sqlite-full", Arc::new(sqlite)));
        }
        if measured("sqlite-normal") {
            let normal = SqliteOptions::default().durability(Durability::Normal);
            let sqlite = toolgate_sqlite::SqliteStore::open_with(dir.join("normal.db"), normal)
                .await
                .expect("the SQLite store opens");
            stores.push(("sqlite-normal", Arc::new(sqlite)));
        }
        match std::env::var("TOOLGATE_POSTGRES_URL") {
            Ok(url) if !url.is_empty() && measured("postgres") => {
                let pg = toolgate_postgres::PostgresStore::connect(&url)
                    .await
                    .expect("TOOLGATE_POSTGRES_URL is set, but the store did not open");
                stores.push(("postgres", Arc::new(pg)));
            }
            _ => eprintln!("postgres: skipped (set TOOLGATE_POSTGRES_URL to measure it)"),
        }
    });
    let calls = calls();

    println!(
        "{calls} write calls per row (book_hotel, each a new action), after {WARM_UP} to warm up\n"
    );
    println!(
        "| store | callers | p50 | p99 | calls/s | p50 added to memory's | p50 ratio | calls/s ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut durability = Vec::new();
    for callers in [1, 16] {
        let mut baseline: Option<Run> = None;
        let (mut full, mut normal) = (None, None);
        for (name, store) in &stores {
            let toolbox = Arc::new(hotels(Arc::clone(store)));
            let run = rt.block_on(measure(&toolbox, callers, calls));
            let (added, ratio, throughput) = match &baseline {
                Some(memory) => (
                    micros(run.p50.saturating_sub(memory.p50)),
                    format!("{:.1}×", run.p50.as_secs_f64() / memory.p50.as_secs_f64()),
                    format!("{:.2}×", run.per_second / memory.per_second),
                ),
                None => ("–".to_owned(), "1.0×".to_owned(), "1.00×".to_owned()),
            };
            println!(
                "| {name} | {callers} | {} | {} | {:.0} | {added} | {ratio} | {throughput} |",
                micros(run.p50),
                micros(run.p99),
                run.per_second
            );
            match *name {
                "sqlite-full" => full = Some((run.p50, run.per_second)),
                "sqlite-normal" => normal = Some((run.p50, run.per_second)),
                _ => {}
            }
            if baseline.is_none() {
                baseline = Some(run);
            }
        }
        if let (Some(full), Some(normal)) = (full, normal) {
            durability.push((callers, full, normal));
        }
    }
    if !durability.is_empty() {
        println!("\nSQLite, synchronous = FULL against NORMAL:\n");
    }
    for (callers, (full_p50, full_rate), (normal_p50, normal_rate)) in durability {
        println!(
            "{callers} callers: p50 {:.1}×, calls/s {:.2}×",
            full_p50.as_secs_f64() / normal_p50.as_secs_f64(),
            full_rate / normal_rate
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
