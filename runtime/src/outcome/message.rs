//! Safe messages, written from the published schema.
//!
//! A rejection message says what is allowed, in the words of the contract the
//! model was given: the field's wire name, its JSON type, its bounds, its
//! enum values. It is never built from the rejected input or from Rust error
//! text, so it cannot echo an attacker's payload or a type name.

use core::fmt::Write as _;

use serde_json::Value;

use crate::Code;
use crate::json::pointer;
use crate::schema::{node_at, nodes_at, resolve};

/// How the value at an exact pointer (see [`pointer::exact`]) is named in a
/// message: `nights`, `columns/1`, or `the arguments`; where the pointer
/// passes a key that is not shown, `a value inside by_room`, so that the
/// words never describe the container for what is inside it.
pub(crate) fn label(exact: &str) -> String {
    let shown = pointer::shown(exact);
    let name = match shown.strip_prefix('/') {
        None | Some("") => "the arguments".to_owned(),
        Some(rest) => rest.to_owned(),
    };
    if shown.len() == exact.len() {
        name
    } else {
        format!("a value inside {name}")
    }
}

/// The message for a value at `path` (exact) that broke a rule of kind
/// `code`.
pub(crate) fn for_value(code: Code, path: &str, schema: &Value) -> String {
    let found = crate::schema::node_beside_ref_at(schema, path);
    let node = found.map(|(n, _)| non_null(schema, n));
    let merged = found
        .and_then(|(_, beside)| beside)
        .zip(node)
        .and_then(|(beside, n)| with_beside(beside, n));
    let node = merged.as_ref().or(node);
    let who = label(path);
    let rule = node.and_then(|n| match code {
        Code::OutOfRange => range(n),
        Code::InvalidLength => length(n).or_else(|| entries(n)),
        Code::PatternMismatch => n
            .get("pattern")
            .and_then(Value::as_str)
            .map(|p| format!("must match the pattern {p}")),
        Code::InvalidFormat => n
            .get("format")
            .and_then(Value::as_str)
            .map(|f| format!("must be a valid {f}")),
        Code::WrongType => Some(format!("must be {}", kind(schema, node_at(schema, path)?))),
        Code::InvalidValue => all_choices(schema, path)
            .or_else(|| choices(n))
            .map(|values| one_of(&values))
            .or_else(|| {
                let named = n.as_object().and_then(crate::schema::excluded);
                named.map(|value| format!("must not be {value}"))
            })
            .or_else(|| {
                (n.get("uniqueItems") == Some(&Value::Bool(true)))
                    .then(|| "must not list an item twice".to_owned())
            })
            .or_else(|| Some(format!("must be {}", describe(schema, n)))),
        _ => None,
    });
    match rule {
        Some(rule) => format!("{who} {rule}"),
        None => match code {
            Code::OutOfRange => format!("{who} is out of the allowed range"),
            Code::InvalidLength => format!("{who} has a length that is not allowed"),
            Code::PatternMismatch => format!("{who} does not have the required form"),
            Code::InvalidFormat => format!("{who} is not in the required format"),
            Code::WrongType => format!("{who} has the wrong type"),
            _ => format!("{who} has a value that is not allowed"),
        },
    }
}

/// Whether the value at `path` (exact) must be in a format the schema
/// names: a date, an address.
pub(crate) fn names_format(path: &str, schema: &Value) -> bool {
    node_at(schema, path)
        .map(|n| non_null(schema, n))
        .is_some_and(|n| n.get("format").is_some())
}

/// The message for a required field that is absent, at `path` (exact).
pub(crate) fn missing(path: &str, schema: &Value) -> String {
    let who = label(path);
    // A tag: each variant allows one value; the model may send any of them.
    if let Some(values) = all_choices(schema, path) {
        return format!("{who} is required: one of: {}", values.join(", "));
    }
    match node_at(schema, path) {
        Some(node) => format!(
            "{who} is required: {}",
            describe(schema, non_null(schema, node))
        ),
        None => format!("{who} is required"),
    }
}

