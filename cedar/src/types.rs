//! Cedar types read from JSON Schema, and JSON values written as Cedar
//! reads them.
//!
//! A tool's arguments and a resource's attributes are described by JSON
//! Schema (the canonical schema toolgate publishes, or schemars'). Cedar
//! has longs, strings, booleans, decimals, sets and records: what JSON
//! Schema says in those terms is declared; what it cannot (maps with
//! free keys, unions of different types, tuples, recursive types) is left
//! out of the Cedar schema, so a policy that names it fails validation.
//!
//! A string with a fixed set of values (a Rust enum, a `const`) is a
//! `String` to Cedar, which has no enumerations of strings; its values are
//! kept beside the type so that a policy comparing it with a string it can
//! never hold is refused at load (`crate::enums`).

use core::fmt::Write as _;

use cedar_policy_core::ast::Value as Cedar;
use cedar_policy_core::evaluator::RestrictedEvaluator;
use cedar_policy_core::extensions::Extensions;
use cedar_policy_core::pst::SmolStr;
use serde_json::{Map, Value, json};

/// How deep a type may nest before it is left out: deeper than any record a
/// policy reads, and a stop for recursive types.
const MAX_DEPTH: usize = 12;

/// A Cedar type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    Long,
    String,
    /// A string that is one of these values, in the schema's order.
    Enum(Vec<String>),
    Bool,
    Decimal,
    Set(Box<Ty>),
    Record(Vec<Attr>),
}

/// An attribute of a record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Attr {
    /// As Cedar keys its records: made once, not for each value.
    pub(crate) name: SmolStr,
    pub(crate) ty: Ty,
    /// Always present: required by the schema (and never null), or with a
    /// default that stands in when absent.
    pub(crate) required: bool,
    /// The schema's `default`, written when the value is absent.
    pub(crate) default: Option<Value>,
}

/// The record a JSON Schema object describes, with `root` holding its
/// `$defs`; `None` when the schema is not an object with named fields.
pub(crate) fn record(root: &Value) -> Option<Vec<Attr>> {
    match of(root, root, 0)? {
        (Ty::Record(attrs), false) => Some(attrs),
        _ => None,
    }
}

/// The Cedar type `schema` describes, and whether it also admits `null`.
fn of(schema: &Value, root: &Value, depth: usize) -> Option<(Ty, bool)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let object = schema.as_object()?;
    if let Some(Value::String(target)) = object.get("$ref") {
        let name = target.strip_prefix("#/$defs/")?;
        let found = root.get("$defs")?.get(name)?;
        return of(found, root, depth + 1);
    }
    if let Some(Value::Array(parts)) = object.get("allOf")
        && let [one] = parts.as_slice()
    {
        return of(one, root, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(variants)) = object.get(key) {
            return union(variants, root, depth);
        }
    }
    if let Some(constant) = object.get("const") {
        return Some((literal(constant)?, false));
    }
    if let Some(Value::Array(choices)) = object.get("enum") {
        return enumeration(choices);
    }
    let (kind, nullable) = match object.get("type") {
        Some(Value::String(kind)) => (kind.as_str(), false),
        Some(Value::Array(kinds)) => {
            let nullable = kinds.iter().any(|k| k == "null");
            let mut named = kinds.iter().filter(|k| *k != "null");
            match (named.next(), named.next()) {
                (Some(Value::String(kind)), None) => (kind.as_str(), nullable),
                _ => return None,
            }
        }
        None if object.contains_key("properties") => ("object", false),
        _ => return None,
    };
    let ty = match kind {
        "integer" => Ty::Long,
        "number" => Ty::Decimal,
        "string" => Ty::String,
        "boolean" => Ty::Bool,
        "array" => {
            if object.contains_key("prefixItems") {
                return None;
            }
            match of(object.get("items")?, root, depth + 1)? {
                (item, false) => Ty::Set(Box::new(item)),
                (_, true) => return None,
            }
        }
        "object" => Ty::Record(attributes(object, root, depth)?),
        _ => return None,
    };
    Some((ty, nullable))
}

