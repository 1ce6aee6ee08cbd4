//! The canonical schema of a tool's arguments, its fingerprint, and lookups
//! into it for rejection messages.

pub(crate) mod described;
pub(crate) mod keywords;
pub(crate) mod map_keys;

use schemars::JsonSchema;
use schemars::Schema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::json::pointer;

pub(crate) use keywords::is_annotation;
pub(crate) use map_keys::key_lengths;

/// The draft 2020-12 schema of `A`, as the model should see it.
#[cfg(test)]
pub(crate) fn canonical<A: JsonSchema>() -> Value {
    root(A::json_schema)
}

/// What schemars' `into_root_schema_for` writes, for a type that none of
/// its parts refers back to (a tool's generated argument struct): compiled
/// once, where `into_root_schema_for` is compiled once for each tool.
pub(crate) fn root(schema_of: fn(&mut SchemaGenerator) -> Schema) -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let mut value = schema_of(&mut generator).to_value();
    let meta_schema = generator.settings().meta_schema.clone();
    let mut definitions = generator.take_definitions(false);
    if let Value::Object(root) = &mut value {
        if let Some(meta_schema) = meta_schema {
            root.insert(
                "$schema".to_owned(),
                Value::String(meta_schema.into_owned()),
            );
        }
        if !definitions.is_empty()
            && let Value::Object(defs) = root
                .entry("$defs")
                .or_insert_with(|| Value::Object(serde_json::Map::new()))
        {
            defs.append(&mut definitions);
        }
    }
    canonical_of(value)
}

/// [`canonical`] once schemars has written the schema.
fn canonical_of(mut value: Value) -> Value {
    if let Value::Object(root) = &mut value {
        // The generated struct's name and doc mean nothing to a model; the
        // tool's description travels next to the schema.
        root.remove("title");
        root.remove("description");
    }
    tighten(&mut value);
    value
}

