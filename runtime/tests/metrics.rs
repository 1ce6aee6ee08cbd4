//! Feature `metrics`: every call is counted by tool, gate, outcome and code
//! (`toolgate.calls`) and timed (`gen_ai.execute_tool.duration`, seconds)
//! through the `metrics` facade, to whichever recorder the host installed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use metrics::{
    Counter, CounterFn, Gauge, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
    SharedString, Unit,
};
use toolgate::{ToolContext, ToolError, Toolbox, tool};

/// One metric's name and labels, sorted.
type Series = (String, BTreeMap<String, String>);

/// What the recorder was told: each counter's total, each histogram's
/// values, each metric's unit.
#[derive(Default)]
struct Seen {
    counts: BTreeMap<Series, u64>,
    values: BTreeMap<Series, Vec<f64>>,
    units: BTreeMap<String, Option<Unit>>,
}

#[derive(Clone, Default)]
struct Recording(Arc<Mutex<Seen>>);

struct Handle(Recording, Series);

impl CounterFn for Handle {
    fn increment(&self, value: u64) {
        *self
            .0
            .0
            .lock()
            .unwrap()
            .counts
            .entry(self.1.clone())
            .or_default() += value;
    }

    fn absolute(&self, value: u64) {
        self.0
            .0
            .lock()
            .unwrap()
            .counts
            .insert(self.1.clone(), value);
    }
}

impl HistogramFn for Handle {
    fn record(&self, value: f64) {
        let mut seen = self.0.0.lock().unwrap();
        seen.values.entry(self.1.clone()).or_default().push(value);
    }
}

fn series(key: &Key) -> Series {
    let labels = key
        .labels()
        .map(|l| (l.key().to_owned(), l.value().to_owned()))
        .collect();
    (key.name().to_owned(), labels)
}

impl Recorder for Recording {
    fn describe_counter(&self, key: KeyName, unit: Option<Unit>, _: SharedString) {
        let mut seen = self.0.lock().unwrap();
        seen.units.insert(key.as_str().to_owned(), unit);
    }

    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn describe_histogram(&self, key: KeyName, unit: Option<Unit>, _: SharedString) {
        let mut seen = self.0.lock().unwrap();
        seen.units.insert(key.as_str().to_owned(), unit);
    }

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        Counter::from_arc(Arc::new(Handle(self.clone(), series(key))))
    }

    fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::noop()
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::from_arc(Arc::new(Handle(self.clone(), series(key))))
    }
}

/// Greet someone.
#[tool(effect = read)]
fn greet(#[garde(length(chars, min = 1, max = 20))] name: String) -> Result<String, ToolError> {
    Ok(format!("Hello, {name}!"))
}

/// Wire money away.
#[tool(effect = irreversible)]
fn wire(#[garde(range(min = 1, max = 100))] amount: u32) -> Result<u32, ToolError> {
    Ok(amount)
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn every_call_is_counted_by_the_gate_that_decided_it_and_timed() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Greet).unwrap().register(Wire).unwrap();
    let ctx = ToolContext::new("agent_1", "tenant_a", "req_1").allow_tools(["greet", "wire"]);
    let recording = Recording::default();
    metrics::with_local_recorder(&recording, || {
        block_on(async {
            toolbox.call(&ctx, "greet", r#"{"name":"Ada"}"#).await;
            toolbox.call(&ctx, "greet", r#"{"name":"Grace"}"#).await;
            toolbox.call(&ctx, "greet", r#"{"name":""}"#).await;
            toolbox.call(&ctx, "wire", r#"{"amount":5}"#).await;
            // A name the model made up is one series, whatever the name.
            toolbox.call(&ctx, "drop_tables", "{}").await;
            toolbox.call(&ctx, "rm_rf", "{}").await;
        });
    });
    let seen = recording.0.lock().unwrap();
    let calls = |pairs: &[(&str, &str)]| {
        seen.counts
            .get(&("toolgate.calls".to_owned(), labels(pairs)))
            .copied()
    };
    let greet = ("gen_ai.tool.name", "greet");
    assert_eq!(
        calls(&[
            greet,
            ("toolgate.gate", "execute"),
            ("toolgate.outcome", "done")
        ]),
        Some(2),
        "{:#?}",
        seen.counts
    );
    assert_eq!(
        calls(&[
            greet,
            ("toolgate.gate", "rules"),
            ("toolgate.outcome", "rejected"),
            ("toolgate.code", "INVALID_LENGTH"),
        ]),
        Some(1),
        "{:#?}",
        seen.counts
    );
    assert_eq!(
        calls(&[
            ("gen_ai.tool.name", "wire"),
            ("toolgate.gate", "effect"),
            ("toolgate.outcome", "approval_required"),
        ]),
        Some(1),
        "{:#?}",
        seen.counts
    );
    assert_eq!(
        calls(&[
            ("gen_ai.tool.name", "_OTHER"),
            ("toolgate.gate", "admission"),
            ("toolgate.outcome", "rejected"),
            ("toolgate.code", "NOT_PERMITTED"),
        ]),
        Some(2),
        "{:#?}",
        seen.counts
    );
    assert_eq!(seen.counts.values().sum::<u64>(), 6);

    // Every call's duration, by tool and outcome, with `error.type` for
    // a call that did not succeed.
    let operation = ("gen_ai.operation.name", "execute_tool");
    let durations = |pairs: &[(&str, &str)]| {
        seen.values
            .get(&("gen_ai.execute_tool.duration".to_owned(), labels(pairs)))
            .cloned()
            .unwrap_or_default()
    };
    let done = durations(&[greet, operation, ("toolgate.outcome", "done")]);
    assert_eq!(done.len(), 2, "{:#?}", seen.values);
    assert!(done.iter().all(|s| s.is_finite() && *s >= 0.0), "{done:?}");
    let refused = durations(&[
        greet,
        operation,
        ("toolgate.outcome", "rejected"),
        ("error.type", "INVALID_LENGTH"),
    ]);
    assert_eq!(refused.len(), 1, "{:#?}", seen.values);
    assert_eq!(seen.values.values().map(Vec::len).sum::<usize>(), 6);
    assert_eq!(
        seen.units.get("gen_ai.execute_tool.duration"),
        Some(&Some(Unit::Seconds))
    );
    assert_eq!(seen.units.get("toolgate.calls"), Some(&Some(Unit::Count)));
}
