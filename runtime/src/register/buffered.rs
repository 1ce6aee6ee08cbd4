//! Registration's probes of what serde refuses from its buffer, in an
//! instance the schema accepts.
//!
//! The instances of the schema (see [`crate::register::instance`]), one
//! for each variant of each enum, show where serde cannot read a 128-bit
//! integer the schema accepts ([`buffered_wide`]), or a map key that is not
//! a string ([`buffered_key`]), and where the type refuses as unknown a
//! member the schema accepts ([`refused_member`]). With a key in each map,
//! they also show what each map's key type reads (see
//! `crate::register::keys`).

use serde_json::{Map, Value};

use crate::json::pointer::{self, Step};
use crate::register::instance::{Keyed, at_mut, instances, keyed_instances};
use crate::register::probe::{passes, passes_text};
use crate::{Code, Tool};

/// The first map in an instance of the schema whose entry the tool refuses
/// where serde reads its key from a buffer (see [`crate::gate::structural::reader::keys_read_as_text`]):
/// inside an internally tagged or untagged enum, or a `#[serde(flatten)]`
/// struct, serde buffers the content before the type reads it, and a key
/// type that is not a string (an integer, a `bool`, a `char`) is handed
/// the key as buffered text. An integer or a `bool` refuses it whatever it
/// says, and no key type there is one registration can learn and the
/// schema state (see [`crate::register::keys::state_keys`]): the schema accepts keys
/// the server refuses. The maps are looked at deepest first, each with
/// its entries taken out: the map whose entry the tool refuses is the one
/// without which the instance is accepted. Each instance is also read
/// with its members in the other order: an adjacently tagged enum
/// buffers its content where it comes before the tag.
pub(crate) fn buffered_key<S: 'static>(tool: &dyn Tool<S>) -> Option<String> {
    let schema = tool.definition().schema();
    if !some_subschema(schema, &|map| {
        map.contains_key("patternProperties")
            || map
                .get("additionalProperties")
                .is_some_and(Value::is_object)
    }) {
        return None;
    }
    for (instance, keyed) in keyed_instances(schema, &[]) {
        if keyed.is_empty() {
            continue;
        }
        for reversed in [false, true] {
            let text = |instance: &Value| match reversed {
                false => instance.to_string(),
                true => written_reversed(instance),
            };
            let written = text(&instance);
            let (checked, read_as_text) =
                crate::gate::structural::reader::keys_read_as_text(|| passes_text(tool, &written));
            if checked.is_ok() {
                continue;
            }
            let read_as_text: Vec<(Vec<Step>, String)> = (read_as_text.iter())
                .filter_map(|end| crate::register::keys::entry_at(&written, *end))
                .collect();
            let mut entries: Vec<&Keyed> = keyed
                .iter()
                .filter(|entry| {
                    (read_as_text.iter()).any(|(steps, key)| {
                        *key == entry.key && crate::register::keys::same(steps, &entry.path)
                    })
                })
                .collect();
            entries.sort_by_key(|entry| core::cmp::Reverse(entry.path.len()));
            for entry in entries {
                let mut without = instance.clone();
                if let Some(Value::Object(map)) = at_mut(&mut without, &entry.path) {
                    map.remove(&entry.key);
                }
                if passes_text(tool, &text(&without)).is_ok() {
                    return Some(pointer::of_steps(&entry.path));
                }
            }
        }
    }
    None
}

/// `value` as compact JSON, each object's members in the reverse of the
/// order serde_json writes them.
fn written_reversed(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .rev()
                .map(|(key, value)| {
                    format!("{}:{}", Value::String(key.clone()), written_reversed(value))
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(written_reversed).collect();
            format!("[{}]", items.join(","))
        }
        scalar => scalar.to_string(),
    }
}

/// Where the tool refuses an instance of its schema because serde cannot
/// read a 128-bit integer from its buffer: inside an internally tagged or
/// untagged enum or a `#[serde(flatten)]` struct, serde reads the value
/// into a buffer that holds integers of 64 bits at most, and refuses every
/// `i128` and `u128` read from it, whatever the schema accepts. Only
/// schemas that state a 128-bit integer are probed.
pub(crate) fn buffered_wide<S: 'static>(tool: &dyn Tool<S>) -> Option<String> {
    let schema = tool.definition().schema();
    let wide = |map: &Map<String, Value>| {
        matches!(
            map.get("format").and_then(Value::as_str),
            Some("int128" | "uint128")
        )
    };
    if !some_subschema(schema, &wide) {
        return None;
    }
    instances(schema).iter().find_map(|instance| {
        match crate::gate::structural::reader::watching_wide(|| passes(tool, instance)) {
            (Err(rejection), true) => Some(rejection.path().to_owned()),
            _ => None,
        }
    })
}

/// The first member that the tool's type refuses as unknown, in an
/// instance the schema accepts whole: every call that sends it would be
/// refused. serde does this to an internally tagged or untagged enum
/// flattened into a `#[serde(deny_unknown_fields)]` struct: the enum reads
/// its members without taking them from the struct, which then finds them
/// unknown.
///
/// Looked for only where the schema has such a place: a union (`anyOf`,
/// `oneOf`, or several under `allOf`) beside an object's own members
/// (`properties`, `required`), a struct with an enum flattened into it.
pub(crate) fn refused_member<S: 'static>(tool: &dyn Tool<S>) -> Option<String> {
    let def = tool.definition();
    let schema = def.schema();
    let union_beside_members = |map: &Map<String, Value>| {
        ["anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| map.contains_key(*k))
            && (map.contains_key("properties") || map.contains_key("required"))
    };
    if !some_subschema(schema, &union_beside_members) {
        return None;
    }
    instances(schema).iter().find_map(|instance| {
        let refused = passes(tool, instance).err()?;
        if refused.code() != Code::UnknownField {
            return None;
        }
        def.shape.explain(&instance.to_string(), schema).ok()?;
        Some(refused.path().to_owned())
    })
}

/// Whether some object in `schema`, its root or any nested in it, is
/// one that `this` says: a cheap look before building instances.
fn some_subschema(schema: &Value, this: &dyn Fn(&Map<String, Value>) -> bool) -> bool {
    match schema {
        Value::Object(map) => this(map) || map.values().any(|v| some_subschema(v, this)),
        Value::Array(items) => items.iter().any(|v| some_subschema(v, this)),
        _ => false,
    }
}
