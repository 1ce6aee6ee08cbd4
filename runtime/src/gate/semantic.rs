//! Gate 3: the garde rules of the argument struct.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::Display;
use std::hash::{BuildHasher, RandomState};

use garde::Report;
use garde::i18n::{I18n, InvalidCreditCard, InvalidEmail, InvalidPhoneNumber, InvalidUrl, IpKind};
use serde_json::Value;

use crate::gate::Gate;
use crate::gate::structural::reader::{Read, Serde};
use crate::gate::structural::{self, Parsed};
use crate::schema::keywords::{self, Garde};
use crate::{Code, RawArgs, Rejection, ToolDef, json::pointer, outcome::message};

/// Arguments that passed the rules: the last state before resources and
/// effects. Made only by gate 3, in one place (`Invocation::validate`,
/// once the gates passed): it has no public constructor, and cannot be
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
pub struct Valid<A>(pub(crate) A);

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

/// A built-in rule that failed: what [`Coded`] records, out of band, while
/// garde validates.
struct Failed {
    code: Code,
    /// garde's bound, in words: the message for rules the schema cannot state.
    detail: String,
}

/// Makes garde report which built-in rule failed, without trusting any text
/// in garde's report.
///
/// garde's report holds only messages, and a custom rule's message is any
/// text its author built, model input included. So no message is parsed for
/// a code. Instead each built-in failure is recorded here, and the message
/// garde gets for it is a token naming its entry: `\u{1}`, a [`Key`] drawn
/// for this validation, `:` and the entry's index.
///
/// A report entry counts as built-in failure `i` only if its message is
/// exactly failure `i`'s token and no other entry of the report has that
/// message ([`builtin`]). garde puts every error a built-in rule makes into
/// the report, so failure `i`'s own entry always carries its token: a custom
/// message that copied it would make two entries with it, and neither would
/// be trusted. That alone makes a forged code impossible; the key, which the
/// model never sees, also keeps a guessed token from turning a real built-in
/// failure into an untrusted one.
struct Coded<'a> {
    key: Key,
    failed: &'a RefCell<Vec<Failed>>,
}

/// The key of one validation's tokens.
#[derive(Clone, Copy)]
struct Key(u64);

impl Key {
    fn new() -> Self {
        // SipHash under the thread's random keys, which `RandomState::new`
        // also steps on every call: unpredictable, and new for each call.
        Key(RandomState::new().hash_one(0_u8))
    }

    fn token(self, index: usize) -> String {
        format!("\u{1}{:016x}:{index}", self.0)
    }

    /// The index `message` is the token of, if it is one.
    fn index(self, message: &str) -> Option<usize> {
        let index = message.rsplit_once(':')?.1.parse().ok()?;
        (self.token(index) == message).then_some(index)
    }
}

impl Coded<'_> {
    fn record(&self, code: Code, detail: impl Display) -> Cow<'static, str> {
        let mut failed = self.failed.borrow_mut();
        let index = failed.len();
        failed.push(Failed {
            code,
            detail: detail.to_string(),
        });
        Cow::Owned(self.key.token(index))
    }
}

