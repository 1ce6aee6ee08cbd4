//! The boundary's cost, side by side in one run:
//!
//! 1. `toolgate`: gates 1–3 (`testing::check_arguments`: bounded scan,
//!    serde into the closed struct, garde), and the whole call (gates 0–7
//!    with in-memory resolvers and bodies);
//! 2. `floor`: `serde_json::from_slice` into the same struct, then garde
//!    with every rule gate 3 runs: no limits, no paths;
//! 3. `jsonschema`: what many users write instead, the jsonschema crate's
//!    compiled validator on the same schema, then serde into the struct.
//!
//! Each time is measured in samples of its own, so a machine shared with
//! other work can slow one side and not the other: the ratio of two
//! times then moves from run to run by more than the difference it is
//! there to show. So the ratio is also measured directly, by the same
//! criterion statistics over samples that each time both sides in turns
//! (group `relative to the floor`, in units of the floor's time).
//!
//! Then hostile payloads, each at two sizes. Allocations are counted by a
//! global allocator and printed once per case before timing. The last
//! group hides each attack inside an otherwise valid `schedule_export`
//! call under the default byte limit, so that the depth, value, string
//! and duplicate-key checks, not the byte limit, must stop it; each is
//! refused both as the toolbox runs it (the single-pass reader, which
//! stops, then the gates one by one to say why) and gate by gate alone.
//!
//! `cargo bench -p toolgate-tests --bench boundary`

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{
    BatchSize, BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use serde::de::DeserializeOwned;
use toolgate::__private::Arguments;
use toolgate::testing::{check_arguments, check_arguments_gate_by_gate};
use toolgate::{Limits, ToolContext, Toolbox};
use toolgate_examples::{export, hotel, invoice};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (allocations, bytes) for one run of `f`.
fn allocations(f: impl FnOnce()) -> (usize, usize) {
    let (a, b) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    f();
    (
        ALLOCATIONS.load(Ordering::Relaxed) - a,
        BYTES.load(Ordering::Relaxed) - b,
    )
}

fn now<F: Future>(future: F) -> F::Output {
    match pin!(future)
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("an in-memory call waited"),
    }
}

/// serde_json, then garde under every rule gate 3 runs.
fn floor<A: Arguments>(bytes: &[u8]) -> bool {
    serde_json::from_slice::<A>(bytes).is_ok_and(|args| toolgate_tests::floor_rules(&args))
}

fn with_jsonschema<A: DeserializeOwned>(validator: &jsonschema::Validator, bytes: &[u8]) -> bool {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return false;
    };
    if !validator.is_valid(&value) {
        return false;
    }
    serde_json::from_value::<A>(value).is_ok()
}

