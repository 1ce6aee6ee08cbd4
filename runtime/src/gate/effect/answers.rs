//! What a store answers gate 6: each operation's result, and why one did
//! not complete.

use std::borrow::Cow;

use serde_json::Value;

use crate::Outcome;

/// Why a store operation did not complete: the database is unreachable,
/// a statement failed, a lock was held past the store's deadline. The gate
/// answers the model with a retryable `UNAVAILABLE` and logs the error
/// with its whole cause chain.
///
/// Its `Display` says what the store was doing and never repeats its
/// cause, which [`source`](std::error::Error::source) returns: a printer
/// of the chain shows each cause once.
///
/// ```
/// use std::error::Error as _;
/// use toolgate::StoreError;
///
/// let error = StoreError::context("claim failed", "canceling statement due to lock timeout");
/// assert_eq!(error.to_string(), "effect store: claim failed");
/// assert_eq!(error.source().unwrap().to_string(), "canceling statement due to lock timeout");
/// assert!(StoreError::timed_out("claim did not finish within 200 ms").is_timeout());
/// ```
#[derive(Debug)]
pub struct StoreError {
    what: Cow<'static, str>,
    timed_out: bool,
    cause: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl StoreError {
    /// A store failure with its cause.
    pub fn new(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        StoreError::context("the operation failed", cause)
    }

    /// A store failure: what failed, and its cause.
    pub fn context(
        what: impl Into<Cow<'static, str>>,
        cause: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        StoreError {
            what: what.into(),
            timed_out: false,
            cause: Some(cause.into()),
        }
    }

    /// A store failure the store itself found, with no cause beneath it
    /// (a database it refuses to open, a record it refuses to replace).
    pub fn message(what: impl Into<Cow<'static, str>>) -> Self {
        StoreError {
            what: what.into(),
            timed_out: false,
            cause: None,
        }
    }

    /// An operation that did not finish within the store's deadline. It
    /// may still take effect in the database: a claim past its deadline
    /// holds its key until its lease runs out, and nothing runs meanwhile.
    pub fn timed_out(what: impl Into<Cow<'static, str>>) -> Self {
        StoreError {
            what: what.into(),
            timed_out: true,
            cause: None,
        }
    }

    /// The same error, caused by `cause`.
    #[must_use]
    pub fn caused_by(mut self, cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        self.cause = Some(cause.into());
        self
    }

    /// Whether the operation ran past the store's deadline.
    pub fn is_timeout(&self) -> bool {
        self.timed_out
    }
}

impl core::fmt::Display for StoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "effect store: {}", self.what)
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(|cause| cause as _)
    }
}

/// A person's decision on a pending approval.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Approved, by this actor.
    Approve(String),
    /// Denied, by this actor.
    Deny(String),
}

/// What [`EffectStore::decide`](crate::EffectStore::decide) found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decided {
    /// The approval was pending, unexpired, and now carries the decision.
    Done,
    /// No approval has this id.
    Unknown,
    /// The approval expired before the decision.
    Expired,
    /// The approval was already decided (or used).
    AlreadyDecided,
}

/// What [`EffectStore::consume`](crate::EffectStore::consume) found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Consumed {
    /// The approval was approved and unexpired, and is now used.
    Done,
    /// No approval has this id.
    Unknown,
    /// The approval expired.
    Expired,
    /// The approval is still pending.
    Pending,
    /// The approval was denied.
    Denied,
    /// The approval was used already.
    Used,
    /// The approval was withdrawn.
    Withdrawn,
}

/// What [`EffectStore::withdraw`](crate::EffectStore::withdraw) found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Withdrawn {
    /// The approval was pending, or approved and not yet used, and
    /// unexpired: it is now withdrawn, and can no longer be decided or
    /// used.
    Done,
    /// No approval has this id.
    Unknown,
    /// The approval expired.
    Expired,
    /// The approved call ran already: it cannot be taken back.
    Used,
    /// The approval was denied or withdrawn already.
    Closed,
}

/// A finished call's outcome as a store keeps it: the JSON text the model
/// read, made when the call finished and handed to the store as it is. A
/// store writes [`as_json`](Self::as_json) and gives back what it wrote
/// through [`from_json`](Self::from_json), which checks that it reads as
/// a JSON value.
///
/// ```
/// use toolgate::store::Recorded;
///
/// let recorded = Recorded::from_json(r#"{"status":"done","result":7}"#).unwrap();
/// assert_eq!(recorded.as_json(), r#"{"status":"done","result":7}"#);
/// assert_eq!(recorded.to_value().unwrap()["result"], 7);
/// assert!(Recorded::from_json("{not json").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded(String);

impl Recorded {
    /// The outcome a store wrote, read back: refused unless it reads as
    /// one JSON value, as [`to_value`](Self::to_value) reads it (a number
    /// out of range, a lone surrogate or text nested deeper than 128
    /// levels is refused here, not when a repeat is answered).
    pub fn from_json(text: impl Into<String>) -> Result<Recorded, serde_json::Error> {
        let text = text.into();
        serde_json::from_str::<Value>(&text)?;
        Ok(Recorded(text))
    }

    /// `value` as its JSON text.
    pub fn from_value(value: &Value) -> Recorded {
        Recorded(value.to_string())
    }

    /// The text to keep.
    pub fn as_json(&self) -> &str {
        &self.0
    }

    /// The outcome as a JSON value, as a repeat of the call is answered
    /// with it. An error only for an outcome the tool returned nested
    /// deeper than `serde_json` reads (128 levels): its repeat is answered
    /// as a failure, and the body is not run again.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(&self.0)
    }

    /// `outcome` as a store keeps it for a repeat: its JSON text, written
    /// straight from the outcome.
    pub(crate) fn of(outcome: &Outcome) -> Recorded {
        let mut text = Vec::with_capacity(64);
        let written = match outcome {
            // What every completed write records: `Serialize`'s object,
            // its constant part not escaped again on each call.
            Outcome::Done(value) => {
                text.extend_from_slice(br#"{"status":"done","result":"#);
                let written = serde_json::to_writer(&mut text, value);
                text.push(b'}');
                written
            }
            _ => serde_json::to_writer(&mut text, outcome),
        };
        // Serializing a JSON value or an outcome into memory cannot fail,
        // and writes UTF-8.
        let text = written
            .ok()
            .and_then(|()| String::from_utf8(text).ok())
            .unwrap_or_else(|| "null".to_owned());
        Recorded(text)
    }
}

/// What [`EffectStore::claim`](crate::EffectStore::claim) found for an idempotency key.
#[derive(Clone, Debug, PartialEq)]
pub enum Claim {
    /// The key was free (or its lease had run out): the caller holds it
    /// until `lease_until` and must [`complete`](crate::EffectStore::complete) it.
    Claimed,
    /// Another call holds the key and its lease has not run out.
    InFlight,
    /// A call with this key finished: the outcome the model read.
    Finished(Recorded),
    /// The key was claimed for a request with another digest: a key the
    /// host supplied, reused for different arguments.
    Conflict,
}
