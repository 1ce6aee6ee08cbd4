//! The one shape every refused call takes.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::Code;

/// Longest `safe_message`, in characters.
pub const MAX_MESSAGE_CHARS: usize = 200;

/// A refused call, in the small, bounded shape the model reads:
///
/// ```json
/// {"status":"rejected","code":"OUT_OF_RANGE","path":"/nights",
///  "safe_message":"nights must be between 1 and 30","retryable":true}
/// ```
///
/// `path` is a JSON Pointer with the field names the model sent (serde renames
/// respected); `""` is the arguments object itself. `safe_message` is written
/// for the model: it says what is allowed, never echoes long input, Rust type
/// names or internal error text, and is cut to [`MAX_MESSAGE_CHARS`].
///
/// ```
/// use toolgate::{Code, Rejection};
///
/// let r = Rejection::new(Code::OutOfRange, "nights must be between 1 and 30").at("/nights");
/// assert_eq!(
///     serde_json::to_string(&r).unwrap(),
///     r#"{"status":"rejected","code":"OUT_OF_RANGE","path":"/nights","safe_message":"nights must be between 1 and 30","retryable":true}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    code: Code,
    path: Cow<'static, str>,
    safe_message: Cow<'static, str>,
    retryable: bool,
}

impl Rejection {
    /// A rejection at the root of the arguments, retryable as the code
    /// suggests ([`Code::retryable`]).
    pub fn new(code: Code, safe_message: impl Into<Cow<'static, str>>) -> Self {
        Rejection {
            code,
            path: Cow::Borrowed(""),
            safe_message: bounded(safe_message.into()),
            retryable: code.retryable(),
        }
    }

    /// The one answer for "no such tool", "not allowed here", "missing scope",
    /// and every refusal whose reason would tell the model something it may
    /// not know. Byte-identical every time.
    pub fn not_permitted() -> Self {
        Rejection {
            code: Code::NotPermitted,
            path: Cow::Borrowed(""),
            safe_message: Cow::Borrowed("This action is not permitted."),
            retryable: false,
        }
    }

    /// Points the rejection at a field, as a JSON Pointer (`"/nights"`).
    #[must_use]
    pub fn at(mut self, pointer: impl Into<Cow<'static, str>>) -> Self {
        self.path = pointer.into();
        self
    }

    /// Overrides whether the model is invited to retry.
    #[must_use]
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The JSON Pointer of the offending value; `""` for the whole arguments.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The message for the model.
    pub fn safe_message(&self) -> &str {
        &self.safe_message
    }

    /// Whether the model may fix the call and try again.
    pub fn is_retryable(&self) -> bool {
        self.retryable
    }
}

fn bounded(message: Cow<'static, str>) -> Cow<'static, str> {
    if message.chars().nth(MAX_MESSAGE_CHARS).is_none() {
        return message;
    }
    let cut = message
        .char_indices()
        .nth(MAX_MESSAGE_CHARS - 1)
        .map_or(message.len(), |(at, _)| at);
    let mut short = message.get(..cut).unwrap_or_default().to_owned();
    short.push('…');
    Cow::Owned(short)
}

impl Serialize for Rejection {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Rejection", 5)?;
        s.serialize_field("status", "rejected")?;
        s.serialize_field("code", &self.code)?;
        s.serialize_field("path", &self.path)?;
        s.serialize_field("safe_message", &self.safe_message)?;
        s.serialize_field("retryable", &self.retryable)?;
        s.end()
    }
}

impl core::fmt::Display for Rejection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} at \"{}\": {}",
            self.code, self.path, self.safe_message
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejection_displays_its_code_path_and_message() {
        let r = Rejection::new(Code::OutOfRange, "nights must be between 1 and 30").at("/nights");
        assert_eq!(
            r.to_string(),
            r#"OUT_OF_RANGE at "/nights": nights must be between 1 and 30"#
        );
        assert_eq!(
            Rejection::not_permitted().to_string(),
            r#"NOT_PERMITTED at "": This action is not permitted."#
        );
    }

    #[test]
    fn messages_are_cut_to_the_bound() {
        let r = Rejection::new(Code::InvalidValue, "é".repeat(500));
        assert_eq!(r.safe_message().chars().count(), MAX_MESSAGE_CHARS);
        let r = Rejection::new(Code::InvalidValue, "x".repeat(MAX_MESSAGE_CHARS));
        assert_eq!(r.safe_message().len(), MAX_MESSAGE_CHARS);
    }
}
