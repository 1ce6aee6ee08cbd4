//! The stable rejection codes a model can see.

use core::fmt;

/// Why a call was refused, as a stable machine-readable code.
///
/// Codes serialize in `SCREAMING_SNAKE_CASE` and never change meaning once
/// published. The gate that produces each code decides how specific it may be:
///
/// | code | gate | retryable | meaning |
/// |---|---|---|---|
/// | `NOT_PERMITTED` | 0, 4–5, body | no | the tool does not exist, is not allowed in this request, or the caller lacks its scope; a referenced object is missing, another tenant's, denied by policy, or its lookup failed; a body denied with [`ToolError::not_permitted`](crate::ToolError::not_permitted) (one answer for all) |
/// | `PAYLOAD_TOO_LARGE` | 1 | no | the argument JSON is longer than the byte limit |
/// | `TOO_DEEP` | 1 | no | objects and arrays nest deeper than the depth limit |
/// | `TOO_MANY_NODES` | 1 | no | the document holds more values than the node limit |
/// | `STRING_TOO_LONG` | 1 | no | one string is longer than the per-string limit |
/// | `DUPLICATE_KEY` | 1 | no | an object repeats a key |
/// | `MALFORMED_JSON` | 1 | no | not JSON: bad syntax, invalid UTF-8, a lone surrogate, or data after the object |
/// | `NOT_AN_OBJECT` | 1 | no | the arguments are JSON but not an object |
/// | `UNKNOWN_FIELD` | 2 | yes | a field the tool does not have |
/// | `MISSING_FIELD` | 2 | yes | a required field is absent |
/// | `WRONG_TYPE` | 2 | yes | a value has the wrong JSON type (a float for an integer included) |
/// | `INVALID_VALUE` | 2–3 | yes | a value outside an enum, or failing a rule with no more specific code (every custom garde rule) |
/// | `OUT_OF_RANGE` | 2–3 | yes | a number below the minimum or above the maximum |
/// | `INVALID_LENGTH` | 3 | yes | a string or array that is too short or too long |
/// | `PATTERN_MISMATCH` | 3 | yes | a string that does not match the field's pattern |
/// | `INVALID_FORMAT` | 3 | yes | a string that is not a valid email, URL, IP address, … |
/// | `IN_PROGRESS` | 6 | yes | a call with the same idempotency key is running; try again shortly |
/// | `IDEMPOTENCY_CONFLICT` | 6 | no | the idempotency key the host gave was used for a call with other arguments |
/// | `APPROVAL_PENDING` | 6 | no | the approval being resumed has not been decided yet |
/// | `APPROVAL_DENIED` | 6 | no | a person denied the approval; the call did not run |
/// | `APPROVAL_EXPIRED` | 6 | no | the approval expired before it was decided or resumed |
/// | `APPROVAL_USED` | 6 | no | the approval was used by an earlier run |
/// | `RETRY_BUDGET_EXHAUSTED` | 6 | no | this conversation made this rejected call, or rejected calls in all, more often than the budget allows |
/// | `RATE_LIMITED` | 6 | yes | the caller made more calls of this tool than its rate limit allows; the message says when to try again |
/// | `TIMEOUT` | 6 | no | the body ran past its time limit and was stopped; it may or may not have taken effect |
/// | `STALE` | 6, body | yes | an object changed between its authorization (or approval) and the write; nothing was done |
/// | `UNAVAILABLE` | 6 | yes | the server could not record the call's effect state; nothing ran |
/// | `VERSION_MISMATCH` | stored calls | no | a stored call was made for another version of the tool |
/// | `INTERNAL` | 7 | no | the tool failed, or something after gate 1 panicked; only the request id is shown |
///
/// A tool body adds its own codes with [`DomainCode`]; these are the gates'
/// alone ([`BodyCode`](crate::BodyCode)).
///
/// ```
/// use toolgate::Code;
///
/// assert_eq!(Code::OutOfRange.as_str(), "OUT_OF_RANGE");
/// assert!(!Code::NotPermitted.retryable());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// `NOT_PERMITTED`
    NotPermitted,
    /// `PAYLOAD_TOO_LARGE`
    PayloadTooLarge,
    /// `TOO_DEEP`
    TooDeep,
    /// `TOO_MANY_NODES`
    TooManyNodes,
    /// `STRING_TOO_LONG`
    StringTooLong,
    /// `DUPLICATE_KEY`
    DuplicateKey,
    /// `MALFORMED_JSON`
    MalformedJson,
    /// `NOT_AN_OBJECT`
    NotAnObject,
    /// `UNKNOWN_FIELD`
    UnknownField,
    /// `MISSING_FIELD`
    MissingField,
    /// `WRONG_TYPE`
    WrongType,
    /// `INVALID_VALUE`
    InvalidValue,
    /// `OUT_OF_RANGE`
    OutOfRange,
    /// `INVALID_LENGTH`
    InvalidLength,
    /// `PATTERN_MISMATCH`
    PatternMismatch,
    /// `INVALID_FORMAT`
    InvalidFormat,
    /// `IN_PROGRESS`
    InProgress,
    /// `IDEMPOTENCY_CONFLICT`
    IdempotencyConflict,
    /// `APPROVAL_PENDING`
    ApprovalPending,
    /// `APPROVAL_DENIED`
    ApprovalDenied,
    /// `APPROVAL_EXPIRED`
    ApprovalExpired,
    /// `APPROVAL_USED`
    ApprovalUsed,
    /// `RETRY_BUDGET_EXHAUSTED`
    RetryBudgetExhausted,
    /// `RATE_LIMITED`
    RateLimited,
    /// `TIMEOUT`
    Timeout,
    /// `STALE`
    Stale,
    /// `UNAVAILABLE`
    Unavailable,
    /// `VERSION_MISMATCH`
    VersionMismatch,
    /// `INTERNAL`
    Internal,
    /// A code defined by the application, such as `ROW_LIMIT_EXCEEDED`.
    Domain(DomainCode),
}