/// A record's attributes: each property Cedar can hold. An object whose
/// keys are free (a map) is no record.
fn attributes(object: &Map<String, Value>, root: &Value, depth: usize) -> Option<Vec<Attr>> {
    let properties = match object.get("properties") {
        Some(Value::Object(properties)) => properties,
        Some(_) => return None,
        None if matches!(object.get("additionalProperties"), Some(Value::Bool(false))) => {
            return Some(Vec::new());
        }
        None => return None,
    };
    let required: Vec<&str> = match object.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let attrs = properties
        .iter()
        .filter_map(|(name, schema)| {
            let (ty, nullable) = of(schema, root, depth + 1)?;
            let default = schema.get("default").filter(|d| !d.is_null()).cloned();
            Some(Attr {
                name: name.as_str().into(),
                ty,
                required: (required.contains(&name.as_str()) && !nullable) || default.is_some(),
                default,
            })
        })
        .collect();
    Some(attrs)
}

/// The one type every variant has (`null` variants make it nullable).
fn union(variants: &[Value], root: &Value, depth: usize) -> Option<(Ty, bool)> {
    let mut found: Option<Ty> = None;
    let mut nullable = false;
    for variant in variants {
        if variant.get("type").and_then(Value::as_str) == Some("null") {
            nullable = true;
            continue;
        }
        let (ty, null) = of(variant, root, depth + 1)?;
        nullable |= null;
        found = Some(match found {
            Some(seen) => seen.join(&ty, Records::Same)?,
            None => ty,
        });
    }
    Some((found?, nullable))
}

fn literal(value: &Value) -> Option<Ty> {
    match value {
        Value::String(text) => Some(Ty::Enum(vec![text.clone()])),
        Value::Bool(_) => Some(Ty::Bool),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(Ty::Long),
        _ => None,
    }
}

fn enumeration(choices: &[Value]) -> Option<(Ty, bool)> {
    let mut found: Option<Ty> = None;
    let mut nullable = false;
    for choice in choices {
        if choice.is_null() {
            nullable = true;
            continue;
        }
        let ty = literal(choice)?;
        found = Some(match found {
            Some(seen) => seen.join(&ty, Records::Same)?,
            None => ty,
        });
    }
    Some((found?, nullable))
}

/// How [`Ty::join`] treats two records.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Records {
    /// The variants of one type: the same attributes, or no common type.
    Same,
    /// The types an expression has over several requests (an `Order` in
    /// one, an `Invoice` in another): every attribute of either.
    Either,
}

impl Ty {
    /// The type that holds the values of both: enumerations add up, an
    /// enumeration and a free string are a free string. `None` when the
    /// two have no common Cedar type.
    pub(crate) fn join(&self, other: &Ty, records: Records) -> Option<Ty> {
        match (self, other) {
            (Ty::Enum(a), Ty::Enum(b)) => {
                let mut values = a.clone();
                values.extend(b.iter().filter(|v| !a.contains(v)).cloned());
                Some(Ty::Enum(values))
            }
            (Ty::Enum(_) | Ty::String, Ty::Enum(_) | Ty::String) => Some(Ty::String),
            (Ty::Set(a), Ty::Set(b)) => Some(Ty::Set(Box::new(a.join(b, records)?))),
            (Ty::Record(a), Ty::Record(b)) => join_records(a, b, records).map(Ty::Record),
            (a, b) if a == b => Some(a.clone()),
            _ => None,
        }
    }
}

fn join_records(a: &[Attr], b: &[Attr], records: Records) -> Option<Vec<Attr>> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    for attr in a {
        match b.iter().find(|other| other.name == attr.name) {
            Some(other) => {
                let same = attr.required == other.required && attr.default == other.default;
                if records == Records::Same && !same {
                    return None;
                }
                match attr.ty.join(&other.ty, records) {
                    Some(ty) => out.push(Attr {
                        ty,
                        required: attr.required && other.required,
                        ..attr.clone()
                    }),
                    None if records == Records::Same => return None,
                    // Of no one type: what a policy compares it with is
                    // not judged here, the validator types it.
                    None => {}
                }
            }
            None if records == Records::Same => return None,
            None => out.push(attr.clone()),
        }
    }
    if records == Records::Same && b.len() != a.len() {
        return None;
    }
    if records == Records::Either {
        out.extend(
            b.iter()
                .filter(|other| !a.iter().any(|attr| attr.name == other.name))
                .cloned(),
        );
    }
    Some(out)
}

impl Ty {
    /// The type in Cedar's JSON schema format.
    pub(crate) fn schema(&self) -> Value {
        match self {
            Ty::Long => json!({"type": "Long"}),
            Ty::String | Ty::Enum(_) => json!({"type": "String"}),
            Ty::Bool => json!({"type": "Boolean"}),
            Ty::Decimal => json!({"type": "Extension", "name": "decimal"}),
            Ty::Set(item) => json!({"type": "Set", "element": item.schema()}),
            Ty::Record(attrs) => record_schema(attrs),
        }
    }

