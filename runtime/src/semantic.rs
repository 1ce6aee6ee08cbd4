//! Gate 3: the garde rules of the argument struct.

use std::borrow::Cow;
use std::fmt::Display;

use garde::i18n::{I18n, InvalidCreditCard, InvalidEmail, InvalidPhoneNumber, InvalidUrl, IpKind};
use serde_json::Value;

use crate::structural::Parsed;
use crate::{Code, Rejection, ToolDef, message};

/// Arguments that passed the rules: the last state before resources and
/// effects. Made only by gate 3: it has no public constructor, and cannot be
/// defaulted, cloned or deserialized into existence.
///
/// ```compile_fail
/// let forged: toolgate::Valid<u8> = Default::default();
/// ```
///
/// ```compile_fail
/// let forged: toolgate::Valid<u8> = serde_json::from_str("1").unwrap();
/// ```
#[derive(Debug)]
pub struct Valid<A>(A);

impl<A> Valid<A> {
    /// The valid arguments.
    pub fn get(&self) -> &A {
        &self.0
    }

    /// Takes the valid arguments out.
    pub fn into_inner(self) -> A {
        self.0
    }
}

/// Marks the messages that garde produces through [`Coded`]: the code follows
/// the marker, then a second marker and garde's own bound, if any.
const MARK: char = '\u{1}';

/// Makes garde report which rule failed instead of English text, so codes do
/// not depend on wording.
struct Coded;

fn coded(code: Code, detail: impl Display) -> Cow<'static, str> {
    Cow::Owned(format!("{MARK}{}{MARK}{detail}", code.as_str()))
}

impl I18n for Coded {
    fn length_lower_than(&self, min: usize) -> Cow<'static, str> {
        coded(
            Code::InvalidLength,
            format_args!("must have a length of at least {min}"),
        )
    }
    fn length_greater_than(&self, max: usize) -> Cow<'static, str> {
        coded(
            Code::InvalidLength,
            format_args!("must have a length of at most {max}"),
        )
    }
    fn range_lower_than(&self, min: &dyn Display) -> Cow<'static, str> {
        coded(Code::OutOfRange, format_args!("must be at least {min}"))
    }
    fn range_greater_than(&self, max: &dyn Display) -> Cow<'static, str> {
        coded(Code::OutOfRange, format_args!("must be at most {max}"))
    }
    fn credit_card_invalid(&self, _: InvalidCreditCard) -> Cow<'static, str> {
        coded(Code::InvalidFormat, "must be a valid card number")
    }
    fn pattern_no_match(&self, pattern: &dyn Display) -> Cow<'static, str> {
        coded(
            Code::PatternMismatch,
            format_args!("must match the pattern {pattern}"),
        )
    }
    fn contains_missing(&self, pattern: &dyn Display) -> Cow<'static, str> {
        coded(
            Code::PatternMismatch,
            format_args!("must contain \"{pattern}\""),
        )
    }
    fn url_invalid(&self, _: InvalidUrl) -> Cow<'static, str> {
        coded(Code::InvalidFormat, "must be a valid URL")
    }
    fn prefix_missing(&self, pattern: &dyn Display) -> Cow<'static, str> {
        coded(
            Code::PatternMismatch,
            format_args!("must start with \"{pattern}\""),
        )
    }
    fn suffix_missing(&self, pattern: &dyn Display) -> Cow<'static, str> {
        coded(
            Code::PatternMismatch,
            format_args!("must end with \"{pattern}\""),
        )
    }
    fn phone_number_invalid(&self, _: InvalidPhoneNumber) -> Cow<'static, str> {
        coded(Code::InvalidFormat, "must be a valid phone number")
    }
    fn ip_invalid(&self, kind: IpKind) -> Cow<'static, str> {
        coded(
            Code::InvalidFormat,
            format_args!("must be a valid {kind} address"),
        )
    }
    fn matches_field_mismatch(&self, field: &dyn Display) -> Cow<'static, str> {
        coded(Code::InvalidValue, format_args!("must equal {field}"))
    }
    fn email_invalid(&self, _: InvalidEmail) -> Cow<'static, str> {
        coded(Code::InvalidFormat, "must be a valid email address")
    }
    fn ascii_invalid(&self) -> Cow<'static, str> {
        coded(Code::PatternMismatch, "must contain only ASCII characters")
    }
    fn alphanumeric_invalid(&self) -> Cow<'static, str> {
        coded(
            Code::PatternMismatch,
            "must contain only letters and digits",
        )
    }
    fn required_not_set(&self) -> Cow<'static, str> {
        coded(Code::MissingField, "must be set")
    }
}