/// Makes the schema state what serde enforces without saying so.
///
/// - An integer's range exists in schemars' output only as `format:
///   uint32` and the like, which validators ignore and every dialect drops:
///   each integer states its type's range as `minimum`/`maximum`,
///   intersected with the rules' own bounds.
/// - An integer map key is read as a JSON number: `^\d+$` would admit `007`,
///   which the server refuses; the pattern says what the server reads. The
///   key type's range, which schemars does not write, is stated once the
///   definition can read the arguments (see [`crate::register::keys::state_keys`]),
///   as are the keys of a `bool`, a `char` or a documented enum, of which
///   schemars writes nothing.
fn tighten(node: &mut Value) {
    match node {
        Value::Object(map) => {
            if let Some((lo, hi)) = map
                .get("format")
                .and_then(Value::as_str)
                .and_then(integer_range)
                && map.get("type").is_some_and(|t| {
                    t == "integer"
                        || t.as_array()
                            .is_some_and(|ts| ts.iter().any(|t| t == "integer"))
                })
            {
                narrow(map, "minimum", lo, true);
                narrow(map, "maximum", hi, false);
            }
            if let Some(Value::Object(patterns)) = map.get_mut("patternProperties") {
                for (from, to) in INTEGER_KEYS {
                    if let Some(schema) = patterns.remove(from) {
                        patterns.insert(to.to_owned(), schema);
                    }
                }
            }
            for child in map.values_mut() {
                tighten(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tighten),
        _ => {}
    }
}

/// schemars' integer key patterns, and what serde_json reads as a key.
/// Neither states the key type's range, which schemars does not write:
/// [`crate::register::keys::state_keys`] replaces each with its type's range
/// where it can learn the type.
const INTEGER_KEYS: [(&str, &str); 2] = [
    (r"^\d+$", "^(0|[1-9][0-9]*)$"),
    (r"^-?\d+$", "^(0|-?[1-9][0-9]*)$"),
];

/// Whether `pattern` is one of the key patterns of [`INTEGER_KEYS`], of
/// integer keys whose range the schema does not state.
pub(crate) fn is_integer_key_pattern(pattern: &str) -> bool {
    INTEGER_KEYS.iter().any(|(_, ours)| *ours == pattern)
}

/// Sets `key` to `bound` unless the schema already states a bound at least
/// as tight (a `lower` bound that is higher, an upper one that is lower).
fn narrow(map: &mut serde_json::Map<String, Value>, key: &str, bound: i128, lower: bool) {
    let keep = map.get(key).is_some_and(|current| {
        match current
            .as_i64()
            .map(i128::from)
            .or_else(|| current.as_u64().map(i128::from))
        {
            Some(c) if lower => c >= bound,
            Some(c) => c <= bound,
            // A fractional bound on an integer: compare by value.
            None => current.as_f64().is_some_and(|c| {
                #[allow(clippy::cast_precision_loss)]
                let b = bound as f64;
                if lower { c >= b } else { c <= b }
            }),
        }
    });
    if !keep {
        let value = match (i64::try_from(bound), u64::try_from(bound)) {
            (Ok(n), _) => Value::from(n),
            (_, Ok(n)) => Value::from(n),
            _ => return,
        };
        map.insert(key.to_owned(), value);
    }
}

/// The values serde_json can read into an integer of this `format`.
/// 128-bit integers are read from JSON numbers that fit 64 bits.
fn integer_range(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "int128" => (i64::MIN.into(), u64::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" | "uint128" => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// The tool's description, followed by the rules of the server that the
/// schema cannot state (each is listed in [`crate::KNOWN_DIFFERENCES`]).
pub(crate) fn described(
    description: &'static str,
    schema: &Value,
) -> std::borrow::Cow<'static, str> {
    let mut notes = Vec::new();
    if has_integer_keys(schema) {
        notes.push(INTEGER_KEYS_FIT);
    }
    if notes.is_empty() {
        std::borrow::Cow::Borrowed(description)
    } else {
        std::borrow::Cow::Owned(format!("{description} {}", notes.join(" ")))
    }
}

/// A field's wire name, and its default as the schema states it.
pub type FieldDefault = (&'static str, fn() -> Option<serde_json::Value>);

/// Adds each field's default to its property: `"default": 1`. A field
/// with a default accepts `null` as well as being left out, both meaning
/// the default (the argument struct holds it as an `Option`).
pub(crate) fn state_defaults(schema: &mut Value, defaults: &[FieldDefault]) {
    for (field, value) in defaults {
        if let (Some(property), Some(value)) = (
            schema
                .get_mut("properties")
                .and_then(|p| p.get_mut(*field))
                .and_then(Value::as_object_mut),
            value(),
        ) {
            property.insert("default".to_owned(), value);
        }
    }
}

/// A map keyed by a type with a range of its own publishes the keys'
/// spelling, not that range (see [`crate::register::keys::state_keys`]).
pub(crate) const INTEGER_KEYS_FIT: &str = "Numbers used as keys must fit the key's integer type.";

/// Whether some map in `node` has integer keys whose range the schema
/// does not state (see [`is_integer_key_pattern`]).
pub(crate) fn has_integer_keys(node: &Value) -> bool {
    match node {
        Value::Object(map) => {
            map.get("patternProperties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.keys().any(|k| is_integer_key_pattern(k)))
                || map.values().any(has_integer_keys)
        }
        Value::Array(items) => items.iter().any(has_integer_keys),
        _ => false,
    }
}

/// Names a model must never choose, compared after [`normalized`]. The
/// macro refuses them on a tool's parameters (its own copy of this list,
/// held equal by `tests/tests/behaviour/registration/trusted_names.rs`);
/// registration refuses them anywhere in the schema.
pub(crate) const TRUSTED_NAMES: [&str; 12] = [
    "tenantid",
    "tenant",
    "actorid",
    "actor",
    "userid",
    "orgid",
    "organizationid",
    "scopes",
    "role",
    "roles",
    "isadmin",
    "requestid",
];

/// Lower case, without `_`, `-` and white space: `Tenant-ID ` → `tenantid`.
pub(crate) fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-') && !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The first property anywhere in `schema` (nested types and `$defs`
/// included) named like trusted context and not declared business data:
/// its name and the JSON Pointer of its place in the schema.
pub(crate) fn trusted_name(schema: &Value, business: &[&str]) -> Option<(String, String)> {
    fn walk(node: &Value, at: &mut Vec<String>, business: &[&str]) -> Option<(String, String)> {
        match node {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    for name in properties.keys() {
                        let n = normalized(name);
                        if TRUSTED_NAMES.contains(&n.as_str())
                            && !business.iter().any(|b| normalized(b) == n)
                        {
                            at.extend(["properties".to_owned(), name.clone()]);
                            // For the developer, not the model: every segment as it is.
                            let pointer = at
                                .iter()
                                .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
                                .collect();
                            return Some((name.clone(), pointer));
                        }
                    }
                }
                for (key, child) in map {
                    at.push(key.clone());
                    if let Some(found) = walk(child, at, business) {
                        return Some(found);
                    }
                    at.pop();
                }
                None
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    at.push(i.to_string());
                    if let Some(found) = walk(child, at, business) {
                        return Some(found);
                    }
                    at.pop();
                }
                None
            }
            _ => None,
        }
    }
    walk(schema, &mut Vec::new(), business)
}

/// The first keyword in `schema` that validates, that the gates do not
/// read and that says something where it stands: its name and the JSON
/// Pointer of the subschema that states it. The places where a schema
/// stands are looked at, and every place a `$ref` names (a schema may
/// name one under any keyword); not the values of `const`, `enum` or
/// `default`. A `$ref` the gates cannot follow (an `$anchor`, an `$id`,
/// another document, a place that is not there) is one such keyword. A
/// schema stating one would hold the server to less than it publishes.
pub(crate) fn unread_keyword(schema: &Value) -> Option<(&'static str, String)> {
    let mut walk = Unread {
        root: schema,
        named: Vec::new(),
    };
    if let Some(found) = walk.walk(schema, &mut Vec::new()) {
        return Some(found);
    }
    // The places `$ref`s name that no schema keyword reaches (the walk
    // above has read every place one does), each once.
    let mut walked: Vec<*const Value> = Vec::new();
    while let Some((mut at, target)) = walk.named.pop() {
        if walked.contains(&core::ptr::from_ref(target)) {
            continue;
        }
        walked.push(target);
        at.push(pointer::Segment::Key("$ref"));
        if let Some(found) = walk.walk(target, &mut at) {
            return Some(found);
        }
    }
    None
}

/// Whether a JSON Pointer into `root` names a place a schema stands,
/// which [`unread_keyword`]'s walk reaches from the root: each step from
/// an object, a keyword whose value is a schema, or a name in a map of
/// schemas, or an index in a list of them, under the keywords that hold
/// those.
fn stands_at(root: &Value, fragment: &str) -> bool {
    let mut node = root;
    let mut steps = pointer::segments(fragment);
    while let Some(key) = steps.next() {
        let Some(child) = node.as_object().and_then(|map| map.get(&key)) else {
            return false;
        };
        let next = match holds(&key, child) {
            Holds::Map(children) => steps.next().and_then(|name| children.get(&name)),
            Holds::List(children) => {
                let index = steps.next().and_then(|i| i.parse::<usize>().ok());
                index.and_then(|i| children.get(i))
            }
            Holds::One(child) => Some(child),
            Holds::Nothing => None,
        };
        let Some(next) = next else {
            return false;
        };
        node = next;
    }
    true
}

/// The schemas a keyword's value holds: where [`unread_keyword`]'s walk
/// goes down, and so where [`stands_at`] says a place is reached.
enum Holds<'s> {
    /// A map from names to schemas (`properties`, `$defs`, …).
    Map(&'s serde_json::Map<String, Value>),
    /// A list of schemas (`anyOf`, `prefixItems`, …).
    List(&'s [Value]),
    /// One schema (`items`, `not`, …).
    One(&'s Value),
    /// None: data (`enum`, `default`), an unknown keyword, or a map or a
    /// list where the other is due.
    Nothing,
}

/// What the value of keyword `key` holds.
fn holds<'s>(key: &str, value: &'s Value) -> Holds<'s> {
    match (keywords::find(key).map(|keyword| keyword.holds), value) {
        (Some(keywords::Holds::SchemaMap), Value::Object(map)) => Holds::Map(map),
        (Some(keywords::Holds::SchemaList), Value::Array(list)) => Holds::List(list),
        (Some(keywords::Holds::Schema), value) => Holds::One(value),
        _ => Holds::Nothing,
    }
}

/// [`unread_keyword`]'s walk.
struct Unread<'s> {
    root: &'s Value,
    /// Each place a `$ref` names where no schema keyword reaches, and
    /// where the `$ref` stands.
    named: Vec<(Vec<pointer::Segment<'s>>, &'s Value)>,
}

impl<'s> Unread<'s> {
    /// The first unread keyword under `node`, at `at`: the steps to it,
    /// written out as a pointer only where one is found.
    fn walk(
        &mut self,
        node: &'s Value,
        at: &mut Vec<pointer::Segment<'s>>,
    ) -> Option<(&'static str, String)> {
        let Value::Object(map) = node else {
            return None;
        };
        // This subschema's own keywords first, each looked at once.
        for (key, value) in map {
            // `items` as a list (draft 7's tuples): the gates read
            // `prefixItems`, and `items` only as one schema.
            if key == "items" && value.is_array() {
                return Some(("items", pointer::exact(at.iter().cloned())));
            }
            if key == "$ref" {
                let fragment = value.as_str().and_then(pointer::fragment);
                match fragment
                    .as_deref()
                    .and_then(|f| Some((f, self.root.pointer(f)?)))
                {
                    Some((fragment, _)) if stands_at(self.root, fragment) => {}
                    Some((_, target)) => self.named.push((at.clone(), target)),
                    None => return Some(("$ref", pointer::exact(at.iter().cloned()))),
                }
                continue;
            }
            let Some(keyword) = keywords::find(key) else {
                continue;
            };
            // A count written as other than a whole number (`1.0`): the
            // gates read counts as whole numbers only.
            if keyword.holds == keywords::Holds::Count && !value.is_u64() {
                return Some((keyword.name, pointer::exact(at.iter().cloned())));
            }
            if !keyword.unread {
                continue;
            }
            let says_something = match keyword.name {
                // `if` alone decides nothing: only which of `then` and
                // `else` holds.
                "if" => map.contains_key("then") || map.contains_key("else"),
                // `not` of nothing is `false`, which the gates read; `not`
                // of `false` says nothing.
                "not" => {
                    names_value(value).is_none()
                        && !says_nothing(value)
                        && *value != Value::Bool(false)
                }
                "dependentRequired" | "dependentSchemas" | "dependencies" => {
                    !value.as_object().is_some_and(serde_json::Map::is_empty)
                }
                // Lengths of keys alone are read (see [`key_lengths`]).
                "propertyNames" => {
                    !says_nothing(value) && map_keys::lengths_of_keys(value).is_none()
                }
                "unevaluatedItems" => !says_nothing(value),
                // `false` is read where the names it lets through can be
                // listed (see [`evaluated`]).
                "unevaluatedProperties" => unevaluated(self.root, map).is_none(),
                _ => true,
            };
            if says_something {
                return Some((keyword.name, pointer::exact(at.iter().cloned())));
            }
        }
        for (key, child) in map {
            let mark = at.len();
            at.push(pointer::Segment::Key(key));
            let found = match holds(key, child) {
                Holds::Map(children) => children.iter().find_map(|(name, child)| {
                    at.push(pointer::Segment::Key(name));
                    let found = self.walk(child, at);
                    at.pop();
                    found
                }),
                Holds::List(children) => children.iter().enumerate().find_map(|(i, child)| {
                    at.push(pointer::Segment::Index(i));
                    let found = self.walk(child, at);
                    at.pop();
                    found
                }),
                Holds::One(child) => self.walk(child, at),
                Holds::Nothing => None,
            };
            at.truncate(mark);
            if found.is_some() {
                return found;
            }
        }
        None
    }
}

/// Whether a subschema says nothing of a value: `true`, or an object of
/// annotations alone (`{}`, a description).
pub(crate) fn says_nothing(schema: &Value) -> bool {
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(map) => map.keys().all(|k| is_annotation(k)),
        _ => false,
    }
}