    /// A value of this type, as JSON: the least one (zero, empty, false,
    /// an enumeration's first value, a record with every attribute). What
    /// a stand-in for an object that was not found holds.
    pub(crate) fn stand_in(&self) -> Value {
        match self {
            Ty::Long | Ty::Decimal => Value::from(0),
            Ty::String => Value::from(""),
            Ty::Enum(values) => values
                .first()
                .map_or_else(|| Value::from(""), |v| Value::from(v.as_str())),
            Ty::Bool => Value::Bool(false),
            Ty::Set(_) => Value::Array(Vec::new()),
            Ty::Record(attrs) => Value::Object(stand_in(attrs)),
        }
    }

    /// `value` as a Cedar value of this type; an error says what did not
    /// fit, at which path.
    ///
    /// The value is made as Cedar holds it once evaluated, not as an
    /// expression for Cedar to evaluate: made from the schema's own types,
    /// it needs no evaluation (a decimal's text alone is evaluated, by
    /// Cedar's `decimal` extension, which checks it).
    pub(crate) fn value(&self, value: &Value, path: &mut String) -> Result<Cedar, String> {
        let unfit = |what: &str, path: &str| Err(format!("{path}: {what}"));
        match (self, value) {
            (Ty::Long, Value::Number(n)) => match long(n) {
                Some(n) => Ok(Cedar::from(n)),
                None => unfit("not a whole number within Cedar's 64-bit range", path),
            },
            (Ty::Decimal, Value::Number(n)) => match decimal(n) {
                Some(text) => {
                    let expr = cedar_policy::RestrictedExpression::new_decimal(text);
                    RestrictedEvaluator::new(Extensions::all_available())
                        .interpret(expr.as_ref().as_borrowed())
                        .map_err(|e| format!("{path}: {e}"))
                }
                None => unfit(
                    "not a Cedar decimal (at most four digits after the point)",
                    path,
                ),
            },
            // An enumeration's value is not checked against its values here:
            // gate 2 has checked the arguments, and a resource serializes
            // what its type allows.
            (Ty::String | Ty::Enum(_), Value::String(text)) => Ok(Cedar::from(text.as_str())),
            (Ty::Bool, Value::Bool(b)) => Ok(Cedar::from(*b)),
            (Ty::Set(item), Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, each) in items.iter().enumerate() {
                    let len = path.len();
                    let _ = write!(path, "/{i}");
                    out.push(item.value(each, path)?);
                    path.truncate(len);
                }
                Ok(Cedar::set(out, None))
            }
            (Ty::Record(attrs), Value::Object(fields)) => {
                let pairs = record_value(attrs, &|name| fields.get(name), path)?;
                Ok(Cedar::record(pairs, None))
            }
            _ => unfit("not of the type the schema declares", path),
        }
    }
}

/// A record of type `attrs` with each attribute's [`Ty::stand_in`].
pub(crate) fn stand_in(attrs: &[Attr]) -> Map<String, Value> {
    attrs
        .iter()
        .map(|attr| (attr.name.to_string(), attr.ty.stand_in()))
        .collect()
}

/// A record type in Cedar's JSON schema format.
pub(crate) fn record_schema(attrs: &[Attr]) -> Value {
    let attributes: Map<String, Value> = attrs
        .iter()
        .map(|attr| {
            let mut ty = attr.ty.schema();
            if !attr.required
                && let Value::Object(ty) = &mut ty
            {
                ty.insert("required".to_owned(), Value::Bool(false));
            }
            (attr.name.to_string(), ty)
        })
        .collect();
    json!({"type": "Record", "attributes": attributes})
}

/// A record's attributes: each declared one that is present (or has a
/// default); what the record type leaves out is left out. Each name is
/// Cedar's own string type, made without an allocation for a name of up
/// to 23 bytes.
pub(crate) fn record_value<'v>(
    attrs: &[Attr],
    fields: &dyn Fn(&str) -> Option<&'v Value>,
    path: &mut String,
) -> Result<Vec<(SmolStr, Cedar)>, String> {
    let mut out = Vec::with_capacity(attrs.len());
    for attr in attrs {
        let value = match fields(&attr.name) {
            Some(Value::Null) | None => match &attr.default {
                Some(default) => default,
                None if attr.required => return Err(format!("{path}/{}: missing", attr.name)),
                None => continue,
            },
            Some(value) => value,
        };
        let len = path.len();
        path.push('/');
        path.push_str(&attr.name);
        out.push((attr.name.clone(), attr.ty.value(value, path)?));
        path.truncate(len);
    }
    Ok(out)
}