const BUILTIN: [(Code, &str); 29] = [
    (Code::NotPermitted, "NOT_PERMITTED"),
    (Code::PayloadTooLarge, "PAYLOAD_TOO_LARGE"),
    (Code::TooDeep, "TOO_DEEP"),
    (Code::TooManyNodes, "TOO_MANY_NODES"),
    (Code::StringTooLong, "STRING_TOO_LONG"),
    (Code::DuplicateKey, "DUPLICATE_KEY"),
    (Code::MalformedJson, "MALFORMED_JSON"),
    (Code::NotAnObject, "NOT_AN_OBJECT"),
    (Code::UnknownField, "UNKNOWN_FIELD"),
    (Code::MissingField, "MISSING_FIELD"),
    (Code::WrongType, "WRONG_TYPE"),
    (Code::InvalidValue, "INVALID_VALUE"),
    (Code::OutOfRange, "OUT_OF_RANGE"),
    (Code::InvalidLength, "INVALID_LENGTH"),
    (Code::PatternMismatch, "PATTERN_MISMATCH"),
    (Code::InvalidFormat, "INVALID_FORMAT"),
    (Code::InProgress, "IN_PROGRESS"),
    (Code::IdempotencyConflict, "IDEMPOTENCY_CONFLICT"),
    (Code::ApprovalPending, "APPROVAL_PENDING"),
    (Code::ApprovalDenied, "APPROVAL_DENIED"),
    (Code::ApprovalExpired, "APPROVAL_EXPIRED"),
    (Code::ApprovalUsed, "APPROVAL_USED"),
    (Code::RetryBudgetExhausted, "RETRY_BUDGET_EXHAUSTED"),
    (Code::RateLimited, "RATE_LIMITED"),
    (Code::Timeout, "TIMEOUT"),
    (Code::Stale, "STALE"),
    (Code::Unavailable, "UNAVAILABLE"),
    (Code::VersionMismatch, "VERSION_MISMATCH"),
    (Code::Internal, "INTERNAL"),
];

impl Code {
    /// Every code toolgate itself produces, in the order of the table above.
    pub fn builtin() -> impl ExactSizeIterator<Item = Code> {
        BUILTIN.iter().map(|(code, _)| *code)
    }