/// What `unevaluatedProperties` lets through in an object of subschema
/// `map` (see [`unevaluated`]).
pub(crate) enum Evaluated<'s> {
    /// Every member: it is absent, says nothing, or stands beside an
    /// `additionalProperties` that judges every member left.
    All,
    /// Members of these names: where it is `false`, those listed in
    /// `properties` by `map` and by every subschema that applies in its
    /// place (`allOf`, `anyOf`, `oneOf`, `$ref`, `if`, `then`, `else`),
    /// whether or not that subschema holds for the object, so a name
    /// another branch lists passes (each branch then judges it).
    Names(Vec<&'s str>),
}

/// What `unevaluatedProperties` lets through in an object of subschema
/// `map`. `None` where that cannot be listed: a schema other than `true`
/// or `false`, or where it is `false`, a `patternProperties`, or an
/// `additionalProperties` or `unevaluatedProperties` that is not `false`
/// in a subschema in its place, or a `$ref` the gates cannot follow.
pub(crate) fn unevaluated<'s>(
    root: &'s Value,
    map: &'s serde_json::Map<String, Value>,
) -> Option<Evaluated<'s>> {
    fn add<'s>(
        root: &'s Value,
        map: &'s serde_json::Map<String, Value>,
        top: bool,
        seen: &mut Vec<*const serde_json::Map<String, Value>>,
        names: &mut Vec<&'s str>,
    ) -> Option<()> {
        if seen.contains(&core::ptr::from_ref(map)) {
            return Some(());
        }
        if seen.len() > MAX_IN_PLACE {
            return None;
        }
        seen.push(map);
        let closed = |keyword: &str| map.get(keyword).is_none_or(|v| *v == Value::Bool(false));
        let patterns = map
            .get("patternProperties")
            .is_some_and(|p| p.as_object().is_none_or(|p| !p.is_empty()));
        if patterns || !closed("additionalProperties") || (!top && !closed("unevaluatedProperties"))
        {
            return None;
        }
        if let Some(properties) = map.get("properties") {
            names.extend(properties.as_object()?.keys().map(String::as_str));
        }
        // `true` and `false` list no names.
        let lists = ["allOf", "anyOf", "oneOf"]
            .into_iter()
            .filter_map(|keyword| map.get(keyword).and_then(Value::as_array))
            .flatten();
        let ones = ["if", "then", "else"]
            .into_iter()
            .filter_map(|k| map.get(k));
        for part in lists.chain(ones).filter_map(Value::as_object) {
            add(root, part, false, seen, names)?;
        }
        if let Some(target) = map.get("$ref") {
            let target = crate::json::pointer::target(root, target.as_str()?)?;
            if let Some(target) = target.as_object() {
                add(root, target, false, seen, names)?;
            }
        }
        Some(())
    }
    match map.get("unevaluatedProperties") {
        Some(Value::Bool(false)) => {}
        Some(value) if !says_nothing(value) => return None,
        _ => return Some(Evaluated::All),
    }
    if map
        .get("additionalProperties")
        .is_some_and(|a| *a != Value::Bool(false))
    {
        return Some(Evaluated::All);
    }
    let mut names = Vec::new();
    add(root, map, true, &mut Vec::new(), &mut names)?;
    Some(Evaluated::Names(names))
}

