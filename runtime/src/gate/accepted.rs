//! The arguments gates 1–3 accepted, as the body receives them: what
//! policies decide on, what an approval shows a person, and what an
//! idempotency key is derived from.
//!
//! The text the model sent is one spelling of a call among many: `2` and
//! `2.0` for a whole number, a defaulted field absent, `null` or spelled
//! out, keys in any order, an alias for a field. Whatever derives from a
//! call (an idempotency key, an approval's digest, the context a policy
//! reads) derives from the values the gates accepted, so that documents
//! the tool cannot tell apart are one action, and documents it can tell
//! apart are not.

use std::any::Any;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

/// The accepted arguments of one call: each parameter by wire name, its
/// value as the body receives it (defaults applied), and their canonical
/// text.
///
/// The parameters are kept as a list, not as a JSON object: a call that
/// needs no approval reads only the text, and an object (one more map,
/// one more allocation for each name) is made only for an approval's
/// preview ([`value`](Self::value)).
pub(crate) struct Accepted {
    /// The values and their text, which every policy decision of the call
    /// shares.
    pub(crate) scope: Arc<CallScope>,
}

impl Accepted {
    /// The accepted arguments from each field's value as its type
    /// serializes it (`None` for a type that does not implement
    /// `Serialize`: the value as sent stands in, its numbers by value).
    ///
    /// An array the schema declares unique (`uniqueItems`, as every set
    /// type states) is a set: its items are put in canonical order, since
    /// a `HashSet` serializes in an order of its own on each call.
    pub(crate) fn new(
        fields: &mut [(&'static str, Option<Value>)],
        raw: &str,
        def: &crate::ToolDef,
    ) -> Accepted {
        // The members sent for every field without a value of its own,
        // read once, if there is one.
        let mut sent = fields
            .iter()
            .any(|(_, value)| value.is_none())
            .then(|| sent_members(raw, fields));
        let mut kept = Vec::with_capacity(fields.len());
        for (at, (wire, value)) in fields.iter_mut().enumerate() {
            let mut value = match value.take() {
                Some(value) => value,
                None => sent
                    .as_mut()
                    .and_then(|sent| sent.get_mut(at)?.take())
                    .map_or(Value::Null, by_value),
            };
            if def.sets {
                let root = def.schema();
                if let Some(field) = root.get("properties").and_then(|p| p.get(*wire)) {
                    sets_in_order(&mut value, field, root, 0);
                }
            }
            kept.push((*wire, value));
        }
        let text = canonical_fields(&kept, raw.len());
        Accepted {
            scope: Arc::new(CallScope::new(kept, text)),
        }
    }

    /// The canonical text: as [`canonical`] writes [`value`](Self::value).
    pub(crate) fn text(&self) -> &str {
        &self.scope.arguments
    }

    /// The value of the parameter sent as `wire`.
    pub(crate) fn get(&self, wire: &str) -> Option<&Value> {
        self.scope.get(wire)
    }

    /// The accepted arguments as one JSON object, in the tool's order:
    /// what an approval shows a person.
    pub(crate) fn value(&self) -> Value {
        let mut map = Map::new();
        for (wire, value) in &self.scope.fields {
            map.insert((*wire).to_owned(), value.clone());
        }
        Value::Object(map)
    }
}

/// The objects a call authorized, as the policies of gate 5 and gate 6
/// need them.
#[derive(Default)]
pub(crate) struct Objects {
    /// Each authorized object: its field (wire name), version and summary.
    pub(crate) seen: Vec<(&'static str, Option<u64>, Option<serde_json::Value>)>,
    /// Whether a policy allowed an object (or the call) only with a
    /// person's approval.
    pub(crate) asked: bool,
}

/// What every policy decision of one call shares: the accepted arguments,
/// and the values a policy keeps for the call ([`CallScope::per_call`]),
/// so that a call naming several objects is decided by one snapshot of a
/// policy set that may be replaced meanwhile.
pub(crate) struct CallScope {
    /// In the tool's order. Each wire name is there once: the macro
    /// refuses two parameters sent under one name.
    fields: Vec<(&'static str, Value)>,
    pub(crate) arguments: String,
    kept: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
}

impl CallScope {
    fn new(fields: Vec<(&'static str, Value)>, arguments: String) -> CallScope {
        CallScope {
            fields,
            arguments,
            kept: Mutex::new(Vec::new()),
        }
    }

    /// The value of the parameter sent as `wire`: a policy reads the
    /// values themselves rather than parse their text again.
    pub(crate) fn get(&self, wire: &str) -> Option<&Value> {
        self.fields
            .iter()
            .rev()
            .find_map(|(name, value)| (*name == wire).then_some(value))
    }

    /// The call's `T`: made by `make` the first time the call asks for a
    /// `T`, the same one after.
    pub(crate) fn per_call<T: Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = kept.iter().find_map(|v| Arc::clone(v).downcast::<T>().ok()) {
            return found;
        }
        let made = Arc::new(make());
        kept.push(Arc::clone(&made) as Arc<dyn Any + Send + Sync>);
        made
    }
}

/// Whether `schema` declares any array unique.
pub(crate) fn declares_sets(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.get("uniqueItems") == Some(&Value::Bool(true)) || map.values().any(declares_sets)
        }
        Value::Array(items) => items.iter().any(declares_sets),
        _ => false,
    }
}

/// Puts the items of every array of `value` that `schema` declares unique
/// in canonical order. Follows `#/$defs/…` references into `root`,
/// `properties`, `additionalProperties`, `items` and `allOf`; where a
/// value may match one of several subschemas (`anyOf`, `oneOf`), an array
/// is left as it is.
fn sets_in_order(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    // References may loop; the value is finite, but a schema walk over
    // `allOf` alone need not be.
    if depth > 64 {
        return;
    }
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(pointer) => match pointer.strip_prefix('#') {
            Some(pointer) => root.pointer(pointer).unwrap_or(&Value::Null),
            None => return,
        },
        None => schema,
    };
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for part in all {
            sets_in_order(value, part, root, depth + 1);
        }
    }
    match value {
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                for value in items.iter_mut() {
                    sets_in_order(value, item, root, depth + 1);
                }
            }
            if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
                items.sort_by_cached_key(canonical);
            }
        }
        Value::Object(members) => {
            let properties = schema.get("properties");
            let others = schema.get("additionalProperties");
            for (name, value) in members.iter_mut() {
                let member = properties.and_then(|p| p.get(name)).or(others);
                if let Some(member) = member {
                    sets_in_order(value, member, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// A value as sent, for a type that does not serialize: each whole
/// number written with a fraction or an exponent (`2.0`, `2e0`) as the
/// integer it is, so that the spellings of one number are one value.
fn by_value(value: Value) -> Value {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if !n.is_u64() && !n.is_i64() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
                // Exact below 2^53: the cast loses nothing.
                #[allow(clippy::cast_possible_truncation)]
                let whole = f as i64;
                Value::from(whole)
            }
            _ => Value::Number(n),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(by_value).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, by_value(v))).collect())
        }
        other => other,
    }
}

