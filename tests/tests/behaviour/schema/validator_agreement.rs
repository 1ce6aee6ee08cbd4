//! The schema we publish and the server we run agree.
//!
//! For every example tool, instances are generated around its canonical
//! schema (valid ones, boundary values, mutations) and decided twice: by
//! the server's gates 1–3 (`toolgate::testing::check_arguments`) and by an
//! independent draft 2020-12 validator (the jsonschema crate, format
//! assertion on, no remote references). Both directions count. The only
//! disagreements allowed are the rules listed in
//! `toolgate::KNOWN_DIFFERENCES`, matched by name. The server decides each
//! instance twice as well: in one pass (its single-pass reader) and gate
//! by gate; the two must give the same answer, rejections word for word.
//!
//! Besides the example tools, the tools of `common/shapes.rs` cover every
//! shape of argument (nested structs, options, vectors, maps, fixed arrays,
//! tuples, enums of every tagging, integers of every width, recursion,
//! free-form values). Maps with a size rule and maps keyed by every integer
//! type have tests of their own in [`maps`]. Free-form values must also
//! reach the tool as sent: [`free_form_values_arrive_as_serde_json_reads_them`].
//!
//! CI runs 10,000 instances per tool. For a million:
//!
//! ```sh
//! TOOLGATE_DIFFERENTIAL_CASES=1000000 cargo test --release -p toolgate-tests --test behaviour validator_agreement
//! ```

use serde_json::Value;
use toolgate::testing::{check_arguments, check_arguments_gate_by_gate};
use toolgate::{KNOWN_DIFFERENCES, Toolbox};
use toolgate_examples::{export, hotel, invoice, refund};
use toolgate_tests::instances::Generator;

use crate::common::shapes;

fn cases() -> usize {
    std::env::var("TOOLGATE_DIFFERENTIAL_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000)
}

/// Whether `schema` has a map of integer keys whose range it does not
/// state: a key type with a `Deserialize` of its own, whose range
/// registration could not learn (`integer-map-keys`).
fn states_no_key_range(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.get("patternProperties")
                .and_then(Value::as_object)
                .is_some_and(|p| {
                    p.keys()
                        .any(|k| k == "^(0|[1-9][0-9]*)$" || k == "^(0|-?[1-9][0-9]*)$")
                })
                || map.values().any(states_no_key_range)
        }
        Value::Array(items) => items.iter().any(states_no_key_range),
        _ => false,
    }
}

/// The known differences an instance of `schema` shows.
fn known_differences(schema: &Value, instance: &Value) -> Vec<&'static str> {
    fn has_wide_integer_key(value: &Value) -> bool {
        match value {
            Value::Array(items) => items.iter().any(has_wide_integer_key),
            Value::Object(map) => map
                .iter()
                .any(|(k, v)| is_wide_integer_key(k) || has_wide_integer_key(v)),
            _ => false,
        }
    }
    let mut rules = Vec::new();
    if states_no_key_range(schema) && has_wide_integer_key(instance) {
        rules.push("integer-map-keys");
    }
    rules
}

/// The instance with each of its known differences taken out, one at a
/// time, then all of them.
fn plains(schema: &Value, instance: &Value) -> Vec<Value> {
    let rules = known_differences(schema, instance);
    let mut out: Vec<Value> = rules.iter().map(|rule| without(instance, rule)).collect();
    if rules.len() > 1 {
        out.push(
            rules
                .iter()
                .fold(instance.clone(), |v, rule| without(&v, rule)),
        );
    }
    out
}

/// The instance without one known difference: each integer key past `i8`
/// left out.
fn without(instance: &Value, rule: &str) -> Value {
    match rule {
        "integer-map-keys" => without_wide_keys(instance),
        _ => instance.clone(),
    }
}