/// The most subschemas [`unevaluated`] reads in one place.
const MAX_IN_PLACE: usize = 1024;

/// The value the `not` of subschema `map` names (see [`names_value`]).
pub(crate) fn excluded(map: &serde_json::Map<String, Value>) -> Option<&Value> {
    map.get("not").and_then(names_value)
}

/// The value a `not` names, where that is all it says: a `const` or an
/// `enum` of one value (annotations beside it), a number, a string, a
/// boolean or `null`, as schemars writes `{"not":{"const":0}}` for the
/// signed `NonZero` integers. It is tried where the schema states it, as
/// a bound is: the tool must refuse it.
pub(crate) fn names_value(not: &Value) -> Option<&Value> {
    let map = not.as_object()?;
    let mut named = None;
    for (key, value) in map {
        let value = match (key.as_str(), value) {
            ("const", value) => value,
            ("enum", Value::Array(listed)) => match listed.as_slice() {
                [value] => value,
                _ => return None,
            },
            (key, _) if is_annotation(key) => continue,
            _ => return None,
        };
        if named.replace(value).is_some() {
            return None;
        }
    }
    named.filter(|v| !matches!(v, Value::Array(_) | Value::Object(_)))
}

/// The schema of a tool's result as it is serialized, if it is an object.
pub(crate) fn output<T: JsonSchema>() -> Option<Value> {
    let generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    if value.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    if let Value::Object(root) = &mut value {
        root.remove("title");
    }
    Some(value)
}

