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
    bytes: Cow<'a, [u8]>,
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
            bytes: Cow::Owned(serde_json::to_vec(value).unwrap_or_default()),
        }
    }

    /// The raw JSON.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl<'a> From<&'a [u8]> for Arguments<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Arguments {
            bytes: Cow::Borrowed(bytes),
        }
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Arguments<'a> {
    fn from(bytes: &'a [u8; N]) -> Self {
        Arguments {
            bytes: Cow::Borrowed(bytes),
        }
    }
}

impl<'a> From<&'a Vec<u8>> for Arguments<'a> {
    fn from(bytes: &'a Vec<u8>) -> Self {
        Arguments {
            bytes: Cow::Borrowed(bytes),
        }
    }
}

impl<'a> From<&'a str> for Arguments<'a> {
    fn from(text: &'a str) -> Self {
        Arguments {
            bytes: Cow::Borrowed(text.as_bytes()),
        }
    }
}

impl<'a> From<&'a String> for Arguments<'a> {
    fn from(text: &'a String) -> Self {
        Arguments {
            bytes: Cow::Borrowed(text.as_bytes()),
        }
    }
}

impl<'a> From<&'a RawValue> for Arguments<'a> {
    fn from(raw: &'a RawValue) -> Self {
        Arguments {
            bytes: Cow::Borrowed(raw.get().as_bytes()),
        }
    }
}