fn without_wide_keys(instance: &Value) -> Value {
    match instance {
        Value::Array(items) => items.iter().map(without_wide_keys).collect(),
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !is_wide_integer_key(k))
                .map(|(k, v)| (k.clone(), without_wide_keys(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A key spelled as an integer that the narrowest integer type (`i8`)
/// cannot hold: it may be past the range of a map's integer key type,
/// where the schema's key pattern does not state it (`integer-map-keys`).
fn is_wide_integer_key(key: &str) -> bool {
    let digits = key.strip_prefix('-').unwrap_or(key);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && key.parse::<i8>().is_err()
}

#[derive(Default, Debug)]
struct Tally {
    accepted_by_both: usize,
    rejected_by_both: usize,
    known: usize,
    disagreements: Vec<String>,
}

/// How the two sides decided one instance.
#[derive(Debug, PartialEq)]
enum Verdict {
    AcceptedByBoth,
    RejectedByBoth,
    /// Only a known difference separates them.
    Known,
    Disagreement(String),
}

/// Decides `text` by the server's gates 1–3 and by the validator, which
/// sees the value a JSON parser reads from it.
fn decide<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
    validator: &jsonschema::Validator,
    text: &str,
) -> Verdict {
    let instance: Value = serde_json::from_str(text).expect("generated text is JSON");
    let schema = toolbox.definition(tool).unwrap().schema();
    let server = check_arguments(toolbox, tool, text.as_bytes()).unwrap();
    let gate_by_gate = check_arguments_gate_by_gate(toolbox, tool, text.as_bytes()).unwrap();
    if server != gate_by_gate {
        return Verdict::Disagreement(format!(
            "{tool}: one pass {server:?} but gate by gate {gate_by_gate:?}: {text}"
        ));
    }
    let published = validator.is_valid(&instance);
    match (&server, published) {
        (Ok(()), true) => Verdict::AcceptedByBoth,
        (Err(_), false) => Verdict::RejectedByBoth,
        // A known difference excuses a disagreement only if it is the whole
        // of it: with the difference taken out, both sides must agree.
        (Err(_), true)
            if known_differences(schema, &instance)
                .iter()
                .all(|rule| KNOWN_DIFFERENCES.contains(rule))
                && plains(schema, &instance).into_iter().any(|plain| {
                    let plain = serde_json::to_string(&plain).unwrap();
                    plain != text
                        && matches!(
                            decide(toolbox, tool, validator, &plain),
                            Verdict::AcceptedByBoth
                        )
                }) =>
        {
            Verdict::Known
        }
        _ => Verdict::Disagreement(format!(
            "{tool}: server {} but schema {}: {text}",
            match &server {
                Ok(()) => "accepts".to_owned(),
                Err(r) => format!("rejects ({r})"),
            },
            if published { "accepts" } else { "rejects" },
        )),
    }
}

fn differential<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str, seed: u64) -> Tally {
    let validator = validator(toolbox, tool);
    let mut generator = Generator::new(toolbox.definition(tool).unwrap().schema(), seed);
    let mut tally = Tally::default();
    for _ in 0..cases() {
        let text = Generator::render(&generator.instance());
        match decide(toolbox, tool, &validator, &text) {
            Verdict::AcceptedByBoth => tally.accepted_by_both += 1,
            Verdict::RejectedByBoth => tally.rejected_by_both += 1,
            Verdict::Known => tally.known += 1,
            Verdict::Disagreement(d) => tally.disagreements.push(d),
        }
    }
    tally
}

fn validator<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(toolbox.definition(tool).unwrap().schema())
        .unwrap()
}

#[track_caller]
fn assert_agree(tally: Tally) {
    let total = cases();
    // Both sides of the boundary are exercised, not just one.
    assert!(tally.accepted_by_both > total / 10, "{tally:?}");
    assert!(tally.rejected_by_both > total / 10, "{tally:?}");
    assert_agree_only(tally);
}

fn assert_agree_only(tally: Tally) {
    let total = cases();
    assert!(
        tally.disagreements.is_empty(),
        "{} disagreements in {total} instances, the first ones:\n{}",
        tally.disagreements.len(),
        tally
            .disagreements
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn book_hotel() {
    let mut toolbox = Toolbox::new(hotel::Hotels::demo());
    toolbox.register(hotel::BookHotel).unwrap();
    assert_agree(differential(&toolbox, "book_hotel", 1));
}

#[test]
fn schedule_export() {
    let mut toolbox = Toolbox::new(export::Accounts::demo());
    toolbox.register(export::ScheduleExport).unwrap();
    assert_agree(differential(&toolbox, "schedule_export", 2));
}

#[test]
fn issue_refund() {
    let mut toolbox = Toolbox::new(refund::Shop::demo());
    toolbox.register(refund::IssueRefund).unwrap();
    assert_agree(differential(&toolbox, "issue_refund", 3));
}

#[test]
fn refund_invoice() {
    let mut toolbox = Toolbox::new(invoice::Billing::demo());
    toolbox.register(invoice::RefundInvoice).unwrap();
    assert_agree(differential(&toolbox, "refund_invoice", 4));
}

/// A rule the schema does not state: the harness must see the difference.
mod unstated {
    use std::collections::BTreeMap;

    use schemars::JsonSchema;
    use serde::{Deserialize, Deserializer};
    use toolgate::{ToolError, tool};

    fn even(n: &u32, _: &()) -> garde::Result {
        if n.is_multiple_of(2) {
            Ok(())
        } else {
            Err(garde::Error::new("must be even"))
        }
    }

    /// Take an even number.
    #[tool(effect = read)]
    pub fn take_even(#[garde(custom(even))] n: u32) -> Result<u32, ToolError> {
        Ok(n)
    }

    /// A floor number: read as a `u8`, and no floor is above 200. Its
    /// range is its own: registration cannot state it in the key pattern
    /// of a map keyed by it (`integer-map-keys`).
    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
    pub struct FloorNumber(u8);

    impl<'de> Deserialize<'de> for FloorNumber {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            match u8::deserialize(d)? {
                n @ 0..=200 => Ok(FloorNumber(n)),
                _ => Err(serde::de::Error::custom("no floor above 200")),
            }
        }
    }

    impl JsonSchema for FloorNumber {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            u8::schema_name()
        }

        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            u8::json_schema(generator)
        }
    }

    /// Flags by floor.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Floors {
        #[garde(skip)]
        pub flags: BTreeMap<FloorNumber, bool>,
    }

    /// Take an even number, and flags by floor.
    #[tool(effect = read)]
    pub fn take_even_and_flags(
        #[garde(custom(even))] n: u32,
        #[garde(dive)] floors: Floors,
    ) -> Result<usize, ToolError> {
        Ok(n as usize + floors.flags.len())
    }
}