pub(crate) fn fingerprint(schema: &Value) -> String {
    let mut canonical = Vec::new();
    crate::json::canonical::write(schema, Context::Schema, &mut canonical);
    let digest = Sha256::digest(&canonical);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    out.push_str(&crate::json::canonical::hex(&digest));
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Context {
    /// A schema object: annotation keywords are dropped.
    Schema,
    /// A map from names to schemas.
    SchemaMap,
    /// A list of schemas.
    SchemaList,
    /// Plain data (`enum`, `const`, `required`, …): kept as is.
    Data,
}

/// A schema's fingerprint leaves out its annotations (a description
/// changed is the same contract), wherever a schema is: at the root, under
/// the keywords that hold a schema, a map of them or a list of them.
/// Everything else is data, kept whole.
impl crate::json::canonical::Form for Context {
    fn keeps(self, key: &str) -> bool {
        self != Context::Schema || !keywords::find(key).is_some_and(|keyword| keyword.unnoted)
    }

    fn member(self, key: &str) -> Context {
        match self {
            Context::Schema => match keywords::find(key).map(|keyword| keyword.holds) {
                Some(keywords::Holds::SchemaMap) => Context::SchemaMap,
                Some(keywords::Holds::Schema) => Context::Schema,
                Some(keywords::Holds::SchemaList) => Context::SchemaList,
                _ => Context::Data,
            },
            Context::SchemaMap => Context::Schema,
            _ => Context::Data,
        }
    }

    fn item(self) -> Context {
        if self == Context::SchemaList {
            Context::Schema
        } else {
            Context::Data
        }
    }
}

/// The subschema that describes the value at `pointer`, following local
/// `$ref`s and the non-null branch of optional values. Inside a union, the
/// first branch that has the next step; where that branch has no place for
/// the rest (an adjacently tagged enum's `c` under another variant), the
/// first subschema along any branch that has the whole pointer.
pub(crate) fn node_at<'s>(root: &'s Value, pointer: &str) -> Option<&'s Value> {
    node_beside_ref_at(root, pointer).map(|(node, _)| node)
}

