//! Types that read more than their schema says, each a plausible one:
//! a field that also takes a single string for a list, a boolean that
//! also reads words, a number that reads its text, an enum read by hand
//! whatever the case, a rule that compares neighbours only, a tuple whose
//! later items a laxer type reads. Registration must not prove any of them
//! read without the schema (inside an object member, read against its own
//! subschema, they may be), and whichever way a call goes, what the
//! server accepts the published schema accepts (as the jsonschema crate
//! reads it), one pass and gate by gate alike.

use std::num::NonZeroU32;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use toolgate::testing::{check_arguments, check_arguments_gate_by_gate, read_without_schema};
use toolgate::{ToolError, Toolbox, tool};

fn register<S: Send + Sync + 'static>(
    toolbox: &mut Toolbox<S>,
    tool: impl toolgate::Tool<S> + 'static,
) -> bool {
    let name = tool.definition().name();
    toolbox.register(tool).expect("registers");
    read_without_schema(toolbox, name).expect("registered")
}

/// One line per document: what each side says. Returns a description of
/// every break of the invariant.
fn judge<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, name: &str, docs: &[&str]) -> Vec<String> {
    let schema = toolbox.definition(name).unwrap().schema().clone();
    let validator = jsonschema::options().build(&schema).unwrap();
    let flat = read_without_schema(toolbox, name).unwrap();
    let mut breaks = Vec::new();
    for doc in docs {
        let one = check_arguments(toolbox, name, doc.as_bytes()).unwrap();
        let gates = check_arguments_gate_by_gate(toolbox, name, doc.as_bytes()).unwrap();
        let value: serde_json::Value = serde_json::from_str(doc).unwrap();
        let by_schema = validator.is_valid(&value);
        let line = format!(
            "{name} {doc}: one_pass={:?} gate_by_gate={:?} schema={by_schema} flat={flat}",
            one.as_ref().map_err(|r| r.code()),
            gates.as_ref().map_err(|r| r.code()),
        );
        if one != gates || (one.is_ok() && !by_schema) || (gates.is_ok() && !by_schema) {
            breaks.push(line);
        }
    }
    breaks
}

#[track_caller]
fn assert_holds(breaks: Vec<String>) {
    assert!(
        breaks.is_empty(),
        "invariant broken:\n{}",
        breaks.join("\n")
    );
}

// An array of strings that also reads a single string.

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string or a list of strings")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Vec<String>, E> {
            Ok(vec![s.to_owned()])
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut out = Vec::new();
            while let Some(s) = seq.next_element::<String>()? {
                out.push(s);
            }
            Ok(out)
        }
    }
    d.deserialize_any(V)
}

/// Recipients: a list, though a single address is taken too.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct Recipients(
    #[serde(deserialize_with = "one_or_many")]
    #[garde(length(min = 1, max = 5), inner(length(chars, max = 64)))]
    Vec<String>,
);

/// Send a memo.
#[tool(effect = read)]
fn send_memo(
    #[garde(dive)] to: Recipients,
    #[garde(length(chars, max = 100))] text: String,
) -> Result<(), ToolError> {
    let _ = (to, text);
    Ok(())
}

#[test]
fn a_one_or_many_list() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, SendMemo);
    assert_holds(judge(
        &toolbox,
        "send_memo",
        &[
            r#"{"to":["a@b.c"],"text":"hi"}"#,
            r#"{"to":"a@b.c","text":"hi"}"#,
        ],
    ));
}

/// A format, read by name.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Low,
    High,
}

/// Send a memo with a priority: a schema with choices, so the gates one by
/// one walk it.
#[tool(effect = read)]
fn send_priority_memo(
    #[garde(dive)] to: Recipients,
    #[garde(skip)] priority: Priority,
) -> Result<(), ToolError> {
    let _ = (to, priority);
    Ok(())
}

#[test]
fn a_one_or_many_list_beside_choices() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, SendPriorityMemo);
    assert_holds(judge(
        &toolbox,
        "send_priority_memo",
        &[
            r#"{"to":["a@b.c"],"priority":"low"}"#,
            r#"{"to":"a@b.c","priority":"low"}"#,
        ],
    ));
}