#[test]
fn the_harness_finds_a_rule_the_schema_does_not_state() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(unstated::TakeEven).unwrap();
    let tally = differential(&toolbox, "take_even", 5);
    assert!(!tally.disagreements.is_empty(), "{tally:?}");
    assert!(
        tally.disagreements[0].contains("server rejects"),
        "{}",
        tally.disagreements[0]
    );
}

#[test]
fn a_known_difference_excuses_nothing_else() {
    // `"300"` is a key past the floor numbers (the known difference, where
    // the key type's range is its own) and `3` is odd (a rule the schema
    // does not state): the known difference must not hide the other.
    let mut toolbox = Toolbox::new(());
    toolbox.register(unstated::TakeEvenAndFlags).unwrap();
    let floors_validator = validator(&toolbox, "take_even_and_flags");
    let judge = |instance: Value| {
        decide(
            &toolbox,
            "take_even_and_flags",
            &floors_validator,
            &instance.to_string(),
        )
    };
    let floors = |key: &str| serde_json::json!({"flags": { key: true }});
    assert_eq!(
        judge(serde_json::json!({"n": 4, "floors": floors("300")})),
        Verdict::Known
    );
    assert!(matches!(
        judge(serde_json::json!({"n": 3, "floors": floors("300")})),
        Verdict::Disagreement(_)
    ));
    assert_eq!(
        judge(serde_json::json!({"n": 4, "floors": floors("3")})),
        Verdict::AcceptedByBoth
    );
    // Where the schema states the keys' range, there is nothing to excuse:
    // both sides refuse a key past it.
    let keys = shapes::open::toolbox();
    let keys_validator = validator(&keys, "integer_keys");
    let by_offset =
        |key: &str| serde_json::json!({"by_id": {}, "by_offset": { key: 1 }, "floors": []});
    assert_eq!(
        decide(
            &keys,
            "integer_keys",
            &keys_validator,
            &by_offset("300").to_string()
        ),
        Verdict::RejectedByBoth
    );
}