/// [`node_at`], with the keywords written beside the `$ref` that names
/// it, if its parent names it so (`{"$ref": …, "maximum": 5}`): `node_at`
/// gives the target alone. None inside unions.
pub(crate) fn node_beside_ref_at<'s>(
    root: &'s Value,
    pointer: &str,
) -> Option<(&'s Value, Option<&'s serde_json::Map<String, Value>>)> {
    let mut node = resolve(root, root)?;
    let mut written = None;
    let mut segments = pointer::segments(pointer).peekable();
    while let Some(segment) = segments.next() {
        let Some(next) = step(root, node, &segment) else {
            return nodes_at(root, pointer)
                .into_iter()
                .next()
                .map(|n| (n, None));
        };
        if segments.peek().is_none() {
            written = beside_ref(node, &segment);
        }
        node = next;
    }
    Some((node, written))
}

/// The member or item `segment` of `parent` as `parent` writes it, where
/// that is a `$ref` with keywords beside it.
fn beside_ref<'s>(parent: &'s Value, segment: &str) -> Option<&'s serde_json::Map<String, Value>> {
    let map = written_child(parent, segment)?.as_object()?;
    let beside = |k: &String| k != "$ref" && !is_annotation(k);
    (map.contains_key("$ref") && map.keys().any(beside)).then_some(map)
}

/// Every subschema that may describe the value at `pointer`: inside a
/// union, each branch that has it (the tag of a tagged enum is in all).
pub(crate) fn nodes_at<'s>(root: &'s Value, pointer: &str) -> Vec<&'s Value> {
    let mut nodes: Vec<&Value> = resolve(root, root).into_iter().collect();
    for segment in pointer::segments(pointer) {
        let mut next: Vec<&Value> = Vec::new();
        for node in nodes {
            for child in steps(root, node, &segment) {
                // Each subschema once: branches of recursive unions lead to
                // the same definitions, and repeating them would multiply
                // the work at every level.
                if !next.iter().any(|n| core::ptr::eq(*n, child)) {
                    next.push(child);
                }
            }
        }
        nodes = next;
    }
    nodes
}

fn steps<'s>(root: &'s Value, node: &'s Value, segment: &str) -> Vec<&'s Value> {
    steps_within(root, node, segment, 8)
}

/// Unions of unions are followed `depth` levels down: a union that refers
/// to itself would otherwise never end.
fn steps_within<'s>(root: &'s Value, node: &'s Value, segment: &str, depth: u8) -> Vec<&'s Value> {
    let branches: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| node.get(*key).and_then(Value::as_array))
        .flatten()
        .filter_map(|branch| resolve(root, branch))
        .collect();
    if branches.is_empty() || depth == 0 {
        return step(root, node, segment).into_iter().collect();
    }
    branches
        .into_iter()
        .flat_map(|b| steps_within(root, b, segment, depth - 1))
        .collect()
}

/// The subschema `node` writes for its member or item `segment`, before
/// any `$ref` in it is followed: from `properties`, `prefixItems`, `items`,
/// the key pattern of integers whose range takes `segment` (see
/// [`crate::schema::map_keys::KeyRange`]; no other pattern is compiled for a lookup)
/// or `additionalProperties`, not through a union.
fn written_child<'s>(node: &'s Value, segment: &str) -> Option<&'s Value> {
    if let Some(child) = node.get("properties").and_then(|p| p.get(segment)) {
        return Some(child);
    }
    let keyed = (node.get("patternProperties").and_then(Value::as_object))
        .into_iter()
        .flatten()
        .find(|(pattern, _)| {
            crate::schema::map_keys::KeyRange::of_pattern(pattern)
                .is_some_and(|range| range.takes(segment))
        });
    if let Some((_, child)) = keyed {
        return Some(child);
    }
    if let Ok(index) = segment.parse::<usize>() {
        if let Some(child) = node.get("prefixItems").and_then(|p| p.get(index)) {
            return Some(child);
        }
        if let Some(child) = node.get("items").filter(|i| i.is_object()) {
            return Some(child);
        }
    }
    node.get("additionalProperties").filter(|a| a.is_object())
}