impl I18n for Coded<'_> {
    fn length_lower_than(&self, min: usize) -> Cow<'static, str> {
        self.record(
            Code::InvalidLength,
            format_args!("must have a length of at least {min}"),
        )
    }
    fn length_greater_than(&self, max: usize) -> Cow<'static, str> {
        self.record(
            Code::InvalidLength,
            format_args!("must have a length of at most {max}"),
        )
    }
    fn range_lower_than(&self, min: &dyn Display) -> Cow<'static, str> {
        self.record(Code::OutOfRange, format_args!("must be at least {min}"))
    }
    fn range_greater_than(&self, max: &dyn Display) -> Cow<'static, str> {
        self.record(Code::OutOfRange, format_args!("must be at most {max}"))
    }
    fn credit_card_invalid(&self, _: InvalidCreditCard) -> Cow<'static, str> {
        self.record(Code::InvalidFormat, "must be a valid card number")
    }
    fn pattern_no_match(&self, pattern: &dyn Display) -> Cow<'static, str> {
        self.record(
            Code::PatternMismatch,
            format_args!("must match the pattern {pattern}"),
        )
    }
    fn contains_missing(&self, pattern: &dyn Display) -> Cow<'static, str> {
        self.record(
            Code::PatternMismatch,
            format_args!("must contain \"{pattern}\""),
        )
    }
    fn url_invalid(&self, _: InvalidUrl) -> Cow<'static, str> {
        self.record(Code::InvalidFormat, "must be a valid URL")
    }
    fn prefix_missing(&self, pattern: &dyn Display) -> Cow<'static, str> {
        self.record(
            Code::PatternMismatch,
            format_args!("must start with \"{pattern}\""),
        )
    }
    fn suffix_missing(&self, pattern: &dyn Display) -> Cow<'static, str> {
        self.record(
            Code::PatternMismatch,
            format_args!("must end with \"{pattern}\""),
        )
    }
    fn phone_number_invalid(&self, _: InvalidPhoneNumber) -> Cow<'static, str> {
        self.record(Code::InvalidFormat, "must be a valid phone number")
    }
    fn ip_invalid(&self, kind: IpKind) -> Cow<'static, str> {
        self.record(
            Code::InvalidFormat,
            format_args!("must be a valid {kind} address"),
        )
    }
    fn matches_field_mismatch(&self, field: &dyn Display) -> Cow<'static, str> {
        self.record(Code::InvalidValue, format_args!("must equal {field}"))
    }
    fn email_invalid(&self, _: InvalidEmail) -> Cow<'static, str> {
        self.record(Code::InvalidFormat, "must be a valid email address")
    }
    fn ascii_invalid(&self) -> Cow<'static, str> {
        self.record(Code::PatternMismatch, "must contain only ASCII characters")
    }
    fn alphanumeric_invalid(&self) -> Cow<'static, str> {
        self.record(
            Code::PatternMismatch,
            "must contain only letters and digits",
        )
    }
    fn required_not_set(&self) -> Cow<'static, str> {
        self.record(Code::MissingField, "must be set")
    }
}

/// Gates 2 and 3, and the rest of gate 1 if it is pending: serde into the
/// closed struct, then its rules, of which the first failing one, in
/// field order, is reported. On `Ok`, `args` holds the arguments read.
///
/// Not generic: only reading into the arguments' type and its rules are
/// ([`Gated`]), so that the gates are compiled once, and each tool's
/// callers ([`Invocation::validate`](crate::__private::Invocation::validate)
/// and [`check`](crate::tool::check)) only make its reader and take its
/// arguments out.
pub(crate) fn gates(
    raw: RawArgs<'_>,
    def: &ToolDef,
    args: &mut dyn Gated,
) -> Result<(), (Gate, Rejection)> {
    let bytes = raw.as_bytes();
    structural::read(raw, def, args)?;
    rules(args, def).map_err(|refused| match refused {
        (Gate::Rules, rejection) => match structural::before_rules(bytes, def) {
            Some(refused) => (Gate::Structure, refused),
            None => (Gate::Rules, rejection),
        },
        unread => unread,
    })
}

/// Arguments as gates 2 and 3 see them: read by serde, then their rules
/// added to a report.
pub(crate) trait Gated: Serde {
    /// Adds each rule's verdict on the arguments read to `report`; `false`
    /// if none were read.
    fn rules(&self, report: &mut Report) -> bool;
}

/// The generated argument struct: its garde rules, and the rules of every
/// model argument whose type has rules of its own, which gate 3 runs
/// whether or not the parameter says `#[garde(dive)]`.
pub trait Arguments: serde::de::DeserializeOwned + garde::Validate<Context = ()> {
    /// Validates the nested types of the fields that do not dive.
    fn validate_nested(&self, report: &mut garde::Report);
}

impl<A: Arguments> Gated for Read<A> {
    fn rules(&self, report: &mut Report) -> bool {
        match &self.0 {
            Some(Parsed(args)) => {
                garde::Validate::validate_into(args, &(), &mut garde::Path::empty, report);
                args.validate_nested(report);
                true
            }
            None => false,
        }
    }
}

/// Gate 3 on the arguments `args`, whose rules it adds to a report: compiled
/// once, not once for each tool. The arguments are there to judge, or
/// [`structural::unread`] refuses them.
fn rules(args: &dyn Gated, def: &ToolDef) -> Result<(), (Gate, Rejection)> {
    let all_rules = || {
        let mut report = Report::new();
        args.rules(&mut report);
        report
    };
    // Valid arguments need no codes: the coded messages are asked for only
    // to explain a failure.
    let mut report = Report::new();
    if !args.rules(&mut report) {
        return Err(structural::unread());
    }
    if report.is_empty() {
        // A report only grows as rules fail: empty, it holds no allocation,
        // and is forgotten rather than dropped, which would call a drop of
        // its entries for none (`tests/tests/allocation/valid_call.rs` counts that
        // nothing leaks).
        core::mem::forget(report);
        return Ok(());
    }
    drop(report);
    explain(&all_rules, def).map_err(|rejection| (Gate::Rules, rejection))
}