/// The message for a field the tool does not have, in the object at
/// `parent` (exact). The field's name is shown only if it is short and
/// plain; the allowed names come from the schema: the object's own and
/// those of the branches of its unions (an enum's variants, or one
/// flattened into a struct). A name the schema lists there that the tool
/// refused is one that some other member sent rules out (another variant's
/// member), and the message says so rather than list it as allowed
/// without a word.
pub(crate) fn unknown(parent: &str, field: Option<&str>, schema: &Value) -> String {
    let names = allowed_names(parent, schema);
    let listed = field.is_some_and(|f| names.contains(&f));
    let shown = pointer::shown(parent);
    let mut out = match (field, shown.len() == parent.len()) {
        (Some(f), true) if pointer::is_echoable(f) && listed => {
            format!("\"{f}\" is not a field here with the fields sent beside it")
        }
        (Some(f), true) if pointer::is_echoable(f) => format!("\"{f}\" is not a field here"),
        (_, true) if listed => {
            "a field was sent here that the fields sent beside it rule out".to_owned()
        }
        (_, true) => "a field that does not exist here was sent".to_owned(),
        (Some(f), false) if pointer::is_echoable(f) && listed => format!(
            "\"{f}\" is not a field of {} with the fields sent beside it",
            label(parent)
        ),
        (Some(f), false) if pointer::is_echoable(f) => {
            format!("\"{f}\" is not a field of {}", label(parent))
        }
        (_, false) if listed => format!(
            "{} has a field that the fields sent beside it rule out",
            label(parent)
        ),
        (_, false) => format!("{} has a field that does not exist", label(parent)),
    };
    if !names.is_empty() {
        out.push_str("; allowed: ");
        out.push_str(&names.join(", "));
    } else if let Some(rule) = node_at(schema, parent)
        .map(|node| non_null(schema, node))
        .and_then(crate::schema::map_keys::rule_in_words)
    {
        // A map whose keywords state its keys: what they must be.
        out.push_str("; ");
        out.push_str(&rule);
    }
    out
}

/// The message for `key`, an integer past the range of the integer keys
/// of the map at `parent` (exact), where the schema states that range
/// (see [`crate::schema::map_keys::KeyRange`]): `by_room: keys must be whole numbers
/// from 0 to 65535, written in digits`. `None` for a key not written as
/// an integer, or a map of other keys.
pub(crate) fn key_out_of_range(parent: &str, key: &str, schema: &Value) -> Option<String> {
    let digits = key.strip_prefix('-').unwrap_or(key);
    let integer = matches!(digits.as_bytes(), [b'0'] | [b'1'..=b'9', ..])
        && digits.bytes().all(|b| b.is_ascii_digit());
    if !integer {
        return None;
    }
    let node = non_null(schema, node_at(schema, parent)?);
    let range = node
        .get("patternProperties")?
        .as_object()?
        .keys()
        .find_map(|pattern| crate::schema::map_keys::KeyRange::of_pattern(pattern))?;
    Some(format!("{}: {}", label(parent), range.words()))
}

/// The names of the members the object at `parent` may have, sorted: those
/// its subschema lists, with those of the branches of its unions. Where
/// the first subschema found lists none (an adjacently tagged enum's
/// content, under another variant), those of the one that does.
fn allowed_names<'s>(parent: &str, schema: &'s Value) -> Vec<&'s str> {
    let names_of = |node| member_names(schema, non_null(schema, node));
    let mut names = node_at(schema, parent).map(names_of).unwrap_or_default();
    if names.is_empty() {
        let mut objects = (nodes_at(schema, parent).into_iter())
            .map(names_of)
            .filter(|n| !n.is_empty());
        if let (Some(only), None) = (objects.next(), objects.next()) {
            names = only;
        }
    }
    // Sorted: a `serde_json` built with `preserve_order` (which other
    // crates of a program may ask for) keeps the schema's order.
    names.sort_unstable();
    names.dedup();
    names
}