#[test]
fn numbers_are_read_by_value_as_the_schema_reads_them() {
    // JSON Schema counts `4.0`, `4e0` and `40e-1` as the integer 4: so does
    // the server, and a known difference need not excuse them.
    let mut toolbox = Toolbox::new(());
    toolbox.register(unstated::TakeEven).unwrap();
    let validator = validator(&toolbox, "take_even");
    for text in [
        r#"{"n":4.0}"#,
        r#"{"n":4e0}"#,
        r#"{"n":40e-1}"#,
        r#"{"n":-0}"#,
        r#"{"n":-0.0}"#,
        // A fraction too fine for a double is the integer it rounds to.
        r#"{"n":4.00000000000000000001}"#,
    ] {
        assert_eq!(
            decide(&toolbox, "take_even", &validator, text),
            Verdict::AcceptedByBoth,
            "{text}"
        );
    }
    for text in [r#"{"n":4.5}"#, r#"{"n":-2.0}"#, r#"{"n":3.0}"#] {
        assert_ne!(
            decide(&toolbox, "take_even", &validator, text),
            Verdict::AcceptedByBoth,
            "{text}"
        );
    }
}

#[test]
fn a_known_difference_is_stated_in_the_description() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(unstated::TakeEvenAndFlags).unwrap();
    let floors = toolbox.definition("take_even_and_flags").unwrap();
    assert!(
        floors
            .description()
            .ends_with("Numbers used as keys must fit the key's integer type."),
        "{}",
        floors.description()
    );
    // Keys of integer types state their range: nothing to add.
    let toolbox = shapes::open::toolbox();
    let keys = toolbox.definition("integer_keys").unwrap();
    assert_eq!(
        keys.description(),
        "Maps by integer key: every integer type, at the top and nested."
    );
    // A tool with integers but no integer keys has nothing to add.
    assert_eq!(
        hotel::BookHotel::definition().description(),
        "Book a hotel room for the signed-in traveller. The server looks up the \
         nightly rate and computes the total; the price is never an argument."
    );
}

#[test]
fn nested_structs_options_and_vectors() {
    assert_agree(differential(&shapes::toolbox(), "nested", 11));
}

#[test]
fn integers_of_every_width_and_floats() {
    assert_agree(differential(&shapes::toolbox(), "widths", 12));
}

#[test]
fn maps_fixed_arrays_and_tuples() {
    assert_agree(differential(&shapes::toolbox(), "collections", 13));
}

#[test]
fn enums_of_every_tagging() {
    assert_agree(differential(&shapes::toolbox(), "enums", 14));
}

#[test]
fn recursive_types() {
    assert_agree(differential(&shapes::toolbox(), "plant_tree", 15));
}

/// Maps: a length rule on a map, and integer keys.
mod maps {
    use super::*;

    /// `length(min = 1, max = 3)` on a map: the schema states it as
    /// `minProperties`/`maxProperties`.
    #[test]
    fn a_map_length_rule() {
        assert_agree(differential(&shapes::open::toolbox(), "sized_map", 21));
    }