/// The values sent for the fields of `fields` that have none of their own
/// (`None`), by their index there: what the object `raw` holds under each
/// one's wire name, the last if it holds several (as `serde_json`'s map
/// keeps it); nothing when `raw` is not a JSON object. The other members
/// are read past, not built.
fn sent_members(raw: &str, fields: &[(&'static str, Option<Value>)]) -> Vec<Option<Value>> {
    use serde::de::{self, DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, Visitor};

    /// A key: the index of the field that wants it, if one does.
    struct Key<'f>(&'f [(&'static str, Option<Value>)]);

    impl<'de> DeserializeSeed<'de> for Key<'_> {
        type Value = Option<usize>;

        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
            d.deserialize_str(self)
        }
    }

    impl Visitor<'_> for Key<'_> {
        type Value = Option<usize>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a member's name")
        }

        fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
            Ok(self
                .0
                .iter()
                .position(|(wire, value)| value.is_none() && *wire == key))
        }
    }

    struct Members<'f>(&'f [(&'static str, Option<Value>)]);

    impl<'de> Visitor<'de> for Members<'_> {
        type Value = Vec<Option<Value>>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found: Vec<Option<Value>> = (0..self.0.len()).map(|_| None).collect();
            while let Some(at) = map.next_key_seed(Key(self.0))? {
                match at {
                    Some(at) => {
                        let value = map.next_value()?;
                        if let Some(slot) = found.get_mut(at) {
                            *slot = Some(value);
                        }
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(found)
        }
    }

    let mut de = serde_json::Deserializer::from_str(raw);
    de.deserialize_map(Members(fields))
        .and_then(|found| de.end().map(|()| found))
        .unwrap_or_else(|_| (0..fields.len()).map(|_| None).collect())
}

/// The canonical text of a JSON value ([`crate::json::canonical`]): no
/// whitespace, object keys sorted by their bytes, numbers and strings as
/// serde_json writes them.
pub(crate) fn canonical(value: &Value) -> String {
    crate::json::canonical::text(value)
}

/// The canonical text of the object whose members are `fields`, as
/// [`canonical`] writes it, without the object: the members are written
/// in the order of their names' bytes straight from the list. Of two
/// members with one name, the later stands, as in an object built from
/// the list.
fn canonical_fields(fields: &[(&'static str, Value)], size: usize) -> String {
    let mut out = Vec::with_capacity(size + 2);
    // Most tools declare few parameters, often in the order of their
    // names already: then the list is written as it is.
    if fields.is_sorted_by(|a, b| a.0 < b.0) {
        write_members(fields.iter(), &mut out);
    } else {
        let mut order: Vec<&(&'static str, Value)> = fields.iter().collect();
        // Stable: of two members with one name, the later stays later.
        order.sort_by(|a, b| a.0.cmp(b.0));
        let mut members = order.iter().copied().peekable();
        let unique = core::iter::from_fn(|| {
            loop {
                let member = members.next()?;
                if members.peek().is_none_or(|next| next.0 != member.0) {
                    return Some(member);
                }
            }
        });
        write_members(unique, &mut out);
    }
    // serde_json writes UTF-8, and the punctuation is ASCII.
    String::from_utf8(out).unwrap_or_default()
}

/// Writes an object of `members`, in the order given, to `out`.
fn write_members<'a>(members: impl Iterator<Item = &'a (&'static str, Value)>, out: &mut Vec<u8>) {
    out.push(b'{');
    for (i, (name, value)) in members.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        crate::json::canonical::write_key(name, out);
        out.push(b':');
        crate::json::canonical::write(value, crate::json::canonical::Plain, out);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_sent_for_a_type_that_does_not_serialize_is_read_by_value() {
        let raw = r#"{"b":{"n":2.0,"m":[1e2,-0.0,0.5]},"a":"x"}"#;
        let def = definition(json!({"type": "object"}));
        let accepted = Accepted::new(&mut [("a", None), ("b", None), ("c", None)], raw, &def);
        assert_eq!(
            accepted.value(),
            json!({"a":"x","b":{"n":2,"m":[100,0,0.5]},"c":null})
        );
        assert_eq!(
            accepted.text(),
            r#"{"a":"x","b":{"m":[100,0,0.5],"n":2},"c":null}"#
        );
    }

    #[test]
    fn a_policy_reads_each_value_the_text_holds_by_wire_name() {
        let raw = r#"{"b":{"n":2.0},"a":"x"}"#;
        let def = definition(json!({"type": "object"}));
        let accepted = Accepted::new(&mut [("a", None), ("b", None), ("c", None)], raw, &def);
        let scope = &accepted.scope;
        // As the text has them: `2.0` read as `2`, an absent one null.
        assert_eq!(scope.get("b"), Some(&json!({"n": 2})));
        assert_eq!(scope.get("c"), Some(&Value::Null));
        assert_eq!(scope.get("d"), None);
        let Value::Object(text) = serde_json::from_str(&scope.arguments).unwrap() else {
            panic!("not an object")
        };
        for (wire, value) in &text {
            assert_eq!(scope.get(wire), Some(value), "{wire}");
        }
    }

    #[test]
    fn only_the_members_wanted_are_read_and_as_a_whole_parse_would_read_them() {
        // Each field without a value of its own reads what parsing the
        // whole text into a map and taking its member would.
        let whole = |raw: &str, wire: &str| match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(mut map)) => map.remove(wire).map_or(Value::Null, by_value),
            _ => Value::Null,
        };
        let def = definition(json!({"type": "object"}));
        for raw in [
            r#"{"a":"x","b":[1,{"c":2.0}],"skip":{"deep":[1,2,{"x":null}]}}"#,
            r#"{"skip":"\"a\"","a":1.5e3}"#,
            r#"{"\u0061":"escaped key","b":true}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a":1} trailing"#,
            r#"[1,2]"#,
            r#""a""#,
            "{}",
            "",
        ] {
            let accepted = Accepted::new(
                &mut [("a", None), ("b", None), ("given", Some(json!(7)))],
                raw,
                &def,
            );
            for wire in ["a", "b"] {
                assert_eq!(
                    accepted.get(wire),
                    Some(&whole(raw, wire)),
                    "{wire} in {raw}"
                );
            }
            assert_eq!(accepted.get("given"), Some(&json!(7)), "{raw}");
        }
    }

    #[test]
    fn a_serialized_value_stands_as_it_is() {
        let def = definition(json!({"type": "object"}));
        let accepted = Accepted::new(&mut [("speed", Some(json!("instant")))], "{}", &def);
        assert_eq!(accepted.text(), r#"{"speed":"instant"}"#);
    }

    /// A definition with `schema`, for the tests.
    fn definition(schema: Value) -> crate::ToolDef {
        crate::__private::definition_for_tests(schema)
    }

    #[test]
    fn the_items_of_a_set_are_in_one_order_wherever_it_stands() {
        let def = definition(json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                "list": {"type": "array", "items": {"type": "string"}},
                "nested": {"$ref": "#/$defs/Nested"}
            },
            "$defs": {
                "Nested": {
                    "type": "object",
                    "properties": {"ids": {"type": "array", "uniqueItems": true}},
                    "additionalProperties": {"type": "array", "uniqueItems": true}
                }
            }
        }));
        assert!(def.sets);
        let mut fields = [
            ("tags", Some(json!(["b", "a", "c"]))),
            ("list", Some(json!(["b", "a"]))),
            (
                "nested",
                Some(json!({"ids": [3, 1, 2], "more": [[2], [1]]})),
            ),
        ];
        let accepted = Accepted::new(&mut fields, "{}", &def);
        assert_eq!(
            accepted.value(),
            json!({
                "tags": ["a", "b", "c"],
                "list": ["b", "a"],
                "nested": {"ids": [1, 2, 3], "more": [[1], [2]]}
            })
        );
    }

    #[test]
    fn the_text_is_the_canonical_text_of_the_object_in_any_order_of_parameters() {
        let def = definition(json!({"type": "object"}));
        let nested = json!({"z": [1, {"b": 2, "a": "é\n"}], "a": null});
        let orders: [&[&'static str]; 4] = [
            &["a", "b", "c"],
            &["c", "a", "b"],
            &["b", "c", "a"],
            &["aa", "a", "b"],
        ];
        for names in orders {
            let mut fields: Vec<_> = names
                .iter()
                .enumerate()
                .map(|(i, name)| (*name, Some(if i == 0 { nested.clone() } else { json!(i) })))
                .collect();
            let accepted = Accepted::new(&mut fields, "{}", &def);
            assert_eq!(accepted.text(), canonical(&accepted.value()), "{names:?}");
            assert_eq!(accepted.get(names[0]), Some(&nested));
        }
    }

    #[test]
    fn of_two_parameters_sent_under_one_name_the_later_stands_as_in_an_object() {
        let def = definition(json!({"type": "object"}));
        let mut fields = [
            ("b", Some(json!(1))),
            ("a", Some(json!(2))),
            ("b", Some(json!(3))),
        ];
        let accepted = Accepted::new(&mut fields, "{}", &def);
        assert_eq!(accepted.text(), r#"{"a":2,"b":3}"#);
        assert_eq!(accepted.text(), canonical(&accepted.value()));
        assert_eq!(accepted.get("b"), Some(&json!(3)));
    }

    #[test]
    fn a_call_keeps_one_value_of_each_type() {
        let scope = CallScope::new(Vec::new(), "{}".to_owned());
        let first = scope.per_call(|| 1_u8);
        let second = scope.per_call(|| 2_u8);
        assert_eq!((*first, *second), (1, 1));
        assert_eq!(*scope.per_call(|| "text"), "text");
    }
}