/// The rejection for the first rule `all_rules` reports as failed, run
/// again with the coded messages.
fn explain(all_rules: &dyn Fn() -> Report, def: &ToolDef) -> Result<(), Rejection> {
    let key = Key::new();
    let failed = RefCell::new(Vec::new());
    let coded = Coded {
        key,
        failed: &failed,
    };
    let report = garde::i18n::with_i18n(coded, all_rules);
    let failed = failed.into_inner();
    let Some((path, error)) = report.iter().next() else {
        return Ok(());
    };
    // garde's path serializes as [[kind, component], …] from the root.
    let components: Vec<(String, String)> = serde_json::to_value(path)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let schema = def.schema();
    let builtin = builtin(&report, &failed, key, error.message());
    let states = |node: &Value| builtin.is_none_or(|f| schema_node_states(f.code, node));
    let at = crate::schema::wire_pointer(schema, def.renames, &components, &states);
    Err(reject(&at, builtin, schema))
}

/// The built-in failure whose entry has `message`, if it is one; see
/// [`Coded`] for why a custom message cannot pass for one.
fn builtin<'f>(
    report: &Report,
    failed: &'f [Failed],
    key: Key,
    message: &str,
) -> Option<&'f Failed> {
    let index = key.index(message)?;
    let copies = report
        .iter()
        .filter(|(_, error)| error.message() == message)
        .count();
    if copies == 1 { failed.get(index) } else { None }
}

/// The rejection at `at`, an exact pointer: the messages read the schema
/// there, and the rejection shows only what may be echoed of it.
fn reject(at: &str, builtin: Option<&Failed>, schema: &Value) -> Rejection {
    let shown = pointer::shown(at).to_owned();
    match builtin.map(|f| (f.code, f.detail.as_str())) {
        Some((Code::MissingField, _)) => {
            Rejection::new(Code::MissingField, message::missing(at, schema)).at(shown)
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
            Rejection::new(code, message).at(shown)
        }
        // A custom rule. Its message is not shown: authors build it at run
        // time, often from the value (`format!("{v} is not a city")`), and
        // no check of the text can prove it echoes nothing. The field's
        // description is where a custom rule is explained to the model.
        None => Rejection::new(Code::InvalidValue, custom(at)).at(shown),
    }
}

/// The one message for any custom rule: the field's wire name and nothing
/// the caller sent.
fn custom(at: &str) -> String {
    format!("{} is not valid", message::label(at))
}

fn schema_states_rule(code: Code, at: &str, schema: &Value) -> bool {
    crate::schema::node_at(schema, at).is_some_and(|node| schema_node_states(code, node))
}

/// Whether a subschema states a rule of kind `code`.
fn schema_node_states(code: Code, node: &Value) -> bool {
    let has = |key: &str| node.get(key).is_some() || nested_has(node, key);
    match code {
        Code::OutOfRange => keywords::TABLE
            .iter()
            .filter(|keyword| keyword.bound == Some(Garde::Range))
            .any(|keyword| has(keyword.name)),
        // Every count states a length.
        Code::InvalidLength => keywords::counts().any(has),
        Code::PatternMismatch => has("pattern"),
        Code::InvalidFormat => has("format"),
        _ => false,
    }
}

