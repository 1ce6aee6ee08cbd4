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

/// The accepted arguments of one call: an object by wire name, each value
/// as the body receives it (defaults applied), and its canonical text.
pub(crate) struct Accepted {
    pub(crate) value: Value,
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
        let mut sent: Option<Map<String, Value>> = None;
        let mut map = Map::new();
        for (wire, value) in fields.iter_mut() {
            let mut value = match value.take() {
                Some(value) => value,
                None => {
                    let sent = sent.get_or_insert_with(|| match serde_json::from_str(raw) {
                        Ok(Value::Object(map)) => map,
                        _ => Map::new(),
                    });
                    sent.remove(*wire).map_or(Value::Null, by_value)
                }
            };
            if def.sets {
                let root = def.schema();
                if let Some(field) = root.get("properties").and_then(|p| p.get(*wire)) {
                    sets_in_order(&mut value, field, root, 0);
                }
            }
            map.insert((*wire).to_owned(), value);
        }
        let value = Value::Object(map);
        let text = canonical(&value);
        Accepted {
            value,
            scope: Arc::new(CallScope::new(text.into())),
        }
    }

    /// The canonical text.
    pub(crate) fn text(&self) -> &str {
        &self.scope.arguments
    }
}

/// What every policy decision of one call shares: the accepted arguments,
/// and the values a policy keeps for the call ([`CallScope::per_call`]),
/// so that a call naming several objects is decided by one snapshot of a
/// policy set that may be replaced meanwhile.
pub(crate) struct CallScope {
    pub(crate) arguments: Box<str>,
    kept: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
}

impl CallScope {
    fn new(arguments: Box<str>) -> CallScope {
        CallScope {
            arguments,
            kept: Mutex::new(Vec::new()),
        }
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

/// The canonical text of a JSON value: no whitespace, object keys sorted
/// by their bytes, numbers and strings as serde_json writes them.
pub(crate) fn canonical(value: &Value) -> String {
    fn write(value: &Value, out: &mut Vec<u8>) {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                out.push(b'{');
                for (i, (key, value)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    let _ = serde_json::to_writer(&mut *out, key);
                    out.push(b':');
                    write(value, out);
                }
                out.push(b'}');
            }
            Value::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write(item, out);
                }
                out.push(b']');
            }
            scalar => {
                let _ = serde_json::to_writer(&mut *out, scalar);
            }
        }
    }
    let mut out = Vec::new();
    write(value, &mut out);
    // serde_json writes UTF-8, and the punctuation above is ASCII.
    String::from_utf8(out).unwrap_or_default()
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
            accepted.value,
            json!({"a":"x","b":{"n":2,"m":[100,0,0.5]},"c":null})
        );
        assert_eq!(
            accepted.text(),
            r#"{"a":"x","b":{"m":[100,0,0.5],"n":2},"c":null}"#
        );
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
            accepted.value,
            json!({
                "tags": ["a", "b", "c"],
                "list": ["b", "a"],
                "nested": {"ids": [1, 2, 3], "more": [[1], [2]]}
            })
        );
    }

    #[test]
    fn a_call_keeps_one_value_of_each_type() {
        let scope = CallScope::new("{}".into());
        let first = scope.per_call(|| 1_u8);
        let second = scope.per_call(|| 2_u8);
        assert_eq!((*first, *second), (1, 1));
        assert_eq!(*scope.per_call(|| "text"), "text");
    }
}