/// A JSON number as a Cedar long: an integer, or a fraction-free float
/// (`2.0`, which gate 2 reads as 2), within `i64`.
fn long(n: &serde_json::Number) -> Option<i64> {
    if let Some(n) = n.as_i64() {
        return Some(n);
    }
    let f = n.as_f64()?;
    // `i64::MAX as f64` rounds up to 2^63, which is out of range.
    let in_range = f >= i64::MIN as f64 && f < i64::MAX as f64;
    (f.fract() == 0.0 && in_range).then_some(f as i64)
}

/// A JSON number as a Cedar decimal's text: digits, a point, one to four
/// digits; `None` when Cedar cannot hold it exactly.
fn decimal(n: &serde_json::Number) -> Option<String> {
    let text = match (n.as_i64(), n.as_u64()) {
        (Some(i), _) => format!("{i}.0"),
        (None, Some(u)) => format!("{u}.0"),
        (None, None) => {
            let f = n.as_f64()?;
            let text = format!("{f}");
            if text.contains(['e', 'E', 'i', 'N']) {
                return None;
            }
            if text.contains('.') {
                text
            } else {
                format!("{text}.0")
            }
        }
    };
    let (whole, fraction) = text.split_once('.')?;
    // Cedar's decimal is an i64 of ten-thousandths.
    let digits = whole.trim_start_matches('-').len();
    (fraction.len() <= 4 && digits <= 14).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decimal_value(text: &str) -> Cedar {
        let expr = cedar_policy::RestrictedExpression::new_decimal(text);
        RestrictedEvaluator::new(Extensions::all_available())
            .interpret(expr.as_ref().as_borrowed())
            .unwrap()
    }

    fn ty(schema: Value) -> Option<(Ty, bool)> {
        of(&schema, &schema, 0)
    }

    #[test]
    fn every_type_s_stand_in_is_a_value_of_it() {
        let attr = |name: &str, ty: Ty| Attr {
            name: name.into(),
            ty,
            required: true,
            default: None,
        };
        let record = Ty::Record(vec![
            attr("n", Ty::Long),
            attr("d", Ty::Decimal),
            attr("s", Ty::String),
            attr("e", Ty::Enum(vec!["b".into(), "a".into()])),
            attr("none", Ty::Enum(Vec::new())),
            attr("b", Ty::Bool),
            attr("set", Ty::Set(Box::new(Ty::Long))),
            attr("inner", Ty::Record(vec![attr("x", Ty::Bool)])),
        ]);
        let value = record
            .value(&record.stand_in(), &mut String::new())
            .unwrap();
        assert_eq!(
            value.to_string(),
            r#"{b: false, d: decimal("0.0"), e: "b", inner: {x: false}, n: 0, none: "", s: "", set: []}"#
        );
    }

    #[test]
    fn scalars_sets_and_records_are_read() {
        assert_eq!(ty(json!({"type": "integer"})), Some((Ty::Long, false)));
        assert_eq!(
            ty(json!({"type": ["string", "null"]})),
            Some((Ty::String, true))
        );
        assert_eq!(ty(json!({"type": "number"})), Some((Ty::Decimal, false)));
        assert_eq!(
            ty(json!({"type": "array", "items": {"type": "boolean"}})),
            Some((Ty::Set(Box::new(Ty::Bool)), false))
        );
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {"type": "string", "default": "x"},
                "c": {"$ref": "#/$defs/C"},
                "map": {"type": "object", "additionalProperties": {"type": "integer"}},
            },
            "required": ["a"],
            "$defs": {"C": {"oneOf": [{"const": "x", "type": "string"}, {"const": "y", "type": "string"}]}}
        });
        let attrs = record(&schema).unwrap_or_default();
        let names: Vec<(&str, bool)> = attrs
            .iter()
            .map(|a| (a.name.as_str(), a.required))
            .collect();
        assert_eq!(names, [("a", true), ("b", true), ("c", false)]);
    }

    #[test]
    fn enumerations_keep_their_values() {
        let values = |v: &[&str]| Ty::Enum(v.iter().map(|s| (*s).to_owned()).collect());
        assert_eq!(
            ty(json!({"type": "string", "enum": ["a", "b", null]})),
            Some((values(&["a", "b"]), true))
        );
        assert_eq!(
            ty(
                json!({"oneOf": [{"const": "a"}, {"type": "string", "const": "b"}, {"const": "a"}]})
            ),
            Some((values(&["a", "b"]), false))
        );
        // A free string among the variants frees the whole.
        assert_eq!(
            ty(json!({"anyOf": [{"const": "a"}, {"type": "string"}]})),
            Some((Ty::String, false))
        );
        assert_eq!(
            ty(json!({"type": "array", "items": {"enum": ["x"]}})),
            Some((Ty::Set(Box::new(values(&["x"]))), false))
        );
        // Variants that are records of other attributes have no one type.
        let a = json!({"type": "object", "properties": {"a": {"const": "a"}}, "required": ["a"]});
        let b = json!({"type": "object", "properties": {"b": {"const": "b"}}, "required": ["b"]});
        assert_eq!(ty(json!({"oneOf": [a, b]})), None);
    }

    #[test]
    fn over_several_requests_a_record_has_every_attribute_of_each() {
        let attr = |name: &str, ty: Ty| Attr {
            name: name.into(),
            ty,
            required: true,
            default: None,
        };
        let order = Ty::Record(vec![
            attr("status", Ty::Enum(vec!["open".into()])),
            attr("kind", Ty::Long),
        ]);
        let invoice = Ty::Record(vec![
            attr("status", Ty::Enum(vec!["void".into()])),
            attr("kind", Ty::String),
            attr("void", Ty::Bool),
        ]);
        assert_eq!(order.join(&invoice, Records::Same), None);
        assert_eq!(
            order.join(&invoice, Records::Either),
            Some(Ty::Record(vec![
                attr("status", Ty::Enum(vec!["open".into(), "void".into()])),
                attr("void", Ty::Bool),
            ]))
        );
    }

    #[test]
    fn what_cedar_cannot_hold_is_left_out() {
        assert_eq!(
            ty(json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})),
            None
        );
        assert_eq!(
            ty(json!({"type": "array", "prefixItems": [], "items": false})),
            None
        );
        assert_eq!(
            ty(json!({"type": "object", "additionalProperties": true})),
            None
        );
        let recursive = json!({"$ref": "#/$defs/T", "$defs": {"T": {"type": "object", "properties": {"next": {"$ref": "#/$defs/T"}}}}});
        // Each level is a record whose `next` is left out past the depth.
        assert!(matches!(ty(recursive), Some((Ty::Record(_), false))));
    }

    #[test]
    fn numbers_become_longs_and_decimals_or_do_not_fit() {
        let mut path = String::new();
        assert_eq!(Ty::Long.value(&json!(2.0), &mut path), Ok(Cedar::from(2)));
        assert!(Ty::Long.value(&json!(2.5), &mut path).is_err());
        assert!(Ty::Long.value(&json!(u64::MAX), &mut path).is_err());
        assert_eq!(
            Ty::Decimal.value(&json!(12.25), &mut path),
            Ok(decimal_value("12.25"))
        );
        assert_eq!(
            Ty::Decimal.value(&json!(3), &mut path),
            Ok(decimal_value("3.0"))
        );
        assert!(Ty::Decimal.value(&json!(0.12345), &mut path).is_err());
        assert!(Ty::Decimal.value(&json!(1e300), &mut path).is_err());
    }

    #[test]
    fn a_record_fills_defaults_and_drops_what_it_does_not_declare() {
        let attrs = vec![
            Attr {
                name: "n".into(),
                ty: Ty::Long,
                required: true,
                default: Some(json!(5)),
            },
            Attr {
                name: "o".into(),
                ty: Ty::String,
                required: false,
                default: None,
            },
        ];
        let mut path = String::new();
        let fields = json!({"extra": [1], "o": null});
        let Value::Object(fields) = fields else {
            unreachable!()
        };
        assert_eq!(
            record_value(&attrs, &|name| fields.get(name), &mut path),
            Ok(vec![(SmolStr::new("n"), Cedar::from(5))])
        );
        let bad = json!({"n": "five"});
        let Value::Object(bad) = bad else {
            unreachable!()
        };
        assert_eq!(
            record_value(&attrs, &|name| bad.get(name), &mut path),
            Err("/n: not of the type the schema declares".to_owned())
        );
        let required = [Attr {
            default: None,
            ..attrs[0].clone()
        }];
        assert_eq!(
            record_value(&required, &|_| None, &mut String::new()),
            Err("/n: missing".to_owned())
        );
    }
}
