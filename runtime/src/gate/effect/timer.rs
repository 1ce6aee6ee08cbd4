//! A deadline for a tool body, without an async runtime of our own.
//!
//! One background thread keeps the deadlines of running bodies and wakes
//! each call's task when its deadline passes. It starts on the first call
//! with a timeout and sleeps while there is none.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// A tool's body, within its time limit if it has one: `Err` with the
/// limit if the body had not finished by then.
///
/// The body is pinned by the call's own future, which owns it: `Timed`
/// holds only the pinned reference, so that it is generic over the body
/// in its `poll` alone, and nothing else is compiled once for each tool.
#[doc(hidden)]
pub struct Timed<'b, F> {
    body: Pin<&'b mut F>,
    deadline: Option<(Deadline, Duration)>,
}

impl<'b, F: Future> Timed<'b, F> {
    pub(crate) fn new(body: Pin<&'b mut F>, limit: Option<Duration>) -> Self {
        Timed {
            body,
            deadline: limit.map(|limit| {
                let deadline = Deadline {
                    at: Instant::now() + limit,
                    entry: None,
                };
                (deadline, limit)
            }),
        }
    }
}

impl<F: Future> Future for Timed<'_, F> {
    type Output = Result<F::Output, Duration>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Poll::Ready(output) = this.body.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        match &mut this.deadline {
            Some((deadline, limit)) => match Pin::new(deadline).poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(*limit)),
                Poll::Pending => Poll::Pending,
            },
            None => Poll::Pending,
        }
    }
}

/// A future ready at `at`, woken by the timer thread: a pause between
/// attempts that needs no async runtime.
pub(crate) fn sleep_until(at: Instant) -> Deadline {
    Deadline { at, entry: None }
}

pub(crate) struct Deadline {
    at: Instant,
    entry: Option<Arc<Entry>>,
}

struct Entry {
    fired: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Future for Deadline {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        if Instant::now() >= this.at {
            return Poll::Ready(());
        }
        let at = this.at;
        let entry = this.entry.get_or_insert_with(|| {
            let entry = Arc::new(Entry {
                fired: AtomicBool::new(false),
                waker: Mutex::new(None),
            });
            timers().add(at, Arc::clone(&entry));
            entry
        });
        if entry.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        *entry.waker.lock().unwrap_or_else(PoisonError::into_inner) = Some(cx.waker().clone());
        // Fired between the check and the registration: do not miss it.
        if entry.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

struct Timers {
    queue: Mutex<BinaryHeap<Pending>>,
    changed: Condvar,
}

struct Pending {
    at: Instant,
    entry: Arc<Entry>,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pending {
    /// The earliest deadline first out of the (max-)heap.
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        other.at.cmp(&self.at)
    }
}

fn timers() -> &'static Timers {
    static TIMERS: OnceLock<&'static Timers> = OnceLock::new();
    TIMERS.get_or_init(|| {
        let timers: &'static Timers = Box::leak(Box::new(Timers {
            queue: Mutex::new(BinaryHeap::new()),
            changed: Condvar::new(),
        }));
        // If the thread cannot start, deadlines still fire when the body
        // is next polled; nothing else depends on it.
        let _ = std::thread::Builder::new()
            .name("toolgate-timer".to_owned())
            .spawn(move || timers.run());
        timers
    })
}

impl Timers {
    fn add(&self, at: Instant, entry: Arc<Entry>) {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.push(Pending { at, entry });
        self.changed.notify_one();
    }

    fn run(&self) {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let now = Instant::now();
            while queue.peek().is_some_and(|p| p.at <= now) {
                if let Some(due) = queue.pop() {
                    due.entry.fired.store(true, Ordering::Release);
                    let waker = due
                        .entry
                        .waker
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .take();
                    if let Some(waker) = waker {
                        waker.wake();
                    }
                }
            }
            queue = match queue.peek().map(|p| p.at) {
                Some(at) => {
                    self.changed
                        .wait_timeout(queue, at.saturating_duration_since(now))
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                None => self
                    .changed
                    .wait(queue)
                    .unwrap_or_else(PoisonError::into_inner),
            };
        }
    }
}