fn step<'s>(root: &'s Value, node: &'s Value, segment: &str) -> Option<&'s Value> {
    step_within(root, node, segment, 8)
}

/// [`step`], following unions of unions `depth` levels down: a union that
/// refers to itself would otherwise never end.
fn step_within<'s>(
    root: &'s Value,
    node: &'s Value,
    segment: &str,
    depth: u8,
) -> Option<&'s Value> {
    if let Some(child) = written_child(node, segment) {
        return resolve(root, child);
    }
    ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|key| node.get(*key).and_then(Value::as_array))
        .flatten()
        .filter_map(|branch| resolve(root, branch))
        .find_map(|branch| step_within(root, branch, segment, depth.checked_sub(1)?))
}

/// The wire pointer for a path of Rust field names (as garde reports them).
///
/// serde may rename a field (`#[serde(rename)]`, `rename_all`); garde does
/// not know. Each name is matched against the schema's properties at that
/// point: exactly, through the top-level `renames` the macro recorded, or
/// ignoring case and `_`/`-` (which covers every `rename_all` convention).
/// A name still unmatched (a field renamed inside a nested type) is the one
/// property under which the rest of the path exists and, for the last name,
/// whose subschema states the failed rule (`states`). A component below a
/// value that has no members (the inner value of a `#[serde(transparent)]`
/// newtype) is the value itself. Where none of this decides, the pointer
/// ends at the last place known, rather than show the model a name it was
/// never given.
///
/// The pointer is exact (see [`pointer::exact`]): it may hold map keys the
/// model sent that are not to be echoed.
pub(crate) fn wire_pointer(
    root: &Value,
    renames: &[(&str, &str)],
    path: &[(String, String)],
    states: &dyn Fn(&Value) -> bool,
) -> String {
    let mut wire: Vec<String> = Vec::new();
    let walk = Walk {
        root,
        renames,
        path,
        states,
    };
    walk.from(resolve(root, root), 0, &mut wire);
    // An index and a key of the same digits make the same pointer.
    pointer::exact(wire.iter().map(|segment| pointer::Segment::Key(segment)))
}

struct Walk<'a, 's> {
    root: &'s Value,
    renames: &'a [(&'a str, &'a str)],
    path: &'a [(String, String)],
    states: &'a dyn Fn(&Value) -> bool,
}

impl<'s> Walk<'_, 's> {
    /// Maps `path[i..]` below `node` onto `wire`; whether all of it was
    /// mapped.
    fn from(&self, node: Option<&'s Value>, i: usize, wire: &mut Vec<String>) -> bool {
        let Some((kind, component)) = self.path.get(i) else {
            return true;
        };
        let Some(node) = node.and_then(|n| non_null(self.root, n)) else {
            return false;
        };
        if has_no_members(node) {
            return false;
        }
        match kind.as_str() {
            // A newtype variant's inner value (garde's `0`) is not an array
            // element: the value is the variant's own.
            "index" if !is_array(self.root, node) => self.from(Some(node), i + 1, wire),
            "index" => {
                wire.push(component.clone());
                self.from(step(self.root, node, component), i + 1, wire)
            }
            "key" => {
                let rust = match (i, self.renames.iter().find(|(rust, _)| rust == component)) {
                    (0, Some((_, wire))) => *wire,
                    _ => component.as_str(),
                };
                if let Some(name) = property_name(self.root, node, rust) {
                    wire.push(name.to_owned());
                    return self.from(step(self.root, node, name), i + 1, wire);
                }
                let Some(properties) = properties(self.root, node) else {
                    // A map's keys are the model's own.
                    wire.push(component.clone());
                    return self.from(step(self.root, node, component), i + 1, wire);
                };
                let last = i + 1 == self.path.len();
                let mut found: Option<(String, Vec<String>)> = None;
                for (name, child) in &properties {
                    let child = resolve(self.root, child);
                    let mut rest = Vec::new();
                    if self.from(child, i + 1, &mut rest)
                        && (!last || child.is_some_and(|c| (self.states)(c)))
                    {
                        if found.is_some() {
                            return false;
                        }
                        found = Some((name.clone(), rest));
                    }
                }
                if found.is_none() {
                    // An externally tagged variant's name is a key garde
                    // does not report: the path goes on inside it.
                    for (name, child) in &properties {
                        let mut rest = Vec::new();
                        if self.from(resolve(self.root, child), i, &mut rest) {
                            if found.is_some() {
                                return false;
                            }
                            found = Some((name.clone(), rest));
                        }
                    }
                }
                match found {
                    Some((name, rest)) => {
                        wire.push(name);
                        wire.extend(rest);
                        true
                    }
                    None => false,
                }
            }
            _ => self.from(Some(node), i + 1, wire),
        }
    }
}