// A boolean that also reads "true"/"false".

fn lenient_bool<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a boolean")
        }
        fn visit_bool<E: de::Error>(self, b: bool) -> Result<bool, E> {
            Ok(b)
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<bool, E> {
            match s {
                "true" | "yes" => Ok(true),
                "false" | "no" => Ok(false),
                _ => Err(E::invalid_value(de::Unexpected::Str(s), &self)),
            }
        }
    }
    d.deserialize_any(V)
}

/// Whether to notify: `true`, or `"yes"` as models often write it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Notify(#[serde(deserialize_with = "lenient_bool")] pub bool);

/// Archive a thread.
#[tool(effect = read)]
fn archive_thread(
    #[garde(length(chars, max = 20))] thread: String,
    #[garde(skip)] notify: Notify,
) -> Result<(), ToolError> {
    let _ = (thread, notify);
    Ok(())
}

#[test]
fn a_boolean_that_reads_words() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, ArchiveThread);
    assert_holds(judge(
        &toolbox,
        "archive_thread",
        &[
            r#"{"thread":"t","notify":true}"#,
            r#"{"thread":"t","notify":"yes"}"#,
            r#"{"thread":"t","notify":"true"}"#,
        ],
    ));
}

// A non-zero count read from a number or its text.

fn count_or_text<'de, D: Deserializer<'de>>(d: D) -> Result<NonZeroU32, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = NonZeroU32;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a positive count")
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<NonZeroU32, E> {
            u32::try_from(n)
                .ok()
                .and_then(NonZeroU32::new)
                .ok_or_else(|| E::custom("not a positive count"))
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<NonZeroU32, E> {
            s.parse().map_err(E::custom)
        }
    }
    d.deserialize_any(V)
}

/// A page size: a positive count, or its text.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct PageSize(#[serde(deserialize_with = "count_or_text")] pub NonZeroU32);

/// List orders.
#[tool(effect = read)]
fn list_orders(#[garde(skip)] page_size: PageSize) -> Result<(), ToolError> {
    let _ = page_size;
    Ok(())
}

#[test]
fn a_count_that_reads_its_text() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, ListOrders);
    assert_holds(judge(
        &toolbox,
        "list_orders",
        &[r#"{"page_size":5}"#, r#"{"page_size":"5"}"#],
    ));
}

// A port that also reads a service's name.

fn port_or_name<'de, D: Deserializer<'de>>(d: D) -> Result<u16, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = u16;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a port")
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<u16, E> {
            u16::try_from(n).map_err(E::custom)
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<u16, E> {
            match s {
                "http" => Ok(80),
                "https" => Ok(443),
                _ => Err(E::custom("unknown service")),
            }
        }
    }
    d.deserialize_any(V)
}

/// A port.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Port(#[serde(deserialize_with = "port_or_name")] pub u16);

/// Open a port.
#[tool(effect = read)]
fn open_port(#[garde(skip)] port: Port) -> Result<(), ToolError> {
    let _ = port;
    Ok(())
}

#[test]
fn a_port_that_reads_a_name() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, OpenPort);
    assert_holds(judge(
        &toolbox,
        "open_port",
        &[r#"{"port":443}"#, r#"{"port":"https"}"#],
    ));
}

// A fraction whose schema says integer, within a range.

/// Stars, whole in the schema, a double in Rust.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct Stars(
    #[schemars(with = "u8")]
    #[garde(range(min = 1.0, max = 5.0))]
    f64,
);

/// Rate a product.
#[tool(effect = read)]
fn rate(#[garde(dive)] stars: Stars) -> Result<(), ToolError> {
    let _ = stars;
    Ok(())
}

#[test]
fn a_fraction_probe_refused_by_a_range() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, Rate);
    assert_holds(judge(
        &toolbox,
        "rate",
        &[r#"{"stars":3}"#, r#"{"stars":1.5}"#, r#"{"stars":4.25}"#],
    ));
}

// A string that also reads a list (its first).

