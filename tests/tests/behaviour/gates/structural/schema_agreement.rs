//! The server accepts exactly what the published schema says, in the places
//! where serde's derived `Deserialize` is laxer than the schema or where a
//! rule existed on one side only: objects sent as arrays, unit variants with
//! extra keys, integer ranges, `-0`, nested rules without `dive`, and
//! trusted-context names inside nested types.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate::{Code, Outcome, RegisterError, ToolContext, ToolError, Toolbox, tool};
use toolgate_examples::invoice::{Billing, RefundInvoice};

use crate::common::block_on;
use crate::common::tools::{Add, ExportRows, ListThings, SendNote, Spy, StoreTree};

fn call<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str, args: &str) -> Outcome {
    let ctx = ToolContext::new("u", "tenant_a", "r")
        .allow_all_tools()
        .with_scopes(["exports:read", "billing:refund"]);
    block_on(toolbox.call(&ctx, tool, args))
}

/// The rejection of a call the tool must refuse.
fn refused<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
    args: &str,
) -> toolgate::Rejection {
    call(toolbox, tool, args)
        .rejection()
        .unwrap_or_else(|| panic!("{args}: accepted"))
        .clone()
}

fn code(outcome: &Outcome) -> Option<(Code, String)> {
    outcome.rejection().map(|r| (r.code(), r.path().to_owned()))
}

fn spy_box() -> Toolbox<Spy> {
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox
        .register(ExportRows)
        .unwrap()
        .register(SendNote)
        .unwrap()
        .register(StoreTree)
        .unwrap()
        .register(ListThings)
        .unwrap()
        .register(Add)
        .unwrap();
    toolbox
}

// --- 1. an object is never read from an array ---