fn shape<S, A>(
    c: &mut Criterion,
    toolbox: &Toolbox<S>,
    ctx: &ToolContext,
    tool: &'static str,
    args: &'static str,
) where
    S: Send + Sync + 'static,
    A: Arguments,
{
    let bytes = args.as_bytes();
    let validator = jsonschema::validator_for(toolbox.definition(tool).unwrap().schema()).unwrap();
    assert!(check_arguments(toolbox, tool, bytes).unwrap().is_ok());
    assert!(floor::<A>(bytes));
    assert!(with_jsonschema::<A>(&validator, bytes));
    assert!(now(toolbox.call(ctx, tool, bytes)).value().is_some());

    for (name, run) in [
        (
            "toolgate gates 1-3",
            &(|| assert!(check_arguments(toolbox, tool, bytes).unwrap().is_ok())) as &dyn Fn(),
        ),
        ("floor serde+garde", &|| assert!(floor::<A>(bytes))),
        ("jsonschema then serde", &|| {
            assert!(with_jsonschema::<A>(&validator, bytes))
        }),
    ] {
        let (count, size) = allocations(run);
        println!("allocations {tool} / {name}: {count} ({size} bytes)");
    }

    let mut group = c.benchmark_group(format!("valid call/{tool}"));
    group.bench_function("toolgate gates 1-3", |b| {
        b.iter(|| check_arguments(toolbox, tool, black_box(bytes)))
    });
    group.bench_function("floor serde+garde", |b| {
        b.iter(|| floor::<A>(black_box(bytes)))
    });
    group.bench_function("jsonschema then serde", |b| {
        b.iter(|| with_jsonschema::<A>(&validator, black_box(bytes)))
    });
    // Each whole call is a new action (its own call id): a repeat of one
    // would be a replay of the stored outcome, which is cheaper.
    let mut n = 0u64;
    group.bench_function("toolgate whole call", |b| {
        b.iter_batched(
            || {
                n += 1;
                ctx.clone().with_call_id(format!("bench_{n}"))
            },
            |ctx| now(toolbox.call(&ctx, tool, black_box(bytes))),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// A call's time as a multiple of the floor's, both timed in the same
/// sample: `iter_custom` gives, for `iters` calls of each, `iters` times
/// the ratio of their times, so criterion's per-call estimate is the
/// ratio. Criterion still schedules samples by wall time.
struct RelativeToFloor;

impl Measurement for RelativeToFloor {
    type Intermediate = ();
    type Value = f64;

    fn start(&self) {}

    fn end(&self, (): ()) -> f64 {
        unreachable!("a ratio is measured with `iter_custom` only")
    }

    fn add(&self, a: &f64, b: &f64) -> f64 {
        a + b
    }

    fn zero(&self) -> f64 {
        0.0
    }

    fn to_f64(&self, value: &f64) -> f64 {
        *value
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &Floors
    }
}

/// A ratio to the floor's time, printed as it is.
struct Floors;

impl ValueFormatter for Floors {
    fn scale_values(&self, _: f64, _: &mut [f64]) -> &'static str {
        "x floor"
    }

    fn scale_throughputs(&self, _: f64, _: &Throughput, _: &mut [f64]) -> &'static str {
        "x floor"
    }

    fn scale_for_machines(&self, _: &mut [f64]) -> &'static str {
        "ratio"
    }
}

/// Calls of each side timed in one turn: long enough that reading the
/// clock, and each side's code coming back into the caches after the
/// other's turn, are lost in it (in turns of 64 calls, `refund_invoice`
/// read 1.18 where turns of 1,024 read 1.31 in the same hour); short
/// enough that a sample holds many turns.
const TURN: u64 = 1024;

/// `iters` calls of `ours` and of `floor` in turns of [`TURN`], which of
/// them goes first alternating: `iters` times the ratio of their times.
fn relative(iters: u64, ours: &dyn Fn(), floor: &dyn Fn()) -> f64 {
    let timed = |f: &dyn Fn(), n: u64| {
        let start = Instant::now();
        for _ in 0..n {
            f();
        }
        start.elapsed()
    };
    let (mut ours_time, mut floor_time) = (Duration::ZERO, Duration::ZERO);
    let mut left = iters;
    let mut floor_first = true;
    while left > 0 {
        let n = left.min(TURN);
        if floor_first {
            floor_time += timed(floor, n);
            ours_time += timed(ours, n);
        } else {
            ours_time += timed(ours, n);
            floor_time += timed(floor, n);
        }
        left -= n;
        floor_first = !floor_first;
    }
    iters as f64 * ours_time.as_secs_f64() / floor_time.as_secs_f64()
}

/// Gates 1–3 on each example tool's valid call, relative to the floor.
fn relative_to_floor(c: &mut Criterion<RelativeToFloor>) {
    let mut hotels = Toolbox::new(hotel::Hotels::demo());
    hotels.register(hotel::BookHotel).unwrap();
    let mut accounts = Toolbox::new(export::Accounts::demo());
    accounts.register(export::ScheduleExport).unwrap();
    let mut billing = Toolbox::new(invoice::Billing::demo());
    billing.register(invoice::RefundInvoice).unwrap();
    let mut group = c.benchmark_group("relative to the floor");
    relative_of::<_, hotel::BookHotelArgs>(&mut group, &hotels, "book_hotel", BOOK_HOTEL);
    relative_of::<_, export::ScheduleExportArgs>(
        &mut group,
        &accounts,
        "schedule_export",
        SCHEDULE_EXPORT,
    );
    relative_of::<_, invoice::RefundInvoiceArgs>(
        &mut group,
        &billing,
        "refund_invoice",
        REFUND_INVOICE,
    );
    let mut notes = Toolbox::new(());
    notes.register(FileNote).unwrap();
    relative_of::<_, FileNoteArgs>(&mut group, &notes, "file_note", FILE_NOTE);
    group.finish();
}

/// A note's kind.
#[derive(Clone, Copy, Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Call,
    Visit,
    Email,
    Task,
}

/// The shape issue 55 measured gates 1–3 on: an enum, a list of enums, a
/// string with a character-length rule and an optional string.
#[toolgate::tool(effect = read)]
fn file_note(
    /// What kind of note.
    kind: Kind,
    /// What else it touches.
    #[garde(length(max = 4))]
    also: Vec<Kind>,
    /// The note's title.
    #[garde(length(chars, min = 1, max = 80))]
    title: String,
    /// Who the note is for, if anyone.
    #[garde(length(chars, max = 40))]
    for_whom: Option<String>,
) -> Result<usize, toolgate::ToolError> {
    Ok(also.len() + title.len() + for_whom.map_or(0, |w| w.len()) + kind as usize)
}