fn first_of<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<String, E> {
            Ok(s.to_owned())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
            let first: String = seq
                .next_element()?
                .ok_or_else(|| de::Error::custom("empty"))?;
            while seq.next_element::<de::IgnoredAny>()?.is_some() {}
            Ok(first)
        }
    }
    d.deserialize_any(V)
}

/// A label: a string, or the first of a list.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Label(#[serde(deserialize_with = "first_of")] pub String);

/// Label an item.
#[tool(effect = read)]
fn label_item(#[garde(skip)] label: Label) -> Result<(), ToolError> {
    let _ = label;
    Ok(())
}

#[test]
fn a_string_that_reads_a_list() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, LabelItem);
    assert_holds(judge(
        &toolbox,
        "label_item",
        &[r#"{"label":"a"}"#, r#"{"label":["a","b"]}"#],
    ));
}

// An enum read by name, case-insensitively, by hand.

/// A colour.
#[derive(Debug, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    Red,
    Green,
}

impl<'de> Deserialize<'de> for Colour {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Colour;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a colour")
            }
            fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Colour, A::Error> {
                use serde::de::VariantAccess;
                let (name, variant): (String, _) = data.variant()?;
                variant.unit_variant()?;
                match name.to_ascii_lowercase().as_str() {
                    "red" => Ok(Colour::Red),
                    "green" => Ok(Colour::Green),
                    _ => Err(de::Error::unknown_variant(&name, &["red", "green"])),
                }
            }
        }
        d.deserialize_enum("Colour", &["red", "green"], V)
    }
}

/// Paint a wall.
#[tool(effect = read)]
fn paint(#[garde(skip)] colour: Colour) -> Result<(), ToolError> {
    let _ = colour;
    Ok(())
}

#[test]
fn an_enum_read_case_insensitively() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, Paint);
    assert_holds(judge(
        &toolbox,
        "paint",
        &[r#"{"colour":"red"}"#, r#"{"colour":"RED"}"#],
    ));
}

// Items held apart by a rule that compares neighbours.

fn no_repeats(words: &[String], _: &()) -> garde::Result {
    if words.windows(2).any(|w| w[0] == w[1]) {
        return Err(garde::Error::new("must not repeat a word"));
    }
    Ok(())
}

/// Keywords, each once.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
#[schemars(extend("uniqueItems" = true))]
pub struct Keywords(#[garde(length(max = 8), custom(no_repeats))] Vec<String>);

/// Search by keywords.
#[tool(effect = read)]
fn search_keywords(#[garde(dive)] keywords: Keywords) -> Result<(), ToolError> {
    let _ = keywords;
    Ok(())
}

#[test]
fn items_held_apart_by_neighbours() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, SearchKeywords);
    assert_holds(judge(
        &toolbox,
        "search_keywords",
        &[
            r#"{"keywords":["a","b"]}"#,
            r#"{"keywords":["a","a"]}"#,
            r#"{"keywords":["a","b","a"]}"#,
        ],
    ));
}

// An optional flag.

/// Mute a channel.
#[tool(effect = read)]
fn mute(
    #[garde(length(chars, max = 20))] channel: String,
    #[garde(skip)] quiet: Option<bool>,
) -> Result<(), ToolError> {
    let _ = (channel, quiet);
    Ok(())
}

#[test]
fn an_optional_flag() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, Mute);
    assert_holds(judge(
        &toolbox,
        "mute",
        &[
            r#"{"channel":"c"}"#,
            r#"{"channel":"c","quiet":null}"#,
            r#"{"channel":"c","quiet":true}"#,
        ],
    ));
}

// Later items of an array read by a laxer type.