#[test]
fn a_nested_struct_sent_as_an_array_is_refused() {
    let toolbox = spy_box();
    let cases = [
        (
            "export_rows",
            r#"{"accountRef":"acct_42","format":"csv","window":[7,null],"columns":["id"],"dry_run":true}"#,
            "/window",
        ),
        ("send_note", r#"{"to":["a@b.c"],"text":"hi"}"#, "/to"),
        ("store_tree", r#"{"root":["a",[]]}"#, "/root"),
        (
            "store_tree",
            r#"{"root":{"name":"a","children":[["b",[]]]}}"#,
            "/root/children/0",
        ),
        ("list_things", r#"{"paging":[3]}"#, "/paging"),
    ];
    for (tool, args, path) in cases {
        let outcome = call(&toolbox, tool, args);
        assert_eq!(
            code(&outcome),
            Some((Code::WrongType, path.to_owned())),
            "{tool} {args}: {outcome:?}"
        );
    }
    assert_eq!(toolbox.state().count(), 0);
    // The same calls with objects run.
    let outcome = call(
        &toolbox,
        "send_note",
        r#"{"to":{"mail":"a@b.c"},"text":"hi"}"#,
    );
    assert!(outcome.value().is_some(), "{outcome:?}");
}

#[test]
fn refund_invoice_reason_as_an_array_does_not_refund() {
    let mut toolbox = Toolbox::new(Billing::demo());
    toolbox.register(RefundInvoice).unwrap();
    let outcome = call(
        &toolbox,
        "refund_invoice",
        r#"{"invoice_id":"inv_88","amount_cents":100,"reason":["duplicate"]}"#,
    );
    let rejection = outcome.rejection().expect("refused");
    assert_eq!(rejection.path(), "/reason", "{outcome:?}");
    assert_eq!(toolbox.state().refunds().len(), 0);
}

// Shapes inside enums, which serde reads from a buffer no wrapper sees.

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Point {
    #[garde(range(min = -100, max = 100))]
    pub x: i32,
    #[garde(range(min = -100, max = 100))]
    pub y: i32,
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Internal {
    Dot,
    Circle {
        #[garde(dive)]
        center: Point,
        #[garde(range(min = 1, max = 10))]
        radius: u32,
    },
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(
    tag = "t",
    content = "c",
    rename_all = "snake_case",
    deny_unknown_fields
)]
pub enum Adjacent {
    Stop,
    Go(#[garde(range(max = 10))] u8),
    Move {
        #[garde(dive)]
        to: Point,
    },
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum External {
    Off,
    At(#[garde(dive)] Point),
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged)]
pub enum Untagged {
    Point(#[garde(dive)] Point),
    Label(#[garde(length(chars, max = 5))] String),
}

/// Draw shapes of every enum representation.
#[tool(effect = write)]
pub fn draw(
    spy: &Spy,
    internal: Internal,
    adjacent: Adjacent,
    external: External,
    untagged: Untagged,
) -> Result<(), ToolError> {
    spy.calls.lock().unwrap().push(format!(
        "{internal:?} {adjacent:?} {external:?} {untagged:?}"
    ));
    Ok(())
}

fn draw_box() -> Toolbox<Spy> {
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox.register(Draw).unwrap();
    toolbox
}

fn draw_call(toolbox: &Toolbox<Spy>, patch: Value) -> Outcome {
    let mut args = json!({
        "internal": {"kind": "circle", "center": {"x": 1, "y": 2}, "radius": 3},
        "adjacent": {"t": "move", "c": {"to": {"x": 1, "y": 2}}},
        "external": {"at": {"x": 1, "y": 2}},
        "untagged": {"x": 1, "y": 2},
    });
    for (k, v) in patch.as_object().unwrap() {
        args[k] = v.clone();
    }
    call(toolbox, "draw", &args.to_string())
}

#[test]
fn every_enum_representation_accepts_its_schema() {
    let toolbox = draw_box();
    for patch in [
        json!({}),
        json!({"internal": {"kind": "dot"}}),
        json!({"adjacent": {"t": "stop"}}),
        json!({"adjacent": {"t": "go", "c": 3}}),
        json!({"external": "off"}),
        json!({"untagged": "label"}),
    ] {
        let outcome = draw_call(&toolbox, patch.clone());
        assert!(outcome.value().is_some(), "{patch}: {outcome:?}");
    }
}

#[test]
fn structs_inside_enums_are_never_arrays() {
    let toolbox = draw_box();
    for (patch, path) in [
        (
            json!({"internal": {"kind": "circle", "center": [1, 2], "radius": 3}}),
            "/internal/center",
        ),
        (
            json!({"adjacent": {"t": "move", "c": [{"x": 1, "y": 2}]}}),
            "/adjacent/c",
        ),
        (
            json!({"adjacent": {"t": "move", "c": {"to": [1, 2]}}}),
            "/adjacent/c/to",
        ),
        (json!({"external": {"at": [1, 2]}}), "/external/at"),
    ] {
        let outcome = draw_call(&toolbox, patch.clone());
        let (code, at) = code(&outcome).unwrap_or_else(|| panic!("{patch} ran"));
        assert_eq!(code, Code::WrongType, "{patch}: {outcome:?}");
        assert_eq!(at, path, "{patch}: {outcome:?}");
    }
    // An untagged union of a struct and a string: an array is neither.
    let outcome = draw_call(&toolbox, json!({"untagged": [1, 2]}));
    assert!(outcome.rejection().is_some(), "{outcome:?}");
    assert_eq!(toolbox.state().count(), 0);
}

// --- 8. unit variants are closed ---

#[test]
fn unit_variants_take_no_other_keys() {
    let toolbox = draw_box();
    let outcome = draw_call(&toolbox, json!({"internal": {"kind": "dot", "radius": 5}}));
    assert_eq!(
        code(&outcome),
        Some((Code::UnknownField, "/internal/radius".to_owned())),
        "{outcome:?}"
    );
    let outcome = draw_call(&toolbox, json!({"internal": {"radius": 5, "kind": "dot"}}));
    assert_eq!(
        code(&outcome).map(|c| c.0),
        Some(Code::UnknownField),
        "{outcome:?}"
    );
    let outcome = draw_call(&toolbox, json!({"adjacent": {"t": "stop", "c": null}}));
    assert_eq!(
        code(&outcome),
        Some((Code::UnknownField, "/adjacent/c".to_owned())),
        "{outcome:?}"
    );
    let outcome = draw_call(&toolbox, json!({"external": {"off": null}}));
    assert!(outcome.rejection().is_some(), "{outcome:?}");
    assert_eq!(toolbox.state().count(), 0);
}

// --- 2. integer ranges are in the schema ---

#[test]
fn integer_types_publish_their_range() {
    let schema = Add::definition().schema();
    assert_eq!(schema["properties"]["a"]["minimum"], json!(i64::MIN));
    assert_eq!(schema["properties"]["a"]["maximum"], json!(i64::MAX));
    assert_eq!(schema["properties"]["b"]["minimum"], json!(0));
    assert_eq!(schema["properties"]["b"]["maximum"], json!(u64::MAX));
    // A rule's narrower bound wins over the type's.
    let export = ExportRows::definition().schema();
    let days = &export["$defs"]["Window"]["properties"]["lastDays"];
    assert_eq!(
        (&days["minimum"], &days["maximum"]),
        (&json!(1), &json!(90))
    );
    let limit = &export["properties"]["limit"];
    assert_eq!(
        (&limit["minimum"], &limit["maximum"]),
        (&json!(0), &json!(1_000_000))
    );
}

#[test]
fn a_number_past_the_type_names_the_real_bound() {
    let toolbox = spy_box();
    let outcome = call(&toolbox, "add", r#"{"a":1,"b":18446744073709551616}"#);
    let rejection = outcome.rejection().expect("refused");
    assert_eq!(rejection.code(), Code::OutOfRange);
    assert!(
        rejection.safe_message().contains("18446744073709551615"),
        "{rejection:?}"
    );
}

// --- 3. -0, 2.0 and 1e1 are integers ---

#[test]
fn negative_zero_is_zero() {
    let toolbox = spy_box();
    let outcome = call(&toolbox, "add", r#"{"a":-0,"b":-0}"#);
    assert_eq!(outcome.value(), Some(&json!(0)), "{outcome:?}");
    let outcome = call(&toolbox, "add", r#"{"a":-0 ,"b":1}"#);
    assert_eq!(outcome.value(), Some(&json!(1)), "{outcome:?}");
    // Inside a string it stays text.
    let outcome = call(
        &toolbox,
        "send_note",
        r#"{"to":{"mail":"-0@x.y"},"text":"-0"}"#,
    );
    assert!(outcome.value().is_some(), "{outcome:?}");
    let calls = toolbox.state().calls.lock().unwrap().clone();
    assert!(
        calls
            .iter()
            .any(|c| c.contains("\"-0@x.y\"") && c.ends_with(": -0")),
        "{calls:?}"
    );
    // An escaped quote does not end the string: what follows is still text.
    let outcome = call(
        &toolbox,
        "send_note",
        r#"{"to":{"mail":"a@b.c"},"text":"\"-0"}"#,
    );
    assert!(outcome.value().is_some(), "{outcome:?}");
    let calls = toolbox.state().calls.lock().unwrap().clone();
    assert!(calls.iter().any(|c| c.ends_with(": \"-0")), "{calls:?}");
    // Numbers are read by value: `-0.0`, `2.0`, `1e1` are integers, as the
    // schema's `"type": "integer"` reads them; `2.5` is not.
    let outcome = call(&toolbox, "add", r#"{"a":-0.0,"b":1}"#);
    assert_eq!(outcome.value(), Some(&json!(1)), "{outcome:?}");
    let outcome = call(&toolbox, "add", r#"{"a":2.0,"b":1e1}"#);
    assert_eq!(outcome.value(), Some(&json!(12)), "{outcome:?}");
    let outcome = call(&toolbox, "add", r#"{"a":2.5,"b":1}"#);
    assert_eq!(
        code(&outcome).map(|c| c.0),
        Some(Code::WrongType),
        "{outcome:?}"
    );
}

// --- 5. nested rules always run ---

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Days {
    #[garde(range(min = 1, max = 90))]
    pub days: u32,
}

/// Take windows in every container, none of them marked `dive`.
#[tool(effect = read)]
pub fn windows(
    one: Days,
    maybe: Option<Days>,
    many: Vec<Days>,
    named: HashMap<String, Days>,
    pair: [Days; 2],
) -> Result<u32, ToolError> {
    let _ = (&maybe, &named);
    Ok(one.days + many.len() as u32 + pair[0].days)
}

#[test]
fn rules_of_nested_types_run_without_dive() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Windows).unwrap();
    let base = json!({
        "one": {"days": 1},
        "maybe": {"days": 2},
        "many": [{"days": 3}],
        "named": {"a": {"days": 4}},
        "pair": [{"days": 5}, {"days": 6}],
    });
    let outcome = call(&toolbox, "windows", &base.to_string());
    assert!(outcome.value().is_some(), "{outcome:?}");
    for (field, value, path) in [
        ("one", json!({"days": 100000}), "/one/days"),
        ("maybe", json!({"days": 0}), "/maybe/days"),
        ("many", json!([{"days": 1}, {"days": 91}]), "/many/1/days"),
        ("named", json!({"k": {"days": 91}}), "/named/k/days"),
        ("pair", json!([{"days": 1}, {"days": 91}]), "/pair/1/days"),
    ] {
        let mut args = base.clone();
        args[field] = value;
        let outcome = call(&toolbox, "windows", &args.to_string());
        assert_eq!(
            code(&outcome),
            Some((Code::OutOfRange, path.to_owned())),
            "{args}: {outcome:?}"
        );
    }
}

// --- 9. integer map keys ---

/// Count per day number.
#[tool(effect = read)]
pub fn per_day(counts: BTreeMap<u32, u8>) -> Result<usize, ToolError> {
    Ok(counts.len())
}

#[test]
fn integer_map_keys_publish_what_the_server_reads() {
    let schema = PerDay::definition().schema();
    let patterns = schema["properties"]["counts"]["patternProperties"]
        .as_object()
        .expect("integer keys have a pattern");
    let pattern = patterns.keys().next().unwrap();
    let oracle = jsonschema::validator_for(schema).unwrap();
    let mut toolbox = Toolbox::new(());
    toolbox.register(PerDay).unwrap();
    for key in [
        "0",
        "7",
        "10",
        "00",
        "007",
        "-1",
        "1.0",
        "+1",
        " 1",
        "4294967295",
        "4294967296",
        "10000000000",
    ] {
        let args = format!(r#"{{"counts":{{"{key}":1}}}}"#);
        let outcome = call(&toolbox, "per_day", &args);
        let published = oracle.is_valid(&serde_json::from_str::<Value>(&args).unwrap());
        assert_eq!(
            published,
            outcome.value().is_some(),
            "key {key:?}: schema pattern {pattern} vs server {outcome:?}"
        );
    }
}

/// Shelves whose slots are numbered from 1.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Shelf {
    #[garde(skip)]
    pub by_slot: HashMap<std::num::NonZeroU16, u8>,
}

/// Count things by numbers of every integer type.
#[tool(effect = read)]
#[allow(clippy::too_many_arguments)]
pub fn count_by_number(
    by_u8: Option<BTreeMap<u8, u8>>,
    by_u16: Option<HashMap<u16, u8>>,
    by_u32: Option<BTreeMap<u32, u8>>,
    by_u64: Option<HashMap<u64, u8>>,
    by_u128: Option<BTreeMap<u128, u8>>,
    by_usize: Option<BTreeMap<usize, u8>>,
    by_i8: Option<HashMap<i8, u8>>,
    by_i16: Option<BTreeMap<i16, u8>>,
    by_i32: Option<HashMap<i32, u8>>,
    by_i64: Option<BTreeMap<i64, u8>>,
    by_i128: Option<BTreeMap<i128, u8>>,
    by_isize: Option<HashMap<isize, u8>>,
    by_nonzero_u32: Option<BTreeMap<std::num::NonZeroU32, u8>>,
    by_nonzero_i8: Option<BTreeMap<std::num::NonZeroI8, u8>>,
    shelves: Option<Vec<Shelf>>,
    nested: Option<BTreeMap<i16, BTreeMap<u64, u8>>>,
) -> Result<usize, ToolError> {
    let counted = [
        by_u8.map(|m| m.len()),
        by_u16.map(|m| m.len()),
        by_u32.map(|m| m.len()),
        by_u64.map(|m| m.len()),
        by_u128.map(|m| m.len()),
        by_usize.map(|m| m.len()),
        by_i8.map(|m| m.len()),
        by_i16.map(|m| m.len()),
        by_i32.map(|m| m.len()),
        by_i64.map(|m| m.len()),
        by_i128.map(|m| m.len()),
        by_isize.map(|m| m.len()),
        by_nonzero_u32.map(|m| m.len()),
        by_nonzero_i8.map(|m| m.len()),
        shelves.map(|s| s.iter().map(|s| s.by_slot.len()).sum()),
        nested.map(|m| m.values().map(BTreeMap::len).sum()),
    ];
    Ok(counted.into_iter().flatten().sum())
}

/// Whether `key`, its escapes decoded, is an integer from `min` to `max`
/// (but 0 where `zero` is false), written as JSON writes an integer.
fn integer_in(key: &str, min: i128, max: u128, zero: bool) -> bool {
    let digits = key.strip_prefix('-').unwrap_or(key);
    let written = matches!(digits.as_bytes(), [b'0'] | [b'1'..=b'9', ..])
        && digits.bytes().all(|b| b.is_ascii_digit())
        && key != "-0";
    let in_range = match key.strip_prefix('-') {
        Some(_) => key.parse::<i128>().is_ok_and(|n| n >= min),
        None => key.parse::<u128>().is_ok_and(|n| n <= max),
    };
    written && in_range && (zero || key != "0")
}

/// `key` with every character escaped, as a JSON string: `"\u0037"`.
fn escaped(key: &str) -> String {
    // As UTF-16 units: a character past U+FFFF is a surrogate pair.
    let escapes: String = key
        .encode_utf16()
        .map(|unit| format!("\\u{unit:04x}"))
        .collect();
    format!("\"{escapes}\"")
}

/// Keys of every integer type, at the top, in a struct in a list, and in
/// a map's values: each end of the type's range is taken and one past it
/// refused, `0` refused where the type is `NonZero…`, every other spelling
/// of an integer refused, and a key written with escapes read by its
/// value; alike by the server (one pass, gate by gate, whole calls) and by
/// an independent validator of the published schema. The schema states the
/// range: no note about keys is left in the description.
#[test]
fn integer_map_keys_of_every_type_take_their_range_by_value() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(CountByNumber).unwrap();
    let def = toolbox.definition("count_by_number").unwrap();
    assert_eq!(
        def.description(),
        "Count things by numbers of every integer type."
    );
    let oracle = jsonschema::validator_for(def.schema()).unwrap();
    let big = |n: i128| n.to_string();
    // Each map, where its key goes (`K`), and the range of its keys.
    let maps: [(&str, &str, i128, u128, bool); 18] = [
        ("by_u8", r#"{"by_u8":{K:1}}"#, 0, u8::MAX.into(), true),
        ("by_u16", r#"{"by_u16":{K:1}}"#, 0, u16::MAX.into(), true),
        ("by_u32", r#"{"by_u32":{K:1}}"#, 0, u32::MAX.into(), true),
        ("by_u64", r#"{"by_u64":{K:1}}"#, 0, u64::MAX.into(), true),
        ("by_u128", r#"{"by_u128":{K:1}}"#, 0, u128::MAX, true),
        (
            "by_usize",
            r#"{"by_usize":{K:1}}"#,
            0,
            usize::MAX as u128,
            true,
        ),
        (
            "by_i8",
            r#"{"by_i8":{K:1}}"#,
            i8::MIN.into(),
            i8::MAX as u128,
            true,
        ),
        (
            "by_i16",
            r#"{"by_i16":{K:1}}"#,
            i16::MIN.into(),
            i16::MAX as u128,
            true,
        ),
        (
            "by_i32",
            r#"{"by_i32":{K:1}}"#,
            i32::MIN.into(),
            i32::MAX as u128,
            true,
        ),
        (
            "by_i64",
            r#"{"by_i64":{K:1}}"#,
            i64::MIN.into(),
            i64::MAX as u128,
            true,
        ),
        (
            "by_i128",
            r#"{"by_i128":{K:1}}"#,
            i128::MIN,
            i128::MAX as u128,
            true,
        ),
        (
            "by_isize",
            r#"{"by_isize":{K:1}}"#,
            isize::MIN as i128,
            isize::MAX as u128,
            true,
        ),
        (
            "by_nonzero_u32",
            r#"{"by_nonzero_u32":{K:1}}"#,
            0,
            u32::MAX.into(),
            false,
        ),
        (
            "by_nonzero_i8",
            r#"{"by_nonzero_i8":{K:1}}"#,
            i8::MIN.into(),
            i8::MAX as u128,
            false,
        ),
        (
            "shelves",
            r#"{"shelves":[{"by_slot":{}},{"by_slot":{K:1}}]}"#,
            0,
            u16::MAX.into(),
            false,
        ),
        (
            "nested",
            r#"{"nested":{K:{}}}"#,
            i16::MIN.into(),
            i16::MAX as u128,
            true,
        ),
        (
            "nested",
            r#"{"nested":{"-1":{K:1}}}"#,
            0,
            u64::MAX.into(),
            true,
        ),
        (
            "nested",
            r#"{"nested":{"\u002d\u0031":{K:1},"2":{}}}"#,
            0,
            u64::MAX.into(),
            true,
        ),
    ];
    let mut checked = 0;
    for (field, template, min, max, zero) in maps {
        let ends = |n: i128| [n.checked_sub(1), Some(n), n.checked_add(1)];
        let mut keys: Vec<String> = ends(min).into_iter().flatten().map(big).collect();
        keys.extend([max.to_string(), format!("{}", max.wrapping_add(1))]);
        if max == u128::MAX {
            keys.push("340282366920938463463374607431768211456".to_owned());
        }
        if min == i128::MIN {
            keys.push("-170141183460469231731687303715884105729".to_owned());
        }
        keys.extend(
            [
                "0", "1", "-1", "7", "-0", "00", "01", "+1", " 1", "1 ", "1.0", "1e2", "x", "",
            ]
            .map(str::to_owned),
        );
        for key in keys {
            let expected = integer_in(&key, min, max, zero);
            for written in [format!("{key:?}"), escaped(&key)] {
                let args = template.replace('K', &written);
                let published = oracle.is_valid(&serde_json::from_str::<Value>(&args).unwrap());
                assert_eq!(published, expected, "{field} {args}: the schema");
                let one_pass = toolgate::testing::check_arguments(
                    &toolbox,
                    "count_by_number",
                    args.as_bytes(),
                )
                .unwrap();
                let gate_by_gate = toolgate::testing::check_arguments_gate_by_gate(
                    &toolbox,
                    "count_by_number",
                    args.as_bytes(),
                )
                .unwrap();
                assert_eq!(one_pass, gate_by_gate, "{args}");
                assert_eq!(one_pass.is_ok(), expected, "{field} {args}: {one_pass:?}");
                let outcome = call(&toolbox, "count_by_number", &args);
                assert_eq!(outcome.value().is_some(), expected, "{args}: {outcome:?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 600, "{checked}");
}

/// A key past its map's range is out of range, said in the words of the
/// schema's range.
#[test]
fn an_integer_key_past_its_range_is_out_of_range() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(CountByNumber).unwrap();
    for (args, at, message) in [
        (
            r#"{"by_u8":{"256":1}}"#,
            "/by_u8/256",
            "by_u8: keys must be whole numbers from 0 to 255, written in digits",
        ),
        (
            r#"{"by_nonzero_i8":{"0":1}}"#,
            "/by_nonzero_i8/0",
            "by_nonzero_i8: keys must be whole numbers from -128 to 127 other than 0, written in digits",
        ),
        (
            r#"{"shelves":[{"by_slot":{"\u0030":1}}]}"#,
            "/shelves/0/by_slot/0",
            "shelves/0/by_slot: keys must be whole numbers from 1 to 65535, written in digits",
        ),
    ] {
        let rejection = refused(&toolbox, "count_by_number", args);
        assert_eq!(
            (rejection.code(), rejection.path(), rejection.safe_message()),
            (Code::OutOfRange, at, message),
            "{args}"
        );
    }
    // Not an integer at all: a key the map does not have.
    let rejection = refused(&toolbox, "count_by_number", r#"{"by_u8":{"07":1}}"#);
    assert_eq!(rejection.code(), Code::UnknownField);
    // Inside a map's values, each key and value is named by its place.
    for (args, at, message) in [
        (
            r#"{"nested":{"-1":{"18446744073709551616":1}}}"#,
            "/nested/-1/18446744073709551616",
            "nested/-1: keys must be whole numbers from 0 to 18446744073709551615, written in digits",
        ),
        (
            r#"{"by_u8":{"1":300}}"#,
            "/by_u8/1",
            "by_u8/1 must be between 0 and 255",
        ),
    ] {
        let rejection = refused(&toolbox, "count_by_number", args);
        assert_eq!(
            (rejection.code(), rejection.path(), rejection.safe_message()),
            (Code::OutOfRange, at, message),
            "{args}"
        );
    }
}

// --- 10. keys of `bool`, `char` and enum types ---

/// Switches by state, inside a list.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Panel {
    #[garde(skip)]
    pub by_state: HashMap<bool, u8>,
    #[garde(skip)]
    pub by_initial: Option<BTreeMap<char, u8>>,
}

/// Count things by flag and by letter.
#[tool(effect = read)]
pub fn count_by_flag_and_letter(
    by_flag: Option<BTreeMap<bool, u8>>,
    by_letter: Option<BTreeMap<char, u8>>,
    panels: Option<Vec<Panel>>,
    flags_by_letter: Option<BTreeMap<char, BTreeMap<bool, u8>>>,
    letters_by_number: Option<HashMap<u8, BTreeMap<char, u8>>>,
) -> Result<usize, ToolError> {
    let counted = [
        by_flag.map(|m| m.len()),
        by_letter.map(|m| m.len()),
        panels.map(|p| p.iter().map(|p| p.by_state.len()).sum()),
        flags_by_letter.map(|m| m.values().map(BTreeMap::len).sum()),
        letters_by_number.map(|m| m.values().map(BTreeMap::len).sum()),
    ];
    Ok(counted.into_iter().flatten().sum())
}

/// Each map of `count_by_flag_and_letter`, where its key goes (`K`), and
/// whether its keys are `bool`s (else `char`s).
const SCALAR_MAPS: [(&str, &str, bool); 8] = [
    ("by_flag", r#"{"by_flag":{K:1}}"#, true),
    ("by_letter", r#"{"by_letter":{K:1}}"#, false),
    (
        "panels",
        r#"{"panels":[{"by_state":{}},{"by_state":{K:1}}]}"#,
        true,
    ),
    (
        "panels",
        r#"{"panels":[{"by_state":{"true":1},"by_initial":{K:1}}]}"#,
        false,
    ),
    ("flags_by_letter", r#"{"flags_by_letter":{K:{}}}"#, false),
    (
        "flags_by_letter",
        r#"{"flags_by_letter":{"x":{K:1}}}"#,
        true,
    ),
    (
        "flags_by_letter",
        r#"{"flags_by_letter":{"\u00e9":{},"\ud83d\ude00":{K:1}}}"#,
        true,
    ),
    (
        "letters_by_number",
        r#"{"letters_by_number":{"7":{K:1}}}"#,
        false,
    ),
];

/// Keys of `bool` and `char` maps, at the top, in a struct in a list, and
/// in and as a map's values: `true` and `false` and nothing else, one
/// character and nothing else (however many UTF-8 bytes or UTF-16 units it
/// takes), each written plainly and with every character escaped, read by
/// value; alike by the server (one pass, gate by gate, whole calls) and by
/// an independent validator of the published schema, which states them:
/// a key pattern `^(true|false)$`, and `propertyNames` of one character
/// (lengths count code points, on every side).
#[test]
fn bool_and_char_map_keys_take_what_their_type_reads_by_value() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(CountByFlagAndLetter).unwrap();
    let def = toolbox.definition("count_by_flag_and_letter").unwrap();
    let schema = def.schema();
    assert_eq!(
        schema["properties"]["by_flag"]["patternProperties"]
            .as_object()
            .map(|p| p.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["^(true|false)$".to_owned()]),
        "{schema}"
    );
    let by_letter = &schema["properties"]["by_letter"];
    assert_eq!(
        by_letter["propertyNames"],
        json!({"minLength": 1, "maxLength": 1}),
        "{schema}"
    );
    assert_eq!(def.description(), "Count things by flag and by letter.");
    let oracle = jsonschema::validator_for(schema).unwrap();
    let keys = [
        "true", "false", "True", "FALSE", "tru", "truee", " true", "true ", "1", "0", "", "yes",
        "null", "a", "Z", "é", "€", "😀", "\u{0}", "\"", "\\", "\n", "\u{301}", "ab", "e\u{301}",
        "😀😀", "🇫🇷", "\r\n", "aé",
    ];
    let mut checked = 0;
    for (field, template, flags) in SCALAR_MAPS {
        for key in keys {
            let expected = match flags {
                true => key == "true" || key == "false",
                false => key.chars().count() == 1,
            };
            let plain = serde_json::to_string(key).unwrap();
            for written in [plain, escaped(key)] {
                let args = template.replace('K', &written);
                let published = oracle.is_valid(&serde_json::from_str::<Value>(&args).unwrap());
                assert_eq!(published, expected, "{field} {args}: the schema");
                let one_pass = toolgate::testing::check_arguments(
                    &toolbox,
                    "count_by_flag_and_letter",
                    args.as_bytes(),
                )
                .unwrap();
                let gate_by_gate = toolgate::testing::check_arguments_gate_by_gate(
                    &toolbox,
                    "count_by_flag_and_letter",
                    args.as_bytes(),
                )
                .unwrap();
                assert_eq!(one_pass, gate_by_gate, "{args}");
                assert_eq!(one_pass.is_ok(), expected, "{field} {args}: {one_pass:?}");
                let outcome = call(&toolbox, "count_by_flag_and_letter", &args);
                assert_eq!(outcome.value().is_some(), expected, "{args}: {outcome:?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 400, "{checked}");
}

/// A key its map does not take is a key the map does not have, and the
/// message says what its keys must be.
#[test]
fn a_bool_or_char_key_its_map_does_not_take_says_what_keys_must_be() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(CountByFlagAndLetter).unwrap();
    for (args, at, message) in [
        (
            r#"{"by_flag":{"yes":1}}"#,
            "/by_flag/yes",
            "\"yes\" is not a field here; keys must be true or false",
        ),
        (
            r#"{"panels":[{"by_state":{"True":1}}]}"#,
            "/panels/0/by_state/True",
            "\"True\" is not a field here; keys must be true or false",
        ),
        (
            r#"{"by_letter":{"ab":1}}"#,
            "/by_letter/ab",
            "\"ab\" is not a field here; keys must be single characters",
        ),
        (
            r#"{"letters_by_number":{"7":{"":1}}}"#,
            "/letters_by_number/7",
            "a field that does not exist here was sent; keys must be single characters",
        ),
    ] {
        let rejection = refused(&toolbox, "count_by_flag_and_letter", args);
        assert_eq!(
            (rejection.code(), rejection.path(), rejection.safe_message()),
            (Code::UnknownField, at, message),
            "{args}"
        );
    }
}

/// Shadings, each variant documented: schemars writes their names as a union
/// of constants, which says nothing of a map keyed by them.
#[derive(Debug, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Shading {
    /// Pale.
    Light,
    /// Deep.
    Dark,
}

/// Shades with an alias, each variant documented.
#[derive(Debug, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// Pale.
    #[serde(alias = "pale")]
    Light,
    /// Deep.
    Dark,
}

/// A room number: read as a `u16`.
#[derive(Debug, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RoomNumber(u16);

/// A flag, read as a `bool`.
#[derive(Debug, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(transparent)]
pub struct Flag(bool);

/// Maps keyed by other types that read one kind of key.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Palette {
    #[garde(skip)]
    pub by_shade: Option<BTreeMap<Shading, u8>>,
    #[garde(skip)]
    pub by_room: Option<BTreeMap<RoomNumber, u8>>,
    #[garde(skip)]
    pub by_flag: Option<HashMap<Flag, u8>>,
    #[garde(skip)]
    pub by_box: Option<BTreeMap<Box<char>, u8>>,
}

/// Paint by shade, room and flag.
#[tool(effect = read)]
pub fn paint_palette(#[garde(dive)] palette: Palette) -> Result<usize, ToolError> {
    Ok(palette.by_shade.map_or(0, |m| m.len()))
}

/// A map keyed by a documented enum takes its names, as a map keyed by an
/// enum without docs does; a newtype over an integer, `bool` or `char` its
/// inner type's keys. Each stated in the schema, each read by value.
#[test]
fn keys_of_documented_enums_and_newtypes_take_what_their_type_reads() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(PaintPalette).unwrap();
    let schema = toolbox.definition("paint_palette").unwrap().schema();
    let palette = &schema["$defs"]["Palette"]["properties"];
    let mut names: Vec<&String> = palette["by_shade"]["properties"]
        .as_object()
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    names.sort();
    assert_eq!(names, ["dark", "light"], "{schema}");
    let call = |field: &str, key: &str| format!(r#"{{"palette":{{"{field}":{{{key}:1}}}}}}"#);
    let unknown =
        |field: &str, key: &str| Some((Code::UnknownField, format!("/palette/{field}/{key}")));
    let out_of_range =
        |field: &str, key: &str| Some((Code::OutOfRange, format!("/palette/{field}/{key}")));
    for (args, refused) in [
        (call("by_shade", r#""light""#), None),
        (call("by_shade", &escaped("dark")), None),
        (call("by_shade", r#""pale""#), unknown("by_shade", "pale")),
        (call("by_shade", r#""Light""#), unknown("by_shade", "Light")),
        (call("by_room", r#""65535""#), None),
        (call("by_room", &escaped("7")), None),
        (
            call("by_room", r#""65536""#),
            out_of_range("by_room", "65536"),
        ),
        (call("by_room", r#""07""#), unknown("by_room", "07")),
        (call("by_flag", r#""true""#), None),
        (call("by_flag", &escaped("false")), None),
        (call("by_flag", r#""1""#), unknown("by_flag", "1")),
        (call("by_box", r#""😀""#), None),
        (call("by_box", &escaped("😀")), None),
        (call("by_box", r#""ab""#), unknown("by_box", "ab")),
    ] {
        let refused = refused.as_ref().map(|(code, at)| (*code, at.as_str()));
        agrees(&toolbox, "paint_palette", &args, refused);
    }
}

/// Tones by name, where a name has an alias.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Tones {
    #[garde(skip)]
    pub by_flag: BTreeMap<bool, u8>,
    #[garde(skip)]
    pub by_tone: BTreeMap<Tone, u8>,
}

/// Mix tones.
#[tool(effect = read)]
pub fn mix_tones(#[garde(dive)] tones: Tones) -> Result<usize, ToolError> {
    Ok(tones.by_tone.len())
}

/// Rooms by an optional number.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Doors {
    #[garde(skip)]
    pub by_flag: BTreeMap<bool, u8>,
    #[garde(skip)]
    pub by_letter: BTreeMap<char, u8>,
    #[garde(skip)]
    pub by_number: BTreeMap<Option<std::num::NonZeroU8>, u8>,
}

/// Open doors.
#[tool(effect = read)]
pub fn open_doors(#[garde(dive)] doors: Doors) -> Result<usize, ToolError> {
    Ok(doors.by_number.len())
}

/// A lower-case letter: a `char` of `a` to `z`, a range of its own.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, JsonSchema)]
#[schemars(transparent)]
pub struct Lower(char);

impl<'de> Deserialize<'de> for Lower {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match char::deserialize(d)? {
            c @ 'a'..='z' => Ok(Lower(c)),
            _ => Err(serde::de::Error::custom("not a lower-case letter")),
        }
    }
}

/// Marks by lower-case letter.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct LowerMarks {
    #[garde(skip)]
    pub by_flag: BTreeMap<bool, u8>,
    #[garde(skip)]
    pub by_lower: BTreeMap<Lower, u8>,
}

/// Mark letters.
#[tool(effect = read)]
pub fn mark_letters(#[garde(dive)] marks: LowerMarks) -> Result<usize, ToolError> {
    Ok(marks.by_lower.len())
}

/// A documented enum with an alias cannot have its names listed (two names
/// of one variant in one call would be one entry), an optional key reads
/// `null` nowhere but parses its inner type, and a type of its own over a
/// `char` takes keys the schema cannot state: each refused at
/// registration, past maps of `bool` and `char` keys before them, which a
/// probe of the keys once stopped at.
#[test]
fn keys_the_schema_cannot_list_are_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(MixTones).unwrap_err();
    assert_eq!(
        error,
        RegisterError::ParsedMapKey {
            tool: "mix_tones",
            at: "/tones/by_tone".to_owned(),
            reads: "deserialize_enum",
        }
    );
    assert!(
        error
            .to_string()
            .contains("give the enum's variants no aliases"),
        "{error}"
    );
    let error = toolbox.register(OpenDoors).unwrap_err();
    assert_eq!(
        error,
        RegisterError::ParsedMapKey {
            tool: "open_doors",
            at: "/doors/by_number".to_owned(),
            reads: "deserialize_option",
        }
    );
    // A type of its own over a `char` that takes fewer characters: the
    // schema cannot say which.
    let error = toolbox.register(MarkLetters).unwrap_err();
    assert_eq!(
        error,
        RegisterError::ParsedMapKey {
            tool: "mark_letters",
            at: "/marks/by_lower".to_owned(),
            reads: "deserialize_char",
        }
    );
    assert!(
        error.to_string().contains("key the map by `char` itself"),
        "{error}"
    );
}

// --- 11. keys serde reads from its buffer ---

/// Internally tagged: serde buffers each variant's content.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Census {
    ByFloor {
        #[garde(skip)]
        floors: BTreeMap<u8, u32>,
    },
    ByName {
        #[garde(skip)]
        names: BTreeMap<String, u32>,
    },
}

/// Untagged: serde buffers the value and tries each variant on it.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged)]
pub enum FlagTally {
    Flags(#[garde(skip)] BTreeMap<bool, u32>),
    Total(#[garde(skip)] u32),
}

/// A map flattened into a struct: serde buffers each member the struct
/// does not list.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct YearBook {
    #[garde(skip)]
    pub title: String,
    #[serde(flatten)]
    #[garde(skip)]
    pub by_year: BTreeMap<u16, u32>,
}

/// Letters, flattened into their owner: their map is buffered with them.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct Letters {
    #[garde(skip)]
    pub by_letter: BTreeMap<char, u32>,
}

/// An owner of letters flattened into it.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct Lettered {
    #[garde(skip)]
    pub title: String,
    #[serde(flatten)]
    #[garde(skip)]
    pub letters: Letters,
}

/// Adjacently tagged: serde buffers the content where it comes first.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "t", content = "c")]
pub enum Sheet {
    Flags(#[garde(skip)] BTreeMap<bool, u32>),
}

macro_rules! buffered_tools {
    ($($tool:ident, $nested:ident, $archive:ident: $ty:ty;)*) => {$(
        /// Records read from serde's buffer, nested in a list of a struct.
        #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
        pub struct $archive {
            #[garde(dive)]
            pub items: Vec<$ty>,
        }

        /// Keep a record read from serde's buffer.
        #[tool(effect = read)]
        pub fn $tool(#[garde(dive)] record: $ty) -> Result<usize, ToolError> {
            let _ = record;
            Ok(0)
        }

        /// Keep records read from serde's buffer, nested.
        #[tool(effect = read)]
        pub fn $nested(#[garde(dive)] archive: Option<$archive>) -> Result<usize, ToolError> {
            Ok(archive.map_or(0, |a| a.items.len()))
        }
    )*};
}

buffered_tools! {
    keep_census, keep_censuses, Censuses: Census;
    keep_flag_tally, keep_flag_tallies, Tallies: FlagTally;
    keep_year_book, keep_year_books, YearBooks: YearBook;
    keep_lettered, keep_lettered_all, LetteredAll: Lettered;
    keep_sheet, keep_sheets, Sheets: Sheet;
}

/// A map whose key type is not a string, inside an internally tagged or
/// untagged enum, a `#[serde(flatten)]` struct (or flattened itself), or
/// an adjacently tagged enum's content: serde reads its keys from a
/// buffer, where an integer or a `bool` refuses every key and no key type
/// is stated in the schema, which accepts them. Refused at registration,
/// naming the map, at the top of the arguments and nested.
#[test]
fn a_map_serde_reads_from_its_buffer_with_keys_not_strings_is_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    for (error, at) in [
        (toolbox.register(KeepCensus).unwrap_err(), "/record/floors"),
        (
            toolbox.register(KeepCensuses).unwrap_err(),
            "/archive/items/0/floors",
        ),
        (toolbox.register(KeepFlagTally).unwrap_err(), "/record"),
        (
            toolbox.register(KeepFlagTallies).unwrap_err(),
            "/archive/items/0",
        ),
        (toolbox.register(KeepYearBook).unwrap_err(), "/record"),
        (
            toolbox.register(KeepYearBooks).unwrap_err(),
            "/archive/items/0",
        ),
        (
            toolbox.register(KeepLettered).unwrap_err(),
            "/record/by_letter",
        ),
        (
            toolbox.register(KeepLetteredAll).unwrap_err(),
            "/archive/items/0/by_letter",
        ),
        (toolbox.register(KeepSheet).unwrap_err(), "/record/c"),
        (
            toolbox.register(KeepSheets).unwrap_err(),
            "/archive/items/0/c",
        ),
    ] {
        let RegisterError::MapKeyBuffered { tool, at: found } = &error else {
            panic!("{error:?}");
        };
        assert_eq!(found, at, "{tool}");
        let text = error.to_string();
        assert!(text.contains(&format!("the map at `{at}`")), "{text}");
        assert!(
            text.contains("key the map by `String` and parse the key in the body")
                && text.contains("make the enum externally tagged"),
            "{text}"
        );
    }
}

/// Keyed by strings, the same places register and take every key the
/// schema accepts; read from the text (externally tagged), a map keyed by
/// integers does too.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NamedCensus {
    ByName {
        #[garde(skip)]
        names: BTreeMap<String, u32>,
    },
}

/// Externally tagged: serde reads each variant from the text itself.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(rename_all = "snake_case")]
pub enum FloorCensus {
    ByFloor(#[garde(skip)] BTreeMap<u8, u32>),
}

/// Keep a census by name.
#[tool(effect = read)]
pub fn keep_named_census(#[garde(dive)] census: NamedCensus) -> Result<usize, ToolError> {
    let _ = census;
    Ok(0)
}

/// Keep a census by floor.
#[tool(effect = read)]
pub fn keep_floor_census(#[garde(dive)] census: FloorCensus) -> Result<usize, ToolError> {
    let _ = census;
    Ok(0)
}

#[test]
fn string_keys_in_serde_s_buffer_and_integer_keys_read_from_the_text_register() {
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(KeepNamedCensus)
        .unwrap()
        .register(KeepFloorCensus)
        .unwrap();
    agrees(
        &toolbox,
        "keep_named_census",
        r#"{"census":{"kind":"by_name","names":{"7":1,"x":2}}}"#,
        None,
    );
    agrees(
        &toolbox,
        "keep_floor_census",
        r#"{"census":{"by_floor":{"7":1,"255":2}}}"#,
        None,
    );
    agrees(
        &toolbox,
        "keep_floor_census",
        r#"{"census":{"by_floor":{"256":1}}}"#,
        Some((Code::OutOfRange, "/census/by_floor/256")),
    );
}

/// Letters by a key of at most two characters, by the schema alone.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Initials {
    #[schemars(extend("propertyNames" = {"maxLength": 2}))]
    #[garde(skip)]
    pub by_initials: BTreeMap<String, u8>,
}

/// Keep initials.
#[tool(effect = read)]
pub fn keep_initials(#[garde(dive)] initials: Initials) -> Result<usize, ToolError> {
    Ok(initials.by_initials.len())
}

/// Letters by a key matching a pattern, by the schema alone.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Capitals {
    #[schemars(extend("propertyNames" = {"pattern": "^[A-Z]$"}))]
    #[garde(skip)]
    pub by_capital: BTreeMap<String, u8>,
}

/// Keep capitals.
#[tool(effect = read)]
pub fn keep_capitals(#[garde(dive)] capitals: Capitals) -> Result<usize, ToolError> {
    Ok(capitals.by_capital.len())
}

/// The lengths of keys under `propertyNames` are a bound: a map whose key
/// type takes longer keys is refused at registration, as any bound nothing
/// enforces is; any other `propertyNames` is a keyword the gates do not read.
#[test]
fn key_lengths_nothing_enforces_and_other_property_names_are_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(KeepInitials).unwrap_err();
    assert_eq!(
        error,
        RegisterError::UnenforcedBound {
            tool: "keep_initials",
            keyword: "propertyNames",
            at: "/initials/by_initials".to_owned(),
        }
    );
    assert!(
        error
            .to_string()
            .contains("accepts a key of a length past it"),
        "{error}"
    );
    let error = toolbox.register(KeepCapitals).unwrap_err();
    assert!(
        matches!(
            &error,
            RegisterError::UnreadKeyword {
                keyword: "propertyNames",
                ..
            }
        ),
        "{error:?}"
    );
}

/// A note, whose body is any JSON value and whose copy is the text sent.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct KeptNote {
    #[garde(skip)]
    pub body: Value,
    #[garde(skip)]
    #[schemars(with = "Value")]
    pub raw: Box<serde_json::value::RawValue>,
}

/// Keep values of any shape.
#[tool(effect = read)]
pub fn keep_values(
    any: Value,
    maybe: Option<Value>,
    many: Vec<Value>,
    fields: serde_json::Map<String, Value>,
    memo: KeptNote,
    count: u8,
) -> Result<Value, ToolError> {
    Ok(json!({
        "any": any,
        "maybe": maybe,
        "many": many,
        "fields": fields,
        "memo": {"body": memo.body, "raw": memo.raw.get()},
        "count": count,
    }))
}

/// `keep_values`' free-form arguments as serde_json reads them itself.
#[derive(Deserialize)]
struct KeptAsRead {
    any: Value,
    #[serde(default)]
    maybe: Option<Value>,
    many: Vec<Value>,
    fields: serde_json::Map<String, Value>,
    memo: MemoAsRead,
}

#[derive(Deserialize)]
struct MemoAsRead {
    body: Value,
    raw: Box<serde_json::value::RawValue>,
}

/// The first place where `a` and `b` differ, numbers compared by kind
/// (`u64`, `i64`, `f64`) and by bits: `100` is not `100.0`, nor `0.0`
/// `-0.0`.
fn differs(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let same = match (x.as_u64(), x.as_i64(), y.as_u64(), y.as_i64()) {
                (Some(x), _, Some(y), _) => x == y,
                (None, Some(x), None, Some(y)) => x == y,
                (None, None, None, None) => {
                    x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
                }
                _ => false,
            };
            (!same).then(|| format!("{at}: {x} for {y}"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (x, y))| differs(x, y, &format!("{at}/{i}"))),
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
            x.iter().find_map(|(k, v)| match y.get(k) {
                Some(w) => differs(v, w, &format!("{at}/{k}")),
                None => Some(format!("{at}/{k}")),
            })
        }
        _ => (a != b).then(|| format!("{at}: {a} for {b}")),
    }
}

/// A free-form value reaches the tool exactly as serde_json reads the same
/// text: `1E2` is the float 100, not the integer; `-0` and `-0.0` keep
/// their sign; integers past 64 bits are floats; whether alone, optional,
/// in a list, a map's value, inside a struct or kept raw, and whether the
/// call goes in one pass or gate by gate (the `count` spelled `4.0` sends
/// it gate by gate, where an integer field reads it as 4).
#[test]
fn a_free_form_value_arrives_as_sent() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(KeepValues).unwrap();
    let spellings = [
        "1E2",
        "1e2",
        "1E+2",
        "-1e-2",
        "-0",
        "-0.0",
        "0.0",
        "0e5",
        "1.0",
        "2.50",
        "7",
        "-7",
        "9007199254740993",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "100000000000000000000000",
        "1e-300",
        "5e-324",
        "1e-400",
        "1.7976931348623157e308",
        "-1.7976931348623157e308",
    ];
    let mut received = 0;
    for number in spellings {
        for count in ["4", "4.0"] {
            let args = format!(
                r#"{{"any":{number},"maybe":[{number},{{"n":{number}}}],"many":[{number},{number}],"fields":{{"a":{number},"b":[{number}]}},"memo":{{"body":{{"x":{number}}},"raw":[ {number} ]}},"count":{count}}}"#
            );
            let reference: KeptAsRead = serde_json::from_str(&args).unwrap();
            let expected = json!({
                "any": reference.any,
                "maybe": reference.maybe,
                "many": reference.many,
                "fields": reference.fields,
                "memo": {"body": reference.memo.body, "raw": reference.memo.raw.get()},
                "count": 4,
            });
            let outcome = call(&toolbox, "keep_values", &args);
            let got = outcome
                .value()
                .unwrap_or_else(|| panic!("{args}: {outcome:?}"));
            if let Some(at) = differs(got, &expected, "") {
                panic!("{args}: {at}\n got      {got}\n expected {expected}");
            }
            received += 1;
        }
    }
    assert_eq!(received, spellings.len() * 2);
    // The same texts, decided alike in one pass and gate by gate.
    for number in spellings {
        let args = format!(
            r#"{{"any":{number},"many":[],"fields":{{}},"memo":{{"body":null,"raw":{number}}},"count":1}}"#
        );
        assert_eq!(
            toolgate::testing::check_arguments(&toolbox, "keep_values", args.as_bytes()).unwrap(),
            toolgate::testing::check_arguments_gate_by_gate(
                &toolbox,
                "keep_values",
                args.as_bytes()
            )
            .unwrap(),
            "{args}"
        );
    }
}

// --- 14. trusted-context names inside nested types ---

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    #[garde(length(chars, max = 40))]
    pub tenant_id: String,
}

/// Search with a filter that names a tenant.
#[tool(effect = read)]
pub fn search(filter: Filter) -> Result<String, ToolError> {
    Ok(filter.tenant_id)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Lookup {
    #[garde(length(chars, max = 40))]
    pub user_id: String,
}

/// Look up another user, as an administrator.
#[tool(effect = read, business_fields = ["user_id"])]
pub fn admin_lookup(lookup: Lookup) -> Result<String, ToolError> {
    Ok(lookup.user_id)
}

#[test]
fn trusted_names_in_nested_types_are_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(Search).unwrap_err();
    match &error {
        RegisterError::TrustedName { tool, field, at } => {
            assert_eq!(*tool, "search");
            assert_eq!(field, "tenant_id");
            assert_eq!(at, "/$defs/Filter/properties/tenant_id");
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains("business_fields"), "{error}");
    // Declared business data registers, however it is spelled on the wire.
    toolbox.register(AdminLookup).unwrap();
}

// --- 7. paths and messages name what the model sent ---

#[test]
fn a_transparent_reference_is_the_value_itself() {
    use toolgate_examples::refund::{IssueRefund, Shop};
    let mut toolbox = Toolbox::new(Shop::demo());
    toolbox.register(IssueRefund).unwrap();
    let ctx = ToolContext::new("u", "tenant_a", "r")
        .allow_all_tools()
        .with_scopes(["refunds:write"]);
    let outcome = block_on(toolbox.call(
        &ctx,
        "issue_refund",
        r#"{"order":"order 7","amount_cents":100}"#,
    ));
    let rejection = outcome.rejection().expect("refused");
    assert_eq!(rejection.code(), Code::PatternMismatch, "{rejection:?}");
    assert_eq!(rejection.path(), "/order");
    assert!(
        rejection.safe_message().starts_with("order must match"),
        "{rejection:?}"
    );
}

#[test]
fn a_field_renamed_inside_a_nested_type_is_named_as_sent() {
    let toolbox = spy_box();
    let outcome = call(&toolbox, "send_note", r#"{"to":{"mail":"ab"},"text":"hi"}"#);
    let rejection = outcome.rejection().expect("refused");
    assert_eq!(
        (rejection.code(), rejection.path()),
        (Code::InvalidLength, "/to/mail"),
        "{rejection:?}"
    );
}

#[test]
fn past_serde_json_depth_the_answer_is_too_deep() {
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox
        .register_with_limits(
            StoreTree,
            toolgate::Limits::DEFAULT.max_depth(400).max_nodes(10_000),
        )
        .unwrap();
    let mut args = String::from(r#"{"root":"#);
    for _ in 0..150 {
        args.push_str(r#"{"name":"a","children":["#);
    }
    args.push_str(r#"{"name":"a","children":[]}"#);
    for _ in 0..150 {
        args.push_str("]}");
    }
    args.push('}');
    let outcome = call(&toolbox, "store_tree", &args);
    assert_eq!(
        code(&outcome).map(|c| c.0),
        Some(Code::TooDeep),
        "{outcome:?}"
    );
}

/// A calendar day, `YYYY-MM-DD`: a type whose reading can fail inside a
/// string, as dates from the date crates do.
#[derive(Debug)]
pub struct Day(pub String);

impl<'de> Deserialize<'de> for Day {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let ok = text.len() == 10
            && text.bytes().enumerate().all(|(i, b)| match i {
                4 | 7 => b == b'-',
                _ => b.is_ascii_digit(),
            });
        if ok {
            Ok(Day(text))
        } else {
            Err(serde::de::Error::invalid_value(
                serde::de::Unexpected::Str(&text),
                &"a date",
            ))
        }
    }
}

impl JsonSchema for Day {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Day".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "format": "date"})
    }
}

/// Book a day.
#[tool(effect = write)]
pub fn book_day(#[garde(skip)] day: Day) -> Result<String, ToolError> {
    Ok(day.0)
}

#[test]
fn an_invalid_date_says_it_is_not_a_date() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(BookDay).unwrap();
    let outcome = call(&toolbox, "book_day", r#"{"day":"yesterday"}"#);
    let rejection = outcome.rejection().expect("refused");
    assert_eq!(rejection.code(), Code::InvalidFormat, "{rejection:?}");
    assert_eq!(rejection.safe_message(), "day must be a valid date");
}

#[test]
fn a_missing_tag_lists_every_choice() {
    let mut toolbox = Toolbox::new(Billing::demo());
    toolbox.register(RefundInvoice).unwrap();
    let outcome = call(
        &toolbox,
        "refund_invoice",
        r#"{"invoice_id":"inv_88","amount_cents":100,"reason":{}}"#,
    );
    let rejection = outcome.rejection().expect("refused");
    assert_eq!(
        (rejection.code(), rejection.path()),
        (Code::MissingField, "/reason/kind"),
        "{rejection:?}"
    );
    for choice in ["duplicate", "error", "goodwill"] {
        assert!(rejection.safe_message().contains(choice), "{rejection:?}");
    }
}

#[test]
fn an_unknown_key_in_an_adjacently_tagged_enum_is_an_unknown_field() {
    let toolbox = draw_box();
    let outcome = draw_call(&toolbox, json!({"adjacent": {"t": "go", "c": 3, "x": 1}}));
    assert_eq!(
        code(&outcome),
        Some((Code::UnknownField, "/adjacent/x".to_owned())),
        "{outcome:?}"
    );
}

// --- 9. a map's size is in the schema ---

/// Tag a thing, with at most three tags.
#[tool(effect = write)]
pub fn tag(
    #[garde(length(min = 1, max = 3))] tags: HashMap<String, u8>,
) -> Result<usize, ToolError> {
    Ok(tags.len())
}

#[test]
fn a_length_rule_on_a_map_is_its_size_in_the_schema() {
    let schema = Tag::definition().schema();
    assert_eq!(schema["properties"]["tags"]["minProperties"], json!(1));
    assert_eq!(schema["properties"]["tags"]["maxProperties"], json!(3));
    let mut toolbox = Toolbox::new(());
    toolbox.register(Tag).unwrap();
    let ok = call(&toolbox, "tag", r#"{"tags":{"a":1,"b":2,"c":3}}"#);
    assert!(ok.value().is_some(), "{ok:?}");
    // `-0` as a value is 0; inside a key after an escaped quote it is text.
    let ok = call(&toolbox, "tag", r#"{"tags":{"\"-0":-0}}"#);
    assert_eq!(ok.value(), Some(&json!(1)), "{ok:?}");
    for args in [r#"{"tags":{}}"#, r#"{"tags":{"a":1,"b":2,"c":3,"d":4}}"#] {
        let outcome = call(&toolbox, "tag", args);
        assert_eq!(
            code(&outcome),
            Some((Code::InvalidLength, "/tags".to_owned())),
            "{args}"
        );
    }
}

// --- 4. lengths count characters everywhere ---

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Memo {
    /// garde's `length` without `chars` counts bytes.
    #[garde(length(max = 10))]
    pub text: String,
}

/// File a memo.
#[tool(effect = write)]
pub fn file_memo(memo: Option<Vec<Memo>>) -> Result<usize, ToolError> {
    Ok(memo.map_or(0, |m| m.len()))
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct CharMemo {
    #[garde(length(chars, max = 10))]
    pub text: String,
}

/// File a memo, counted in characters.
#[tool(effect = write)]
pub fn file_char_memo(memo: Option<Vec<CharMemo>>) -> Result<usize, ToolError> {
    Ok(memo.map_or(0, |m| m.len()))
}

#[test]
fn a_nested_length_in_bytes_is_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(FileMemo).unwrap_err();
    assert_eq!(
        error,
        RegisterError::LengthInBytes {
            tool: "file_memo",
            at: "/memo/0/text".to_owned()
        }
    );
    assert!(error.to_string().contains("length(chars"), "{error}");
    toolbox.register(FileCharMemo).unwrap();
    let outcome = call(
        &toolbox,
        "file_char_memo",
        r#"{"memo":[{"text":"éééééééééé"}]}"#,
    );
    assert!(outcome.value().is_some(), "{outcome:?}");
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Side {
    #[garde(range(max = 10))]
    pub len: u32,
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Figure {
    Square(#[garde(dive)] Side),
    Label(#[garde(length(chars, max = 3))] String),
}

/// Place a figure.
#[tool(effect = write)]
pub fn place(figure: Figure, external: Option<External>) -> Result<(), ToolError> {
    let _ = (figure, external);
    Ok(())
}

#[test]
fn a_rule_inside_a_newtype_variant_points_into_the_value() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Place).unwrap();
    let outcome = call(
        &toolbox,
        "place",
        r#"{"figure":{"kind":"square","len":50}}"#,
    );
    assert_eq!(
        code(&outcome),
        Some((Code::OutOfRange, "/figure/len".to_owned())),
        "{outcome:?}"
    );
    let outcome = call(
        &toolbox,
        "place",
        r#"{"figure":{"kind":"square","len":5},"external":{"at":{"x":1,"y":500}}}"#,
    );
    assert_eq!(
        code(&outcome),
        Some((Code::OutOfRange, "/external/at/y".to_owned())),
        "{outcome:?}"
    );
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Labels {
    /// A size rule schemars does not publish for maps.
    #[garde(length(max = 3))]
    pub labels: HashMap<String, u8>,
}

/// Label a thing.
#[tool(effect = write)]
pub fn label_thing(labels: Labels) -> Result<usize, ToolError> {
    Ok(labels.labels.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct StatedLabels {
    #[garde(length(max = 3))]
    #[schemars(extend("maxProperties" = 3))]
    pub labels: HashMap<String, u8>,
}

/// Label a thing, the size stated.
#[tool(effect = write)]
pub fn label_stated(labels: StatedLabels) -> Result<usize, ToolError> {
    Ok(labels.labels.len())
}

#[test]
fn a_nested_map_size_the_schema_does_not_state_is_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(LabelThing).unwrap_err();
    assert_eq!(
        error,
        RegisterError::MapSizeNotInSchema {
            tool: "label_thing",
            at: "/labels/labels".to_owned()
        }
    );
    assert!(error.to_string().contains("maxProperties"), "{error}");
    toolbox.register(LabelStated).unwrap();
    let schema = LabelStated::definition().schema();
    assert_eq!(
        schema["$defs"]["StatedLabels"]["properties"]["labels"]["maxProperties"],
        json!(3)
    );
}

// serde aliases are spellings the schema does not publish.

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Renamed {
    #[serde(alias = "old_name")]
    #[garde(skip)]
    pub new_name: u8,
}

/// Take a struct with an alias.
#[tool(effect = read)]
pub fn aliased(inner: Renamed) -> Result<u8, ToolError> {
    Ok(inner.new_name)
}

#[test]
fn an_alias_the_schema_does_not_publish_is_refused() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Aliased).unwrap();
    let ok = call(&toolbox, "aliased", r#"{"inner":{"new_name":1}}"#);
    assert!(ok.value().is_some(), "{ok:?}");
    let outcome = call(&toolbox, "aliased", r#"{"inner":{"old_name":1}}"#);
    assert_eq!(
        code(&outcome),
        Some((Code::UnknownField, "/inner/old_name".to_owned())),
        "{outcome:?}"
    );
}

/// Tag with optional labels.
#[tool(effect = write)]
pub fn maybe_tags(
    #[garde(inner(length(min = 1, max = 3)))] tags: Option<Vec<String>>,
) -> Result<usize, ToolError> {
    Ok(tags.map_or(0, |t| t.len()))
}

#[test]
fn inner_on_an_optional_list_is_for_its_items() {
    let schema = MaybeTags::definition().schema();
    let items = &schema["properties"]["tags"]["items"];
    assert_eq!(
        (&items["minLength"], &items["maxLength"]),
        (&json!(1), &json!(3))
    );
    let mut toolbox = Toolbox::new(());
    toolbox.register(MaybeTags).unwrap();
    for (args, ok) in [
        (r#"{"tags":["a"]}"#, true),
        (r#"{"tags":[]}"#, true),
        (r#"{"tags":["a","b","c","d"]}"#, true),
        (r#"{"tags":null}"#, true),
        (r#"{"tags":["ééé"]}"#, true),
        (r#"{"tags":["abcd"]}"#, false),
        (r#"{"tags":["a",""]}"#, false),
    ] {
        let outcome = call(&toolbox, "maybe_tags", args);
        assert_eq!(outcome.value().is_some(), ok, "{args}: {outcome:?}");
    }
}

/// A nickname and a rank, optional, with rules written through `inner`.
#[tool(effect = write)]
pub fn maybe_nickname(
    #[garde(inner(length(min = 1, max = 3)))] nickname: Option<String>,
    #[garde(inner(range(min = 1, max = 9)))] rank: Option<u8>,
) -> Result<usize, ToolError> {
    Ok(nickname.map_or(0, |n| n.len()) + usize::from(rank.unwrap_or(0)))
}

#[test]
fn inner_on_an_optional_value_is_the_value_s_rules_and_the_schema_states_them() {
    let schema = MaybeNickname::definition().schema();
    let nickname = &schema["properties"]["nickname"];
    assert_eq!(
        (&nickname["minLength"], &nickname["maxLength"]),
        (&json!(1), &json!(3)),
        "{schema}"
    );
    let rank = &schema["properties"]["rank"];
    assert_eq!(
        (&rank["minimum"], &rank["maximum"]),
        (&json!(1), &json!(9)),
        "{schema}"
    );
    let mut toolbox = Toolbox::new(());
    toolbox.register(MaybeNickname).unwrap();
    for (args, ok) in [
        (r#"{}"#, true),
        (r#"{"nickname":null,"rank":null}"#, true),
        (r#"{"nickname":"ééé","rank":9}"#, true),
        (r#"{"nickname":"abcd"}"#, false),
        (r#"{"nickname":""}"#, false),
        (r#"{"rank":0}"#, false),
        (r#"{"rank":10}"#, false),
    ] {
        let outcome = call(&toolbox, "maybe_nickname", args);
        assert_eq!(outcome.value().is_some(), ok, "{args}: {outcome:?}");
    }
}

/// Codes, optional, each a pattern.
#[tool(effect = write)]
pub fn maybe_codes(
    #[garde(inner(pattern(r"^\d{2}$")))] codes: Option<Vec<String>>,
) -> Result<usize, ToolError> {
    Ok(codes.map_or(0, |c| c.len()))
}

#[test]
fn a_pattern_on_optional_items_means_one_thing() {
    let schema = MaybeCodes::definition().schema();
    assert_eq!(
        schema["properties"]["codes"]["items"]["pattern"],
        json!("^[0-9]{2}$")
    );
    let mut toolbox = Toolbox::new(());
    toolbox.register(MaybeCodes).unwrap();
    assert!(
        call(&toolbox, "maybe_codes", r#"{"codes":["12"]}"#)
            .value()
            .is_some()
    );
    assert!(
        call(&toolbox, "maybe_codes", r#"{"codes":["1٣"]}"#)
            .rejection()
            .is_some()
    );
}

/// Two rules broken at once, declared in the other order than their names.
#[tool(effect = read)]
pub fn two_rules(
    #[garde(range(max = 1))] zz: u8,
    #[garde(length(max = 1))] aa: String,
) -> Result<String, ToolError> {
    Ok(format!("{zz}{aa}"))
}

#[test]
fn the_reported_rule_is_the_one_that_failed_there() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(TwoRules).unwrap();
    let outcome = call(&toolbox, "two_rules", r#"{"zz":5,"aa":"long"}"#);
    let rejection = outcome.rejection().expect("refused");
    // Whichever field is reported, its code is its own rule's.
    match rejection.path() {
        "/zz" => assert_eq!(rejection.code(), Code::OutOfRange, "{rejection:?}"),
        "/aa" => assert_eq!(rejection.code(), Code::InvalidLength, "{rejection:?}"),
        other => panic!("{other}: {rejection:?}"),
    }
}

fn even(value: &u8, _: &()) -> garde::Result {
    if value.is_multiple_of(2) {
        Ok(())
    } else {
        Err(garde::Error::new(format!("{value} is odd")))
    }
}

/// A custom rule and a built-in one broken at once.
#[tool(effect = read)]
pub fn custom_first(
    #[garde(custom(even))] pair: u8,
    #[garde(range(max = 1))] small: u8,
) -> Result<u8, ToolError> {
    Ok(pair + small)
}

#[test]
fn a_custom_rule_never_borrows_a_built_in_rule_s_code() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(CustomFirst).unwrap();
    let outcome = call(&toolbox, "custom_first", r#"{"pair":3,"small":5}"#);
    let rejection = outcome.rejection().expect("refused");
    match rejection.path() {
        "/pair" => assert_eq!(rejection.code(), Code::InvalidValue, "{rejection:?}"),
        "/small" => assert_eq!(rejection.code(), Code::OutOfRange, "{rejection:?}"),
        other => panic!("{other}: {rejection:?}"),
    }
    assert!(!rejection.safe_message().contains('3'), "{rejection:?}");
}

/// Every rule garde has without extra features. `#[tool]` refuses on an
/// argument those the schema cannot state; a nested type, whose attributes
/// the macro does not see, can still hold them, and each reports its code.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Unstated {
    #[garde(contains("@"))]
    pub has_at: Option<String>,
    #[garde(prefix("id_"))]
    pub prefixed: Option<String>,
    #[garde(suffix(".txt"))]
    pub suffixed: Option<String>,
    #[garde(ascii)]
    pub plain: Option<String>,
    #[garde(alphanumeric)]
    pub word: Option<String>,
    #[garde(ip)]
    pub host: Option<String>,
    #[garde(skip)]
    pub password: Option<String>,
    #[garde(matches(password))]
    pub confirm: Option<String>,
}

/// Every rule garde has without extra features, each broken on its own.
#[tool(effect = read)]
pub fn plain_rules(
    rules: Option<Unstated>,
    #[garde(required)] must: Option<u8>,
) -> Result<(), ToolError> {
    let _ = (rules, must);
    Ok(())
}

#[test]
fn each_built_in_rule_has_its_code() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(PlainRules).unwrap();
    assert!(
        call(&toolbox, "plain_rules", r#"{"rules":{},"must":1}"#)
            .value()
            .is_some()
    );
    for (field, value, expected) in [
        ("has_at", "nobody", Code::PatternMismatch),
        ("prefixed", "x_1", Code::PatternMismatch),
        ("suffixed", "a.pdf", Code::PatternMismatch),
        ("plain", "café", Code::PatternMismatch),
        ("word", "a b", Code::PatternMismatch),
        ("host", "not an address", Code::InvalidFormat),
    ] {
        let args = json!({ "rules": { field: value }, "must": 1 }).to_string();
        let outcome = call(&toolbox, "plain_rules", &args);
        assert_eq!(
            code(&outcome),
            Some((expected, format!("/rules/{field}"))),
            "{args}: {outcome:?}"
        );
    }
    // A built-in rule the schema cannot state says what it wants.
    let outcome = call(
        &toolbox,
        "plain_rules",
        r#"{"rules":{"password":"a","confirm":"b"},"must":1}"#,
    );
    let rejection = outcome.rejection().expect("refused");
    assert_eq!(
        (rejection.code(), rejection.path(), rejection.safe_message()),
        (
            Code::InvalidValue,
            "/rules/confirm",
            "rules/confirm must equal password"
        ),
        "{rejection:?}"
    );
    let outcome = call(&toolbox, "plain_rules", r#"{}"#);
    assert_eq!(
        code(&outcome),
        Some((Code::MissingField, "/must".to_owned())),
        "{outcome:?}"
    );
}

#[test]
fn null_for_a_required_option_is_refused_alike_whatever_else_the_call_holds() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(PlainRules).unwrap();
    for args in [
        r#"{"must":null}"#,
        r#"{"must":null,"rules":null}"#,
        r#"{"rules":{},"must":null}"#,
        r#"{"must":null,"rules":{"plain":"a"}}"#,
    ] {
        let outcome = call(&toolbox, "plain_rules", args);
        assert_eq!(
            code(&outcome),
            Some((Code::WrongType, "/must".to_owned())),
            "{args}: {outcome:?}"
        );
    }
}

// Map keys that a nested type parses: two spellings, one entry.

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Hosts {
    #[garde(skip)]
    pub by_address: HashMap<std::net::IpAddr, u8>,
}

/// Weigh hosts by address.
#[tool(effect = write)]
pub fn weigh_hosts(hosts: Hosts) -> Result<usize, ToolError> {
    Ok(hosts.by_address.len())
}

/// A key type that reads a string its own way: lower-cased.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, JsonSchema)]
#[schemars(transparent)]
pub struct Folded(String);

impl<'de> Deserialize<'de> for Folded {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <&str>::deserialize(d)?;
        Ok(Folded(text.to_lowercase()))
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub enum Tagging {
    /// Tags by folded name, inside a variant and a list.
    ByName(#[garde(skip)] Vec<BTreeMap<Folded, u8>>),
}

/// Tag things.
#[tool(effect = write)]
pub fn tag_things(#[garde(dive)] tagging: Option<Tagging>) -> Result<usize, ToolError> {
    Ok(usize::from(tagging.is_some()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    #[serde(alias = "crimson")]
    Red,
    Blue,
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Keyed {
    #[garde(skip)]
    pub by_name: HashMap<String, u8>,
    #[garde(skip)]
    pub by_number: BTreeMap<u32, u8>,
    #[garde(skip)]
    pub by_letter: BTreeMap<char, u8>,
    #[garde(skip)]
    pub by_colour: HashMap<Colour, u8>,
    #[garde(skip)]
    pub by_boxed: BTreeMap<Box<str>, u8>,
}

/// Keys that keep their spelling.
#[tool(effect = write)]
pub fn keep_keys(keyed: Keyed) -> Result<usize, ToolError> {
    Ok(keyed.by_colour.len())
}

#[test]
fn a_nested_map_whose_keys_are_parsed_is_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(WeighHosts).unwrap_err();
    assert_eq!(
        error,
        RegisterError::ParsedMapKey {
            tool: "weigh_hosts",
            at: "/hosts/by_address".to_owned(),
            reads: "deserialize_str",
        }
    );
    assert!(
        error.to_string().contains("key the map by `String`"),
        "{error}"
    );
    let error = toolbox.register(TagThings).unwrap_err();
    assert_eq!(
        error,
        RegisterError::ParsedMapKey {
            tool: "tag_things",
            at: "/tagging/ByName/0".to_owned(),
            reads: "deserialize_str",
        }
    );
}

#[test]
fn nested_map_keys_that_keep_their_spelling_register_and_aliases_are_refused() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(KeepKeys).unwrap();
    let keyed = |colours: &str| {
        format!(
            r#"{{"keyed":{{"by_name":{{"a":1}},"by_number":{{"7":1}},"by_letter":{{"x":1}},"by_colour":{colours},"by_boxed":{{"b":1}}}}}}"#
        )
    };
    let ok = call(&toolbox, "keep_keys", &keyed(r#"{"red":1,"blue":2}"#));
    assert_eq!(ok.value(), Some(&json!(2)), "{ok:?}");
    // The alias is a spelling the schema does not list: with it, "red" and
    // "crimson" would be one entry.
    let outcome = call(&toolbox, "keep_keys", &keyed(r#"{"red":1,"crimson":2}"#));
    assert_eq!(
        code(&outcome),
        Some((Code::UnknownField, "/keyed/by_colour/crimson".to_owned())),
        "{outcome:?}"
    );
    let outcome = call(
        &toolbox,
        "keep_keys",
        &keyed(r#"{"blue":1}"#).replace(r#""7""#, r#""07""#),
    );
    assert_eq!(
        code(&outcome).map(|c| c.1),
        Some("/keyed/by_number/07".to_owned()),
        "{outcome:?}"
    );
}

/// A tally, internally tagged: serde reads each variant from its buffer.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TaggedTally {
    Small {
        #[garde(skip)]
        count: u8,
    },
    /// The 128-bit integer is in the second variant, which the simplest
    /// instance of the schema does not choose.
    Big {
        #[garde(skip)]
        count: i128,
    },
}

/// Keep a tally.
#[tool(effect = write)]
pub fn keep_tally(#[garde(dive)] tally: TaggedTally) -> Result<usize, ToolError> {
    Ok(usize::from(matches!(tally, TaggedTally::Big { .. })))
}

/// An amount, untagged: serde tries each branch on its buffer.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged)]
pub enum Amount {
    Text(#[garde(skip)] String),
    Wide(#[garde(skip)] u128),
}

/// Record an amount.
#[tool(effect = write)]
pub fn record_amount(#[garde(dive)] amount: Amount) -> Result<usize, ToolError> {
    Ok(usize::from(matches!(amount, Amount::Wide(_))))
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct Totals {
    #[garde(skip)]
    pub grand: i128,
}

/// Totals flattened into their owner: serde buffers the fields they share.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct Ledger {
    #[garde(skip)]
    pub name: String,
    #[serde(flatten)]
    #[garde(dive)]
    pub totals: Totals,
}

/// Close a ledger.
#[tool(effect = write)]
pub fn close_ledger(#[garde(dive)] ledger: Ledger) -> Result<usize, ToolError> {
    Ok(ledger.name.len())
}

/// A tally, externally tagged: each variant is read from the text itself.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum NamedTally {
    Small(#[garde(skip)] u8),
    Big(#[garde(skip)] i128),
}

/// Keep a named tally.
#[tool(effect = write)]
pub fn keep_named_tally(#[garde(dive)] tally: NamedTally) -> Result<usize, ToolError> {
    Ok(usize::from(matches!(tally, NamedTally::Big(_))))
}

fn odd(total: &i128, _: &()) -> garde::Result {
    if total % 2 == 0 {
        return Err(garde::Error::new("must be odd"));
    }
    Ok(())
}

/// Count an odd total: the simplest instance of its schema (`0`) is refused
/// by a rule of its own, not by serde.
#[tool(effect = read)]
fn count_odd(#[garde(custom(odd))] total: i128) -> Result<usize, ToolError> {
    Ok(usize::from(total > 0))
}

/// How an order is paid: internally tagged.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Payment {
    Card { last4: String },
    Cash {},
}

/// How an order is paid: untagged, told apart by its members.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Tender {
    Card { last4: String },
    Coins { count: u32 },
}

/// How an order is paid: externally tagged, each variant its own member.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Settlement {
    Card { last4: String },
    Cash(u32),
}

/// Where an order ships: a struct of its own.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Shipping {
    pub city: String,
}

/// An order, closed, with one of the above flattened into it.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Order<P> {
    #[garde(range(max = 10))]
    pub qty: u32,
    #[serde(flatten)]
    #[garde(skip)]
    pub pay: P,
}

/// How an order ships: internally tagged, by a tag of its own.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "ship", rename_all = "snake_case")]
pub enum Shipment {
    Post { city: String },
    Pickup {},
}

/// An order, closed, with two enums flattened into it (which schemars
/// writes under `allOf`).
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct ShippedOrder {
    #[garde(range(max = 10))]
    pub qty: u32,
    #[serde(flatten)]
    #[garde(skip)]
    pub pay: Payment,
    #[serde(flatten)]
    #[garde(skip)]
    pub ship: Shipment,
}

/// Place an order paid and shipped.
#[tool(effect = write)]
pub fn place_paid_and_shipped_order(#[garde(dive)] order: ShippedOrder) -> Result<u32, ToolError> {
    Ok(order.qty)
}

/// Place an order paid by card or cash.
#[tool(effect = write)]
pub fn place_order(#[garde(dive)] order: Order<Payment>) -> Result<u32, ToolError> {
    Ok(order.qty)
}

/// Place an order paid by card or coins.
#[tool(effect = write)]
pub fn place_tendered_order(#[garde(dive)] order: Order<Tender>) -> Result<u32, ToolError> {
    Ok(order.qty)
}

/// Place an order settled by card or cash.
#[tool(effect = write)]
pub fn place_settled_order(#[garde(dive)] order: Order<Settlement>) -> Result<u32, ToolError> {
    Ok(order.qty)
}

/// Place an order shipped to a city.
#[tool(effect = write)]
pub fn place_shipped_order(#[garde(dive)] order: Order<Shipping>) -> Result<u32, ToolError> {
    Ok(order.qty)
}

/// serde does not take the members an internally tagged or untagged enum
/// flattened into a `deny_unknown_fields` struct reads: the struct then
/// refuses each of them as unknown, while the schema lists them. Every call
/// would be refused, so registration refuses the tool, naming the first
/// member refused. An externally tagged enum and a struct, which serde does
/// take their members from, register and read what the schema accepts.
#[test]
fn a_member_the_schema_lists_and_the_type_refuses_is_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    // The first member refused is one an enum reads: which one depends on
    // the order the instance's members are written in.
    for (error, members) in [
        (
            toolbox.register(PlaceOrder).unwrap_err(),
            &["/order/last4", "/order/method"][..],
        ),
        (
            toolbox.register(PlaceTenderedOrder).unwrap_err(),
            &["/order/last4"][..],
        ),
        (
            toolbox.register(PlacePaidAndShippedOrder).unwrap_err(),
            &[
                "/order/city",
                "/order/last4",
                "/order/method",
                "/order/ship",
            ][..],
        ),
    ] {
        let RegisterError::MemberRefused { tool, at: found } = &error else {
            panic!("{error:?}");
        };
        assert!(members.contains(&found.as_str()), "{tool}: {found}");
        let message = error.to_string();
        assert!(message.contains("rather than flattened"), "{message}");
    }
    toolbox
        .register(PlaceSettledOrder)
        .unwrap()
        .register(PlaceShippedOrder)
        .unwrap();
    let order = "place_settled_order";
    agrees(&toolbox, order, r#"{"order":{"qty":1,"cash":5}}"#, None);
    agrees(
        &toolbox,
        order,
        r#"{"order":{"qty":1,"card":{"last4":"1234"}}}"#,
        None,
    );
    let order = "place_shipped_order";
    agrees(
        &toolbox,
        order,
        r#"{"order":{"qty":1,"city":"Lyon"}}"#,
        None,
    );
    agrees(
        &toolbox,
        order,
        r#"{"order":{"qty":1,"city":"Lyon","zip":"69001"}}"#,
        Some((Code::UnknownField, "/order/zip")),
    );
}

/// An order open to other members, with a count of them the schema states
/// beside the enum flattened into it, which only the gates enforce.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[schemars(extend("minProperties" = 3))]
pub struct CountedOrder {
    #[garde(range(max = 10))]
    pub qty: u32,
    #[serde(flatten)]
    #[garde(skip)]
    pub pay: Payment,
}

/// Place an order of at least three members.
#[tool(effect = write)]
pub fn place_counted_order(#[garde(dive)] order: CountedOrder) -> Result<u32, ToolError> {
    Ok(order.qty)
}

/// Registration tries a count of members beside an enum flattened into
/// an object only as the object's own: the members of the enum's variant,
/// which the variant requires, would pass for optional ones, and leaving
/// one out proves nothing of the count. The count is then checked on each
/// call.
#[test]
fn a_count_of_members_beside_a_flattened_enum_is_enforced() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(PlaceCountedOrder).unwrap();
    let order = "place_counted_order";
    agrees(
        &toolbox,
        order,
        r#"{"order":{"qty":1,"method":"cash"}}"#,
        Some((Code::InvalidLength, "/order")),
    );
    agrees(
        &toolbox,
        order,
        r#"{"order":{"qty":1,"method":"card","last4":"1234"}}"#,
        None,
    );
}

/// A member the tool does not have is refused with the names the object
/// may have: its own and those of each variant of an enum, flattened into
/// it or not. A name some variant lists, refused because a member sent
/// beside it rules it out (another variant's), is said to be so rather
/// than refused as if it did not exist.
#[test]
fn an_unknown_member_lists_every_variant_s_members() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(PlaceSettledOrder).unwrap();
    let mut billing = Toolbox::new(Billing::demo());
    billing.register(RefundInvoice).unwrap();
    for (rejection, at, message) in [
        (
            refused(
                &toolbox,
                "place_settled_order",
                r#"{"order":{"qty":1,"zip":1}}"#,
            ),
            "/order/zip",
            "\"zip\" is not a field here; allowed: card, cash, qty",
        ),
        (
            refused(
                &toolbox,
                "place_settled_order",
                r#"{"order":{"qty":1,"cash":1,"card":{"last4":"1234"}}}"#,
            ),
            "/order/card",
            "\"card\" is not a field here with the fields sent beside it; allowed: card, cash, qty",
        ),
        (
            refused(
                &billing,
                "refund_invoice",
                r#"{"invoice_id":"inv_88","amount_cents":100,"reason":{"kind":"error","note":"x"}}"#,
            ),
            "/reason/note",
            "\"note\" is not a field here; allowed: approver_id, kind",
        ),
        (
            refused(
                &billing,
                "refund_invoice",
                r#"{"invoice_id":"inv_88","amount_cents":100,"reason":{"kind":"error","approver_id":"usr_a"}}"#,
            ),
            "/reason/approver_id",
            "\"approver_id\" is not a field here with the fields sent beside it; allowed: approver_id, kind",
        ),
    ] {
        assert_eq!(
            (rejection.code(), rejection.path(), rejection.safe_message()),
            (Code::UnknownField, at, message),
            "{rejection:?}"
        );
    }
}

/// serde reads a 128-bit integer from text, but not from the buffer it
/// reads an internally tagged or untagged enum or a flattened struct from
/// (which holds integers of 64 bits at most): there it refuses every
/// value, `0` included, that the schema accepts. Such a tool could never
/// be called with that variant, so registration refuses it, saying where.
#[test]
fn a_128_bit_integer_serde_reads_from_its_buffer_is_refused_at_registration() {
    let mut toolbox = Toolbox::new(());
    for (error, at) in [
        (toolbox.register(KeepTally).unwrap_err(), "/tally"),
        (toolbox.register(RecordAmount).unwrap_err(), "/amount"),
        (toolbox.register(CloseLedger).unwrap_err(), "/ledger"),
    ] {
        let RegisterError::WideIntegerBuffered { tool, at: found } = &error else {
            panic!("{error:?}");
        };
        assert_eq!(found, at, "{tool}");
        assert!(error.to_string().contains("use `i64` or `u64`"), "{error}");
    }
    // Read from the text, the same integers register and take what the
    // schema accepts.
    toolbox
        .register(KeepNamedTally)
        .unwrap()
        .register(CountTicks)
        .unwrap()
        .register(CountOdd)
        .unwrap();
    agrees(
        &toolbox,
        "keep_named_tally",
        r#"{"tally":{"big":-5}}"#,
        None,
    );
    agrees(
        &toolbox,
        "keep_named_tally",
        r#"{"tally":{"small":5}}"#,
        None,
    );
    agrees(&toolbox, "count_ticks", r#"{"total":5,"laps":[0]}"#, None);
    judged(&toolbox, "count_odd", r#"{"total":5}"#, None);
}

// An enum whose variants carry docs is published as a union of constants;
// a refusal lists every one of them.

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever.
    Low,
    /// Today.
    High,
    /// Now.
    Urgent,
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Ticket {
    #[garde(skip)]
    pub priority: Priority,
}

/// File a ticket.
#[tool(effect = read)]
pub fn file_ticket(ticket: Ticket, #[garde(skip)] also: Vec<Priority>) -> Result<usize, ToolError> {
    Ok(also.len() + usize::from(matches!(ticket.priority, Priority::Urgent)))
}

#[test]
fn a_union_of_documented_constants_is_refused_with_every_choice() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(FileTicket).unwrap();
    let schema = FileTicket::definition().schema();
    assert!(schema["$defs"]["Priority"]["oneOf"].is_array(), "{schema}");
    let ok = call(
        &toolbox,
        "file_ticket",
        r#"{"ticket":{"priority":"urgent"},"also":["low"]}"#,
    );
    assert_eq!(ok.value(), Some(&json!(2)), "{ok:?}");
    for (args, path) in [
        (
            r#"{"ticket":{"priority":"soon"},"also":[]}"#,
            "/ticket/priority",
        ),
        (
            r#"{"ticket":{"priority":"low"},"also":["high","soon"]}"#,
            "/also/1",
        ),
    ] {
        let outcome = call(&toolbox, "file_ticket", args);
        let rejection = outcome.rejection().expect("refused");
        assert_eq!(
            (rejection.code(), rejection.path()),
            (Code::InvalidValue, path),
            "{args}"
        );
        assert_eq!(
            rejection.safe_message(),
            format!("{} must be one of: low, high, urgent", &path[1..]),
            "{args}"
        );
    }
}

// The shape walk reads every kind of JSON value inside nested containers.

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Flags {
    #[garde(skip)]
    pub on: bool,
    #[garde(skip)]
    pub off: bool,
    #[garde(skip)]
    pub note: Option<String>,
    #[garde(range(min = -5, max = 5))]
    pub level: i8,
}

/// Set flags.
#[tool(effect = read)]
pub fn set_flags(flags: Vec<Flags>) -> Result<usize, ToolError> {
    Ok(flags.len())
}

#[test]
fn the_shape_walk_reads_every_kind_of_value() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(SetFlags).unwrap();
    let ok = call(
        &toolbox,
        "set_flags",
        r#"{"flags":[{"off":false,"on":true,"note":null,"level":-3},{"on":false,"off":true,"note":"x","level":0}]}"#,
    );
    assert_eq!(ok.value(), Some(&json!(2)), "{ok:?}");
    for (args, path, expected) in [
        (
            r#"{"flags":[{"on":true,"off":false,"note":null,"level":1},[true,false]]}"#,
            "/flags/1",
            Code::WrongType,
        ),
        (
            r#"{"flags":[{"on":false,"off":true,"note":null,"level":6}]}"#,
            "/flags/0/level",
            Code::OutOfRange,
        ),
        (
            r#"{"flags":[{"on":true,"off":false,"note":false,"level":1}]}"#,
            "/flags/0/note",
            Code::WrongType,
        ),
    ] {
        let outcome = call(&toolbox, "set_flags", args);
        assert_eq!(
            code(&outcome),
            Some((expected, path.to_owned())),
            "{args}: {outcome:?}"
        );
    }
}

// --- a choice that is an object or array ---

/// A preset a hand-written schema lists whole: only these objects.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    width: u32,
    height: u32,
}

impl JsonSchema for Preset {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Preset".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {
                "width": {"type": "integer", "minimum": 0},
                "height": {"type": "integer", "minimum": 0}
            },
            "required": ["width", "height"],
            "additionalProperties": false,
            "enum": [{"width": 640, "height": 480}, {"width": 1920, "height": 1080}]
        })
    }
}

/// A pair a hand-written schema lists whole.
#[derive(Debug, Deserialize)]
pub struct Pair(Vec<u8>);

impl JsonSchema for Pair {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Pair".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 255},
            "const": [1, 2]
        })
    }
}

/// Resize to a preset.
#[tool(effect = write)]
pub fn resize(
    #[garde(skip)] preset: Preset,
    #[garde(skip)] pair: Option<Pair>,
) -> Result<u32, ToolError> {
    Ok(preset.width * preset.height + pair.map_or(0, |p| p.0.len() as u32))
}

#[test]
fn objects_and_arrays_are_held_to_the_choices_a_schema_lists() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Resize).unwrap();
    for (args, value) in [
        (r#"{"preset":{"width":640,"height":480}}"#, 307_200),
        (r#"{"preset":{"height":1080,"width":1920}}"#, 2_073_600),
        (
            r#"{"preset":{"width":640,"height":480},"pair":[1,2]}"#,
            307_202,
        ),
        (
            r#"{"preset":{"width":640,"height":480.0},"pair":[1,2]}"#,
            307_202,
        ),
    ] {
        let outcome = call(&toolbox, "resize", args);
        assert_eq!(outcome.value(), Some(&json!(value)), "{args}: {outcome:?}");
    }
    // An `Option`'s `null` branch refuses by type, so the optional pair
    // is refused as an `Option<Enum>` is: "one of the listed values or
    // null".
    let preset = (
        Code::InvalidValue,
        r#"preset must be one of: {"width":640,"height":480}, {"width":1920,"height":1080}"#,
    );
    let pair = (
        Code::WrongType,
        "pair must be one of the listed values or null",
    );
    for (args, (code, message)) in [
        (r#"{"preset":{"width":640,"height":1080}}"#, preset),
        (r#"{"preset":{"width":1,"height":1}}"#, preset),
        (
            r#"{"preset":[640,480]}"#,
            (Code::WrongType, "preset must be one of the listed values"),
        ),
        (
            r#"{"preset":{"width":640,"height":480},"pair":[2,1]}"#,
            pair,
        ),
        (r#"{"preset":{"width":640,"height":480},"pair":[1]}"#, pair),
    ] {
        let outcome = call(&toolbox, "resize", args);
        let rejection = outcome.rejection().expect(args);
        assert_eq!(
            (rejection.code(), rejection.safe_message()),
            (code, message),
            "{args}"
        );
    }
}

/// A day inside a renamed nested field.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct DayStay {
    #[serde(rename = "checkIn")]
    #[garde(skip)]
    pub check_in: Day,
}

/// A day in each kind of enum serde reads.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub enum DayOuter {
    On(#[garde(skip)] Day),
    Between {
        #[garde(skip)]
        from: Day,
        #[garde(skip)]
        to: Day,
    },
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum DayInner {
    #[serde(rename = "on")]
    On {
        #[garde(skip)]
        day: Day,
    },
    #[serde(rename = "span")]
    Span {
        #[garde(skip)]
        note: String,
        #[garde(skip)]
        from: Day,
        #[garde(skip)]
        to: Day,
        #[garde(skip)]
        code: Option<Slug>,
    },
}

/// A lower-case word: a type that refuses with a message of its own,
/// which names no value.
#[derive(Debug)]
pub struct Slug(pub String);

impl<'de> Deserialize<'de> for Slug {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_lowercase()) {
            Ok(Slug(text))
        } else {
            Err(serde::de::Error::custom("not a slug"))
        }
    }
}

impl JsonSchema for Slug {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Slug".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "description": "lower-case letters"})
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "t", content = "c", deny_unknown_fields)]
pub enum DayAdjacent {
    #[serde(rename = "on")]
    On(#[garde(skip)] Day),
    #[serde(rename = "span")]
    Span {
        #[garde(skip)]
        last: Day,
    },
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged)]
pub enum DayEither {
    Days(#[garde(skip)] Vec<Day>),
    One(#[garde(skip)] Day),
}

/// A day wrapped in a transparent newtype.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct DayHoliday(pub Day);

/// Book days, named in every kind of place.
#[tool(effect = write)]
#[allow(clippy::too_many_arguments)]
pub fn book_days(
    #[garde(skip)] days: Option<Vec<Day>>,
    #[garde(skip)] stay: Option<DayStay>,
    #[garde(skip)] by_room: Option<BTreeMap<String, Day>>,
    #[garde(skip)] outer: Option<DayOuter>,
    #[garde(skip)] inner: Option<DayInner>,
    #[garde(skip)] adjacent: Option<DayAdjacent>,
    #[garde(skip)] either: Option<DayEither>,
    #[garde(skip)] holiday: Option<DayHoliday>,
    #[garde(skip)] nested: Option<Vec<Vec<DayStay>>>,
    #[garde(skip)] slug: Option<Slug>,
) -> Result<(), ToolError> {
    let _ = (
        days, stay, by_room, outer, inner, adjacent, either, holiday, nested, slug,
    );
    Ok(())
}

/// A type that fails inside a valid string (a date that is not a date) is
/// reported at the place the model sent it, however deep: through arrays,
/// maps, nested and renamed fields, a transparent newtype, and externally,
/// internally and adjacently tagged enums.
#[test]
fn a_value_its_type_refuses_is_reported_where_it_was_sent() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(BookDays).unwrap();
    let good = r#"{"days":["2026-12-01"],"stay":{"checkIn":"2026-12-01"},
        "by_room":{"r1":"2026-12-01"},"outer":{"Between":{"from":"2026-12-01","to":"2026-12-02"}},
        "inner":{"kind":"on","day":"2026-12-01"},"adjacent":{"t":"span","c":{"last":"2026-12-01"}},
        "either":["2026-12-01"],"holiday":"2026-12-01","nested":[[{"checkIn":"2026-12-01"}]]}"#;
    assert!(
        call(&toolbox, "book_days", good).value().is_some(),
        "{:?}",
        call(&toolbox, "book_days", good)
    );
    for (args, path) in [
        (r#"{"days":["2026-12-01","soon"]}"#, "/days/1"),
        (r#"{"stay":{"checkIn":"soon"}}"#, "/stay/checkIn"),
        (
            r#"{"by_room":{"r1":"2026-12-01","r-2":"soon"}}"#,
            "/by_room/r-2",
        ),
        (r#"{"outer":{"On":"soon"}}"#, "/outer/On"),
        (
            r#"{"outer":{"Between":{"from":"2026-12-01","to":"soon"}}}"#,
            "/outer/Between/to",
        ),
        (r#"{"inner":{"kind":"on","day":"soon"}}"#, "/inner/day"),
        // The same text in a plain string before it: the date is refused.
        (
            r#"{"inner":{"kind":"span","note":"soon","from":"2026-12-01","to":"soon"}}"#,
            "/inner/to",
        ),
        (r#"{"adjacent":{"t":"on","c":"soon"}}"#, "/adjacent/c"),
        (
            r#"{"adjacent":{"c":{"last":"soon"},"t":"span"}}"#,
            "/adjacent/c/last",
        ),
        (r#"{"holiday":"soon"}"#, "/holiday"),
        (
            r#"{"nested":[[],[{"checkIn":"2026-12-01"},{"checkIn":"soon"}]]}"#,
            "/nested/1/1/checkIn",
        ),
    ] {
        let rejection = refused(&toolbox, "book_days", args);
        assert_eq!(
            (rejection.code(), rejection.path()),
            (Code::InvalidFormat, path),
            "{args}: {rejection:?}"
        );
        let place = path.trim_start_matches('/');
        assert_eq!(
            rejection.safe_message(),
            format!("{place} must be a valid date"),
            "{args}"
        );
    }
}

/// Where the model sent a key that is not echoed, the rejection stops
/// above it, and its message speaks of a value inside, never describing
/// the container for what was wrong within it.
#[test]
fn a_value_under_a_key_that_is_not_echoed_is_described_as_inside() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(BookDays).unwrap();
    for (args, code, message) in [
        (
            r#"{"by_room":{"r 2":"soon"}}"#,
            Code::InvalidFormat,
            "a value inside by_room must be a valid date",
        ),
        (
            r#"{"by_room":{"r 2":5}}"#,
            Code::WrongType,
            "a value inside by_room must be a string",
        ),
    ] {
        let rejection = refused(&toolbox, "book_days", args);
        assert_eq!(
            (rejection.code(), rejection.path(), rejection.safe_message()),
            (code, "/by_room", message),
            "{args}"
        );
    }
}

/// A type that refuses with a message of its own names no value: the
/// rejection is at the deepest place serde knows, and says the value there
/// is not valid, not what the schema already says it is.
#[test]
fn a_refusal_that_names_no_value_stops_where_serde_knows() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(BookDays).unwrap();
    for (args, path, message) in [
        (r#"{"slug":"Not A Slug"}"#, "/slug", "slug is not valid"),
        (
            r#"{"inner":{"kind":"span","note":"","from":"2026-12-01","to":"2026-12-01","code":"X"}}"#,
            "/inner",
            "inner is not valid",
        ),
    ] {
        let rejection = refused(&toolbox, "book_days", args);
        assert_eq!(
            (rejection.code(), rejection.path(), rejection.safe_message()),
            (Code::InvalidValue, path, message),
            "{args}"
        );
    }
}

/// A room, with a rule on its beds.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Room {
    #[garde(range(min = 1, max = 9))]
    pub beds: u8,
    /// Lower-case letters (a rule only the server states).
    #[garde(custom(lower_case))]
    #[serde(default)]
    pub tag: String,
}

fn lower_case(value: &str, _: &()) -> garde::Result {
    if value.bytes().all(|b| b.is_ascii_lowercase()) {
        Ok(())
    } else {
        Err(garde::Error::new("must be lower case"))
    }
}

/// Set up rooms by name.
#[tool(effect = write)]
pub fn set_rooms(rooms: BTreeMap<String, Room>) -> Result<(), ToolError> {
    let _ = rooms;
    Ok(())
}

/// The rules (gate 3) say the same of a value under a key that is not
/// echoed: the path stops above the key; the message names the rule.
#[test]
fn a_rule_broken_under_a_key_that_is_not_echoed_is_described_as_inside() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(SetRooms).unwrap();
    for (args, path, message) in [
        (
            r#"{"rooms":{"r2":{"beds":12}}}"#,
            "/rooms/r2/beds",
            "rooms/r2/beds must be between 1 and 9",
        ),
        (
            r#"{"rooms":{"room two":{"beds":12}}}"#,
            "/rooms",
            "a value inside rooms must be between 1 and 9",
        ),
        (
            r#"{"rooms":{"room two":{"beds":2,"tag":"X"}}}"#,
            "/rooms",
            "a value inside rooms is not valid",
        ),
    ] {
        let rejection = refused(&toolbox, "set_rooms", args);
        let code = if args.contains("tag") {
            Code::InvalidValue
        } else {
            Code::OutOfRange
        };
        assert_eq!(
            (rejection.code(), rejection.path(), rejection.safe_message()),
            (code, path, message),
            "{args}"
        );
    }
}

/// An unknown key in an adjacently tagged enum's content lists the fields
/// of the variant the tag names, though another variant's content is not
/// an object.
#[test]
fn an_unknown_key_in_adjacent_content_lists_its_variant_s_fields() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(BookDays).unwrap();
    let rejection = refused(
        &toolbox,
        "book_days",
        r#"{"adjacent":{"t":"span","c":{"last":"2026-12-01","x":1}}}"#,
    );
    assert_eq!(
        (rejection.code(), rejection.path(), rejection.safe_message()),
        (
            Code::UnknownField,
            "/adjacent/c/x",
            "\"x\" is not a field here; allowed: last"
        ),
        "{rejection:?}"
    );
}

// --- enum names the schema does not list ---

/// A color; any other name reads as `Unknown`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Hue {
    Red,
    Blue,
    #[serde(other)]
    Unknown,
}

/// A speed, also read under an alias the schema does not list.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Pace {
    #[serde(alias = "fast")]
    Quick,
    Slow,
}

/// Paint a wall.
#[tool(effect = read)]
fn paint(
    /// The main color.
    color: Hue,
    /// Accent colors.
    accents: Vec<Hue>,
    /// How many coats.
    #[garde(range(min = 1, max = 3))]
    coats: u8,
) -> Result<(), ToolError> {
    let _ = (color, accents, coats);
    Ok(())
}

/// Tint a wall: scalars alone.
#[tool(effect = read)]
fn tint(
    /// The color.
    color: Hue,
    /// How many coats.
    #[garde(range(min = 1, max = 3))]
    coats: u8,
) -> Result<(), ToolError> {
    let _ = (color, coats);
    Ok(())
}

/// Set a pace.
#[tool(effect = read)]
fn set_pace(
    /// The pace.
    pace: Pace,
    /// Paces to try after it.
    then: Vec<Pace>,
) -> Result<(), ToolError> {
    let _ = (pace, then);
    Ok(())
}

/// A shade's name: held to the colors' names by its schema, read by
/// `String`, which takes any.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
struct Shade(String);

impl JsonSchema for Shade {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Shade".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "enum": ["red", "blue", "unknown"]})
    }
}

/// Pick a shade.
#[tool(effect = read)]
fn pick_shade(
    /// The shade.
    shade: Shade,
    /// Shades to try after it.
    then: Vec<Shade>,
) -> Result<(), ToolError> {
    let _ = (shade.0, then);
    Ok(())
}

/// Names from a list are the schema's wherever the arguments' type reads
/// them, and however: a `String` a hand-written schema holds to a list,
/// and `schedule_export`'s enum columns that must not repeat, one pass and
/// gate by gate, as the schema's validator reads them.
#[test]
fn names_from_a_list_are_the_schema_s_however_the_type_reads_them() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(PickShade).unwrap();
    let mut accounts = Toolbox::new(toolgate_examples::export::Accounts::demo());
    accounts
        .register(toolgate_examples::export::ScheduleExport)
        .unwrap();
    for (args, at) in [
        (r#"{"shade":"red","then":["blue"]}"#, None),
        (r#"{"shade":"green","then":[]}"#, Some("/shade")),
        (r#"{"shade":"red","then":["blue","pink"]}"#, Some("/then/1")),
    ] {
        agrees(
            &toolbox,
            "pick_shade",
            args,
            at.map(|at| (Code::InvalidValue, at)),
        );
    }
    let export = |columns: &str| {
        format!(r#"{{"account_ref":"acct_42","format":"csv","columns":{columns}}}"#)
    };
    for (columns, refused) in [
        (r#"["id","email"]"#, None),
        (r#"["id","id"]"#, Some((Code::InvalidValue, "/columns"))),
        (
            r#"["status","id","status"]"#,
            Some((Code::InvalidValue, "/columns")),
        ),
        (r#"["id","ID"]"#, Some((Code::InvalidValue, "/columns/1"))),
    ] {
        let args = export(columns);
        let schema = accounts.definition("schedule_export").unwrap().schema();
        let oracle = jsonschema::validator_for(schema).unwrap();
        let valid = oracle.is_valid(&serde_json::from_str::<Value>(&args).unwrap());
        assert_eq!(valid, refused.is_none(), "{args}: the oracle");
        let one_pass =
            toolgate::testing::check_arguments(&accounts, "schedule_export", args.as_bytes())
                .unwrap();
        let gate_by_gate = toolgate::testing::check_arguments_gate_by_gate(
            &accounts,
            "schedule_export",
            args.as_bytes(),
        )
        .unwrap();
        assert_eq!(one_pass, gate_by_gate, "{args}");
        assert_eq!(
            one_pass.map_err(|r| (r.code(), r.path().to_owned())),
            refused.map_or(Ok(()), |(code, at)| Err((code, at.to_owned()))),
            "{args}"
        );
    }
}

/// A lane.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Lane {
    Left,
    Right,
}

/// A lane whose hand-written schema says it is an integer.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
struct LaneCode(Lane);

impl JsonSchema for LaneCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LaneCode".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer"})
    }
}

/// Merge lanes: a trusted enum, then the same enum where the schema says
/// `integer`.
#[tool(effect = read)]
fn merge_lanes(
    /// The lane.
    a_lane: Lane,
    /// Its code.
    z_code: LaneCode,
) -> Result<(), ToolError> {
    let _ = (a_lane, z_code.0);
    Ok(())
}

/// A note that is anything but `a`, the text registration's instance holds.
#[derive(Debug)]
struct NotA(String);

impl JsonSchema for NotA {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NotA".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string"})
    }
}

impl<'de> Deserialize<'de> for NotA {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text == "a" {
            return Err(serde::de::Error::custom("not `a`"));
        }
        Ok(NotA(text))
    }
}

/// Pass lanes: a note the simplest instance of its schema (`a`) fails.
#[tool(effect = read)]
fn pass_lanes(
    /// The lane.
    a_lane: Lane,
    /// A note.
    m_note: NotA,
    /// Its code.
    z_code: LaneCode,
) -> Result<(), ToolError> {
    let _ = (a_lane, m_note.0, z_code.0);
    Ok(())
}

/// A pair whose hand-written schema holds both items to `Start`'s names,
/// read as a `Start` and then any text.
#[derive(Debug, Deserialize)]
struct StopPair(Start, #[serde(default)] Option<String>);

impl JsonSchema for StopPair {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StopPair".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}})
    }
}

/// Pair up.
#[tool(effect = read)]
fn pair_up(
    /// The pair.
    pair: StopPair,
) -> Result<(), ToolError> {
    let _ = (pair.0, pair.1);
    Ok(())
}

/// The first stop of a route.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Start {
    A,
    B,
}

/// A later stop, which may also be `c`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Hop {
    A,
    B,
    C,
}

/// A route read as a `Start`, then `Hop`s, whose hand-written schema holds
/// every item to `Start`'s names.
#[derive(Debug)]
struct Route(Start, Vec<Hop>);

impl JsonSchema for Route {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Route".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}})
    }
}

impl<'de> Deserialize<'de> for Route {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Stops;
        impl<'de> serde::de::Visitor<'de> for Stops {
            type Value = Route;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a route")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Route, A::Error> {
                let first = seq
                    .next_element::<Start>()?
                    .ok_or_else(|| serde::de::Error::custom("an empty route"))?;
                let mut hops = Vec::new();
                while let Some(hop) = seq.next_element::<Hop>()? {
                    hops.push(hop);
                }
                Ok(Route(first, hops))
            }
        }
        d.deserialize_seq(Stops)
    }
}

/// Take a route, `Hop` read on its own too.
#[tool(effect = read)]
fn take_route(
    /// The route.
    route: Route,
    /// The last hop.
    last: Hop,
) -> Result<(), ToolError> {
    let _ = (route.0, route.1, last);
    Ok(())
}

/// An enum read where a hand-written schema says `integer`, or an array
/// whose later items a custom type reads as another enum than its first,
/// are held to the schema at each place: documents a review found accepted
/// by a version of the single pass that read such schemas without them.
#[test]
fn an_enum_is_held_to_the_schema_where_it_is_read() {
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(MergeLanes)
        .unwrap()
        .register(TakeRoute)
        .unwrap()
        .register(PairUp)
        .unwrap();
    agrees(&toolbox, "pair_up", r#"{"pair":["a","b"]}"#, None);
    agrees(
        &toolbox,
        "pair_up",
        r#"{"pair":["a","zzz"]}"#,
        Some((Code::InvalidValue, "/pair/1")),
    );
    agrees(
        &toolbox,
        "merge_lanes",
        r#"{"a_lane":"left","z_code":"left"}"#,
        Some((Code::WrongType, "/z_code")),
    );
    toolbox.register(PassLanes).unwrap();
    agrees(
        &toolbox,
        "pass_lanes",
        r#"{"a_lane":"left","m_note":"b","z_code":"left"}"#,
        Some((Code::WrongType, "/z_code")),
    );
    agrees(
        &toolbox,
        "take_route",
        r#"{"route":["a","b"],"last":"c"}"#,
        None,
    );
    agrees(
        &toolbox,
        "take_route",
        r#"{"route":["a","c"],"last":"a"}"#,
        Some((Code::InvalidValue, "/route/1")),
    );
    agrees(
        &toolbox,
        "take_route",
        r#"{"route":["c"],"last":"a"}"#,
        Some((Code::InvalidValue, "/route/0")),
    );
}

/// A derived enum reads a name its schema does not list when a variant is
/// `#[serde(other)]` or has an alias: the published `enum` still decides,
/// for a value alone and inside an array, whatever else the document
/// holds, one pass and gate by gate alike, as an independent validator of
/// the schema does.
#[test]
fn an_enum_value_the_schema_does_not_list_is_refused() {
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(Paint)
        .unwrap()
        .register(Tint)
        .unwrap()
        .register(SetPace)
        .unwrap();
    for (tool, args, at) in [
        (
            "paint",
            r#"{"color":"red","accents":["blue"],"coats":2}"#,
            None,
        ),
        (
            "paint",
            r#"{"color":"unknown","accents":[],"coats":2}"#,
            None,
        ),
        (
            "paint",
            r#"{"color":"green","accents":[],"coats":2}"#,
            Some("/color"),
        ),
        (
            "paint",
            r#"{"color":"red","accents":["blue","green"],"coats":2}"#,
            Some("/accents/1"),
        ),
        (
            "paint",
            r#"{"color":"red","accents":["\u0067reen"],"coats":2}"#,
            Some("/accents/0"),
        ),
        ("tint", r#"{"color":"blue","coats":1}"#, None),
        ("tint", r#"{"color":"green","coats":1}"#, Some("/color")),
        ("set_pace", r#"{"pace":"quick","then":["slow"]}"#, None),
        ("set_pace", r#"{"pace":"fast","then":[]}"#, Some("/pace")),
        (
            "set_pace",
            r#"{"pace":"slow","then":["quick","fast"]}"#,
            Some("/then/1"),
        ),
    ] {
        let schema = toolbox.definition(tool).unwrap().schema();
        let oracle = jsonschema::validator_for(schema).unwrap();
        let valid = oracle.is_valid(&serde_json::from_str::<Value>(args).unwrap());
        assert_eq!(valid, at.is_none(), "{args}: the oracle");
        let one_pass = toolgate::testing::check_arguments(&toolbox, tool, args.as_bytes()).unwrap();
        let gate_by_gate =
            toolgate::testing::check_arguments_gate_by_gate(&toolbox, tool, args.as_bytes())
                .unwrap();
        assert_eq!(one_pass, gate_by_gate, "{args}");
        match at {
            None => assert_eq!(one_pass, Ok(()), "{args}"),
            Some(at) => {
                let rejection = one_pass.expect_err(args);
                assert_eq!(
                    (rejection.code(), rejection.path()),
                    (Code::InvalidValue, at),
                    "{args}"
                );
                assert_eq!(
                    code(&call(&toolbox, tool, args)),
                    Some((Code::InvalidValue, at.to_owned())),
                    "{args}"
                );
            }
        }
    }
}

/// A point, compared as a whole by `uniqueItems`.
#[derive(Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Spot {
    x: i8,
    y: i8,
}

/// Label notes: sets of labels, spots and weights, read as sets.
#[tool(effect = read)]
fn label_notes(
    /// The labels, each once.
    labels: std::collections::HashSet<String>,
    /// Spots, each once.
    spots: std::collections::BTreeSet<Spot>,
    /// Weights, each once.
    weights: std::collections::BTreeSet<i64>,
) -> Result<usize, ToolError> {
    Ok(labels.len() + spots.len() + weights.len())
}

/// Ratios, each once, as the schema says: a `Vec`, which keeps repeats.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(extend("uniqueItems" = true))]
struct Ratios(Vec<f64>);

/// Mix paint: ratios of a mix.
#[tool(effect = read)]
fn mix(
    /// The ratios.
    #[garde(skip)]
    ratios: Ratios,
) -> Result<usize, ToolError> {
    Ok(ratios.0.len())
}

/// A reason told apart by its tag, one kind naming a set.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Grounds {
    /// Listed ids, each once.
    Listed {
        ids: std::collections::BTreeSet<String>,
    },
    /// Pinned ids, each once.
    Pinned {
        ids: std::collections::BTreeSet<String>,
    },
    /// Anything else.
    Other {},
}

/// File grounds: a set inside a tagged union, whose branch the single
/// pass may not know until it has read the set.
#[tool(effect = read)]
fn file_grounds(
    /// The grounds.
    #[garde(skip)]
    grounds: Grounds,
) -> Result<usize, ToolError> {
    Ok(match grounds {
        Grounds::Listed { ids } | Grounds::Pinned { ids } => ids.len(),
        Grounds::Other {} => 0,
    })
}

/// Tag once: a set of strings beside a scalar, which alone would make a
/// schema the single pass reads without consulting it.
#[tool(effect = read)]
fn tag_once(
    /// The tags.
    tags: std::collections::BTreeSet<String>,
    /// At most this many.
    limit: u8,
) -> Result<usize, ToolError> {
    Ok(tags.len() + usize::from(limit))
}

/// Count ticks: 128-bit integers, whose schema states the range that every
/// reading of them takes.
#[tool(effect = read)]
fn count_ticks(
    /// The total.
    total: i128,
    /// Each lap.
    laps: Vec<u128>,
) -> Result<usize, ToolError> {
    Ok(usize::from(total > 0) + laps.len())
}

/// Checks `args` against `tool` in one pass, gate by gate, through a whole
/// call and by an independent validator of the published schema: refused
/// with `refused` (its code and place) or accepted, alike by each.
fn agrees(toolbox: &Toolbox<()>, tool: &str, args: &str, refused: Option<(Code, &str)>) {
    let schema = toolbox.definition(tool).unwrap().schema();
    let oracle = jsonschema::validator_for(schema).unwrap();
    let valid = oracle.is_valid(&serde_json::from_str::<Value>(args).unwrap());
    assert_eq!(valid, refused.is_none(), "{args}: the oracle");
    judged(toolbox, tool, args, refused);
}

/// [`agrees`] without the validator, for numbers it reads as doubles.
fn judged(toolbox: &Toolbox<()>, tool: &str, args: &str, refused: Option<(Code, &str)>) {
    let one_pass = toolgate::testing::check_arguments(toolbox, tool, args.as_bytes()).unwrap();
    let gate_by_gate =
        toolgate::testing::check_arguments_gate_by_gate(toolbox, tool, args.as_bytes()).unwrap();
    assert_eq!(one_pass, gate_by_gate, "{args}");
    let called = code(&call(toolbox, tool, args));
    match refused {
        None => {
            assert_eq!(one_pass, Ok(()), "{args}");
            assert_eq!(called, None, "{args}");
        }
        Some((code, at)) => {
            let rejection = one_pass.expect_err(args);
            assert_eq!((rejection.code(), rejection.path()), (code, at), "{args}");
            assert_eq!(called, Some((code, at.to_owned())), "{args}");
        }
    }
}

/// serde reads a set from an array with repeated items, keeping one of
/// each; the schema says `uniqueItems`, so a repeat is refused, however it
/// is spelled: an escape, a number written otherwise, keys in another order.
#[test]
fn a_repeated_item_of_a_set_is_refused() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(LabelNotes).unwrap();
    // Spots are objects, which the walk compares: most cases send none,
    // so that the single pass decides them.
    let spots = "[]";
    let two_spots = r#"[{"x":1,"y":2},{"x":2,"y":1}]"#;
    let ok = |labels: &str, spots: &str, weights: &str| {
        format!(r#"{{"labels":{labels},"spots":{spots},"weights":{weights}}}"#)
    };
    let unique = Some((Code::InvalidValue, "/labels"));
    for (args, refused) in [
        (ok(r#"["a","b"]"#, spots, "[1,2]"), None),
        (ok(r#"["a","b"]"#, two_spots, "[1,2]"), None),
        (ok(r#"["a","a"]"#, two_spots, "[1,2]"), unique),
        (ok("[]", "[]", "[]"), None),
        (
            ok(r#"["a","b","c","d","e","f","g","h","i","j"]"#, spots, "[1]"),
            None,
        ),
        (ok(r#"["a","a"]"#, spots, "[1]"), unique),
        (ok(r#"["a","b","a"]"#, spots, "[1]"), unique),
        (ok(r#"["a","\u0061"]"#, spots, "[1]"), unique),
        (
            ok(
                r#"["a","b","c","d","e","f","g","h","i","j","k","c"]"#,
                spots,
                "[1]",
            ),
            unique,
        ),
        (
            ok(r#"["a"]"#, r#"[{"x":1,"y":2},{"y":2,"x":1}]"#, "[1]"),
            Some((Code::InvalidValue, "/spots")),
        ),
        (
            ok(r#"["a"]"#, spots, "[1,2,1]"),
            Some((Code::InvalidValue, "/weights")),
        ),
        (
            ok(r#"["a"]"#, spots, "[1,1.0]"),
            Some((Code::InvalidValue, "/weights")),
        ),
        (
            ok(r#"["a"]"#, spots, "[0,-0]"),
            Some((Code::InvalidValue, "/weights")),
        ),
        (
            ok(r#"["a"]"#, spots, "[10,1e1]"),
            Some((Code::InvalidValue, "/weights")),
        ),
        (ok(r#"["a"]"#, spots, "[10,11]"), None),
    ] {
        agrees(&toolbox, "label_notes", &args, refused);
    }
    toolbox.register(TagOnce).unwrap();
    for (args, refused) in [
        (r#"{"tags":["a","b"],"limit":1}"#, None),
        (
            r#"{"tags":["a","b","a"],"limit":1}"#,
            Some((Code::InvalidValue, "/tags")),
        ),
    ] {
        agrees(&toolbox, "tag_once", args, refused);
    }
    toolbox.register(Mix).unwrap();
    for (args, refused) in [
        (r#"{"ratios":[0.5,0.25,1]}"#, None),
        (
            r#"{"ratios":[0.5,5e-1]}"#,
            Some((Code::InvalidValue, "/ratios")),
        ),
        (
            r#"{"ratios":[0.5,0.50]}"#,
            Some((Code::InvalidValue, "/ratios")),
        ),
        // Past 64 bits, integers are the doubles serde reads them as.
        (
            r#"{"ratios":[100000000000000000001,100000000000000000000]}"#,
            Some((Code::InvalidValue, "/ratios")),
        ),
        (
            r#"{"ratios":[1e38,99999999999999997748809823456034029568]}"#,
            Some((Code::InvalidValue, "/ratios")),
        ),
        (
            r#"{"ratios":[18446744073709551615,18446744073709551614]}"#,
            None,
        ),
    ] {
        agrees(&toolbox, "mix", args, refused);
    }
    toolbox.register(FileGrounds).unwrap();
    for (args, refused) in [
        (r#"{"grounds":{"kind":"listed","ids":["a","b"]}}"#, None),
        (r#"{"grounds":{"ids":["a","b"],"kind":"listed"}}"#, None),
        (
            r#"{"grounds":{"kind":"listed","ids":["a","a"]}}"#,
            Some((Code::InvalidValue, "/grounds/ids")),
        ),
        (
            r#"{"grounds":{"ids":["a","a"],"kind":"listed"}}"#,
            Some((Code::InvalidValue, "/grounds/ids")),
        ),
        // The second branch's set, read against both branches at once.
        (
            r#"{"grounds":{"ids":["a","a"],"kind":"pinned"}}"#,
            Some((Code::InvalidValue, "/grounds/ids")),
        ),
        (r#"{"grounds":{"ids":["a","b"],"kind":"pinned"}}"#, None),
    ] {
        agrees(&toolbox, "file_grounds", args, refused);
    }
    let rejection = refused(&toolbox, "tag_once", r#"{"tags":["a","a"],"limit":1}"#);
    assert_eq!(rejection.safe_message(), "tags must not list an item twice");
}

/// serde_json reads a 128-bit integer from any integer that fits it; the
/// schema states the range that fits 64 bits, and the server takes that
/// range, alone and in arrays.
#[test]
fn a_128_bit_integer_past_its_published_range_is_refused() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(CountTicks).unwrap();
    for (args, refused) in [
        (r#"{"total":5,"laps":[1,2]}"#, None),
        (
            r#"{"total":-9223372036854775808,"laps":[18446744073709551615]}"#,
            None,
        ),
        (
            r#"{"total":100000000000000000000000,"laps":[]}"#,
            Some((Code::OutOfRange, "/total")),
        ),
        (
            r#"{"total":-10000000000000000000000,"laps":[]}"#,
            Some((Code::OutOfRange, "/total")),
        ),
        (
            r#"{"total":1,"laps":[1,20000000000000000000]}"#,
            Some((Code::OutOfRange, "/laps/1")),
        ),
    ] {
        agrees(&toolbox, "count_ticks", args, refused);
    }
    // Next to the bounds, which the validator reads as the doubles they
    // round to (the bounds themselves), the comparison is exact.
    for (args, at) in [
        (r#"{"total":-9223372036854775809,"laps":[]}"#, "/total"),
        (r#"{"total":1,"laps":[18446744073709551616]}"#, "/laps/0"),
    ] {
        judged(&toolbox, "count_ticks", args, Some((Code::OutOfRange, at)));
    }
}