/// Runs gate 3. The first failing rule, in field order, is reported.
pub(crate) fn validate<A>(parsed: Parsed<A>, def: &ToolDef) -> Result<Valid<A>, Rejection>
where
    A: crate::__private::Arguments,
{
    let args = parsed.into_inner();
    let all_rules = |args: &A| {
        let mut report = match args.validate() {
            Ok(()) => garde::Report::new(),
            Err(report) => report,
        };
        args.validate_nested(&mut report);
        report
    };
    // Valid arguments need no codes: the coded messages are asked for only
    // to explain a failure.
    if all_rules(&args).is_empty() {
        return Ok(Valid(args));
    }
    let report = garde::i18n::with_i18n(Coded, || all_rules(&args));
    if report.is_empty() {
        return Ok(Valid(args));
    }
    let Some((path, error)) = report.iter().next() else {
        return Ok(Valid(args));
    };
    // garde's path serializes as [[kind, component], …] from the root.
    let components: Vec<(String, String)> = serde_json::to_value(path)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let schema = def.schema();
    let at = crate::schema::wire_pointer(schema, def.renames, &components);
    Err(reject(&at, error.message(), schema))
}

fn reject(at: &str, garde_message: &str, schema: &Value) -> Rejection {
    let mut parts = garde_message.split(MARK);
    let coded = match (parts.next(), parts.next(), parts.next()) {
        (Some(""), Some(code), Some(detail)) => Code::builtin()
            .find(|c| c.as_str() == code)
            .map(|c| (c, detail)),
        _ => None,
    };
    match coded {
        Some((Code::MissingField, _)) => {
            Rejection::new(Code::MissingField, message::missing(at, schema)).at(at.to_owned())
        }
        Some((code, detail)) => {
            let from_schema = message::for_value(code, at, schema);
            // The schema states both bounds when it can; garde's detail is the
            // fallback for rules the schema cannot express.
            let message = if schema_states_rule(code, at, schema) {
                from_schema
            } else {
                format!("{} {detail}", message::label(at))
            };
            Rejection::new(code, message).at(at.to_owned())
        }
        // A custom rule: its message was written by the tool's author for the model.
        None => Rejection::new(
            Code::InvalidValue,
            format!("{} {garde_message}", message::label(at)),
        )
        .at(at.to_owned()),
    }
}

fn schema_states_rule(code: Code, at: &str, schema: &Value) -> bool {
    let Some(node) = crate::schema::node_at(schema, at) else {
        return false;
    };
    let has = |keys: &[&str]| {
        keys.iter()
            .any(|k| node.get(*k).is_some() || nested_has(node, k))
    };
    match code {
        Code::OutOfRange => has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
        Code::InvalidLength => has(&["minLength", "maxLength", "minItems", "maxItems"]),
        Code::PatternMismatch => has(&["pattern"]),
        Code::InvalidFormat => has(&["format"]),
        _ => false,
    }
}

/// Looks through `anyOf: [T, null]` for a keyword on `T`.
fn nested_has(node: &Value, key: &str) -> bool {
    node.get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|b| b.iter().any(|x| x.get(key).is_some()))
}