/// A number or any text.
#[derive(Debug)]
pub struct Loose(String);

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Loose;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number or text")
            }
            fn visit_u64<E>(self, n: u64) -> Result<Loose, E> {
                Ok(Loose(n.to_string()))
            }
            fn visit_str<E>(self, text: &str) -> Result<Loose, E> {
                Ok(Loose(text.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A code and an optional second one, the first strict.
#[derive(Debug, Deserialize)]
pub struct Codes(u8, #[serde(default)] Option<Loose>);

impl JsonSchema for Codes {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Codes".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 255},
            "minItems": 1,
            "maxItems": 2
        })
    }
}

/// Send codes.
#[tool(effect = read)]
fn send_codes(#[garde(skip)] codes: Codes) -> Result<(), ToolError> {
    let _ = (codes.0, codes.1.map(|l| l.0));
    Ok(())
}

#[test]
fn later_items_read_by_a_laxer_type() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, SendCodes);
    assert_holds(judge(
        &toolbox,
        "send_codes",
        &[
            r#"{"codes":[1]}"#,
            r#"{"codes":[1,2]}"#,
            r#"{"codes":[1,"x"]}"#,
        ],
    ));
}

// A fraction whose hand-written schema says integer with whole bounds.

/// Stars: whole in the schema, a double in Rust.
#[derive(Debug, Deserialize, garde::Validate)]
#[serde(transparent)]
pub struct Rating(#[garde(range(min = 1.0, max = 5.0))] f64);

impl JsonSchema for Rating {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rating".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "minimum": 1, "maximum": 5})
    }
}

/// Rate a film.
#[tool(effect = read)]
fn rate_film(#[garde(dive)] rating: Rating) -> Result<(), ToolError> {
    let _ = rating;
    Ok(())
}

#[test]
fn a_fraction_probe_refused_by_a_range_by_hand() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, RateFilm);
    assert_holds(judge(
        &toolbox,
        "rate_film",
        &[r#"{"rating":3}"#, r#"{"rating":1.5}"#, r#"{"rating":0.5}"#],
    ));
}

// The same where the schema is read.

/// Archive quietly or not: not flat.
#[tool(effect = read)]
fn archive_noted(
    #[garde(skip)] notify: Notify,
    #[garde(skip)] quiet: Option<bool>,
) -> Result<(), ToolError> {
    let _ = (notify, quiet);
    Ok(())
}

#[test]
fn a_boolean_that_reads_words_where_the_schema_is_read() {
    let mut toolbox = Toolbox::new(());
    assert!(!register(&mut toolbox, ArchiveNoted));
    assert_holds(judge(
        &toolbox,
        "archive_noted",
        &[r#"{"notify":true}"#, r#"{"notify":"yes"}"#],
    ));
}

// An integer whose visitor also takes a fraction.

fn rounded<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a count")
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<u64, E> {
            Ok(n)
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        fn visit_f64<E: de::Error>(self, n: f64) -> Result<u64, E> {
            Ok(n.round() as u64)
        }
    }
    d.deserialize_u64(V)
}

/// A count its type asks for as an integer, and rounds if sent a fraction.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Rounded(#[serde(deserialize_with = "rounded")] pub u64);

/// Order a number of boxes.
#[tool(effect = read)]
fn order_boxes(#[garde(skip)] boxes: Rounded) -> Result<(), ToolError> {
    let _ = boxes.0;
    Ok(())
}

/// The type asks for an integer, so it is read without the schema; the
/// reader then takes only a number written as an integer there, whatever
/// the type's visitor would take.
#[test]
fn an_integer_whose_visitor_takes_a_fraction() {
    let mut toolbox = Toolbox::new(());
    assert!(register(&mut toolbox, OrderBoxes));
    assert_holds(judge(
        &toolbox,
        "order_boxes",
        &[r#"{"boxes":3}"#, r#"{"boxes":2.5}"#, r#"{"boxes":1e3}"#],
    ));
}

// Lax types inside an object member, which the single pass reads against
// its subschema while the rest is read without the schema.

/// How to deliver: a boolean that also reads words, a count that also
/// reads its text.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Delivery {
    #[garde(skip)]
    pub notify: Notify,
    #[garde(skip)]
    pub copies: Option<PageSize>,
}

/// Deliver a report.
#[tool(effect = read)]
fn deliver_report(
    #[garde(length(chars, max = 20))] report: String,
    #[garde(dive)] delivery: Delivery,
) -> Result<(), ToolError> {
    let _ = (report, delivery);
    Ok(())
}