/// Gates 1–3 of `tool` on `args` against the floor, by [`relative`].
fn relative_of<S, A>(
    group: &mut BenchmarkGroup<'_, RelativeToFloor>,
    toolbox: &Toolbox<S>,
    tool: &'static str,
    args: &str,
) where
    S: Send + Sync + 'static,
    A: Arguments,
{
    let bytes = args.as_bytes();
    let ours = || {
        assert!(
            check_arguments(toolbox, tool, black_box(bytes))
                .unwrap()
                .is_ok()
        )
    };
    let bare = || assert!(floor::<A>(black_box(bytes)));
    group.bench_function(tool, |b| {
        b.iter_custom(|iters| relative(iters, &ours, &bare))
    });
}

/// The example tools' valid calls, as the benchmarks send them.
const BOOK_HOTEL: &str = r#"{"hotel_id":"h_seaview1","nights":3}"#;
const SCHEDULE_EXPORT: &str =
    r#"{"account_ref":"acct_42","format":"jsonl","columns":["id","status","created_at"]}"#;
const REFUND_INVOICE: &str = r#"{"invoice_id":"inv_88","amount_cents":4500,"reason":{"kind":"goodwill","approver_id":"usr_lena"}}"#;
const FILE_NOTE: &str = r#"{"kind":"call","also":["email","task"],"title":"Called about the renewal","for_whom":"Lena"}"#;

/// Gate 6 as the whole-call benchmarks need it: idempotency records kept
/// briefly (each iteration is a new action, and millions of them would
/// otherwise stay in memory for a day), and no approval for the irreversible
/// refund, whose call would otherwise stop at gate 6 and never reach its
/// body.
fn bench_policy() -> toolgate::EffectPolicy {
    toolgate::EffectPolicy::default()
        .retain(std::time::Duration::from_millis(10))
        .approval(
            toolgate::Effect::Irreversible,
            toolgate::ApprovalRule::Never,
        )
}

fn valid_calls(c: &mut Criterion) {
    let mut hotels = Toolbox::new(hotel::Hotels::demo()).with_effect_policy(bench_policy());
    hotels.register(hotel::BookHotel).unwrap();
    let ctx = ToolContext::new("analyst_1", "tenant_a", "req_bench")
        .with_scopes(["bookings:write", "exports:write", "billing:refund"])
        .allow_all_tools();
    shape::<_, hotel::BookHotelArgs>(c, &hotels, &ctx, "book_hotel", BOOK_HOTEL);

    let mut accounts = Toolbox::new(export::Accounts::demo()).with_effect_policy(bench_policy());
    accounts.register(export::ScheduleExport).unwrap();
    shape::<_, export::ScheduleExportArgs>(c, &accounts, &ctx, "schedule_export", SCHEDULE_EXPORT);

    let mut billing = Toolbox::new(invoice::Billing::demo()).with_effect_policy(bench_policy());
    billing.register(invoice::RefundInvoice).unwrap();
    shape::<_, invoice::RefundInvoiceArgs>(c, &billing, &ctx, "refund_invoice", REFUND_INVOICE);
}

const MIB: usize = 1024 * 1024;

fn flat_object(bytes: usize) -> Vec<u8> {
    let mut doc = b"{\"hotel_id\":\"h_seaview1\"".to_vec();
    let mut i = 0u64;
    while doc.len() < bytes {
        doc.extend_from_slice(format!(",\"k{i}\":{i}").as_bytes());
        i += 1;
    }
    doc.push(b'}');
    doc
}

fn depth_bomb(bytes: usize) -> Vec<u8> {
    let half = (bytes - 16) / 2;
    [
        b"{\"nights\":".to_vec(),
        vec![b'['; half],
        vec![b']'; half],
        b"}".to_vec(),
    ]
    .concat()
}

fn long_string(bytes: usize) -> Vec<u8> {
    [
        b"{\"hotel_id\":\"".to_vec(),
        vec![b'x'; bytes],
        b"\"}".to_vec(),
    ]
    .concat()
}

fn numbers(bytes: usize) -> Vec<u8> {
    let mut doc = b"{\"nights\":[1".to_vec();
    while doc.len() < bytes {
        doc.extend_from_slice(b",12345");
    }
    doc.extend_from_slice(b"]}");
    doc
}

fn duplicate_keys(count: usize) -> Vec<u8> {
    let mut doc = b"{\"hotel_id\":\"h_seaview1\"".to_vec();
    for _ in 0..count {
        doc.extend_from_slice(b",\"nights\":1");
    }
    doc.push(b'}');
    doc
}

