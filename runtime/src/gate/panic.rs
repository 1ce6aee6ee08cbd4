//! A panic inside a call, contained: the call fails like an internal error
//! instead of unwinding through the host.
//!
//! Everything after gate 1 runs user code (garde rules, resolvers, policies,
//! checks, the body), and any of it may panic. Without containment the panic
//! would leave `Toolbox::call` with no outcome and no audit entry, and would
//! take the host's task (or thread) with it.
//!
//! Containment needs unwinding: with `panic = "abort"` the process ends as
//! it would anyway. The panic hook still runs first (by default it prints
//! the message to stderr).

use core::any::Any;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A payload caught from a panic.
pub(crate) struct Panic(Box<dyn Any + Send>);

impl From<Box<dyn Any + Send>> for Panic {
    fn from(payload: Box<dyn Any + Send>) -> Self {
        Panic(payload)
    }
}

impl Panic {
    /// The panic's message: the text `panic!` was given, or a note that the
    /// payload is not text.
    pub(crate) fn message(&self) -> &str {
        if let Some(message) = self.0.downcast_ref::<&'static str>() {
            message
        } else if let Some(message) = self.0.downcast_ref::<String>() {
            message
        } else {
            "a panic whose payload is not text"
        }
    }
}

/// Starts a future with `start`, catching a panic in it; drive the future
/// within [`Contained`].
///
/// `AssertUnwindSafe` is sound here because nothing observes the future's
/// state after it panicked: it is dropped unpolled, and the call's outcome
/// is the failure. State the user code shares through the toolbox (a
/// `Mutex` poisoned by the panic, say) is the application's to judge, as
/// after any panic.
pub(crate) fn started<F>(start: impl FnOnce() -> F) -> Result<F, Panic> {
    catch_unwind(AssertUnwindSafe(start)).map_err(Panic)
}

/// A future whose every poll catches a panic, as [`started`] does.
pub(crate) struct Contained<F>(pub(crate) F);

impl<F: Future + Unpin> Future for Contained<F> {
    type Output = Result<F::Output, Panic>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(future).poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(Panic(payload))),
        }
    }
}