/// The report's name is read without the schema; the delivery, against
/// its subschema, so the words and texts its types take are refused as
/// the schema refuses them, whichever member comes first.
#[test]
fn lax_types_inside_an_object_member() {
    let mut toolbox = Toolbox::new(());
    assert!(register(&mut toolbox, DeliverReport));
    assert_holds(judge(
        &toolbox,
        "deliver_report",
        &[
            r#"{"report":"q3","delivery":{"notify":true}}"#,
            r#"{"report":"q3","delivery":{"notify":true,"copies":2}}"#,
            r#"{"report":"q3","delivery":{"notify":false,"copies":null}}"#,
            r#"{"report":"q3","delivery":{"notify":"yes"}}"#,
            r#"{"delivery":{"notify":"yes"},"report":"q3"}"#,
            r#"{"report":"q3","delivery":{"notify":true,"copies":"2"}}"#,
            r#"{"delivery":{"notify":true,"copies":"2"},"report":"q3"}"#,
            r#"{"report":"q3","delivery":{"notify":true,"copies":2,"cc":1}}"#,
            r#"{"report":"q3","delivery":null}"#,
            r#"{"report":"q3","delivery":"yes"}"#,
        ],
    ));
}

// A single-precision float reads a value just past its bound as the bound.

/// Set a ratio between -1 and 1.
#[tool(effect = read)]
fn set_ratio(#[garde(range(min = -1.0, max = 1.0))] ratio: f32) -> Result<(), ToolError> {
    let _ = ratio;
    Ok(())
}

/// `1.00000001` reads as the `f32` `1.0`, which the rule takes: each call
/// is checked against the bounds the schema states before serde reads it,
/// and a value past them is refused as the schema refuses it.
#[test]
fn a_single_precision_float_just_past_its_bounds() {
    let mut toolbox = Toolbox::new(());
    register(&mut toolbox, SetRatio);
    assert_eq!(
        toolgate::testing::checked_before_serde(&toolbox, "set_ratio"),
        Some(true)
    );
    let docs = [
        r#"{"ratio":1.0}"#,
        r#"{"ratio":-1}"#,
        r#"{"ratio":0.5}"#,
        r#"{"ratio":1.00000001}"#,
        r#"{"ratio":-1.00000001}"#,
        r#"{"ratio":1.0000001}"#,
        r#"{"ratio":2}"#,
    ];
    assert_holds(judge(&toolbox, "set_ratio", &docs));
    for doc in &docs[3..] {
        assert!(
            check_arguments(&toolbox, "set_ratio", doc.as_bytes())
                .unwrap()
                .is_err(),
            "{doc}"
        );
    }
}

// Types that read a member left out as a value of their own: serde gets
// no missing field, and nothing but the schema requires the member.

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct PagingWritten {
    pub page: u32,
    pub size: u32,
}

/// Paging: left out, the first page of 20.
#[derive(Debug, JsonSchema)]
pub struct Paging {
    pub page: u32,
    pub size: u32,
}

impl<'de> Deserialize<'de> for Paging {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let written = Option::<PagingWritten>::deserialize(d)?;
        Ok(written.map_or(Paging { page: 0, size: 20 }, |w| Paging {
            page: w.page,
            size: w.size,
        }))
    }
}

/// List items.
#[tool(effect = read)]
fn list_items(
    #[garde(length(chars, max = 20))] query: String,
    #[garde(skip)] paging: Paging,
) -> Result<(), ToolError> {
    let _ = (query, paging.page, paging.size);
    Ok(())
}

/// A limit: left out, 10.
#[derive(Debug, JsonSchema)]
#[serde(transparent)]
pub struct Limit(pub u32);

impl<'de> Deserialize<'de> for Limit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Limit(Option::<u32>::deserialize(d)?.unwrap_or(10)))
    }
}

/// List items, at most a limit.
#[tool(effect = read)]
fn list_limited(
    #[garde(length(chars, max = 20))] query: String,
    #[garde(skip)] limit: Limit,
) -> Result<(), ToolError> {
    let _ = (query, limit.0);
    Ok(())
}

