//! What the Cedar tests share: a runtime, contexts, a recorder of the
//! audit log, and a desk of documents decided by Cedar alone.

#![allow(dead_code)]

pub mod desk;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Once;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record as SpanRecord};
use tracing::{Event, Metadata, Subscriber};

pub fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
        .block_on(future)
}

/// Gate 6 asks only where a policy does: irreversible calls need no
/// approval of their own.
pub fn policy_decides() -> toolgate::EffectPolicy {
    toolgate::EffectPolicy::default().approval(
        toolgate::Effect::Irreversible,
        toolgate::ApprovalRule::Never,
    )
}

/// One recorded event of the `toolgate::audit` target: its message and
/// fields.
pub type Record = BTreeMap<String, String>;

thread_local! {
    static RECORDING: RefCell<Option<Vec<Record>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns the audit events it logged on this thread.
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
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == "toolgate::audit"
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &SpanRecord<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut record = Record::new();
        event.record(&mut Fields(&mut record));
        RECORDING.with(|r| {
            if let Some(records) = r.borrow_mut().as_mut() {
                records.push(record);
            }
        });
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}
