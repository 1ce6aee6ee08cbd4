//! How a tool body says no, or fails.

use std::borrow::Cow;
use std::error::Error as StdError;

use crate::{DomainCode, Rejection};

/// The error half of a tool body's `Result<T, ToolError>`.
///
/// - [`ToolError::reject`]: the call is refused for a reason the model may
///   read, with the body's own [`DomainCode`] and a safe message.
/// - [`ToolError::not_permitted`]: the call is refused with the gates' flat
///   `NOT_PERMITTED`, byte-identical to theirs; the reason, if given with
///   [`because`](Self::because), goes to the audit log only.
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
    /// A flat denial, and the reason for the audit log.
    Denied(Rejection, Cow<'static, str>),
    Internal(Box<dyn StdError + Send + Sync>),
}

/// What the audit log says for a body's flat denial without a reason.
const NO_REASON: &str = "the tool denied the call without a reason";

/// A code a tool body may reject with: a [`DomainCode`], and nothing else.
///
/// The codes in [`Code`](crate::Code)'s table belong to the gates: a body
/// that could answer `NOT_PERMITTED` with a message of its own would undo the
/// flat denial ("ord_3 exists but belongs to tenant_b"), and one that
/// answered `OUT_OF_RANGE` would speak for gate 3. So
/// [`ToolError::reject`] takes only a `DomainCode`, and a deliberate flat
/// denial is [`ToolError::not_permitted`]. Sealed: implemented for
/// `DomainCode` only.
///
/// ```
/// use toolgate::{DomainCode, ToolError};
///
/// const SOLD_OUT: DomainCode = DomainCode::new("SOLD_OUT");
/// let _ = ToolError::reject(SOLD_OUT, "no rooms left");
/// ```
///
/// ```compile_fail
/// use toolgate::{Code, ToolError};
///
/// let _ = ToolError::reject(Code::NotPermitted, "ord_3 exists but belongs to tenant_b");
/// ```
#[diagnostic::on_unimplemented(
    message = "a tool body rejects with its own `DomainCode`, not with `{Self}`",
    label = "not a `DomainCode`",
    note = "the codes toolgate defines belong to its gates: a body may not answer in their name",
    note = "define a code, `const SOLD_OUT: DomainCode = DomainCode::new(\"SOLD_OUT\");`, or refuse like gates 4-5 with `ToolError::not_permitted().because(\"the reason, for the audit log\")`"
)]
pub trait BodyCode: sealed::Sealed {
    #[doc(hidden)]
    fn into_domain_code(self) -> DomainCode;
}

impl BodyCode for DomainCode {
    fn into_domain_code(self) -> DomainCode {
        self
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::DomainCode {}
}

impl ToolError {
    /// Refuses the call with the body's own `code` and a message written for
    /// the model. Not retryable unless [`retryable`](Self::retryable) says
    /// so.
    ///
    /// `code` is a [`DomainCode`]; toolgate's own codes are the gates' alone
    /// ([`BodyCode`] says why).
    ///
    /// ```
    /// use toolgate::{DomainCode, ToolError};
    ///
    /// const EXCEEDS_REFUNDABLE: DomainCode = DomainCode::new("EXCEEDS_REFUNDABLE");
    ///
    /// let error = ToolError::reject(EXCEEDS_REFUNDABLE, "at most 500 cents can still be refunded")
    ///     .at("/amount_cents");
    /// let rejection = error.as_rejection().unwrap();
    /// assert_eq!(rejection.code().as_str(), "EXCEEDS_REFUNDABLE");
    /// assert_eq!(rejection.path(), "/amount_cents");
    /// ```
    pub fn reject(code: impl BodyCode, safe_message: impl Into<Cow<'static, str>>) -> Self {
        let code = code.into_domain_code();
        ToolError(Repr::Rejected(Rejection::new(code.into(), safe_message)))
    }

    /// Refuses the call with the one flat `NOT_PERMITTED` that gates 0, 4
    /// and 5 give: the same code, path, message and retryability, byte for
    /// byte ([`Rejection::not_permitted`]), so that the model cannot tell a
    /// body's denial from a missing object. Say why with
    /// [`because`](Self::because); the reason goes to the audit log only.
    ///
    /// ```
    /// use toolgate::{Rejection, ToolError};
    ///
    /// let error = ToolError::not_permitted().because("ord_3 belongs to another team");
    /// assert_eq!(error.as_rejection(), Some(&Rejection::not_permitted()));
    /// ```
    pub fn not_permitted() -> Self {
        ToolError(Repr::Denied(
            Rejection::not_permitted(),
            Cow::Borrowed(NO_REASON),
        ))
    }

