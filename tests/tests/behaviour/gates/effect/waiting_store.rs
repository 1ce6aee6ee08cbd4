//! A call whose gate 6 waits on its store finishes when the store does.
//!
//! A tool whose body is a plain function is started where the toolbox
//! calls it, and a call that ends there allocates no future. One that
//! must wait for gate 6's store goes on as a future the toolbox polls with
//! the caller's waker: the store's wake-up must reach the caller, or the
//! call would never finish.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use toolgate::store::Recorded;
use toolgate::{
    Approval, BoxFuture, Claim, Consumed, Decided, Decision, EffectStore, MemoryStore, Outcome,
    StoreError, ToolContext, ToolError, Toolbox, tool,
};

/// Note a number, for keeps.
#[tool(effect = write)]
fn note(#[garde(range(min = 1, max = 100))] n: u8) -> Result<u8, ToolError> {
    Ok(n)
}

/// The memory store, each answer a millisecond late: its futures wait on a
/// timer, which wakes whichever waker polled them last.
#[derive(Default)]
struct Slow {
    inner: MemoryStore,
    waits: AtomicUsize,
}

impl Slow {
    fn late<'a, T: Send + 'a>(
        &'a self,
        answer: BoxFuture<'a, Result<T, StoreError>>,
    ) -> BoxFuture<'a, Result<T, StoreError>> {
        self.waits.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(1)).await;
            answer.await
        })
    }
}

impl EffectStore for Slow {
    fn create_approval(&self, record: Approval) -> BoxFuture<'_, Result<(), StoreError>> {
        self.late(self.inner.create_approval(record))
    }

    fn approval<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Approval>, StoreError>> {
        self.late(self.inner.approval(id))
    }

    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Decided, StoreError>> {
        self.late(self.inner.decide(id, decision, now))
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Consumed, StoreError>> {
        self.late(self.inner.consume(id, now))
    }

    fn pending_approvals<'a>(
        &'a self,
        approver: &'a toolgate::ToolContext,
        now: SystemTime,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Approval>, StoreError>> {
        self.late(self.inner.pending_approvals(approver, now, limit))
    }

    fn withdraw<'a>(
        &'a self,
        id: &'a str,
        by: String,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<toolgate::Withdrawn, StoreError>> {
        self.late(self.inner.withdraw(id, by, now))
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        now: SystemTime,
        lease: Duration,
        retain: Duration,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        self.late(self.inner.claim(key, digest, now, lease, retain))
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Recorded,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.late(self.inner.complete(key, outcome))
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.late(self.inner.release(key))
    }

    fn count<'a>(
        &'a self,
        key: &'a str,
        now: SystemTime,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StoreError>> {
        self.late(self.inner.count(key, now, window))
    }

    fn take<'a>(
        &'a self,
        key: &'a str,
        capacity: u32,
        period: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        self.late(self.inner.take(key, capacity, period, now))
    }
}

#[test]
fn a_call_that_waits_on_its_store_finishes_and_is_kept() {
    let store = Arc::new(Slow::default());
    let mut toolbox = Toolbox::new(()).with_effect_store(store.clone());
    toolbox.register(Note).unwrap();
    let ctx = ToolContext::new("agent", "tenant_a", "req_1")
        .allow_tools(["note"])
        .with_call_id("call_1");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let (first, again) = runtime.block_on(async {
        let within = Duration::from_secs(10);
        let first = tokio::time::timeout(within, toolbox.call(&ctx, "note", r#"{"n":7}"#)).await;
        let again = tokio::time::timeout(within, toolbox.call(&ctx, "note", r#"{"n":7}"#)).await;
        (first, again)
    });
    let first = first.expect("the first call finishes");
    assert!(matches!(&first, Outcome::Done(v) if v == 7), "{first:?}");
    let again = again.expect("the repeat finishes");
    assert!(again.is_replay(), "{again:?}");
    // Gate 6 claimed the key and kept the outcome, each through the store.
    assert!(store.waits.load(Ordering::SeqCst) >= 3);
}