/// The schema requires `paging` and `limit`; their types read them left
/// out. Registration must not prove such a tool read without its schema,
/// and a call that leaves the member out is refused as the schema refuses
/// it, on both paths.
#[test]
fn a_member_its_type_reads_when_left_out() {
    let mut toolbox = Toolbox::new(());
    assert!(!register(&mut toolbox, ListItems));
    assert!(!register(&mut toolbox, ListLimited));
    assert_holds(judge(
        &toolbox,
        "list_items",
        &[
            r#"{"query":"a","paging":{"page":1,"size":2}}"#,
            r#"{"query":"a"}"#,
            r#"{"paging":{"page":1,"size":2}}"#,
            r#"{}"#,
            r#"{"query":"a","paging":null}"#,
        ],
    ));
    assert_holds(judge(
        &toolbox,
        "list_limited",
        &[
            r#"{"query":"a","limit":3}"#,
            r#"{"query":"a"}"#,
            r#"{"query":"a","limit":null}"#,
        ],
    ));
    for doc in [r#"{"query":"a"}"#] {
        for name in ["list_items", "list_limited"] {
            assert!(
                check_arguments(&toolbox, name, doc.as_bytes())
                    .unwrap()
                    .is_err(),
                "{name} {doc}"
            );
        }
    }
}

// Members of every kind, read against their subschemas beside plain ones.

/// Why, internally tagged, any other tag read as `Other`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    Error,
    Goodwill {
        by: String,
        note: Option<String>,
    },
    #[serde(other)]
    Other,
}

/// Adjacently tagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
pub enum Adj {
    A(u8),
    B { x: String },
    C,
}

/// Externally tagged, one variant with an alias.
#[derive(Debug, Deserialize, JsonSchema)]
pub enum Ext {
    Unit,
    #[serde(alias = "Nt")]
    Newtype(u8),
    Tuple(u8, String),
    Struct {
        y: Option<Option<u8>>,
    },
}

/// A struct with a defaulted member and a flattened one.
#[derive(Debug, Deserialize, JsonSchema, Default)]
pub struct Inner {
    #[serde(default)]
    pub a: Option<Vec<u8>>,
    #[serde(flatten)]
    pub rest: Flat,
}

/// Flattened into `Inner`, with a field never read.
#[derive(Debug, Deserialize, JsonSchema, Default)]
pub struct Flat {
    pub b: Option<String>,
    #[serde(skip_deserializing)]
    pub skipped: u8,
}

/// Many members.
#[tool(effect = read)]
fn many_members(
    #[garde(length(chars, max = 20))] name: String,
    #[garde(skip)] reason: Option<Reason>,
    #[garde(skip)] adj: Option<Adj>,
    #[garde(skip)] ext: Option<Ext>,
    #[garde(skip)] inner: Option<Option<Inner>>,
    #[garde(skip)] list: Option<Vec<Inner>>,
    #[garde(length(max = 3))] tags: Vec<String>,
) -> Result<(), ToolError> {
    let _ = (name, reason, adj, ext, inner, list, tags);
    Ok(())
}