    /// Maps keyed by every integer type, at the top and nested: the key
    /// pattern states each type's range, and keys at each end, one past
    /// it, and written with escapes are decided alike, with no known
    /// difference to excuse them.
    #[test]
    fn integer_map_keys() {
        let toolbox = shapes::open::toolbox();
        let schema = toolbox.definition("integer_keys").unwrap().schema();
        assert!(!states_no_key_range(schema), "{schema}");
        let tally = differential(&toolbox, "integer_keys", 22);
        assert_eq!(tally.known, 0, "{tally:?}");
        assert_agree(tally);
    }

    /// Maps by `bool`, `char`, documented enum and integer newtype keys, at
    /// the top, nested and in a map's values: `true` and `false` and
    /// nothing else, spelled with escapes or not; exactly one character,
    /// however many UTF-8 bytes or UTF-16 units it takes; the enum's names;
    /// the newtype's integers. Decided alike, with no known difference.
    #[test]
    fn scalar_map_keys() {
        let tally = differential(&shapes::open::toolbox(), "scalar_keys", 23);
        assert_eq!(tally.known, 0, "{tally:?}");
        assert_agree(tally);
    }
}

/// Free-form values (`serde_json::Value`, alone, optional, in a list, as a
/// map's values, in a struct, and a `RawValue`), decided alike by both
/// sides, and received by the tool exactly as serde_json reads the same
/// text: number kinds (`u64`, `i64`, `f64`) and the sign of zero included.
#[test]
fn free_form_values_arrive_as_serde_json_reads_them() {
    let toolbox = shapes::toolbox();
    let validator = validator(&toolbox, "free_form");
    let mut generator = Generator::new(toolbox.definition("free_form").unwrap().schema(), 16);
    let mut tally = Tally::default();
    let mut received = 0;
    for _ in 0..cases() {
        let text = Generator::render(&generator.instance());
        match decide(&toolbox, "free_form", &validator, &text) {
            Verdict::AcceptedByBoth => {
                tally.accepted_by_both += 1;
                if let Some(difference) = shapes::received_as_sent(&toolbox, &text) {
                    tally.disagreements.push(difference);
                }
                received += 1;
            }
            Verdict::RejectedByBoth => tally.rejected_by_both += 1,
            Verdict::Known => tally.known += 1,
            Verdict::Disagreement(d) => tally.disagreements.push(d),
        }
    }
    assert!(received > cases() / 10, "{tally:?}");
    assert_agree(tally);
}

