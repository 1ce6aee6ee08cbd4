//! How a tool body says no, or fails.

use std::borrow::Cow;
use std::error::Error as StdError;

use crate::{Code, Rejection};

/// The error half of a tool body's `Result<T, ToolError>`.
///
/// - [`ToolError::reject`]: the call is refused for a reason the model may
///   read, with a code and a safe message.
/// - [`ToolError::internal`] (and `?` on any error type): the tool failed.
///   The model sees only a generic message and the request id; the error
///   itself goes to the `toolgate::audit` tracing target.
///
/// ```
/// use toolgate::{DomainCode, ToolError};
///
/// const SOLD_OUT: DomainCode = DomainCode::new("SOLD_OUT");
///
/// fn check(rooms_left: u32) -> Result<(), ToolError> {
///     if rooms_left == 0 {
///         return Err(ToolError::reject(SOLD_OUT, "this hotel has no rooms left for these dates"));
///     }
///     let _parsed: u32 = "12".parse()?; // a failure here is internal
///     Ok(())
/// }
/// assert!(check(0).is_err());
/// ```
#[derive(Debug)]
pub struct ToolError(pub(crate) Repr);

#[derive(Debug)]
pub(crate) enum Repr {
    Rejected(Rejection),
    Internal(Box<dyn StdError + Send + Sync>),
}

impl ToolError {
    /// Refuses the call with `code` and a message written for the model. Not
    /// retryable unless [`retryable`](Self::retryable) says so (or the code
    /// is a gate 2–3 code).
    pub fn reject(code: impl Into<Code>, safe_message: impl Into<Cow<'static, str>>) -> Self {
        ToolError(Repr::Rejected(Rejection::new(code.into(), safe_message)))
    }

    /// Fails the call. `error` is logged with the request id and never shown
    /// to the model.
    pub fn internal(error: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        ToolError(Repr::Internal(error.into()))
    }

    /// Points a rejection at a field (a JSON Pointer such as `"/nights"`).
    /// No effect on internal failures.
    #[must_use]
    pub fn at(self, pointer: impl Into<Cow<'static, str>>) -> Self {
        match self.0 {
            Repr::Rejected(r) => ToolError(Repr::Rejected(r.at(pointer))),
            internal => ToolError(internal),
        }
    }

    /// Sets whether the model may retry a rejection.
    #[must_use]
    pub fn retryable(self, retryable: bool) -> Self {
        match self.0 {
            Repr::Rejected(r) => ToolError(Repr::Rejected(r.retryable(retryable))),
            internal => ToolError(internal),
        }
    }

    /// The rejection, if this is one.
    pub fn as_rejection(&self) -> Option<&Rejection> {
        match &self.0 {
            Repr::Rejected(r) => Some(r),
            Repr::Internal(_) => None,
        }
    }
}

impl From<Rejection> for ToolError {
    fn from(rejection: Rejection) -> Self {
        ToolError(Repr::Rejected(rejection))
    }
}

/// Any error type converts into an internal failure, so `?` works in bodies.
impl<E: StdError + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::internal(error)
    }
}