/// Looks through `anyOf: [T, null]` for a keyword on `T`.
fn nested_has(node: &Value, key: &str) -> bool {
    node.get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|b| b.iter().any(|x| x.get(key).is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(n: usize) -> Vec<Failed> {
        (0..n)
            .map(|_| Failed {
                code: Code::OutOfRange,
                detail: String::new(),
            })
            .collect()
    }

    fn report(messages: &[&str]) -> Report {
        let mut report = Report::new();
        for m in messages {
            report.append(garde::Path::empty(), garde::Error::new(*m));
        }
        report
    }

    #[test]
    fn only_a_unique_token_of_a_recorded_failure_is_built_in() {
        let key = Key::new();
        let zero = key.token(0);
        let one = key.token(1);
        assert_eq!(key.index(&one), Some(1));
        let r = report(&[&zero, "must be even"]);
        assert!(builtin(&r, &failed(1), key, &zero).is_some());
        assert!(builtin(&r, &failed(1), key, "must be even").is_none());
        // A token of a failure that was not recorded,
        assert!(builtin(&report(&[&one]), &failed(1), key, &one).is_none());
        // a copy of a real token (whichever entry comes first),
        assert!(builtin(&report(&[&zero, &zero]), &failed(1), key, &zero).is_none());
        // another validation's token, or a token with something around it.
        let other = Key::new().token(0);
        assert_ne!(other, zero);
        assert!(builtin(&report(&[&other]), &failed(1), key, &other).is_none());
        let padded = format!("{zero} ");
        assert!(builtin(&report(&[&padded]), &failed(1), key, &padded).is_none());
        let signed = zero.replace(":0", ":+0");
        assert!(builtin(&report(&[&signed]), &failed(1), key, &signed).is_none());
    }

    // Rules behind garde features this crate does not enable (`email`,
    // `phone-number`, `url`, `credit-card`) still reach these hooks in a
    // build where another crate enables them: each must hand garde its
    // token and record its code.
    #[test]
    fn every_hook_answers_with_the_token_of_the_failure_it_recorded() {
        let key = Key::new();
        let failed = RefCell::new(Vec::new());
        let coded = Coded {
            key,
            failed: &failed,
        };
        let answers: Vec<(Cow<'static, str>, Code)> = vec![
            (coded.length_lower_than(1), Code::InvalidLength),
            (coded.length_greater_than(9), Code::InvalidLength),
            (coded.range_lower_than(&1), Code::OutOfRange),
            (coded.range_greater_than(&9), Code::OutOfRange),
            (
                coded.credit_card_invalid(InvalidCreditCard::InvalidLuhn),
                Code::InvalidFormat,
            ),
            (coded.pattern_no_match(&"^a$"), Code::PatternMismatch),
            (coded.contains_missing(&"@"), Code::PatternMismatch),
            (
                coded.url_invalid(InvalidUrl::EmptyHost),
                Code::InvalidFormat,
            ),
            (coded.prefix_missing(&"id_"), Code::PatternMismatch),
            (coded.suffix_missing(&".txt"), Code::PatternMismatch),
            (
                coded.phone_number_invalid(InvalidPhoneNumber::TooLong),
                Code::InvalidFormat,
            ),
            (coded.ip_invalid(IpKind::V4), Code::InvalidFormat),
            (
                coded.matches_field_mismatch(&"password"),
                Code::InvalidValue,
            ),
            (
                coded.email_invalid(InvalidEmail::MissingAt),
                Code::InvalidFormat,
            ),
            (coded.ascii_invalid(), Code::PatternMismatch),
            (coded.alphanumeric_invalid(), Code::PatternMismatch),
            (coded.required_not_set(), Code::MissingField),
        ];
        let failed = failed.into_inner();
        assert_eq!(failed.len(), answers.len());
        for (index, ((token, code), recorded)) in answers.iter().zip(&failed).enumerate() {
            assert_eq!(*token, key.token(index), "hook {index}");
            assert_eq!(recorded.code, *code, "hook {index}");
        }
        assert_eq!(failed[13].detail, "must be a valid email address");
        assert_eq!(failed[12].detail, "must equal password");
    }

    #[test]
    fn a_rule_is_stated_by_its_keyword_or_by_the_keyword_on_an_option_s_inner_type() {
        let states = |code, node: Value| schema_node_states(code, &node);
        assert!(states(
            Code::PatternMismatch,
            serde_json::json!({"pattern":"^a$"})
        ));
        assert!(states(
            Code::InvalidFormat,
            serde_json::json!({"format":"ipv4"})
        ));
        assert!(states(Code::OutOfRange, serde_json::json!({"maximum":9})));
        let option = serde_json::json!({"anyOf":[{"type":"string","minLength":2},{"type":"null"}]});
        assert!(states(Code::InvalidLength, option.clone()));
        assert!(!states(Code::OutOfRange, option));
        // No keyword states `matches(…)`, `contains(…)` or a custom rule.
        let schema =
            serde_json::json!({"type":"object","properties":{"confirm":{"type":"string"}}});
        assert!(!schema_states_rule(Code::InvalidValue, "/confirm", &schema));
        assert!(!schema_states_rule(
            Code::PatternMismatch,
            "/confirm",
            &schema
        ));
    }
}