/// The generator reaches the bounds a weaker one missed: a server that
/// allowed 400 characters where the schema says 40, or 13 digits where it
/// says 12, must meet an instance that shows it.
#[test]
fn the_generator_reaches_every_bound() {
    let texts = |schema: &Value, seed| {
        let mut generator = Generator::new(schema, seed);
        (0..5_000)
            .map(|_| Generator::render(&generator.instance()))
            .collect::<Vec<_>>()
    };
    let found = |texts: &[String], want: &dyn Fn(&Value) -> bool| {
        texts
            .iter()
            .any(|t| want(&serde_json::from_str(t).unwrap()))
    };
    let chars = |v: &Value, key: &str| v[key].as_str().map(|s| s.chars().count());

    let export = export::ScheduleExport::definition();
    let export = texts(export.schema(), 31);
    for n in [40, 41] {
        assert!(
            found(&export, &|v| chars(v, "account_ref") == Some(n)),
            "{n}"
        );
    }

    let refund = refund::IssueRefund::definition();
    let refund = texts(refund.schema(), 32);
    for digits in [0, 1, 12, 13] {
        let want = |v: &Value| {
            v["order"].as_str().is_some_and(|s| {
                s.strip_prefix("ord_")
                    .is_some_and(|d| d.len() == digits && d.bytes().all(|b| b.is_ascii_digit()))
            })
        };
        assert!(found(&refund, &want), "{digits} digits");
    }
    for n in [0, 1, 50_000, 50_001] {
        assert!(found(&refund, &|v| v["amount_cents"] == n), "{n}");
    }
    assert!(refund.iter().any(|t| t.contains(r#""amount_cents":-0"#)));
    assert!(found(&refund, &|v| v["amount_cents"].is_f64()));
    for c in ['\n', '\r', '\u{2028}', '\u{2029}', '٣', '\u{FEFF}'] {
        assert!(
            found(&refund, &|v| v["order"]
                .as_str()
                .is_some_and(|s| s.contains(c))),
            "{c:?}"
        );
    }

    let toolbox = shapes::toolbox();
    let widths = texts(toolbox.definition("widths").unwrap().schema(), 33);
    for (key, n) in [("a", 256), ("e", -129), ("e", 128), ("b", 65_536), ("r", 9)] {
        assert!(found(&widths, &|v| v[key] == n), "{key} {n}");
    }
    let nested = texts(toolbox.definition("nested").unwrap().schema(), 34);
    // An array for an object, an object for an array, sizes past bounds.
    assert!(found(&nested, &|v| v["origin"].is_array()));
    assert!(found(&nested, &|v| v["labels"].is_object()));
    assert!(found(&nested, &|v| v["labels"]
        .as_array()
        .is_some_and(|l| l.len() == 5)));
    assert!(found(&nested, &|v| v["labels"][0]["text"]
        .as_str()
        .is_some_and(|s| s.chars().count() == 6 && s.len() > 6)));
    // Keys of `bool` and `char` maps: near misses, escaped spellings (an
    // emoji as a surrogate pair), one character of every width, and more
    // than one code point that looks like one character.
    let keys = shapes::open::toolbox();
    let scalar: Vec<String> = {
        let schema = keys.definition("scalar_keys").unwrap().schema();
        let mut generator = Generator::new(schema, 36);
        (0..20_000)
            .map(|_| Generator::render(&generator.instance()))
            .collect()
    };
    // Whether some map of `fields`, at any depth, has a key `want` says.
    fn keyed_in(value: &Value, fields: &[&str], want: &dyn Fn(&str) -> bool) -> bool {
        match value {
            Value::Object(map) => map.iter().any(|(name, v)| {
                (fields.contains(&name.as_str())
                    && v.as_object().is_some_and(|m| m.keys().any(|k| want(k))))
                    || keyed_in(v, fields, want)
            }),
            Value::Array(items) => items.iter().any(|v| keyed_in(v, fields, want)),
            _ => false,
        }
    }
    let keyed = |texts: &[String], fields: &[&str], want: &dyn Fn(&str) -> bool| {
        texts
            .iter()
            .any(|t| keyed_in(&serde_json::from_str(t).unwrap(), fields, want))
    };
    let flags = ["by_flag", "by_state"];
    let letters = ["by_letter", "by_initial"];
    for key in ["true", "false", "True", "FALSE", "tru", "falsee", " true"] {
        assert!(keyed(&scalar, &flags, &|k| k == key), "{key}");
    }
    assert!(
        scalar
            .iter()
            .any(|t| t.contains(r#""by_flag":{"\u0074\u0072\u0075\u0065""#)
                || t.contains(r#""\u0074\u0072\u0075\u0065":"#))
    );
    assert!(scalar.iter().any(|t| t.contains(r#""\ud83d\ude00":"#)));
    for key in ["a", "😀", "", "ab", "e\u{301}", "😀😀", "\u{301}"] {
        assert!(keyed(&scalar, &letters, &|k| k == key), "{key:?}");
    }
    for chars in [1, 2] {
        assert!(
            keyed(&scalar, &letters, &|k| k.chars().count() == chars
                && k.len() > chars),
            "{chars} characters of several bytes"
        );
    }

    let enums = texts(toolbox.definition("enums").unwrap().schema(), 35);
    assert!(found(&enums, &|v| v["figure"]["kind"] == "dot"
        && v["figure"].as_object().is_some_and(|f| f.len() > 1)));
    assert!(found(&enums, &|v| v["figure"].is_object()
        && v["figure"].get("kind").is_none()));
}
