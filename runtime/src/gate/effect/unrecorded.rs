//! Outcomes of bodies that ran while the store could not record them.

use std::time::{Duration, Instant};

use super::answers::{Recorded, StoreError};
use super::store::EffectStore;
use super::timer;

/// Finished outcomes the store failed to record. A body ran for each, so
/// none may be lost: a repeat in this process replays it from here, and
/// every call through gate 6 first hands the store the oldest few again.
///
/// Only a call whose claim the store took can land here, so the buffer
/// holds at most the calls that were running when the store failed.
#[derive(Default)]
pub(crate) struct Unrecorded {
    held: std::sync::Mutex<Vec<(String, Recorded)>>,
    /// Whether `held` has anything: read on every call without the lock.
    any: std::sync::atomic::AtomicBool,
    /// Whether a failed flush logged what `held` has.
    logged: std::sync::atomic::AtomicBool,
}

/// Unrecorded outcomes offered to the store again per call.
const RETRY_UNRECORDED: usize = 8;

/// The longest pause between two attempts to record an outcome.
const LONGEST_PAUSE: Duration = Duration::from_millis(500);

/// Records `outcome` under `key`, trying again with growing pauses until
/// `within` has passed since the first try failed: a store that is locked
/// or unreachable for a moment still records the outcome before the call
/// answers. The last failure if it never did.
///
/// The outcome's JSON is made for each try, rather than one copy kept and
/// cloned: the first try, which almost always succeeds, costs no more than
/// handing the store the JSON.
pub(crate) async fn record(
    store: &dyn EffectStore,
    key: &str,
    outcome: &crate::Outcome,
    within: Duration,
) -> Result<(), StoreError> {
    let Err(mut error) = store.complete(key, Recorded::of(outcome)).await else {
        return Ok(());
    };
    let until = Instant::now() + within;
    let mut pause = Duration::from_millis(10);
    loop {
        let now = Instant::now();
        if now >= until {
            return Err(error);
        }
        timer::sleep_until((now + pause).min(until)).await;
        pause = (pause * 2).min(LONGEST_PAUSE);
        match store.complete(key, Recorded::of(outcome)).await {
            Ok(()) => return Ok(()),
            Err(again) => error = again,
        }
    }
}

/// Why [`Toolbox::flush`](crate::Toolbox::flush) could not hand the store
/// every outcome it holds: how many are left, and the store's last
/// failure (its [`source`](std::error::Error::source)).
///
/// ```
/// # use std::time::Duration;
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let toolbox = toolgate::Toolbox::new(());
/// // Nothing is waiting for the store: the flush succeeds at once.
/// assert!(toolbox.flush(Duration::from_secs(5)).await.is_ok());
/// # });
/// ```
#[derive(Debug)]
pub struct FlushError {
    remaining: usize,
    cause: StoreError,
}

impl FlushError {
    /// How many outcomes the store did not take. Each is in the audit log
    /// with its key (`outcome unrecorded at shutdown`).
    pub fn remaining(&self) -> usize {
        self.remaining
    }
}

impl core::fmt::Display for FlushError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} outcomes of bodies that ran could not be recorded",
            self.remaining
        )
    }
}

impl std::error::Error for FlushError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

impl Unrecorded {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, Recorded)>> {
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps an outcome the store failed to record (or that a body left
    /// when its call stopped, where nothing could wait for the store).
    pub(crate) fn keep(&self, key: String, outcome: Recorded) {
        let mut held = self.lock();
        held.retain(|(k, _)| *k != key);
        held.push((key, outcome));
        self.any.store(true, std::sync::atomic::Ordering::Release);
        self.logged
            .store(false, std::sync::atomic::Ordering::Release);
    }

    /// The unrecorded outcome of `key`, if there is one.
    pub(crate) fn get(&self, key: &str) -> Option<Recorded> {
        if self.is_empty() {
            return None;
        }
        let held = self.lock();
        held.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }

    /// Whether no outcome waits for the store.
    pub(crate) fn is_empty(&self) -> bool {
        !self.any.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Offers the oldest unrecorded outcomes to the store again, stopping
    /// at the first failure: the store is still down.
    pub(crate) async fn retry(&self, store: &dyn EffectStore) -> Result<(), StoreError> {
        self.offer(store, RETRY_UNRECORDED).await
    }

    /// Offers up to `most` of the oldest outcomes to the store, stopping at
    /// the first failure.
    async fn offer(&self, store: &dyn EffectStore, most: usize) -> Result<(), StoreError> {
        let batch: Vec<(String, Recorded)> = self.lock().iter().take(most).cloned().collect();
        for (key, outcome) in batch {
            store.complete(&key, outcome).await?;
            let mut held = self.lock();
            held.retain(|(k, _)| *k != key);
            if held.is_empty() {
                self.any.store(false, std::sync::atomic::Ordering::Release);
            }
        }
        Ok(())
    }

    /// Hands the store every outcome held here, trying again with growing
    /// pauses until `within` has passed; each outcome still held then is
    /// logged with its key.
    pub(crate) async fn flush(
        &self,
        store: &dyn EffectStore,
        within: Duration,
    ) -> Result<(), FlushError> {
        let until = Instant::now() + within;
        let mut pause = Duration::from_millis(10);
        loop {
            let error = match self.offer(store, usize::MAX).await {
                Ok(()) if self.is_empty() => return Ok(()),
                // Kept while the flush ran: offered on the next round.
                Ok(()) => continue,
                Err(error) => error,
            };
            let now = Instant::now();
            if now >= until {
                let held = self.lock();
                for (key, outcome) in held.iter() {
                    crate::audit::unrecorded_at_shutdown(key, outcome.as_json());
                }
                self.logged
                    .store(true, std::sync::atomic::Ordering::Release);
                return Err(FlushError {
                    remaining: held.len(),
                    cause: error,
                });
            }
            timer::sleep_until((now + pause).min(until)).await;
            pause = (pause * 2).min(LONGEST_PAUSE);
        }
    }
}

impl Drop for Unrecorded {
    /// A toolbox stopping with outcomes its store never took: each is lost
    /// to the other servers once this process ends, and a repeat there
    /// runs its body again after the lease. The audit log is where an
    /// operator finds them (unless a failed flush logged them already).
    fn drop(&mut self) {
        if self.logged.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        for (key, outcome) in self.lock().iter() {
            crate::audit::unrecorded_at_shutdown(key, outcome.as_json());
        }
    }
}
