use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use core::fmt;
use std::sync::OnceLock;

use serde::de::{self, DeserializeOwned, Visitor};

use super::guide::NO_TAG;
use super::*;
use crate::Limits;
use crate::gate::bounded;
use crate::gate::structural::shape::{Shape, Tagged};

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    name: String,
    count: u32,
    #[serde(default)]
    ratio: Option<f64>,
    #[serde(default)]
    tags: Vec<String>,
    window: Option<Window>,
    shape: Option<Figure>,
    step: Option<Step>,
    meta: Option<HashMap<String, i64>>,
    extra: Option<serde_json::Value>,
    signed: Option<i64>,
    tone: Option<Tone>,
    /// Whose items must differ (`uniqueItems`).
    set: Option<std::collections::BTreeSet<i64>>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Window {
    days: u32,
    #[serde(rename = "from")]
    start: Option<String>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
enum Figure {
    Dot,
    Circle { radius: f64 },
    Square { side: u32 },
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
enum Step {
    Stop,
    Go(u32),
    Turn { degrees: i32 },
    Pair(u8, u8),
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c", deny_unknown_fields)]
enum Tone {
    Quiet,
    Loud(u8),
}

fn limits() -> Limits {
    Limits::default()
}

/// Reads `json` both ways the toolbox may: with the text known to be
/// UTF-8, and checking each string as it is read. Both must agree.
fn read<A: DeserializeOwned + PartialEq + fmt::Debug>(
    json: &str,
    limits: &Limits,
    shape: &Shape,
) -> Option<A> {
    let known = super::read::<A>(json.as_bytes(), Some(json), limits, shape);
    let checked = super::read::<A>(json.as_bytes(), None, limits, shape);
    assert_eq!(known, checked, "{json}");
    known
}

#[test]
fn a_comma_out_of_place_stops_the_reader() {
    let shape = Shape::default();
    for doc in [
        r#"{,"a":1}"#,
        r#"{"a":1 "b":2}"#,
        r#"{"a":[,1]}"#,
        r#"{"a":[1 2]}"#,
    ] {
        assert_eq!(read::<Value>(doc, &limits(), &shape), None, "{doc}");
    }
    let doc = r#"{"a":[1,2],"b":{}}"#;
    let expected = serde_json::json!({"a": [1, 2], "b": {}});
    assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
}

#[test]
fn booleans_and_units_asked_for_by_name_are_read_in_one_pass() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Flags {
        on: bool,
        off: bool,
        nothing: (),
    }
    let doc = r#"{"on":true,"off":false,"nothing":null}"#;
    let expected = Flags {
        on: true,
        off: false,
        nothing: (),
    };
    assert_eq!(
        read::<Flags>(doc, &limits(), &Shape::default()),
        Some(expected)
    );
}

/// An integer read by a type that catches the error, as `None`.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Lenient(Option<u32>);

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        Ok(Lenient(u32::deserialize(d).ok()))
    }
}

#[test]
fn a_key_type_that_swallows_the_readers_stop_still_stops_it() {
    // A key the reader leaves to the separate gates (an integer), read
    // by a type that catches the error: the reader must not accept the
    // value it made of it, which is not serde_json's.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Counts {
        by: std::collections::HashMap<Lenient, u8>,
    }
    let doc = r#"{"by":{"7":1}}"#;
    assert_eq!(read::<Counts>(doc, &limits(), &Shape::default()), None);
    let gates: Counts = serde_json::from_str(doc).unwrap();
    assert_eq!(gates.by.get(&Lenient(Some(7))), Some(&1));
}

#[test]
fn a_variant_name_type_that_swallows_the_readers_stop_still_stops_it() {
    // The same for a variant's name, in the object form, where
    // serde_json reads an integer name as the integer.
    #[derive(Debug, PartialEq)]
    struct Picked(Option<u32>, u8);
    impl<'de> Deserialize<'de> for Picked {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
            struct Picker;
            impl<'de> Visitor<'de> for Picker {
                type Value = Picked;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a numbered variant")
                }
                fn visit_enum<E: de::EnumAccess<'de>>(
                    self,
                    data: E,
                ) -> core::result::Result<Picked, E::Error> {
                    use de::VariantAccess as _;
                    let (Lenient(name), variant) = data.variant::<Lenient>()?;
                    Ok(Picked(name, variant.newtype_variant::<u8>()?))
                }
            }
            d.deserialize_enum("Picked", &["7"], Picker)
        }
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct Choice {
        p: Picked,
    }
    let doc = r#"{"p":{"7":1}}"#;
    assert_eq!(read::<Choice>(doc, &limits(), &Shape::default()), None);
    let gates: Choice = serde_json::from_str(doc).unwrap();
    assert_eq!(gates.p, Picked(Some(7), 1));
}

#[test]
fn a_misspelt_or_cut_literal_stops_the_reader() {
    let shape = Shape::default();
    for doc in [
        r#"{"a":trux}"#,
        r#"{"a":fals}"#,
        r#"{"a":nulL}"#,
        r#"{"a":tru"#,
    ] {
        assert_eq!(read::<Value>(doc, &limits(), &shape), None, "{doc}");
    }
    let doc = r#"{"a":true,"b":false,"c":null}"#;
    let expected = serde_json::json!({"a": true, "b": false, "c": null});
    assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
}