/// The names `node` lists in `properties`, and those the branches of its
/// unions (`allOf`, `anyOf`, `oneOf`) list, a few levels down. Each
/// subschema is read once, and at most [`MEMBER_SUBSCHEMAS`] of them from
/// one `node`: however its unions nest, what a refusal reads is bounded by
/// the schema, never by the call.
fn member_names<'s>(root: &'s Value, node: &'s Value) -> Vec<&'s str> {
    /// Adds the names of `node` and, `depth` levels further down, of the
    /// branches of its unions, to `names`; `seen`: the subschemas read.
    fn add<'s>(
        root: &'s Value,
        node: &'s Value,
        depth: u8,
        seen: &mut Vec<*const Value>,
        names: &mut Vec<&'s str>,
    ) {
        if seen.len() >= MEMBER_SUBSCHEMAS || seen.contains(&core::ptr::from_ref(node)) {
            return;
        }
        seen.push(node);
        if let Some(properties) = node.get("properties").and_then(Value::as_object) {
            names.extend(properties.keys().map(String::as_str));
        }
        let Some(depth) = depth.checked_sub(1) else {
            return;
        };
        let branches = ["allOf", "anyOf", "oneOf"]
            .into_iter()
            .filter_map(|key| node.get(key).and_then(Value::as_array))
            .flatten();
        for branch in branches.filter_map(|b| resolve(root, b)) {
            add(root, branch, depth, seen, names);
        }
    }
    let mut names = Vec::new();
    add(root, node, 4, &mut Vec::new(), &mut names);
    names
}

/// The most subschemas [`member_names`] reads from one place.
const MEMBER_SUBSCHEMAS: usize = 64;

/// The rules a set of validation keywords states, in words: what a
/// provider's description says for keywords its dialect cannot carry.
pub(crate) fn rules_of(keywords: &serde_json::Map<String, Value>) -> Vec<String> {
    let node = Value::Object(keywords.clone());
    let mut rules: Vec<String> = [range(&node), length(&node)]
        .into_iter()
        .flatten()
        .collect();
    if let Some(p) = node.get("pattern").and_then(Value::as_str) {
        rules.push(format!("must match the pattern {p}"));
    }
    if let Some(f) = node.get("format").and_then(Value::as_str) {
        rules.push(format!("must be a valid {f}"));
    }
    if let Some(m) = node.get("multipleOf") {
        rules.push(format!("must be a multiple of {m}"));
    }
    rules.extend(entries(&node));
    rules
}

/// A short description of what a subschema accepts: its type and rules.
fn describe(root: &Value, node: &Value) -> String {
    if let Some(values) = choices(node) {
        return format!("one of: {}", values.join(", "));
    }
    let mut out = kind(root, node);
    for rule in [range(node), length(node)].into_iter().flatten() {
        let _ = write!(out, " that {rule}");
    }
    if let Some(p) = node.get("pattern").and_then(Value::as_str) {
        let _ = write!(out, " matching {p}");
    }
    if let Some(m) = node.get("multipleOf") {
        let _ = write!(out, " that is a multiple of {m}");
    }
    out
}

/// `an integer`, `a string or null`, …
fn kind(root: &Value, node: &Value) -> String {
    let node = resolve(root, node).unwrap_or(node);
    let inner = non_null(root, node);
    if !core::ptr::eq(inner, node) {
        return format!("{} or null", kind(root, inner));
    }
    if choices(node).is_some() {
        return "one of the listed values".to_owned();
    }
    match node.get("type") {
        Some(Value::String(t)) => article(t),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .map(article)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if branches(node).is_some() => "one of the allowed shapes".to_owned(),
        _ => "a valid value".to_owned(),
    }
}

fn article(json_type: &str) -> String {
    match json_type {
        "integer" => "an integer",
        "object" => "an object",
        "array" => "an array",
        "null" => "null",
        "string" => "a string",
        "number" => "a number",
        "boolean" => "a boolean",
        _ => "a valid value",
    }
    .to_owned()
}

fn branches(node: &Value) -> Option<&Vec<Value>> {
    node.get("anyOf")
        .or_else(|| node.get("oneOf"))
        .and_then(Value::as_array)
}

fn is_null_schema(node: &Value) -> bool {
    node.get("type").and_then(Value::as_str) == Some("null")
}

/// For `Option<T>` (`anyOf: [T, null]`) the rules live on `T`; any other
/// node is its own.
fn non_null<'s>(root: &'s Value, node: &'s Value) -> &'s Value {
    let Some(b) = branches(node) else { return node };
    let mut non_null = b.iter().filter(|x| !is_null_schema(x));
    match (non_null.next(), non_null.next()) {
        (Some(only), None) if b.len() == 2 => resolve(root, only).unwrap_or(only),
        _ => node,
    }
}