/// The subschema itself, or for `Option<T>` (`anyOf: [T, null]`) `T`'s.
fn non_null<'s>(root: &'s Value, node: &'s Value) -> Option<&'s Value> {
    let node = resolve(root, node)?;
    let branches = node
        .get("anyOf")
        .or_else(|| node.get("oneOf"))
        .and_then(Value::as_array);
    if let Some(branches) = branches {
        let mut others = branches
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if let (Some(only), None, 2) = (others.next(), others.next(), branches.len()) {
            return resolve(root, only);
        }
    }
    Some(node)
}

/// Whether the subschema (or a branch of it) describes an array.
fn is_array(root: &Value, node: &Value) -> bool {
    let Some(node) = resolve(root, node) else {
        return false;
    };
    node.get("items").is_some()
        || node.get("prefixItems").is_some()
        || node.get("type").is_some_and(|t| {
            t == "array"
                || t.as_array()
                    .is_some_and(|ts| ts.iter().any(|t| t == "array"))
        })
        || ["anyOf", "oneOf", "allOf"]
            .iter()
            .filter_map(|k| node.get(*k).and_then(Value::as_array))
            .flatten()
            .any(|b| {
                resolve(root, b)
                    .is_some_and(|b| b.get("items").is_some() || b.get("prefixItems").is_some())
            })
}

/// A subschema whose values have no members: a string, a number, a
/// boolean (the inner value of a transparent newtype, say).
fn has_no_members(node: &Value) -> bool {
    let members = [
        "properties",
        "items",
        "prefixItems",
        "additionalProperties",
        "patternProperties",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
    ];
    let container = |t: &Value| t == "object" || t == "array";
    node.is_object()
        && !members.iter().any(|k| node.get(*k).is_some())
        && node.get("type").is_some_and(|t| {
            !container(t) && !t.as_array().is_some_and(|ts| ts.iter().any(container))
        })
}

/// The property of `node` that `name` refers to.
fn property_name<'s>(root: &'s Value, node: &'s Value, name: &str) -> Option<&'s str> {
    let maps = property_maps(root, node, 8);
    if let Some((key, _)) = maps.iter().find_map(|m| m.get_key_value(name)) {
        return Some(key);
    }
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = fold(name);
    let mut matches: Vec<&str> = Vec::new();
    for key in maps.iter().flat_map(|m| m.keys()) {
        if fold(key) == wanted && !matches.contains(&key.as_str()) {
            matches.push(key);
        }
    }
    match matches.as_slice() {
        [only] => Some(only),
        _ => None,
    }
}

/// The properties of `node`'s object: its own, or every branch's of a
/// union (a variant's field is in its branch only).
fn properties<'s>(root: &'s Value, node: &'s Value) -> Option<serde_json::Map<String, Value>> {
    let maps = property_maps(root, node, 8);
    if maps.is_empty() {
        return None;
    }
    let mut all = serde_json::Map::new();
    for map in maps {
        for (k, v) in map {
            all.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Some(all)
}

fn property_maps<'s>(
    root: &'s Value,
    node: &'s Value,
    depth: u8,
) -> Vec<&'s serde_json::Map<String, Value>> {
    let Some(node) = resolve(root, node) else {
        return Vec::new();
    };
    if let Some(p) = node.get("properties").and_then(Value::as_object) {
        return vec![p];
    }
    if depth == 0 {
        return Vec::new();
    }
    ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|k| node.get(*k).and_then(Value::as_array))
        .flatten()
        .flat_map(|branch| property_maps(root, branch, depth - 1))
        .collect()
}

/// Follows `$ref: "#/…"` (a bounded number of times, for recursive types).
pub(crate) fn resolve<'s>(root: &'s Value, mut node: &'s Value) -> Option<&'s Value> {
    for _ in 0..8 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(reference) => node = pointer::target(root, reference)?,
            None => return Some(node),
        }
    }
    None
}

#[cfg(test)]
mod tests;
