//! The forms in which a call's arguments arrive.

use std::borrow::Cow;

use serde_json::value::RawValue;

/// A call's argument JSON, borrowed from wherever it arrived. Every form
/// goes through the same bounded parse (gate 1).
///
/// - bytes (`&[u8]`, `&Vec<u8>`): a request body as received;
/// - text (`&str`, `&String`): OpenAI sends `arguments` as a JSON string;
/// - [`RawValue`]: the arguments object cut out of a larger envelope
///   (Anthropic `input`, Gemini `args`, MCP `arguments`) without parsing it.
///
/// ```
/// use serde_json::value::RawValue;
/// use toolgate::Arguments;
///
/// #[derive(serde::Deserialize)]
/// struct ToolUse<'a> {
///     name: &'a str,
///     #[serde(borrow)]
///     input: &'a RawValue,
/// }
///
/// let envelope = r#"{"name":"book_hotel","input":{"hotel_id":"h_12345678","nights":2}}"#;
/// let call: ToolUse = serde_json::from_str(envelope).unwrap();
/// let args = Arguments::from(call.input);
/// assert_eq!(args.as_bytes(), br#"{"hotel_id":"h_12345678","nights":2}"#);
/// ```
#[derive(Clone, Debug)]
pub struct Arguments<'a> {
    repr: Repr<'a>,
}

/// Text is kept as text: it is UTF-8 already, which gate 1 then need not
/// check again.
#[derive(Clone, Debug)]
enum Repr<'a> {
    Bytes(Cow<'a, [u8]>),
    Text(Cow<'a, str>),
}

impl Arguments<'_> {
    /// Arguments from an already-parsed [`serde_json::Value`], re-encoded.
    ///
    /// Prefer the other forms. By the time a `Value` exists, serde_json has
    /// already kept only the last of any duplicate keys, so gate 1 cannot see
    /// them, and the memory for the whole document has already been spent.
    /// Depth, node and string limits still apply.
    pub fn from_value(value: &serde_json::Value) -> Arguments<'static> {
        Arguments {
            repr: Repr::Text(Cow::Owned(value.to_string())),
        }
    }

    /// The raw JSON.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.repr {
            Repr::Bytes(bytes) => bytes,
            Repr::Text(text) => text.as_bytes(),
        }
    }

    /// The JSON as text, when it arrived as text.
    pub(crate) fn as_text(&self) -> Option<&str> {
        match &self.repr {
            Repr::Bytes(_) => None,
            Repr::Text(text) => Some(text),
        }
    }
}

impl<'a> From<&'a [u8]> for Arguments<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Arguments {
            repr: Repr::Bytes(Cow::Borrowed(bytes)),
        }
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Arguments<'a> {
    fn from(bytes: &'a [u8; N]) -> Self {
        Arguments {
            repr: Repr::Bytes(Cow::Borrowed(bytes)),
        }
    }
}

impl<'a> From<&'a Vec<u8>> for Arguments<'a> {
    fn from(bytes: &'a Vec<u8>) -> Self {
        Arguments {
            repr: Repr::Bytes(Cow::Borrowed(bytes)),
        }
    }
}

impl<'a> From<&'a str> for Arguments<'a> {
    fn from(text: &'a str) -> Self {
        Arguments {
            repr: Repr::Text(Cow::Borrowed(text)),
        }
    }
}

impl<'a> From<&'a String> for Arguments<'a> {
    fn from(text: &'a String) -> Self {
        Arguments {
            repr: Repr::Text(Cow::Borrowed(text)),
        }
    }
}

impl<'a> From<&'a RawValue> for Arguments<'a> {
    fn from(raw: &'a RawValue) -> Self {
        Arguments {
            repr: Repr::Text(Cow::Borrowed(raw.get())),
        }
    }
}