#[test]
fn a_member_read_against_a_union_and_its_branch_at_once() {
    // `x` is read against U and V together, U is a union over V, and
    // the verdict of each is its own: U is no better than V.
    let schema = serde_json::json!({"anyOf":[
        {"type":"object","properties":{"x":{"$ref":"#/$defs/U"},"y":{}},"required":["x","y"]},
        {"type":"object","properties":{"x":{"$ref":"#/$defs/V"}},"required":["x"]}
    ],"$defs":{"U":{"anyOf":[{"$ref":"#/$defs/V"}]},"V":{"type":"integer"}}});
    let shape = Shape::new(&schema);
    let doc = r#"{"x":1}"#;
    let expected = serde_json::json!({"x": 1});
    assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
    let doc = r#"{"x":1,"y":2}"#;
    let expected = serde_json::json!({"x": 1, "y": 2});
    assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
    assert_eq!(read::<Value>(r#"{"x":"s","y":1}"#, &limits(), &shape), None);
    // V first: its refusal, settled, is still a refusal when U asks.
    let schema = serde_json::json!({"anyOf":[
        {"type":"object","properties":{"x":{"$ref":"#/$defs/V"}},"required":["x"]},
        {"type":"object","properties":{"x":{"$ref":"#/$defs/U"},"y":{}},"required":["x","y"]}
    ],"$defs":{"U":{"anyOf":[{"$ref":"#/$defs/V"}]},"V":{"type":"integer"}}});
    let shape = Shape::new(&schema);
    assert_eq!(read::<Value>(r#"{"x":"s","y":1}"#, &limits(), &shape), None);
    let doc = r#"{"x":1,"y":2}"#;
    let expected = serde_json::json!({"x": 1, "y": 2});
    assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
}

#[test]
fn a_container_among_choices_is_left_to_the_walk() {
    // The reader compares scalars with `enum` and `const`, not objects
    // or arrays: it stops on those, whatever the choices, and the walk
    // decides. Alone and as a union's branch.
    let lone = serde_json::json!({"type":"object","properties":{
        "o":{"type":"object","const":{"a":1}},
        "l":{"type":"array","enum":[[1],[2]]},
        "s":{"enum":[1,"x"]}
    }});
    let union = serde_json::json!({"type":"object","properties":{
        "o":{"anyOf":[{"type":"object","const":{"a":1}},{"type":"null"}]},
        "l":{"anyOf":[{"type":"array","enum":[[1],[2]]},{"type":"null"}]},
        "s":{"anyOf":[{"enum":[1,"x"]},{"type":"null"}]}
    }});
    for schema in [lone, union] {
        let shape = Shape::new(&schema);
        for doc in [
            r#"{"o":{"a":1}}"#,
            r#"{"o":{"a":2}}"#,
            r#"{"l":[1]}"#,
            r#"{"l":[3]}"#,
            r#"{"s":{"a":1}}"#,
            r#"{"s":[1]}"#,
        ] {
            assert_eq!(
                read::<Value>(doc, &limits(), &shape),
                None,
                "{schema} {doc}"
            );
        }
        let doc = r#"{"s":"x"}"#;
        let expected = serde_json::json!({"s": "x"});
        assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
    }
}

#[test]
fn every_escape_is_read_as_serde_json_reads_it() {
    // A document with escapes is read in one pass, not left to the
    // separate gates, and decoded alike.
    let shape = Shape::default();
    let doc = r#"{"a":"\\ \" \/ \b \f \n \r \t \u00e9 \ud83d\ude00","b\tc":1}"#;
    let expected: Value = serde_json::from_str(doc).unwrap();
    assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
}

#[test]
fn a_union_past_64_subschemas_stops_the_reader() {
    // A union and each of its branches take a bit of a 64-bit verdict:
    // with 63 branches the reader decides, with 64 it leaves the
    // document to the separate gates, scalars and containers alike.
    for (branches, read_whole) in [(63, true), (64, false)] {
        // Branches that are not lists of constants, which the schema's
        // compilation would merge into one.
        let branch = |n: usize, kinds: Value| {
            let key = format!("k{n}");
            serde_json::json!({
                "type": kinds,
                "properties": {(key.clone()): {"type": "integer"}},
                "required": [key],
                "additionalProperties": false
            })
        };
        let scalars: Vec<Value> = (0..branches)
            .map(|n| branch(n, serde_json::json!(["integer", "object"])))
            .collect();
        let objects: Vec<Value> = (0..branches)
            .map(|n| branch(n, serde_json::json!("object")))
            .collect();
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"s": {"anyOf": scalars}, "o": {"anyOf": objects}},
            "additionalProperties": false
        });
        let shape = Shape::new(&schema);
        let last = branches - 1;
        for doc in [
            format!(r#"{{"s":{last}}}"#),
            format!(r#"{{"o":{{"k{last}":1}}}}"#),
        ] {
            let read = read::<Value>(&doc, &limits(), &shape);
            assert_eq!(read.is_some(), read_whole, "{branches} branches: {doc}");
        }
        // A string, which no branch takes, is refused by the union
        // whose own keywords say nothing.
        let doc = r#"{"s":"x"}"#;
        assert_eq!(
            read::<Value>(doc, &limits(), &shape),
            None,
            "{branches} branches"
        );
    }
}

#[test]
fn text_that_is_not_utf8_stops_the_reader() {
    let shape = Shape::default();
    for doc in [
        &b"{\"a\":\"\xff\"}"[..],
        b"{\"\xc3\":1}",
        b"{\"a\":\"x\\n\xed\xa0\x80\"}",
        b"{\"a\":1}\xff",
    ] {
        assert!(super::read::<Value>(doc, None, &limits(), &shape).is_none());
    }
    let fine = "{\"caf\u{e9}\":\"\u{1f600}\\n\"}";
    assert!(super::read::<Value>(fine.as_bytes(), None, &limits(), &shape).is_some());
}

/// What the gates one by one make of `json`, a document of [`Args`]:
/// the scan, then serde_json over the text with integers written
/// plainly where its schema reads integers.
fn separately<A: DeserializeOwned>(json: &str, limits: &Limits) -> Option<A> {
    let raw = bounded::scan(json.as_bytes(), limits).ok()?;
    let text = if raw.has_spelled_integers() {
        crate::gate::structural::integers::with_plain_integers(json, args_shape())
    } else {
        json.into()
    };
    serde_json::from_str(&text).ok()
}

/// The shape of [`Args`]'s schema, made once.
fn args_shape() -> &'static Shape {
    static SHAPE: OnceLock<Shape> = OnceLock::new();
    SHAPE.get_or_init(|| schema().1)
}

/// The schema of [`Args`] as a tool publishes it, and its shape.
fn schema() -> (Value, Shape) {
    let schema = crate::schema::canonical::<Args>();
    let shape = Shape::new(&schema);
    (schema, shape)
}

fn reads(json: &str) -> bool {
    read::<Args>(json, &limits(), &schema().1).is_some()
}

const BASE: &str = r#"{"name":"a","count":1"#;

fn with(rest: &str) -> String {
    format!("{BASE}{rest}}}")
}

#[test]
fn reads_what_serde_json_reads_the_same_way() {
    let docs = [
        with(""),
        with(r#","ratio":2.5,"tags":["x","y\n","\u00e9\ud83d\ude00"]"#),
        with(r#","window":{"days":7,"from":"mon"},"shape":{"kind":"circle","radius":1.5}"#),
        with(r#","shape":{"radius":0.5,"kind":"circle"},"step":"Stop""#),
        with(r#","step":{"Turn":{"degrees":-90}},"tone":{"t":"Loud","c":3}"#),
        with(r#","step":{"Pair":[1,2]},"tone":{"t":"Quiet"},"signed":-9223372036854775808"#),
        with(r#","meta":{"a":1,"b":-2},"extra":{"x":[1,-1,0.25,"s",null,true,{}]}"#),
        with(r#"  ,  "step" : { "Go" : 4294967295 } ,"name\u0032":null"#).replacen(
            "\"name\\u0032\":null",
            "\"signed\":0",
            1,
        ),
        format!(" \n\t{}\n ", with("")),
    ];
    let (_, shape) = schema();
    for doc in &docs {
        let single = read::<Args>(doc, &limits(), &shape);
        let separate = separately::<Args>(doc, &limits());
        assert!(single.is_some(), "the reader stopped on {doc}");
        assert_eq!(single, separate, "{doc}");
    }
}

/// The items of an array whose items must differ are compared as the
/// reader reads them: each with the first eight, and all of them
/// sorted past eight. A repeat is left to the walk: the reader stops
/// where the walk refuses. (The fractions are refused by the set's
/// integer type; an item written with an escape, which the reader
/// also leaves to the walk, is held by `schema_agreement`.)
#[test]
fn a_repeat_in_a_set_stops_the_reader_however_far_apart() {
    let (schema, shape) = schema();
    for (set, fine) in [
        ("[]", true),
        ("[1,2,3]", true),
        ("[1,2,3,4,5,6,7,8,9,10,11]", true),
        ("[1,2,3,1]", false),
        ("[1,2,3,4,5,6,7,8,9,10,1]", false),
        ("[1,2,3,4,5,6,7,8,9,10,9]", false),
        ("[2.5,2.50]", false),
        ("[2.5,25e-1]", false),
    ] {
        let doc = with(&format!(r#","set":{set}"#));
        assert_eq!(
            read::<Args>(&doc, &limits(), &shape).is_some(),
            fine,
            "{doc}"
        );
        assert_eq!(shape.check(&doc, &schema).is_ok(), fine, "{doc}");
    }
}

/// A key the schema lists is compared by the schema's check, any other
/// by the reader: a repeat is found whichever of them saw it first,
/// also once the schema's check has refused the object.
#[test]
fn repeated_keys_are_found_listed_or_not() {
    let (_, shape) = schema();
    for doc in [
        r#"{"name":"a","count":1,"name":"b"}"#,
        r#"{"name":"a","bogus":1,"name":"b"}"#,
        r#"{"bogus":1,"name":"a","bogus":2}"#,
        r#"{"name":"a","count":1,"meta":{"x":1,"y":2,"x":3}}"#,
        r#"{"name":"a","count":1,"window":{"days":1,"zzz":0,"days":2}}"#,
    ] {
        assert!(read::<Value>(doc, &limits(), &shape).is_none(), "{doc}");
        assert!(bounded::scan(doc.as_bytes(), &limits()).is_err(), "{doc}");
    }
    let fine = r#"{"name":"a","count":1,"meta":{"x":1,"name":2}}"#;
    assert!(read::<Value>(fine, &limits(), &shape).is_some());
    // One branch refuses the inner object at `b`, the other takes it
    // whatever it holds: the repeat of `a` is still found.
    let union = serde_json::json!({"oneOf": [
        {"type": "object", "properties": {"p": {
            "type": "object",
            "properties": {"a": {}},
            "additionalProperties": false
        }}},
        {"type": "object"}
    ]});
    let shape = Shape::new(&union);
    assert!(read::<Value>(r#"{"p":{"a":1,"b":2}}"#, &limits(), &shape).is_some());
    assert!(read::<Value>(r#"{"p":{"a":1,"b":2,"a":3}}"#, &limits(), &shape).is_none());
}

/// A value under a union (`Option<T>` of a named type: `anyOf` of a
/// reference and `null`) is checked against each branch, member by
/// member and element by element.
#[test]
fn members_and_elements_under_a_union_are_checked_per_branch() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "window": {"anyOf": [{"$ref": "#/$defs/Window"}, {"type": "null"}]},
            "tags": {"anyOf": [{"$ref": "#/$defs/Tags"}, {"type": "null"}]},
            "pair": {"anyOf": [{"$ref": "#/$defs/Pair"}, {"type": "null"}]}
        },
        "additionalProperties": false,
        "$defs": {
            "Window": {
                "type": "object",
                "properties": {"days": {"type": "integer"}},
                "required": ["days"],
                "additionalProperties": false
            },
            "Tags": {"type": "array", "items": {"type": "string"}},
            "Pair": {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "integer"}],
                "items": false
            }
        }
    });
    let shape = Shape::new(&schema);
    for fine in [
        r#"{"window":{"days":3},"tags":["a","b"],"pair":["x",1]}"#,
        r#"{"window":null,"tags":null,"pair":null}"#,
        r#"{"tags":[]}"#,
    ] {
        assert!(read::<Value>(fine, &limits(), &shape).is_some(), "{fine}");
    }
    for refused in [
        r#"{"window":{"days":3,"hours":1}}"#,
        r#"{"window":{}}"#,
        r#"{"window":{"days":"3"}}"#,
        r#"{"tags":["a",1]}"#,
        r#"{"tags":[1]}"#,
        r#"{"pair":[1,"x"]}"#,
        r#"{"pair":["x","y"]}"#,
        r#"{"pair":["x",1,2]}"#,
    ] {
        assert!(
            read::<Value>(refused, &limits(), &shape).is_none(),
            "{refused}"
        );
    }
}

/// Two branches read one member with different subschemas; once one
/// of those has refused, the other alone still checks what follows.
#[test]
fn the_last_branch_alive_still_checks_each_member_and_element() {
    let schema = serde_json::json!({
        "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
        "$defs": {
            "A": {"type": "object", "properties": {
                "o": {"$ref": "#/$defs/OA"}, "l": {"$ref": "#/$defs/LA"}
            }},
            "B": {"type": "object", "properties": {
                "o": {"$ref": "#/$defs/OB"}, "l": {"$ref": "#/$defs/LB"}
            }},
            "OA": {"type": "object", "properties": {"a": {}}, "additionalProperties": false},
            "OB": {"type": "object", "properties": {"b": {"type": "integer"}}},
            "LA": {"type": "array", "prefixItems": [{}], "items": false},
            "LB": {"type": "array", "items": {"type": "integer"}}
        }
    });
    let shape = Shape::new(&schema);
    for fine in [
        r#"{"o":{"c":1,"b":2}}"#,
        r#"{"l":[1,2,3]}"#,
        r#"{"l":["x"]}"#,
    ] {
        assert!(read::<Value>(fine, &limits(), &shape).is_some(), "{fine}");
    }
    for refused in [r#"{"o":{"c":1,"b":"x"}}"#, r#"{"l":[1,2,"x"]}"#] {
        assert!(
            read::<Value>(refused, &limits(), &shape).is_none(),
            "{refused}"
        );
    }
}

/// Listed properties are told apart by one bit each, for the first 64;
/// the rest are compared as text, as unlisted keys are.
#[test]
fn repeated_keys_past_the_sixty_fourth_property_are_found() {
    let properties: serde_json::Map<String, Value> = (0..70)
        .map(|i| (format!("p{i}"), serde_json::json!({"type": "integer"})))
        .collect();
    let schema = serde_json::json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false
    });
    let shape = Shape::new(&schema);
    for i in [0, 1, 62, 63, 64, 65, 69] {
        let once = format!(r#"{{"p{i}":1,"p7":2}}"#);
        assert!(read::<Value>(&once, &limits(), &shape).is_some(), "{once}");
        let twice = format!(r#"{{"p{i}":1,"p7":2,"p{i}":3}}"#);
        assert!(
            read::<Value>(&twice, &limits(), &shape).is_none(),
            "{twice}"
        );
    }
    let all: Vec<String> = (0..70).map(|i| format!(r#""p{i}":{i}"#)).collect();
    let all = format!("{{{}}}", all.join(","));
    assert!(read::<Value>(&all, &limits(), &shape).is_some());
}

#[test]
fn stops_where_the_schema_refuses_what_serde_reads() {
    for doc in [
        // A unit variant with more than its tag.
        with(r#","shape":{"kind":"dot","radius":5}"#),
        with(r#","tone":{"t":"Quiet","c":null}"#),
    ] {
        assert!(
            separately::<Args>(&doc, &limits()).is_some(),
            "serde refuses {doc}"
        );
        assert!(!reads(&doc), "the reader accepted {doc}");
    }
}

#[test]
fn stops_where_gate_one_refuses() {
    let long = "x".repeat(Limits::default().string_bytes() + 1);
    let many = (0..Limits::default().nodes())
        .map(|_| "0")
        .collect::<Vec<_>>()
        .join(",");
    let deep = format!("{}1{}", "[".repeat(16), "]".repeat(16));
    let wide = (0..20).map(|i| format!("\"k{i}\":1,")).collect::<String>();
    for doc in [
        with(&format!(r#","tags":["{long}"]"#)),
        with(&format!(r#","extra":[{many}]"#)),
        with(&format!(r#","extra":{deep}"#)),
        with(r#","count":2"#),
        with(r#","meta":{"a":1,"a":2}"#),
        with(r#","meta":{"a":1,"\u0061":2}"#),
        with(&format!(r#","meta":{{{wide}"k3":2}}"#)),
        with(r#","tags":["\ud800"]"#),
        with(r#","tags":["\udc00"]"#),
        with(r#","tags":["\ud800\u0041"]"#),
        with(r#","extra":{"a":1,"a":1}"#),
        format!("{}x", with("")),
        format!("{} {{}}", with("")),
    ] {
        assert!(!reads(&doc), "the reader accepted {doc}");
        assert!(
            bounded::scan(doc.as_bytes(), &limits()).is_err(),
            "gate 1 accepts {doc}"
        );
    }
}

#[test]
fn stops_where_serde_json_is_laxer_than_the_schema_or_reads_otherwise() {
    for doc in [
        // A struct or struct variant from an array.
        with(r#","window":[7,"mon"]"#),
        with(r#","step":{"Turn":[90]}"#),
        // A unit variant with a value.
        with(r#","step":{"Stop":null}"#),
        // Integers spelled otherwise, which gate 2 reads as integers.
        r#"{"name":"a","count":1.0}"#.to_owned(),
        r#"{"name":"a","count":1e0}"#.to_owned(),
        with(r#","signed":-0"#),
        with(r#","extra":2.0"#),
        // Past 64 bits.
        with(r#","extra":18446744073709551616"#),
        // Not JSON.
        with(r#","tags":["a",]"#),
        with(r#","signed":01"#),
        with(r#","tags":["\x"]"#),
        with(",\"tags\":[\"a\u{1}\"]"),
        r#"["name","count"]"#.to_owned(),
        r#""#.to_owned(),
    ] {
        assert!(!reads(&doc), "the reader accepted {doc}");
    }
}

/// A limit read as a `u32`, refused with its own message around
/// serde's, as a type that adds context to a refusal does.
#[derive(Debug)]
struct Wrapped;

impl<'de> Deserialize<'de> for Wrapped {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        match u32::deserialize(d) {
            Ok(_) => Ok(Wrapped),
            Err(inner) => Err(de::Error::custom(format_args!("a limit: {inner}"))),
        }
    }
}

/// A `u32`, or one written as text: the text is first given to serde
/// as a `u32`, whose refusal (made, then dropped) is the reader's own
/// error type, and refused with a message of its own if it is not one.
#[derive(Debug)]
struct Retried;

impl<'de> Deserialize<'de> for Retried {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        if value.is_u64() {
            return Ok(Retried);
        }
        let text = value.as_str().unwrap_or_default();
        let read = u32::deserialize(de::value::StrDeserializer::<D::Error>::new(text));
        match (read, text.parse::<u32>()) {
            (Ok(_), _) | (_, Ok(_)) => Ok(Retried),
            _ => Err(de::Error::custom(
                "neither a number nor one written as text",
            )),
        }
    }
}

#[test]
fn an_explanation_carries_the_message_of_the_refusal_that_reached_the_top() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Holder {
        limit: Wrapped,
        retried: Option<Retried>,
    }
    // Wrapped: the outer message, read with the inner one in it.
    let refused = explained::<Holder>(r#"{"limit":"ten"}"#).unwrap_err();
    assert_eq!(
        refused,
        (
            vec!["limit".to_owned()],
            r#"a limit: invalid type: string "ten", expected u32"#.to_owned()
        )
    );
    // A refusal made and dropped, then another: the last one's.
    let refused = explained::<Holder>(r#"{"limit":1,"retried":"seven"}"#).unwrap_err();
    assert_eq!(
        refused,
        (
            vec!["retried".to_owned()],
            "neither a number nor one written as text".to_owned()
        )
    );
    // A refusal made and dropped, then the reader's own.
    let refused = explained::<Holder>(r#"{"limit":1,"retried":"7"} x"#).unwrap_err();
    assert_eq!(refused, (vec![], "trailing characters".to_owned()));
    // Each as serde_json says it (the wrapped one holds its position).
    let json = |text: &str| match serde_json::from_str::<Holder>(text) {
        Ok(_) => String::new(),
        Err(e) => unplaced(&e.to_string()),
    };
    assert_eq!(
        json(r#"{"limit":1,"retried":"seven"}"#),
        "neither a number nor one written as text"
    );
    assert_eq!(
        json(r#"{"limit":1,"retried":"7"} x"#),
        "trailing characters"
    );
    // Outside an explanation, a stop shows no message of a past one.
    assert_eq!(Stop(()).to_string(), "the single-pass reader stopped");
}

#[test]
fn a_caught_error_still_stops_the_reader() {
    #[derive(Debug, PartialEq)]
    struct Lenient;
    impl<'de> Deserialize<'de> for Lenient {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
            // Reads an array of strings, giving up quietly at the first
            // problem, as `serde_with::DefaultOnError` would.
            let _ = Vec::<String>::deserialize(d);
            Ok(Lenient)
        }
    }
    #[derive(Debug, PartialEq, Deserialize)]
    #[allow(dead_code)]
    struct Holder {
        lenient: Lenient,
    }
    let long = "x".repeat(Limits::default().string_bytes() + 1);
    let any = Shape::default();
    assert!(read::<Holder>(r#"{"lenient":["a"]}"#, &limits(), &any).is_some());
    let doc = format!(r#"{{"lenient":["{long}"]}}"#);
    assert!(read::<Holder>(&doc, &limits(), &any).is_none());
}

/// A small generator of argument documents for [`Args`]: mostly
/// well-formed, each part now and then wrong in one of the ways a model
/// or an attacker writes it.
struct Gen {
    state: u64,
    /// Only forms both paths read alike: no integers spelled as floats,
    /// no arrays for structs, no unit variants with a value.
    clean: bool,
}

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn one<'a>(&mut self, choices: &[&'a str]) -> &'a str {
        choices
            .get(self.below(choices.len()))
            .copied()
            .unwrap_or_default()
    }

    /// Whether this part is written in a form the paths may read
    /// differently: never when clean, one time in four otherwise.
    fn dirty(&mut self) -> bool {
        !self.clean && self.below(4) == 0
    }

    fn ws(&mut self) -> &'static str {
        self.one(&["", "", "", " ", "\n\t "])
    }

    fn string(&mut self) -> String {
        let mut out = String::from("\"");
        for _ in 0..self.below(6) {
            let piece = match self.below(12) {
                0 => "\\n",
                1 => "\\\"",
                2 => "\\u00e9",
                3 => "\\ud83d\\ude00",
                4 => "é",
                5 => "\\/",
                6 if !self.clean && self.below(4) == 0 => {
                    self.one(&["\\ud800", "\\udfff", "\u{1}", "\\q"])
                }
                _ => "ab",
            };
            out.push_str(piece);
        }
        out.push('"');
        out
    }

    fn unsigned(&mut self) -> &'static str {
        if !self.dirty() {
            return self.one(&["0", "7", "255", "4294967295", "12"]);
        }
        self.one(&[
            "0",
            "7",
            "255",
            "4294967295",
            "4294967296",
            "-1",
            "2.0",
            "2e0",
            "-0",
            "0.5",
            "1e400",
            "007",
            "1.",
            "18446744073709551616",
            "\"3\"",
        ])
    }

    fn signed(&mut self) -> &'static str {
        if !self.dirty() {
            return self.one(&["0", "-7", "9223372036854775807", "-9223372036854775808"]);
        }
        self.one(&["-7", "-9223372036854775809", "-0", "-0.0", "-1e2", "3"])
    }

    fn float(&mut self) -> &'static str {
        if !self.dirty() {
            return self.one(&[
                "1.5",
                "-2.25",
                "3",
                "1e-3",
                "0.1",
                "-7",
                "1.7976931348623157e308",
            ]);
        }
        self.one(&["1.5", "2.0", "-0.0", "1E2", "1e400", "0.1e1", "-"])
    }

    fn object(&mut self, entries: Vec<(String, String)>) -> String {
        let mut out = String::from("{");
        for (i, (key, value)) in entries.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let (a, b, c) = (self.ws(), self.ws(), self.ws());
            out.push_str(&format!("{a}{key}{b}:{c}{value}"));
        }
        out.push_str(self.ws());
        out.push('}');
        out
    }

    fn key(name: &str) -> String {
        format!("\"{name}\"")
    }

    fn window(&mut self) -> String {
        if self.dirty() {
            return format!("[{}]", self.unsigned());
        }
        let mut entries = vec![(Self::key("days"), self.unsigned().to_owned())];
        if self.below(2) == 0 {
            entries.push((Self::key("from"), self.string()));
        }
        self.object(entries)
    }

    fn shape(&mut self) -> String {
        let entries = match self.below(6) {
            0 => vec![(Self::key("kind"), "\"dot\"".to_owned())],
            // Read by serde, refused by the schema.
            4 => vec![
                (Self::key("kind"), "\"dot\"".to_owned()),
                (Self::key("radius"), self.float().to_owned()),
            ],
            5 => vec![
                (Self::key("kind"), "\"circle\"".to_owned()),
                (Self::key("radius"), format!("[{}]", self.float())),
            ],
            1 => vec![
                (Self::key("radius"), self.float().to_owned()),
                (Self::key("kind"), "\"circle\"".to_owned()),
            ],
            2 => vec![
                (Self::key("kind"), "\"square\"".to_owned()),
                (Self::key("side"), self.unsigned().to_owned()),
            ],
            _ => vec![(Self::key("kind"), "\"hexagon\"".to_owned())],
        };
        self.object(entries)
    }

    fn step(&mut self) -> String {
        let forms = if self.dirty() { 6 } else { 4 };
        match self.below(forms) {
            0 => "\"Stop\"".to_owned(),
            1 => format!("{{\"Go\":{}}}", self.unsigned()),
            2 => {
                let degrees = self.signed().to_owned();
                let inner = self.object(vec![(Self::key("degrees"), degrees)]);
                format!("{{\"Turn\":{inner}}}")
            }
            3 => format!("{{\"Pair\":[{},{}]}}", self.unsigned(), self.unsigned()),
            4 => "{\"Stop\":null}".to_owned(),
            _ => format!("{{\"Turn\":[{}]}}", self.signed()),
        }
    }

    fn meta(&mut self) -> String {
        let mut entries = Vec::new();
        for i in 0..self.below(24) {
            let key = if !self.dirty() {
                format!("\"k{i}\"")
            } else {
                self.one(&["\"a\"", "\"b\"", "\"\\u0061\"", "\"c\""])
                    .to_owned()
            };
            entries.push((key, self.signed().to_owned()));
        }
        self.object(entries)
    }

    fn any(&mut self, depth: usize) -> String {
        match self.below(if depth == 0 { 4 } else { 7 }) {
            0 => self.string(),
            1 => self.float().to_owned(),
            2 => self.one(&["true", "false", "null"]).to_owned(),
            3 => self.signed().to_owned(),
            4 | 5 => {
                let items: Vec<String> = (0..self.below(4)).map(|_| self.any(depth - 1)).collect();
                format!("[{}]", items.join(","))
            }
            _ => {
                let entries = (0..self.below(4))
                    .map(|i| (format!("\"{i}\""), self.any(depth - 1)))
                    .collect();
                self.object(entries)
            }
        }
    }

    fn args(&mut self) -> String {
        let mut entries = vec![
            (Self::key("name"), self.string()),
            (Self::key("count"), self.unsigned().to_owned()),
        ];
        type Part = (&'static str, fn(&mut Gen) -> String);
        let optional: [Part; 10] = [
            ("ratio", |g| g.float().to_owned()),
            ("tags", |g| {
                let items: Vec<String> = (0..g.below(4)).map(|_| g.string()).collect();
                format!("[{}]", items.join(","))
            }),
            ("window", Gen::window),
            ("shape", Gen::shape),
            ("step", Gen::step),
            ("meta", Gen::meta),
            ("extra", |g| g.any(5)),
            ("signed", |g| g.signed().to_owned()),
            ("tone", |g| {
                g.one(&[
                    "{\"t\":\"Quiet\"}",
                    "{\"t\":\"Quiet\",\"c\":null}",
                    "{\"c\":2,\"t\":\"Loud\"}",
                    "{\"t\":\"Loud\",\"c\":300}",
                ])
                .to_owned()
            }),
            // Repeats often; spelled integers and fractions, which the
            // reader leaves to the gates one by one, only when dirty.
            // Past eight items too, compared sorted.
            ("set", |g| {
                let items: Vec<String> = (0..g.below(12))
                    .map(|_| match g.dirty() && g.below(2) == 0 {
                        true => g.one(&["-0", "1.0", "1e0", "2.5"]).to_owned(),
                        false => (g.below(40) as i64 - 8).to_string(),
                    })
                    .collect();
                format!("[{}]", items.join(","))
            }),
        ];
        for (name, make) in optional {
            if self.below(3) == 0 {
                entries.push((Self::key(name), make(self)));
            }
        }
        if self.dirty() && self.below(5) == 0 {
            let (key, value) = entries
                .get(self.below(entries.len()))
                .cloned()
                .unwrap_or_default();
            entries.push((key, value));
        }
        for _ in 0..entries.len() {
            let (a, b) = (self.below(entries.len()), self.below(entries.len()));
            entries.swap(a, b);
        }
        self.object(entries)
    }

    fn limits(&mut self) -> Limits {
        if self.below(2) == 0 {
            return Limits::default();
        }
        Limits::default()
            .max_depth(1 + self.below(6))
            .max_nodes(2 + self.below(60))
            .max_string_bytes(self.below(40))
    }
}

/// What serde_json and serde_path_to_error say of `text`: the value,
/// or the path (cut at a step they cannot name) and the message
/// (without its position).
fn oracle<A: DeserializeOwned>(text: &str) -> core::result::Result<A, (Vec<String>, String)> {
    let mut json = serde_json::Deserializer::from_str(text);
    match serde_path_to_error::deserialize::<_, A>(&mut json) {
        Ok(value) => match json.end() {
            Ok(()) => Ok(value),
            Err(e) => Err((Vec::new(), unplaced(&e.to_string()))),
        },
        Err(e) => {
            let path = e
                .path()
                .iter()
                .map_while(|segment| match segment {
                    serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
                    serde_path_to_error::Segment::Map { key } => Some(key.clone()),
                    serde_path_to_error::Segment::Enum { variant } => Some(variant.clone()),
                    serde_path_to_error::Segment::Unknown => None,
                })
                .collect();
            Err((path, unplaced(&e.inner().to_string())))
        }
    }
}

/// `message` without serde_json's position (` at line 1 column 9`).
fn unplaced(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(end) => message.get(..end).unwrap_or(message).to_owned(),
        None => message.to_owned(),
    }
}

/// What [`explain`] says of `text`, in the oracle's terms.
fn explained<A: DeserializeOwned>(text: &str) -> core::result::Result<A, (Vec<String>, String)> {
    explain::<A>(text).map_err(|refused| {
        let path = refused
            .path
            .iter()
            .map(|step| match step {
                crate::json::pointer::Step::Key(key) => key.clone(),
                crate::json::pointer::Step::Index(index) => index.to_string(),
            })
            .collect();
        (path, unplaced(&refused.message))
    })
}

/// Explaining reads what serde_json reads, with the same value, and
/// refuses what it refuses, with serde's message at
/// serde_path_to_error's path: on every generated document gate 1's
/// scan accepts, as the separate gates hand it to serde.
#[test]
fn explaining_reads_and_refuses_as_serde_json_and_its_path_tracker_do() {
    let scale = if std::env::var_os("TOOLGATE_QUICK_PROPERTIES").is_some() {
        10
    } else {
        1
    };
    let mut g = Gen {
        state: 0x2545_F491_4F6C_DD1D,
        clean: false,
    };
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..20_000 / scale {
        let doc = g.args();
        let Ok(raw) = bounded::scan(doc.as_bytes(), &Limits::default()) else {
            continue;
        };
        let text = if raw.has_spelled_integers() {
            crate::gate::structural::integers::with_plain_integers(&doc, args_shape())
        } else {
            doc.as_str().into()
        };
        let expected = oracle::<Args>(&text);
        accepted += usize::from(expected.is_ok());
        refused += usize::from(expected.is_err());
        assert_eq!(explained::<Args>(&text), expected, "{text}");
    }
    assert!(
        accepted > 2_000 / scale && refused > 2_000 / scale,
        "{accepted} {refused}"
    );
}

/// Types serde_json reads by paths of their own: number and boolean
/// map keys, 128-bit integers, bytes, raw values, structs from arrays,
/// unit variants written with a value, and serde_json's own depth
/// limit.
#[test]
fn explaining_reads_serde_json_s_own_paths_as_serde_json_does() {
    // Its fields are compared through `Debug`.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Odd {
        #[serde(default)]
        by_number: Option<std::collections::BTreeMap<u8, bool>>,
        #[serde(default)]
        by_float: Option<std::collections::BTreeMap<i64, u8>>,
        #[serde(default)]
        by_flag: Option<std::collections::BTreeMap<bool, u8>>,
        #[serde(default)]
        by_wide: Option<std::collections::BTreeMap<i128, u8>>,
        #[serde(default)]
        wide: Option<i128>,
        #[serde(default)]
        unsigned_wide: Option<u128>,
        #[serde(default)]
        raw: Option<Box<serde_json::value::RawValue>>,
        #[serde(default)]
        window: Option<Window>,
        #[serde(default)]
        step: Option<Step>,
        #[serde(default)]
        unit: Option<()>,
        #[serde(default)]
        deep: Option<Value>,
        #[serde(default)]
        by_step: Option<std::collections::BTreeMap<String, Step>>,
        #[serde(default)]
        texts: Option<Vec<String>>,
        #[serde(default)]
        refusals: Option<std::collections::BTreeMap<String, Refuses>>,
    }
    /// Refuses without reading anything.
    #[derive(Debug)]
    struct Refuses;
    impl<'de> Deserialize<'de> for Refuses {
        fn deserialize<D: serde::Deserializer<'de>>(_: D) -> core::result::Result<Self, D::Error> {
            Err(de::Error::custom("refused unread"))
        }
    }
    // RawValue compares by identity: compare what it holds.
    fn shown(read: core::result::Result<Odd, (Vec<String>, String)>) -> String {
        match read {
            Ok(odd) => format!("{odd:?} {:?}", odd.raw.as_ref().map(|r| r.get())),
            Err(e) => format!("{e:?}"),
        }
    }
    let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
    let docs = [
        r#"{"by_number":{"1":true,"255":false}}"#,
        r#"{"by_number":{"256":true}}"#,
        r#"{"by_number":{"-1":true}}"#,
        r#"{"by_number":{"x":true}}"#,
        r#"{"by_number":{"12x":true}}"#,
        r#"{"by_number":{"01":true}}"#,
        r#"{"by_number":{"1.5":true}}"#,
        r#"{"by_number":{" 1":true}}"#,
        r#"{"by_number":{"1":true}}"#,
        r#"{"by_number":{"1":"yes"}}"#,
        r#"{"by_float":{"-":1}}"#,
        r#"{"by_float":{"1e3":1}}"#,
        r#"{"by_float":{"-9223372036854775809":1}}"#,
        r#"{"by_flag":{"true":1,"false":2}}"#,
        r#"{"by_flag":{"yes":1}}"#,
        r#"{"by_flag":{"tru":1}}"#,
        r#"{"by_flag":{"falsey":1}}"#,
        r#"{"by_wide":{"170141183460469231731687303715884105727":1}}"#,
        r#"{"by_wide":{"170141183460469231731687303715884105728":1}}"#,
        r#"{"wide":-170141183460469231731687303715884105728}"#,
        r#"{"wide":1.5}"#,
        r#"{"wide":"7"}"#,
        r#"{"unsigned_wide":-1}"#,
        r#"{"unsigned_wide":340282366920938463463374607431768211455}"#,
        r#"{"raw": {"a" : [1, 2]} }"#,
        r#"{"raw":"text"}"#,
        r#"{"window":[7,"mon"]}"#,
        r#"{"window":[7,"mon",1]}"#,
        r#"{"window":[]}"#,
        r#"{"window":"soon"}"#,
        r#"{"step":{"Stop":null}}"#,
        r#"{"step":{"Stop":1}}"#,
        r#"{"step":"Go"}"#,
        r#"{"step":"Turn"}"#,
        r#"{"step":"Pair"}"#,
        r#"{"step":{}}"#,
        r#"{"step":{"Go":1,"Stop":null}}"#,
        r#"{"step":{"Turn":{"degrees":"x"}}}"#,
        // The variant's name, escaped, on the path below it.
        r#"{"step":{"T\u0075rn":{"degrees":"x"}}}"#,
        r#"{"step":{"St\u006fp":1}}"#,
        r#"{"by_step":{"a":{"P\u0061ir":[1,300]}}}"#,
        r#"{"step":{"Walk":1}}"#,
        r#"{"step":3}"#,
        r#"{"step":[1]}"#,
        r#"{"by_step":{"a":{"Pair":[1,300]}}}"#,
        r#"{"by_step":{"a":{"Pair":[1]}}}"#,
        r#"{"unit":null}"#,
        r#"{"unit":{}}"#,
        r#"{"unit":-0}"#,
        r#"{"deep":[[[]]]}"#,
        r#"{"nope":1}"#,
        r#"{"texts":["a",null]}"#,
        r#"{"texts":[1.5,1e300,-0]}"#,
        r#"{"texts":[1e300]}"#,
        r#"{"texts":[true]}"#,
        r#"{"texts":[{}]}"#,
        r#"{"refusals":{}}"#,
        // Placed at the member, though nothing in it was read.
        r#"{"refusals":{"a":1}}"#,
    ];
    for doc in docs.iter().copied().chain([
        format!(r#"{{"deep":{deep}}}"#).as_str(),
        format!(r#"{{"raw":{deep}}}"#).as_str(),
    ]) {
        assert_eq!(
            shown(explained::<Odd>(doc)),
            shown(oracle::<Odd>(doc)),
            "{doc}"
        );
    }
}

/// A `bool` key is read by its value, as the schema's key pattern
/// reads it, where serde_json refuses one written with escapes; any
/// other key is refused as serde_json refuses it.
#[test]
fn explaining_reads_a_bool_key_by_its_value() {
    use std::collections::BTreeMap;
    let read = explain::<BTreeMap<bool, u8>>(r#"{"\u0074rue":1,"f\u0061lse":0}"#);
    assert_eq!(read.ok(), Some(BTreeMap::from([(true, 1), (false, 0)])));
    assert!(oracle::<BTreeMap<bool, u8>>(r#"{"\u0074rue":1}"#).is_err());
    for doc in [r#"{"true":1}"#, r#"{"false":1}"#] {
        assert_eq!(
            explain::<BTreeMap<bool, u8>>(doc).ok(),
            oracle::<BTreeMap<bool, u8>>(doc).ok(),
            "{doc}"
        );
    }
    for doc in [
        r#"{"True":1}"#,
        r#"{"tru":1}"#,
        r#"{"1":1}"#,
        r#"{"yes":1}"#,
    ] {
        let refused = explain::<BTreeMap<bool, u8>>(doc).expect_err(doc);
        let (_, message) = oracle::<BTreeMap<bool, u8>>(doc).expect_err(doc);
        assert_eq!(unplaced(&refused.message), message, "{doc}");
    }
    assert!(explain::<BTreeMap<bool, u8>>(r#"{"":1}"#).is_err());
}

/// A number key is read by its value, as the schema's key pattern
/// reads it, where serde_json refuses one written with escapes: the
/// key's text, its escapes decoded, is read as serde_json reads a
/// number key, and a 128-bit key as serde_json reads a 128-bit integer,
/// but for `-0`, a second spelling of `0`.
#[test]
fn explaining_reads_a_number_key_by_its_value() {
    use std::collections::BTreeMap;
    let read = explain::<BTreeMap<u8, bool>>(r#"{"\u0031":true,"2\u0035\u0035":false}"#);
    assert_eq!(read.ok(), Some(BTreeMap::from([(1, true), (255, false)])));
    assert!(oracle::<BTreeMap<u8, bool>>(r#"{"\u0031":true}"#).is_err());
    let read = explain::<BTreeMap<i128, bool>>(r#"{"\u002d5":true,"7":false}"#);
    assert_eq!(read.ok(), Some(BTreeMap::from([(-5, true), (7, false)])));
    for (doc, message) in [
        (
            r#"{"\u0032\u0035\u0036":true}"#,
            "invalid value: integer `256`, expected u8",
        ),
        (r#"{"0\u0031":true}"#, "invalid number"),
        (
            r#"{"\u0020\u0031":true}"#,
            "invalid value: expected key to be a number in quotes",
        ),
        (r#"{"1\u0020":true}"#, "expected `\"`"),
    ] {
        let refused = explain::<BTreeMap<u8, bool>>(doc).expect_err(doc);
        assert_eq!(unplaced(&refused.message), message, "{doc}");
    }
    for (doc, message) in [
        (r#"{"-0":true}"#, "invalid number"),
        (r#"{"00":true}"#, "invalid number"),
        (r#"{"-":true}"#, "invalid number"),
        (
            r#"{"170141183460469231731687303715884105728":true}"#,
            "number out of range",
        ),
        (r#"{"1x":true}"#, "expected `\"`"),
    ] {
        let refused = explain::<BTreeMap<i128, bool>>(doc).expect_err(doc);
        assert_eq!(refused.message, message, "{doc}");
    }
    let refused = explain::<BTreeMap<u128, bool>>(r#"{"-1":true}"#).expect_err("negative");
    assert_eq!(refused.message, "number out of range");
}

/// A schema whose members are all scalars or arrays of scalars is read
/// without it: serde's verdict is the schema's there. A `null`, an
/// object below the arguments object or a container inside an array,
/// which only the schema would refuse, stops the reader, so that the
/// gates one by one decide, the schema's walk included.
#[test]
fn a_flat_schema_reads_without_the_schema_and_stops_where_only_it_refuses() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer", "maximum": 9},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 1}},
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "boolean"}],
                "items": false,
            },
        },
        "required": ["name"],
        "additionalProperties": false,
    });
    let shape = Shape::new(&schema);
    assert!(shape.flat());
    // As registration does, once it has seen the tool's types read the
    // kinds the schema states (here any value, read as any kind).
    shape.prove_flat();
    let walked = |doc: &str| shape.check(doc, &schema).is_ok();
    let one_by_one = |doc: &str| {
        bounded::scan(doc.as_bytes(), &limits()).is_ok_and(|_| shape.check(doc, &schema).is_ok())
    };
    for (doc, read_as_value) in [
        (r#"{"name":"a","count":3}"#, true),
        // Bounds are gate 3's: serde's verdict.
        (r#"{"name":"a","count":30}"#, true),
        // An array of scalars, whatever the member: serde's verdict
        // (here any value's, a type registration would not prove);
        // bounds are gate 3's.
        (r#"{"name":"a","tags":["x","zz"],"pair":[1,true,3]}"#, true),
        (r#"{"name":"a","count":[1]}"#, true),
        (r#"{"name":"a","tags":[]}"#, true),
        // serde reads these as any value; the schema refuses them.
        (r#"{"name":null}"#, false),
        (r#"{"name":{"a":1}}"#, false),
        (r#"{"name":"a","other":null}"#, false),
        (r#"{"name":"a","tags":[null]}"#, false),
        (r#"{"name":"a","tags":[["x"]]}"#, false),
        (r#"{"name":"a","tags":["x",{}]}"#, false),
        (r#"{"name":"a","pair":[1,[]]}"#, false),
    ] {
        assert_eq!(
            read::<Value>(doc, &limits(), &shape).is_some(),
            read_as_value,
            "{doc}"
        );
        // The gates one by one walk every document serde accepts.
        assert_eq!(one_by_one(doc), walked(doc), "{doc}");
        if !read_as_value {
            assert!(!walked(doc), "{doc}");
        }
    }
    // Each member that may be a container other than an array of
    // scalars, or `null`, makes it not flat.
    let scalar = serde_json::json!({"type": "string"});
    for member in [
        serde_json::json!({"type": ["string", "null"]}),
        serde_json::json!({"type": "array"}),
        serde_json::json!({"type": "object"}),
        serde_json::json!({}),
        serde_json::json!(true),
        serde_json::json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        serde_json::json!({"type": "array", "items": {"type": ["string", "null"]}}),
        serde_json::json!({"type": "array", "items": {"type": "object"}}),
        serde_json::json!({"type": "array", "items": {"type": "array", "items": scalar}}),
        serde_json::json!({"type": "array", "items": true}),
        serde_json::json!({"type": "array", "prefixItems": [scalar, {}], "items": false}),
        serde_json::json!({"type": ["array", "string"], "items": scalar}),
        serde_json::json!({"type": "array", "items": scalar, "enum": [["a"]]}),
        serde_json::json!({"type": "array", "items": {"anyOf": [scalar, {"type": "integer"}]}}),
        serde_json::json!({"anyOf": [{"type": "array", "items": scalar}, {"type": "null"}]}),
        // Choices, which a derived enum may read more laxly.
        serde_json::json!({"type": "string", "enum": ["x", "y"]}),
        serde_json::json!({"type": "integer", "const": 1}),
        serde_json::json!({"type": "array", "items": {"type": "string", "enum": ["x"]}}),
        serde_json::json!({"type": "array", "prefixItems": [{"const": "x"}], "items": false}),
    ] {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"a": member, "b": {"type": "array", "items": scalar}},
            "additionalProperties": false,
        });
        assert!(!Shape::new(&schema).flat(), "{schema}");
    }
    // Nor is a schema that lets other members be anything.
    let open = serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}});
    assert!(!Shape::new(&open).flat());
    let closed = serde_json::json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": false,
    });
    assert!(Shape::new(&closed).flat());
}

/// A derived enum reads names its schema does not list (an alias, a
/// `#[serde(other)]` variant), so serde's verdict on a value held to
/// choices is not the schema's: a schema that lists choices is not
/// flat, and the gates one by one walk it whatever the document
/// holds, a document of scalars alone too.
#[test]
fn choices_are_always_the_schema_s_to_judge() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "color": {"type": "string", "enum": ["red", "blue"]},
            "colors": {"type": "array", "items": {"type": "string", "enum": ["red", "blue"]}},
            "n": {"type": "integer"},
        },
        "additionalProperties": false,
    });
    let shape = Shape::new(&schema);
    assert!(!shape.flat());
    for (doc, valid) in [
        (r#"{"color":"red","n":1}"#, true),
        (r#"{"color":"green","n":1}"#, false),
        (r#"{"colors":["red","blue"]}"#, true),
        (r#"{"colors":["red","green"]}"#, false),
    ] {
        assert!(bounded::scan(doc.as_bytes(), &limits()).is_ok());
        let walked = shape.check(doc, &schema).is_ok();
        assert_eq!(walked, valid, "{doc}");
        assert_eq!(
            read::<Value>(doc, &limits(), &shape).is_some(),
            valid,
            "{doc}"
        );
    }
}

/// Once registration has proved the rest, a member that is an object
/// (here a tagged union, and a plain object) is read against its own
/// subschema while the rest is read without the schema: whatever is
/// inside it, `null` and objects too, the reader takes exactly what
/// the subschema takes, and stops on the rest, wherever the member is
/// written among the others.
#[test]
fn a_member_read_against_its_subschema_beside_the_rest() {
    let variant = |kind: &str, extra: Value| {
        let mut properties = serde_json::json!({"kind": {"type": "string", "const": kind}});
        let mut required = vec![Value::from("kind")];
        if let (Value::Object(properties), Value::Object(extra)) = (&mut properties, extra) {
            for (key, value) in extra {
                required.push(Value::from(key.clone()));
                properties.insert(key, value);
            }
        }
        serde_json::json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    };
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "reason": {"oneOf": [
                variant("error", serde_json::json!({})),
                variant("goodwill", serde_json::json!({
                    "by": {"type": "string"},
                    "note": {"type": ["string", "null"]},
                })),
            ]},
            "at": {
                "type": "object",
                "properties": {
                    "day": {"type": "integer"},
                    "span": {"type": "object", "properties": {"hours": {"type": "integer"}}},
                },
                "additionalProperties": false,
            },
        },
        "required": ["name"],
        "additionalProperties": false,
    });
    let shape = Shape::new(&schema);
    assert!(!shape.flat());
    assert_eq!(shape.to_prove().map(|places| places.len()), Some(1));
    assert!(shape.guided(b"reason").is_some() && shape.guided(b"at").is_some());
    assert!(shape.guided(b"name").is_none());
    shape.prove_flat();
    for (doc, valid) in [
        (r#"{"name":"a","reason":{"kind":"error"}}"#, true),
        (r#"{"reason":{"kind":"error"},"name":"a"}"#, true),
        (
            r#"{"name":"a","reason":{"kind":"goodwill","by":"b","note":null}}"#,
            true,
        ),
        (
            r#"{"name":"a","reason":{"note":"n","by":"b","kind":"goodwill"}}"#,
            true,
        ),
        (
            r#"{"name":"a","at":{"day":3,"span":{"hours":2}},"reason":{"kind":"error"}}"#,
            true,
        ),
        (r#"{"name":"a","at":{}}"#, true),
        // What the member's subschema refuses, first, last or alone.
        (r#"{"name":"a","reason":{"kind":"other"}}"#, false),
        (r#"{"reason":{"kind":"other"},"name":"a"}"#, false),
        (r#"{"reason":{"kind":"goodwill"}}"#, false),
        (r#"{"name":"a","reason":{"kind":"error","by":"b"}}"#, false),
        (
            r#"{"name":"a","reason":{"kind":"goodwill","by":null,"note":null}}"#,
            false,
        ),
        (
            r#"{"name":"a","reason":{"kind":"goodwill","by":"b","note":{}}}"#,
            false,
        ),
        (r#"{"name":"a","reason":"error"}"#, false),
        (r#"{"name":"a","reason":null}"#, false),
        (r#"{"name":"a","reason":[{"kind":"error"}]}"#, false),
        (r#"{"name":"a","at":{"day":"3"}}"#, false),
        (r#"{"name":"a","at":{"day":3.5}}"#, false),
        (r#"{"name":"a","at":{"span":{"hours":"2"}}}"#, false),
        (
            r#"{"name":"a","at":{"span":{"hours":2}},"reason":{"kind":"other"}}"#,
            false,
        ),
        // The rest, read without the schema, stops as before.
        (r#"{"name":null,"reason":{"kind":"error"}}"#, false),
        (r#"{"name":{},"reason":{"kind":"error"}}"#, false),
    ] {
        assert_eq!(shape.check(doc, &schema).is_ok(), valid, "{doc}");
        assert_eq!(
            read::<Value>(doc, &limits(), &shape).is_some(),
            valid,
            "{doc}"
        );
    }
    // An arguments object with a union of its own, or a member its
    // schema says nothing of, is read against the schema throughout.
    for schema in [
        serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "object"}},
            "additionalProperties": false,
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
        }),
        serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": true},
            "additionalProperties": false,
        }),
        serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": {"type": "object"},
        }),
    ] {
        assert!(Shape::new(&schema).to_prove().is_none(), "{schema}");
    }
}

/// On generated documents of scalars and arrays, a flat schema's
/// reader accepts exactly what the gates one by one accept: the scan
/// and serde, and the walk where a `null`, an object or a container
/// inside an array makes them walk (which then refuses).
#[test]
fn a_flat_schema_s_reader_agrees_with_the_gates_one_by_one() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "s": {"type": "string"},
            "i": {"type": "integer"},
            "n": {"type": "number"},
            "b": {"type": "boolean"},
            "l": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["s", "i"],
        "additionalProperties": false,
    });
    let shape = Shape::new(&schema);
    assert!(shape.flat());
    let keys = ["s", "i", "n", "b", "l", "q", "s\\u0069"];
    let values = [
        "\"x\"",
        "\"y\\\\z\"",
        "\"\\u0078\"",
        "7",
        "-3",
        "2.5",
        "1e3",
        "true",
        "false",
        "null",
        " 0 ",
        "[]",
        "[\"x\", 7]",
        "[[\"x\"]]",
        "[\"x\",null]",
        "[{}]",
        "{}",
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..20_000 {
        // Mostly with the required members, so that many documents
        // are valid with a `null` too.
        let mut members: Vec<String> = Vec::new();
        if next(4) != 0 {
            members.extend(["\"s\":\"x\"".to_owned(), "\"i\":7".to_owned()]);
        }
        for _ in 0..next(5) {
            let at = next(members.len() + 1);
            let member = format!(
                "\"{}\":{}",
                keys[next(keys.len())],
                values[next(values.len())]
            );
            members.insert(at, member);
        }
        let doc = format!("{{{}}}", members.join(","));
        let one_by_one = bounded::scan(doc.as_bytes(), &limits())
            .is_ok_and(|_| shape.check(&doc, &schema).is_ok());
        let read = read::<Value>(&doc, &limits(), &shape).is_some();
        if read {
            accepted += 1;
            assert!(one_by_one, "{doc}");
        } else {
            refused += 1;
        }
        // Spelled integers (`1e3`) and escaped keys are left to the
        // gates one by one; otherwise the two agree.
        if !doc.contains("1e3") && !doc.contains("\\u0069") {
            assert_eq!(read, one_by_one, "{doc}");
        }
    }
    assert!(accepted > 2_000 && refused > 2_000, "{accepted} {refused}");
}

/// An object under a tagged union is checked as the branch its tag
/// names, found by reading ahead; where reading ahead cannot say (an
/// escape, a container before the tag, no tag, an unknown one), every
/// branch is followed. Either way the verdict is the walk's.
#[test]
fn a_tagged_union_is_read_as_the_branch_its_tag_names() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"f": {"anyOf": [{"$ref": "#/$defs/F"}, {"type": "null"}]}},
        "additionalProperties": false,
        "$defs": {"F": {"oneOf": [
            {
                "type": "object",
                "properties": {"kind": {"type": "string", "const": "dot"}},
                "required": ["kind"],
                "additionalProperties": false,
            },
            {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "const": "circle"},
                    "radius": {"type": "number"},
                    "inner": {"type": "object"},
                    "note": {"type": "string"},
                },
                "required": ["kind", "radius"],
                "additionalProperties": false,
            },
        ]}},
    });
    let shape = Shape::new(&schema);
    let walked = |doc: &str| {
        bounded::scan(doc.as_bytes(), &limits()).is_ok() && shape.check(doc, &schema).is_ok()
    };
    for (doc, valid) in [
        (r#"{"f":{"kind":"circle","radius":2}}"#, true),
        (r#"{"f":{"radius":2,"kind":"circle"}}"#, true),
        (r#"{"f":{"kind":"dot"}}"#, true),
        (r#"{"f":null}"#, true),
        (r#"{"f":{"kind":"dot","radius":2}}"#, false),
        (r#"{"f":{"radius":2,"kind":"dot"}}"#, false),
        (r#"{"f":{"kind":"circle"}}"#, false),
        (r#"{"f":{"kind":"square","radius":2}}"#, false),
        (r#"{"f":{"radius":2}}"#, false),
        (r#"{"f":{"kind":7,"radius":2}}"#, false),
        // A decoy tag inside a member, ahead of the real one.
        (
            r#"{"f":{"inner":{"kind":"dot"},"kind":"circle","radius":1}}"#,
            true,
        ),
        (
            r#"{"f":{"inner":{"n":1,"kind":"dot"},"kind":"circle","radius":1}}"#,
            true,
        ),
        (
            r#"{"f":{"inner":{"n":1,"kind":"circle"},"kind":"dot"}}"#,
            false,
        ),
        (
            r#"{"f":{"note":"\"kind\":\"dot\"","kind":"circle","radius":1}}"#,
            true,
        ),
        (r#"{"f":{"note":"x","kind":"dot"}}"#, false),
        // Escapes in the tag's key or value: every branch is followed.
        (r#"{"f":{"k\u0069nd":"circle","radius":1}}"#, true),
        (r#"{"f":{"kind":"circl\u0065","radius":1}}"#, true),
        (r#"{"f":{"kind":"d\u006ft","radius":1}}"#, false),
        (r#"{"f":{ "radius" : 1.5 , "kind" : "circle" }}"#, true),
        (r#"{"f":{"radius":true,"kind":"circle"}}"#, false),
        (r#"{"f":[]}"#, false),
    ] {
        assert_eq!(walked(doc), valid, "walked: {doc}");
        assert_eq!(
            read::<Value>(doc, &limits(), &shape).is_some(),
            valid,
            "read: {doc}"
        );
    }
}

/// The tag found ahead is not looked up or judged again as it is
/// read: it still counts as a required member the branch lists, and a
/// second key of its name is a repeat. `Value` takes a repeated key as
/// the last one, so the reader alone refuses it.
#[test]
fn the_tag_read_ahead_counts_as_read_once_and_only_once() {
    let branch = |tag: &str| {
        serde_json::json!({
            "type": "object",
            "properties": {"kind": {"const": tag}, "n": {"type": "integer"}},
            "required": ["kind", "n"],
            "additionalProperties": false,
        })
    };
    let shape = Shape::new(&serde_json::json!({"oneOf": [branch("a"), branch("b")]}));
    for (doc, read_whole) in [
        (r#"{"kind":"a","n":1}"#, true),
        (r#"{ "kind" : "b" , "n" : 2 }"#, true),
        (r#"{"n":1,"kind":"a"}"#, true),
        // Required: the tag and `n`.
        (r#"{"kind":"a"}"#, false),
        (r#"{"n":1}"#, false),
        // Repeated, whatever the second value.
        (r#"{"kind":"a","kind":"a","n":1}"#, false),
        (r#"{"kind":"a","n":1,"kind":"b"}"#, false),
        (r#"{"n":1,"kind":"a","kind":"a"}"#, false),
        // The rest of the branch is still checked.
        (r#"{"kind":"a","n":"1"}"#, false),
        (r#"{"kind":"a","n":1,"m":2}"#, false),
        (r#"{"kind":"c","n":1}"#, false),
    ] {
        let read = read::<Value>(doc, &limits(), &shape);
        assert_eq!(read.is_some(), read_whole, "{doc}");
    }
}

/// Reading ahead names the branch whose tag is written in the object:
/// matched in place where the key and every tag are written as they
/// are, and never where the text there is another tag, one of which
/// it is a prefix, or the tag written with an escape (every branch is
/// then followed). A tag that must be escaped is matched as decoded
/// text, and only where written without an escape.
#[test]
fn the_tag_read_ahead_names_its_branch() {
    let union = |tags: [&str; 2]| {
        let branch = |tag: &str| {
            serde_json::json!({
                "type": "object",
                "properties": {"kind": {"const": tag}, "n": {"type": "integer"}},
                "required": ["kind"],
            })
        };
        Shape::new(&serde_json::json!({"oneOf": [branch(tags[0]), branch(tags[1])]}))
    };
    let ahead_at = |shape: &Shape, doc: &str| {
        let tagged = shape.root().and_then(|root| shape.tagged(root));
        let reader = Reader::new(doc.as_bytes(), Some(doc), &limits(), shape);
        tagged.and_then(|tagged| reader.branch_ahead(tagged))
    };
    let ahead = |shape: &Shape, doc: &str| ahead_at(shape, doc).map(|(branch, _)| branch);
    let shape = union(["error", "errors"]);
    let tagged = shape.root().and_then(|root| shape.tagged(root));
    assert!(tagged.is_some_and(Tagged::plain));
    let (error, errors) = (
        tagged.and_then(|t| t.branch(b"error")),
        tagged.and_then(|t| t.branch(b"errors")),
    );
    assert!(error.is_some() && errors.is_some() && error != errors);
    for (doc, branch) in [
        (r#"{"kind":"error"}"#, error),
        (r#"{"kind":"errors","n":1}"#, errors),
        (r#"{ "kind" : "errors" }"#, errors),
        (r#"{"n":1,"kind":"error"}"#, error),
        (r#"{"n":"kind","kind":"errors"}"#, errors),
        (r#"{"kind":"erro"}"#, None),
        (r#"{"kind":"error\u0073"}"#, None),
        (r#"{"kin\u0064":"error"}"#, None),
        (r#"{"kinds":"error"}"#, None),
        (r#"{"kind":7}"#, None),
        (r#"{"kind":"errors"#, None),
    ] {
        assert_eq!(ahead(&shape, doc), branch, "{doc}");
    }
    // Where the tag's key starts, and its bit: `kind` is the branch's
    // first property.
    for (doc, quote) in [
        (r#"{"kind":"error"}"#, 1),
        (r#"{ "kind" : "errors" }"#, 2),
        (r#"{"n":1,"kind":"error"}"#, 7),
        (r#"{"n":"kind","kind":"errors"}"#, 12),
    ] {
        assert_eq!(
            ahead_at(&shape, doc).map(|(_, tag)| tag),
            Some((quote, 1)),
            "{doc}"
        );
    }
    let shape = union(["a\"b", "c"]);
    let tagged = shape.root().and_then(|root| shape.tagged(root));
    assert!(tagged.is_some_and(|t| !t.plain()));
    let c = tagged.and_then(|t| t.branch(b"c"));
    assert!(c.is_some());
    assert_eq!(ahead(&shape, r#"{"kind":"c"}"#), c);
    // Not matched in place: each key is read, and read again.
    let not_in_place = ahead_at(&shape, r#"{"kind":"c"}"#).map(|(_, tag)| tag);
    assert_eq!(not_in_place, Some(NO_TAG));
    assert_eq!(ahead(&shape, r#"{"kind":"a\"b"}"#), None);
    assert_eq!(ahead(&shape, r#"{"kind":"a"b"}"#), None);
}

/// Whatever the reader accepts, the separate gates accept, with the
/// same value; on documents in forms both read alike, the reader
/// accepts exactly what the separate gates accept.
#[test]
fn the_reader_agrees_with_the_separate_gates_on_generated_documents() {
    let (schema, shape) = schema();
    let walked = |doc: &str, limits: &Limits| {
        bounded::scan(doc.as_bytes(), limits).is_ok() && shape.check(doc, &schema).is_ok()
    };
    // A tenth of the documents for a mutation tester's quick first pass
    // (docs/maintainers/mutation.md), whose survivors then meet the whole property.
    let scale = if std::env::var_os("TOOLGATE_QUICK_PROPERTIES").is_some() {
        10
    } else {
        1
    };
    for clean in [false, true] {
        let mut g = Gen {
            state: 0x9E37_79B9_7F4A_7C15,
            clean,
        };
        let (mut read_count, mut separate_count) = (0, 0);
        for _ in 0..20_000 / scale {
            let doc = g.args();
            let limits = g.limits();
            let single = read::<Args>(&doc, &limits, &shape);
            let separate = separately::<Args>(&doc, &limits).filter(|_| walked(&doc, &limits));
            read_count += usize::from(single.is_some());
            separate_count += usize::from(separate.is_some());
            if let Some(value) = single {
                assert_eq!(Some(value), separate, "{doc} with {limits:?}");
            } else if clean {
                assert!(
                    separate.is_none(),
                    "the reader stopped on {doc} with {limits:?}"
                );
            }
            // Read as any JSON value, its verdict is the scan's and the
            // shape walk's together.
            let any = read::<Value>(&doc, &limits, &shape).is_some();
            if any || clean {
                assert_eq!(
                    any,
                    walked(&doc, &limits),
                    "as a value: {doc} with {limits:?}"
                );
            }
        }
        // Neither path refuses everything, and when not clean the
        // reader leaves some documents the separate gates accept to
        // them (integers spelled as floats): the property is not vacuous.
        assert!(
            read_count > 2_000 / scale,
            "the reader accepted only {read_count}"
        );
        if clean {
            assert_eq!(read_count, separate_count);
        } else {
            assert!(
                separate_count > read_count + 500 / scale,
                "{separate_count} {read_count}"
            );
        }
    }
}