fn hostile(c: &mut Criterion) {
    let mut hotels = Toolbox::new(hotel::Hotels::demo());
    hotels.register(hotel::BookHotel).unwrap();
    let cases: [(&str, Vec<u8>, Vec<u8>); 5] = [
        (
            "flat object 300k keys",
            flat_object(MIB),
            flat_object(10 * MIB),
        ),
        ("depth bomb", depth_bomb(MIB / 4), depth_bomb(MIB)),
        ("string", long_string(MIB), long_string(5 * MIB)),
        ("array of numbers", numbers(MIB / 4), numbers(MIB)),
        ("duplicate keys", duplicate_keys(100), duplicate_keys(1000)),
    ];
    // The same payloads against a byte limit raised past them all: the
    // depth, node and string limits must still stop the scan early.
    let mut raised =
        Toolbox::new(hotel::Hotels::demo()).with_limits(Limits::default().max_bytes(64 * MIB));
    raised.register(hotel::BookHotel).unwrap();
    for (limit, toolbox) in [("default limits", &hotels), ("64 MiB byte limit", &raised)] {
        let mut group = c.benchmark_group(format!("hostile/{limit}"));
        for (name, small, large) in &cases {
            for payload in [small, large] {
                let size = payload.len();
                let code = check_arguments(toolbox, "book_hotel", payload)
                    .unwrap()
                    .unwrap_err()
                    .code();
                let (count, bytes) = allocations(|| {
                    let _ = check_arguments(toolbox, "book_hotel", payload);
                });
                println!(
                    "refusing {name} ({size} bytes) under {limit}: {code}, {count} allocations, {bytes} bytes"
                );
                group.bench_with_input(BenchmarkId::new(*name, size), payload, |b, p| {
                    b.iter(|| check_arguments(toolbox, "book_hotel", black_box(p)))
                });
            }
        }
        group.finish();
    }
}

/// `schedule_export` arguments, valid but for `attack`, which is spliced
/// in where the columns go, and grown until the document is about `bytes`.
fn inside_valid(attack: &str, bytes: usize) -> Vec<u8> {
    let head = r#"{"account_ref":"acct_42","format":"jsonl","#;
    let mut doc = head.to_owned();
    match attack {
        "depth" => {
            let half = (bytes - head.len() - 16) / 2;
            doc.push_str(r#""columns":"#);
            doc.push_str(&"[".repeat(half));
            doc.push_str(&"]".repeat(half));
        }
        "values" => {
            doc.push_str(r#""columns":["id""#);
            while doc.len() < bytes {
                doc.push_str(r#","id""#);
            }
            doc.push(']');
        }
        "string" => {
            // The account reference itself is the long string.
            doc = r#"{"format":"jsonl","columns":["id"],"account_ref":""#.to_owned();
            while doc.len() < bytes {
                doc.push('x');
            }
            doc.push('"');
        }
        _ => {
            doc.push_str(r#""columns":["id"]"#);
            while doc.len() < bytes {
                doc.push_str(r#","format":"jsonl""#);
            }
        }
    }
    doc.push('}');
    doc.into_bytes()
}

fn hostile_inside_valid(c: &mut Criterion) {
    let mut accounts = Toolbox::new(export::Accounts::demo());
    accounts.register(export::ScheduleExport).unwrap();
    let limit = Limits::default().bytes();
    let mut group = c.benchmark_group("hostile inside a valid call");
    for attack in ["depth", "values", "string", "duplicate keys"] {
        for size in [limit / 8, limit - 64] {
            let payload = inside_valid(attack, size);
            let size = payload.len();
            let one_pass = check_arguments(&accounts, "schedule_export", &payload).unwrap();
            let gate_by_gate =
                check_arguments_gate_by_gate(&accounts, "schedule_export", &payload).unwrap();
            assert_eq!(one_pass, gate_by_gate);
            let code = one_pass.unwrap_err().code();
            for (path, check) in [
                ("one pass", check_arguments::<export::Accounts> as Check),
                (
                    "gate by gate",
                    check_arguments_gate_by_gate::<export::Accounts>,
                ),
            ] {
                let (count, bytes) = allocations(|| {
                    let _ = check(&accounts, "schedule_export", &payload);
                });
                println!(
                    "refusing {attack} ({size} bytes), {path}: {code}, {count} allocations, {bytes} bytes"
                );
                let id = BenchmarkId::new(format!("{attack}/{path}"), size);
                group.bench_with_input(id, &payload, |b, p| {
                    b.iter(|| check(&accounts, "schedule_export", black_box(p)))
                });
            }
        }
    }
    group.finish();
}

type Check = fn(&Toolbox<export::Accounts>, &str, &[u8]) -> Option<Result<(), toolgate::Rejection>>;

criterion_group!(benches, valid_calls, hostile, hostile_inside_valid);
criterion_group! {
    name = ratios;
    config = Criterion::default().with_measurement(RelativeToFloor);
    targets = relative_to_floor
}
criterion_main!(benches, ratios);
