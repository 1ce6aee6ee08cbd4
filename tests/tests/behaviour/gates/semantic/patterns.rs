//! Patterns mean one thing: the server (Rust's `regex`, through garde) and
//! a JSON Schema validator (ECMA-262 semantics) accept exactly the same
//! strings for every pattern a tool publishes, on the strings where the two
//! dialects part: line terminators, Unicode digits, letters and spaces, and
//! the Unicode case folds of `k` and `s`. A pattern the macro cannot see (in
//! a nested type, or given as an expression) is refused at registration.

use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate::testing::check_arguments;
use toolgate::{RegisterError, ToolError, Toolbox, tool};

/// Store short texts, each checked by one pattern.
#[tool(effect = write)]
pub fn store_texts(
    #[garde(pattern(r"^.{1,10}$"))] memo: Option<String>,
    #[garde(pattern(r"^\d{3}$"))] code: Option<String>,
    #[garde(pattern(r"^\w+$"))] word: Option<String>,
    #[garde(pattern(r"^\s$"))] space: Option<String>,
    #[garde(pattern(r"(?i)^abc$"))] abc: Option<String>,
    #[garde(pattern(r"(?i)^k$"))] k: Option<String>,
    #[garde(pattern(r"(?i)^s$"))] s: Option<String>,
) -> Result<(), ToolError> {
    let _ = (memo, code, word, space, abc, k, s);
    Ok(())
}

/// Where the dialects part, and a few strings both must accept.
const EDGES: [&str; 30] = [
    "a memo",
    "a memo\r",
    "\r",
    "\n",
    "\u{2028}",
    "\u{2029}",
    "abc\n",
    "123\n",
    "\u{85}",
    "\u{FEFF}",
    "\u{A0}",
    "\u{3000}",
    " ",
    "\t",
    "123",
    "\u{663}\u{663}\u{663}",
    "\u{FF11}\u{FF12}\u{FF13}",
    "é",
    "abc",
    "ABC",
    "aBc",
    "k",
    "K",
    "\u{212A}",
    "s",
    "S",
    "\u{17F}",
    "abcé",
    "",
    "12345678901",
];

/// What ECMA-262 accepts for each field (the `u` flag does not change these
/// cases; `(?i)` stands for an ASCII-only fold, as ECMA-262 has no inline
/// flags): every other string in [`EDGES`] is refused.
fn ecma_accepts(field: &str, text: &str) -> bool {
    let line_terminator = |c: char| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
    match field {
        "memo" => (1..=10).contains(&text.chars().count()) && !text.chars().any(line_terminator),
        "code" => text == "123",
        "word" => !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
        "space" => [
            " ", "\t", "\n", "\r", "\u{2028}", "\u{2029}", "\u{A0}", "\u{3000}", "\u{FEFF}",
        ]
        .contains(&text),
        "abc" => text.eq_ignore_ascii_case("abc"),
        "k" => text == "k" || text == "K",
        "s" => text == "s" || text == "S",
        other => panic!("no field {other}"),
    }
}

#[test]
fn server_and_schema_accept_the_same_strings() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(StoreTexts).unwrap();
    let schema = toolbox.definition("store_texts").unwrap().schema();
    let validator = jsonschema::options().build(schema).unwrap();
    let mut disagreements = Vec::new();
    for field in ["memo", "code", "word", "space", "abc", "k", "s"] {
        for text in EDGES {
            let args = json!({ field: text });
            let server = check_arguments(&toolbox, "store_texts", args.to_string().as_bytes())
                .unwrap()
                .is_ok();
            let published = validator.is_valid(&args);
            let ecma = ecma_accepts(field, text);
            if server != published || server != ecma {
                disagreements.push(format!(
                    "{field} = {text:?}: server {server}, jsonschema {published}, ECMA-262 {ecma} (pattern {})",
                    schema["properties"][field]["pattern"]
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn published_patterns_are_written_in_the_shared_subset() {
    let schema = StoreTexts::definition().schema();
    let pattern = |field: &str| schema["properties"][field]["pattern"].clone();
    assert_eq!(pattern("memo"), r"^[^\n\r\u2028\u2029]{1,10}$");
    assert_eq!(pattern("code"), r"^[0-9]{3}$");
    assert_eq!(pattern("word"), r"^[A-Za-z0-9_]+$");
    assert_eq!(pattern("abc"), r"^[aA][bB][cC]$");
    assert_eq!(pattern("k"), r"^[kK]$");
}

// --- patterns the macro does not see ---

/// A pattern compiled by the user, not written as a literal: garde runs it
/// as the server's regex reads it (`\d` is any Unicode digit), and schemars
/// publishes its text.
static THREE_DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\d{3}$").unwrap());

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Parcel {
    #[garde(pattern(THREE_DIGITS))]
    pub zone: String,
}

/// Ship a parcel to a zone.
#[tool(effect = write)]
pub fn ship(parcel: Parcel) -> Result<String, ToolError> {
    Ok(parcel.zone)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Memo {
    #[garde(pattern(r"^.{1,10}$"))]
    pub text: String,
}

/// Keep a memo.
#[tool(effect = write)]
pub fn keep_memo(memo: Memo) -> Result<String, ToolError> {
    Ok(memo.text)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Zone {
    #[garde(pattern(r"^[0-9]{3}$"))]
    pub zone: String,
}

/// Ship a parcel to a zone written in ASCII digits.
#[tool(effect = write)]
pub fn ship_ascii(zone: Zone) -> Result<String, ToolError> {
    Ok(zone.zone)
}

#[test]
fn a_nested_pattern_with_a_unicode_digit_class_is_refused_at_registration() {
    // Without the check, the server would accept "٣٣٣", which the schema refuses.
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(Ship).unwrap_err();
    match &error {
        RegisterError::Pattern {
            tool, pattern, at, ..
        } => {
            assert_eq!(*tool, "ship");
            assert_eq!(pattern, r"^\d{3}$");
            assert_eq!(at, "/$defs/Parcel/properties/zone/pattern");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        error.to_string().contains("write `[0-9]` for `\\d`"),
        "{error}"
    );
}

#[test]
fn a_nested_pattern_with_a_dot_is_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(KeepMemo).unwrap_err();
    assert!(
        matches!(&error, RegisterError::Pattern { pattern, .. } if pattern == "^.{1,10}$"),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains(r"write `[^\n\r\u2028\u2029]` for `.`"),
        "{error}"
    );
    // Written in the shared subset, a nested pattern registers.
    toolbox.register(ShipAscii).unwrap();
}