/// The values an enum, a constant, or a union of constants allows.
fn choices(node: &Value) -> Option<Vec<String>> {
    match (node.get("enum"), node.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.iter().map(plain).collect()),
        (_, Some(value)) => Some(vec![plain(value)]),
        _ => {
            // An enum of unit variants with docs: `oneOf` of `const`s.
            branches(node)?
                .iter()
                .map(|x| x.get("const").or_else(|| x.get("enum")?.get(0)).map(plain))
                .collect()
        }
    }
}

fn one_of(values: &[String]) -> String {
    format!("must be one of: {}", values.join(", "))
}

/// The allowed values across every branch that has this field: the tag of
/// a tagged union takes one value per branch.
fn all_choices(schema: &Value, path: &str) -> Option<Vec<String>> {
    let nodes = crate::schema::nodes_at(schema, path);
    if nodes.len() < 2 {
        return None;
    }
    let mut values: Vec<String> = Vec::new();
    for node in nodes {
        for value in choices(node)? {
            if !values.contains(&value) {
                values.push(value);
            }
        }
    }
    Some(values)
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn range(node: &Value) -> Option<String> {
    let min = node.get("minimum");
    let max = node.get("maximum");
    let xmin = node.get("exclusiveMinimum");
    let xmax = node.get("exclusiveMaximum");
    Some(match (min, max, xmin, xmax) {
        (Some(lo), Some(hi), _, _) => format!("must be between {lo} and {hi}"),
        (Some(lo), None, _, Some(hi)) => format!("must be at least {lo} and less than {hi}"),
        (None, Some(hi), Some(lo), _) => format!("must be greater than {lo} and at most {hi}"),
        (Some(lo), None, _, None) => format!("must be at least {lo}"),
        (None, Some(hi), None, _) => format!("must be at most {hi}"),
        (None, None, Some(lo), Some(hi)) => format!("must be greater than {lo} and less than {hi}"),
        (None, None, Some(lo), None) => format!("must be greater than {lo}"),
        (None, None, None, Some(hi)) => format!("must be less than {hi}"),
        (None, None, None, None) => return None,
    })
}

/// The subschema `node` with the keywords written `beside` the `$ref`
/// that names it: both hold, so of two bounds on one side the tighter is
/// kept, and a keyword only one states is kept.
fn with_beside(beside: &serde_json::Map<String, Value>, node: &Value) -> Option<Value> {
    let mut merged = node.as_object()?.clone();
    for (key, value) in beside {
        if key == "$ref" || crate::schema::is_annotation(key) {
            continue;
        }
        let lower = key.starts_with("min") || key == "exclusiveMinimum";
        let upper = key.starts_with("max") || key == "exclusiveMaximum";
        let tighter = match (merged.get(key).and_then(Value::as_f64), value.as_f64()) {
            (Some(old), Some(new)) if lower => new > old,
            (Some(old), Some(new)) if upper => new < old,
            (Some(_), _) => false,
            (None, _) => true,
        };
        if tighter {
            merged.insert(key.clone(), value.clone());
        }
    }
    // Of an inclusive and an exclusive bound on one side, the tighter.
    for (inclusive, exclusive, upper) in [
        ("maximum", "exclusiveMaximum", true),
        ("minimum", "exclusiveMinimum", false),
    ] {
        let both = merged.get(inclusive).and_then(Value::as_f64);
        if let (Some(incl), Some(excl)) = (both, merged.get(exclusive).and_then(Value::as_f64)) {
            let exclusive_tighter = if upper { excl <= incl } else { excl >= incl };
            merged.remove(if exclusive_tighter {
                inclusive
            } else {
                exclusive
            });
        }
    }
    Some(Value::Object(merged))
}

/// How many members an object must have, in words: `minProperties` and
/// `maxProperties`.
fn entries(node: &Value) -> Option<String> {
    let unit = |n: &Value| {
        if n.as_u64() == Some(1) {
            "entry"
        } else {
            "entries"
        }
    };
    Some(
        match (node.get("minProperties"), node.get("maxProperties")) {
            (Some(lo), Some(hi)) if lo == hi => format!("must have exactly {lo} {}", unit(lo)),
            (Some(lo), Some(hi)) => format!("must have {lo} to {hi} entries"),
            (Some(lo), None) => format!("must have at least {lo} {}", unit(lo)),
            (None, Some(hi)) => format!("must have at most {hi} {}", unit(hi)),
            (None, None) => return None,
        },
    )
}

fn length(node: &Value) -> Option<String> {
    let (min, max, unit) = if node.get("minItems").is_some() || node.get("maxItems").is_some() {
        (node.get("minItems"), node.get("maxItems"), "items")
    } else {
        (node.get("minLength"), node.get("maxLength"), "characters")
    };
    let unique = if node.get("uniqueItems") == Some(&Value::Bool(true)) {
        ", each different"
    } else {
        ""
    };
    Some(match (min, max) {
        (Some(lo), Some(hi)) if lo == hi => format!("must have exactly {lo} {unit}{unique}"),
        (Some(lo), Some(hi)) => format!("must have {lo} to {hi} {unit}{unique}"),
        (Some(lo), None) => format!("must have at least {lo} {unit}{unique}"),
        (None, Some(hi)) => format!("must have at most {hi} {unit}{unique}"),
        (None, None) if !unique.is_empty() => "must have items that are all different".to_owned(),
        (None, None) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The names of an object's unions are gathered from each subschema
    /// once, and from at most `MEMBER_SUBSCHEMAS`: a union that refers to
    /// itself ends, and one of very many branches costs no more than that.
    #[test]
    fn an_unknown_field_s_names_are_gathered_from_each_subschema_once() {
        let looped = json!({
            "$defs": {"U": {"properties": {"a": {}}, "oneOf": [
                {"$ref": "#/$defs/U"},
                {"properties": {"b": {}}, "anyOf": [{"$ref": "#/$defs/U"}]},
            ]}},
            "properties": {"u": {"$ref": "#/$defs/U"}},
        });
        assert_eq!(
            unknown("/u", Some("z"), &looped),
            "\"z\" is not a field here; allowed: a, b"
        );
        let branches: Vec<Value> = (0..200)
            .map(|i| json!({"properties": {format!("p{i}"): {}}}))
            .collect();
        let wide = json!({"properties": {"w": {"oneOf": branches}}});
        let message = unknown("/w", Some("z"), &wide);
        let listed = message.split("allowed: ").nth(1).unwrap_or_default();
        assert_eq!(
            listed.split(", ").count(),
            MEMBER_SUBSCHEMAS - 1,
            "{message}"
        );
        // The same subschema named by many branches is read once: a name
        // listed after them is still reached.
        let mut repeated = vec![json!({"$ref": "#/$defs/A"}); 200];
        repeated.push(json!({"properties": {"last": {}}}));
        let shared = json!({
            "$defs": {"A": {"properties": {"a": {}}}},
            "properties": {"s": {"anyOf": repeated}},
        });
        assert_eq!(
            unknown("/s", Some("z"), &shared),
            "\"z\" is not a field here; allowed: a, last"
        );
    }

    /// A name the schema lists there, refused, is said to be ruled out by
    /// the members sent beside it, whether or not the name may be shown.
    #[test]
    fn a_listed_field_refused_is_ruled_out_by_the_others() {
        let variants = json!({"oneOf": [
            {"properties": {"a b": {}, "k": {"const": 1}}},
            {"properties": {"c": {}, "k": {"const": 2}}},
        ]});
        let schema = json!({"properties": {
            "v": variants.clone(),
            "m": {"additionalProperties": variants},
        }});
        let allowed = "; allowed: a b, c, k";
        for (parent, field, said) in [
            (
                "/v",
                "c",
                "\"c\" is not a field here with the fields sent beside it",
            ),
            (
                "/v",
                "a b",
                "a field was sent here that the fields sent beside it rule out",
            ),
            (
                "/m/x y",
                "c",
                "\"c\" is not a field of a value inside m with the fields sent beside it",
            ),
            (
                "/m/x y",
                "a b",
                "a value inside m has a field that the fields sent beside it rule out",
            ),
        ] {
            assert_eq!(
                unknown(parent, Some(field), &schema),
                format!("{said}{allowed}")
            );
        }
    }

    #[test]
    fn an_unknown_field_lists_the_one_object_that_may_hold_it() {
        let string = json!({"properties": {"c": {"type": "string"}}});
        let with_x = json!({"properties": {"c": {"properties": {"x": {}}}}});
        let with_y = json!({"properties": {"c": {"properties": {"y": {}}}}});
        let one = json!({"properties": {"a": {"oneOf": [string, with_x]}}});
        assert_eq!(
            unknown("/a/c", Some("z"), &one),
            "\"z\" is not a field here; allowed: x"
        );
        // Two objects might: neither list is given.
        let two = json!({"properties": {"a": {"oneOf": [string, with_x, with_y]}}});
        assert_eq!(
            unknown("/a/c", Some("z"), &two),
            "\"z\" is not a field here"
        );
        // Under a key that is not shown, the field is said to be inside.
        let map = json!({"properties": {"m": {"additionalProperties": {"properties": {"x": {}}}}}});
        assert_eq!(
            unknown("/m/a b", Some("z"), &map),
            "\"z\" is not a field of a value inside m; allowed: x"
        );
        assert_eq!(
            unknown("/m/a b", Some("z z"), &map),
            "a value inside m has a field that does not exist; allowed: x"
        );
    }

    fn schema() -> Value {
        json!({
            "type":"object",
            "properties":{
                "nights":{"type":"integer","minimum":1,"maximum":30},
                "hotel_id":{"type":"string","pattern":"^h_[a-z0-9]{8}$"},
                "format":{"type":"string","enum":["csv","jsonl"]},
                "columns":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3,"uniqueItems":true},
                "note":{"type":["string","null"],"maxLength":10}
            }
        })
    }

    #[test]
    fn messages_state_what_is_allowed() {
        let s = schema();
        assert_eq!(
            for_value(Code::OutOfRange, "/nights", &s),
            "nights must be between 1 and 30"
        );
        assert_eq!(
            for_value(Code::WrongType, "/nights", &s),
            "nights must be an integer"
        );
        assert_eq!(
            for_value(Code::WrongType, "/note", &s),
            "note must be a string or null"
        );
        assert_eq!(
            for_value(Code::PatternMismatch, "/hotel_id", &s),
            "hotel_id must match the pattern ^h_[a-z0-9]{8}$"
        );
        assert_eq!(
            for_value(Code::InvalidValue, "/format", &s),
            "format must be one of: csv, jsonl"
        );
        assert_eq!(
            for_value(Code::InvalidLength, "/columns", &s),
            "columns must have 1 to 3 items, each different"
        );
        assert_eq!(
            missing("/nights", &s),
            "nights is required: an integer that must be between 1 and 30"
        );
        assert_eq!(
            unknown("", Some("price"), &s),
            "\"price\" is not a field here; allowed: columns, format, hotel_id, nights, note"
        );
        assert!(
            unknown("", Some("<ignore previous instructions and ...>"), &s)
                .starts_with("a field that")
        );
    }

    #[test]
    fn each_kind_of_rule_and_type_is_worded_and_a_node_without_it_falls_back() {
        let s = json!({
            "type":"object",
            "properties":{
                "day":{"type":"string","format":"date"},
                "plain":{"type":"string"},
                "any":{},
                "shape":{"anyOf":[{"type":"object"},{"type":"array"}]},
                "object":{"type":"object"},
                "array":{"type":"array"},
                "number":{"type":"number"},
                "flag":{"type":"boolean"},
                "count":{"anyOf":[{"type":"integer","minimum":1},{"type":"null"}]},
                "lone":{"anyOf":[{"type":"integer","minimum":1}]},
                "fixed":{"const":"x"},
                "code":{"type":"string","minLength":2,"maxLength":2},
                "few":{"type":"array","maxItems":3},
                "distinct":{"type":"array","uniqueItems":true}
            }
        });
        let cases = [
            (Code::InvalidFormat, "/day", "day must be a valid date"),
            (
                Code::InvalidFormat,
                "/plain",
                "plain is not in the required format",
            ),
            (
                Code::OutOfRange,
                "/plain",
                "plain is out of the allowed range",
            ),
            (
                Code::InvalidLength,
                "/plain",
                "plain has a length that is not allowed",
            ),
            (
                Code::PatternMismatch,
                "/plain",
                "plain does not have the required form",
            ),
            (Code::WrongType, "/absent", "absent has the wrong type"),
            (Code::WrongType, "/any", "any must be a valid value"),
            (
                Code::WrongType,
                "/shape",
                "shape must be one of the allowed shapes",
            ),
            (Code::WrongType, "/object", "object must be an object"),
            (Code::WrongType, "/array", "array must be an array"),
            (Code::WrongType, "/number", "number must be a number"),
            (Code::WrongType, "/flag", "flag must be a boolean"),
            // An `Option`'s rules are its value's; a union of one branch
            // is not an `Option`.
            (
                Code::WrongType,
                "/count",
                "count must be an integer or null",
            ),
            (Code::OutOfRange, "/count", "count must be at least 1"),
            (
                Code::OutOfRange,
                "/lone",
                "lone is out of the allowed range",
            ),
            (Code::InvalidValue, "/fixed", "fixed must be one of: x"),
            (
                Code::InvalidLength,
                "/code",
                "code must have exactly 2 characters",
            ),
            (Code::InvalidLength, "/few", "few must have at most 3 items"),
            (
                Code::InvalidLength,
                "/distinct",
                "distinct must have items that are all different",
            ),
        ];
        for (code, path, message) in cases {
            assert_eq!(for_value(code, path, &s), message, "{code:?} at {path}");
        }
    }

    #[test]
    fn a_tag_lists_the_values_of_every_branch_once() {
        let branch = |tag: &str| json!({"type":"object","properties":{"kind":{"type":"string","const":tag}}});
        let two = json!({"oneOf":[branch("a"), branch("b")]});
        assert_eq!(
            for_value(Code::InvalidValue, "/kind", &two),
            "kind must be one of: a, b"
        );
        let more = json!({"oneOf":[branch("a"), branch("b"), branch("b"), branch("c")]});
        assert_eq!(
            for_value(Code::InvalidValue, "/kind", &more),
            "kind must be one of: a, b, c"
        );
        assert_eq!(missing("/kind", &more), "kind is required: one of: a, b, c");
    }

    #[test]
    fn a_bound_beside_a_ref_is_worded_with_the_targets() {
        let schema = json!({
            "properties": {
                "r": {"$ref": "#/$defs/R", "exclusiveMaximum": 5},
                "s": {"$ref": "#/$defs/R", "minimum": 2, "maximum": 900},
                "t": {"$ref": "#/$defs/R"}
            },
            "$defs": {"R": {"type": "integer", "minimum": 0, "maximum": 255}}
        });
        for (path, said) in [
            ("/r", "must be at least 0 and less than 5"),
            ("/s", "must be between 2 and 255"),
            ("/t", "must be between 0 and 255"),
        ] {
            let message = for_value(Code::OutOfRange, path, &schema);
            assert!(message.ends_with(said), "{path}: {message}");
        }
    }

    #[test]
    fn rules_a_dialect_cannot_carry_are_each_worded() {
        let keywords = json!({
            "minimum":1, "maximum":9, "minLength":2, "pattern":"^a",
            "format":"date", "multipleOf":3, "minProperties":1, "maxProperties":4
        });
        let Value::Object(keywords) = keywords else {
            unreachable!()
        };
        assert_eq!(
            rules_of(&keywords),
            [
                "must be between 1 and 9",
                "must have at least 2 characters",
                "must match the pattern ^a",
                "must be a valid date",
                "must be a multiple of 3",
                "must have 1 to 4 entries",
            ]
        );
        let at_most = json!({"maxProperties":4});
        let Value::Object(at_most) = at_most else {
            unreachable!()
        };
        assert_eq!(rules_of(&at_most), ["must have at most 4 entries"]);
        assert!(rules_of(&serde_json::Map::new()).is_empty());
    }
}