    /// Reports a lost race: the object the body was to change is no longer
    /// at the version it was authorized at (its compare-and-set matched no
    /// row), and the body changed nothing. Gate 6 records no outcome for
    /// the call, so it can run again; a call that was approved asks for a
    /// fresh approval with the object as it is now. The model reads a
    /// retryable `STALE`.
    ///
    /// ```
    /// use toolgate::{Code, ToolError};
    ///
    /// let error = ToolError::stale();
    /// assert_eq!(error.as_rejection().map(|r| r.code()), Some(Code::Stale));
    /// ```
    pub fn stale() -> Self {
        ToolError(Repr::Rejected(crate::gate::effect::stale()))
    }

    /// The reason for a flat denial from [`not_permitted`](Self::not_permitted),
    /// for the audit log (escaped and cut there like every logged text).
    /// Never shown to the model. No effect on other errors.
    ///
    /// ```
    /// use toolgate::ToolError;
    ///
    /// let error = ToolError::not_permitted().because("the order is under dispute");
    /// assert_eq!(error.as_rejection().unwrap().safe_message(), "This action is not permitted.");
    /// ```
    #[must_use]
    pub fn because(self, reason: impl Into<Cow<'static, str>>) -> Self {
        match self.0 {
            Repr::Denied(rejection, _) => ToolError(Repr::Denied(rejection, reason.into())),
            other => ToolError(other),
        }
    }

    /// Fails the call. `error` is logged with the request id and never shown
    /// to the model.
    ///
    /// ```
    /// use toolgate::ToolError;
    ///
    /// let error = ToolError::internal("connection refused");
    /// assert!(error.as_rejection().is_none());
    /// ```
    pub fn internal(error: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        ToolError(Repr::Internal(error.into()))
    }

    /// Points a rejection at a field (a JSON Pointer such as `"/nights"`).
    /// No effect on a flat denial, which always points at `""`, or on an
    /// internal failure.
    ///
    /// ```
    /// use toolgate::{DomainCode, ToolError};
    ///
    /// const UNKNOWN_HOTEL: DomainCode = DomainCode::new("UNKNOWN_HOTEL");
    /// let error = ToolError::reject(UNKNOWN_HOTEL, "no hotel has this id").at("/hotel_id");
    /// assert_eq!(error.as_rejection().unwrap().path(), "/hotel_id");
    /// assert_eq!(ToolError::not_permitted().at("/hotel_id").as_rejection().unwrap().path(), "");
    /// ```
    #[must_use]
    pub fn at(self, pointer: impl Into<Cow<'static, str>>) -> Self {
        match self.0 {
            Repr::Rejected(r) => ToolError(Repr::Rejected(r.at(pointer))),
            other => ToolError(other),
        }
    }

    /// Sets whether the model may retry a rejection. No effect on a flat
    /// denial, which is never retryable, or on an internal failure.
    ///
    /// ```
    /// use toolgate::{DomainCode, ToolError};
    ///
    /// const SOLD_OUT: DomainCode = DomainCode::new("SOLD_OUT");
    /// let error = ToolError::reject(SOLD_OUT, "no rooms left; try other dates").retryable(true);
    /// assert!(error.as_rejection().unwrap().is_retryable());
    /// ```
    #[must_use]
    pub fn retryable(self, retryable: bool) -> Self {
        match self.0 {
            Repr::Rejected(r) => ToolError(Repr::Rejected(r.retryable(retryable))),
            other => ToolError(other),
        }
    }

    /// The rejection the model will read, if this is a refusal (a flat denial
    /// included).
    ///
    /// ```
    /// use toolgate::ToolError;
    ///
    /// assert!(ToolError::not_permitted().as_rejection().is_some());
    /// assert!(ToolError::internal("disk full").as_rejection().is_none());
    /// ```
    pub fn as_rejection(&self) -> Option<&Rejection> {
        match &self.0 {
            Repr::Rejected(r) | Repr::Denied(r, _) => Some(r),
            Repr::Internal(_) => None,
        }
    }
}

/// Any error converts into an internal failure, so `?` works in bodies: a
/// type implementing `std::error::Error`, an `anyhow::Error` (which
/// converts into a boxed error), a boxed error, or a `String`.
///
/// ```
/// use toolgate::ToolError;
///
/// fn parse(text: &str) -> Result<u32, ToolError> {
///     Ok(text.parse::<u32>()?)
/// }
///
/// fn described(found: bool) -> Result<(), ToolError> {
///     let missing: Result<(), String> = Err("the ledger is missing".into());
///     if !found {
///         missing?;
///     }
///     Ok(())
/// }
///
/// assert!(parse("7").is_ok());
/// let failed = parse("seven").unwrap_err();
/// assert!(failed.as_rejection().is_none()); // internal: the model never reads it
/// assert!(described(false).unwrap_err().as_rejection().is_none());
/// ```
impl<E: Into<Box<dyn StdError + Send + Sync>>> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::internal(error)
    }
}