    /// The wire spelling, e.g. `"OUT_OF_RANGE"`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Code::NotPermitted => "NOT_PERMITTED",
            Code::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            Code::TooDeep => "TOO_DEEP",
            Code::TooManyNodes => "TOO_MANY_NODES",
            Code::StringTooLong => "STRING_TOO_LONG",
            Code::DuplicateKey => "DUPLICATE_KEY",
            Code::MalformedJson => "MALFORMED_JSON",
            Code::NotAnObject => "NOT_AN_OBJECT",
            Code::UnknownField => "UNKNOWN_FIELD",
            Code::MissingField => "MISSING_FIELD",
            Code::WrongType => "WRONG_TYPE",
            Code::InvalidValue => "INVALID_VALUE",
            Code::OutOfRange => "OUT_OF_RANGE",
            Code::InvalidLength => "INVALID_LENGTH",
            Code::PatternMismatch => "PATTERN_MISMATCH",
            Code::InvalidFormat => "INVALID_FORMAT",
            Code::InProgress => "IN_PROGRESS",
            Code::IdempotencyConflict => "IDEMPOTENCY_CONFLICT",
            Code::ApprovalPending => "APPROVAL_PENDING",
            Code::ApprovalDenied => "APPROVAL_DENIED",
            Code::ApprovalExpired => "APPROVAL_EXPIRED",
            Code::ApprovalUsed => "APPROVAL_USED",
            Code::RetryBudgetExhausted => "RETRY_BUDGET_EXHAUSTED",
            Code::RateLimited => "RATE_LIMITED",
            Code::Timeout => "TIMEOUT",
            Code::Stale => "STALE",
            Code::Unavailable => "UNAVAILABLE",
            Code::VersionMismatch => "VERSION_MISMATCH",
            Code::Internal => "INTERNAL",
            Code::Domain(code) => code.as_str(),
        }
    }

    /// Whether a rejection with this code invites the model to fix the call
    /// and try again. Gate 2–3 codes do, and gate 6's `IN_PROGRESS`,
    /// `RATE_LIMITED`, `STALE` and `UNAVAILABLE`; the rest do not. A tool body chooses
    /// for its domain codes ([`ToolError::retryable`](crate::ToolError::retryable)).
    pub const fn retryable(&self) -> bool {
        matches!(
            self,
            Code::UnknownField
                | Code::MissingField
                | Code::WrongType
                | Code::InvalidValue
                | Code::OutOfRange
                | Code::InvalidLength
                | Code::PatternMismatch
                | Code::InvalidFormat
                | Code::InProgress
                | Code::RateLimited
                | Code::Stale
                | Code::Unavailable
        )
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl From<DomainCode> for Code {
    fn from(code: DomainCode) -> Self {
        Code::Domain(code)
    }
}

/// An application-defined rejection code, checked when it is made.
///
/// A domain code is 1 to 64 characters of `A–Z`, `0–9` and `_`, starts with a
/// letter, and is not one of toolgate's own codes, so a body can never
/// impersonate a gate. Define codes as constants; an invalid one then fails
/// the build:
///
/// ```
/// use toolgate::DomainCode;
///
/// const ROW_LIMIT_EXCEEDED: DomainCode = DomainCode::new("ROW_LIMIT_EXCEEDED");
/// assert_eq!(ROW_LIMIT_EXCEEDED.as_str(), "ROW_LIMIT_EXCEEDED");
/// ```
///
/// ```compile_fail
/// use toolgate::DomainCode;
///
/// const BAD: DomainCode = DomainCode::new("row-limit");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DomainCode(&'static str);

impl DomainCode {
    /// Checks and wraps `code`.
    ///
    /// # Panics
    ///
    /// If `code` is not `SCREAMING_SNAKE_CASE` of at most 64 characters, or
    /// names a built-in code. In a `const` this is a compile error.
    #[allow(clippy::indexing_slicing)] // const fn: every index is below the length it is checked against
    pub const fn new(code: &'static str) -> Self {
        let bytes = code.as_bytes();
        #[allow(clippy::panic)] // a const-evaluated check: the panic is a build error
        if bytes.is_empty() || bytes.len() > 64 || !bytes[0].is_ascii_uppercase() {
            panic!("a domain code is 1-64 characters of A-Z, 0-9 and _, starting with a letter");
        }
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            #[allow(clippy::panic)]
            if !(b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_') {
                panic!(
                    "a domain code is 1-64 characters of A-Z, 0-9 and _, starting with a letter"
                );
            }
            i += 1;
        }
        let mut j = 0;
        while j < BUILTIN.len() {
            #[allow(clippy::panic)]
            if eq(BUILTIN[j].1.as_bytes(), bytes) {
                panic!("a domain code must not reuse one of toolgate's own codes");
            }
            j += 1;
        }
        DomainCode(code)
    }

    /// The wire spelling.
    pub const fn as_str(&self) -> &'static str {
        self.0
    }
}

#[allow(clippy::indexing_slicing)] // const fn: indices stay below `a.len() == b.len()`
const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