/// Members of every kind beside plain ones, each read against its
/// subschema: unions of each tagging, with `#[serde(other)]`, aliases and
/// unit variants, `Option<Option<_>>`, `flatten`, skipped fields, arrays
/// of objects; written first, last or alone, repeated, with escapes.
#[test]
fn members_of_every_kind_read_against_their_subschemas() {
    let mut toolbox = Toolbox::new(());
    assert!(register(&mut toolbox, ManyMembers));
    assert_holds(judge(
        &toolbox,
        "many_members",
        &[
            r#"{"name":"a","tags":[]}"#,
            r#"{"name":"a","tags":[],"reason":{"kind":"error"}}"#,
            r#"{"name":"a","tags":[],"reason":{"kind":"nope"}}"#,
            r#"{"name":"a","tags":[],"reason":{"kind":"goodwill","by":"x"}}"#,
            r#"{"name":"a","tags":[],"reason":{"kind":"goodwill","by":"x","extra":1}}"#,
            r#"{"name":"a","tags":[],"reason":{"kind":"error","by":1}}"#,
            r#"{"name":"a","tags":[],"reason":{"by":"x","kind":"goodwill","note":null}}"#,
            r#"{"name":"a","tags":[],"reason":{"kind":"goodwill","by":"x","by":"y"}}"#,
            r#"{"name":"a","tags":[],"reason":{"kind":"error","kind":"error"}}"#,
            r#"{"name":"a","tags":[],"reason":{"kind":"error"},"reason":{"kind":"error"}}"#,
            r#"{"name":"a","tags":[],"re\u0061son":{"kind":"nope"}}"#,
            r#"{"name":"a","tags":[],"reason":{"k\u0069nd":"error"}}"#,
            r#"{"name":"a","tags":[],"reason":null}"#,
            r#"{"reason":{"kind":"nope"},"name":"a","tags":[]}"#,
            r#"{"reason":{"kind":"error"}}"#,
            r#"{"name":"a","tags":[],"adj":{"t":"A","c":3}}"#,
            r#"{"name":"a","tags":[],"adj":{"t":"A","c":300}}"#,
            r#"{"name":"a","tags":[],"adj":{"t":"C"}}"#,
            r#"{"name":"a","tags":[],"adj":{"t":"C","c":null}}"#,
            r#"{"name":"a","tags":[],"adj":{"c":{"x":"s"},"t":"B"}}"#,
            r#"{"name":"a","tags":[],"adj":{"t":"B","c":{"x":"s","z":1}}}"#,
            r#"{"name":"a","tags":[],"ext":"Unit"}"#,
            r#"{"name":"a","tags":[],"ext":{"Unit":null}}"#,
            r#"{"name":"a","tags":[],"ext":{"Newtype":3}}"#,
            r#"{"name":"a","tags":[],"ext":{"Nt":3}}"#,
            r#"{"name":"a","tags":[],"ext":"Newtype"}"#,
            r#"{"name":"a","tags":[],"ext":{"Tuple":[1,"x"]}}"#,
            r#"{"name":"a","tags":[],"ext":{"Tuple":[1,"x",2]}}"#,
            r#"{"name":"a","tags":[],"ext":{"Struct":{"y":null}}}"#,
            r#"{"name":"a","tags":[],"ext":{"Struct":{}}}"#,
            r#"{"name":"a","tags":[],"ext":{"Struct":{"y":1},"Unit":null}}"#,
            r#"{"name":"a","tags":[],"inner":null}"#,
            r#"{"name":"a","tags":[],"inner":{}}"#,
            r#"{"name":"a","tags":[],"inner":{"a":null,"b":null}}"#,
            r#"{"name":"a","tags":[],"inner":{"a":[1,2],"b":"x","skipped":3}}"#,
            r#"{"name":"a","tags":[],"inner":{"a":[1,{}]}}"#,
            r#"{"name":"a","tags":[],"inner":{"a":[1,null]}}"#,
            r#"{"name":"a","tags":[],"inner":{"zzz":{"q":null}}}"#,
            r#"{"name":"a","tags":[],"inner":{"b":"x","b":"y"}}"#,
            r#"{"name":"a","tags":[],"list":[{},{"a":[1]}]}"#,
            r#"{"name":"a","tags":[],"list":[{},null]}"#,
            r#"{"name":"a","tags":[],"list":[[]]}"#,
            r#"{"name":"a","tags":[],"list":null}"#,
            r#"{"name":"a","tags":["x"],"list":[],"inner":{},"ext":"Unit","adj":{"t":"C"},"reason":{"kind":"error"}}"#,
            r#"{"inner":{"a":[1]},"name":"a","tags":[null]}"#,
            r#"{"inner":{"a":[1]},"name":null,"tags":[]}"#,
            r#"{"inner":{"a":[1]},"name":"a","tags":[],"extra":{}}"#,
            r#"{"inner":{"a":[1]},"tags":[],"name":"a","name":"b"}"#,
        ],
    ));
}
