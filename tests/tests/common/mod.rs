//! Shared by the integration tests: a runtime, an audit-log recorder, and
//! tools with every shape of argument.
#![allow(dead_code)]

pub mod shapes;
pub mod tools;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Once;

use tracing::field::{Field, Visit};
use tracing::span;
use tracing::{Event, Metadata, Subscriber};

/// Runs a future to completion on a fresh single-threaded runtime.
/// Gate 6's policy with approvals off for `irreversible` tools: for tests
/// of the other gates and of bodies, which would otherwise stop at the
/// approval every irreversible call asks for (`gates/effect/decisions.rs`
/// tests approvals themselves).
#[allow(dead_code)]
pub fn no_approvals() -> toolgate::EffectPolicy {
    toolgate::EffectPolicy::default().approval(
        toolgate::Effect::Irreversible,
        toolgate::ApprovalRule::Never,
    )
}

pub fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
        .block_on(future)
}

/// One recorded tracing event: its target, level, message and fields, as text.
pub type Record = BTreeMap<String, String>;

thread_local! {
    static RECORDING: RefCell<Option<Vec<Record>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns what it logged on this thread.
///
/// One global subscriber records into a thread-local list. (A scoped
/// subscriber per test is not enough: tracing caches each call site's
/// interest process-wide, and tests on other threads race to set it.)
pub fn audit<T>(f: impl FnOnce() -> T) -> (T, Vec<Record>) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        tracing::subscriber::set_global_default(Recorder).expect("no other global subscriber");
    });
    RECORDING.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let out = f();
    let records = RECORDING
        .with(|r| r.borrow_mut().take())
        .unwrap_or_default();
    (out, records)
}

struct Recorder;

struct Fields<'a>(&'a mut Record);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }

    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}

    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut record = Record::new();
        event.record(&mut Fields(&mut record));
        record.insert("target".to_owned(), event.metadata().target().to_owned());
        record.insert("level".to_owned(), event.metadata().level().to_string());
        RECORDING.with(|r| {
            if let Some(records) = r.borrow_mut().as_mut() {
                records.push(record);
            }
        });
    }

    fn enter(&self, _: &span::Id) {}

    fn exit(&self, _: &span::Id) {}
}
