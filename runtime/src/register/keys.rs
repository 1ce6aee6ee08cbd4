//! Map keys: registration's check that a map keeps every key the model
//! sent, and what a map's keys are, stated in the schema.
//!
//! Gate 1 refuses an object that repeats a key, byte for byte. A map whose
//! key type *parses* its key (`IpAddr`, `Uuid`, a date, a type with its own
//! `Deserialize`) can still fold two different spellings into one entry,
//! `"::1"` and `"0:0:0:0:0:0:0:1"`, last wins, after gate 1 saw two keys.
//! `#[tool]` refuses such key types on a tool's own parameters; a nested
//! type's fields are out of its sight, so registration asks the arguments
//! type itself. An instance of the tool's schema is read by the
//! single-pass reader, which watches what each map key's type asks for:
//!
//! - a string (`String`, `Box<str>`, `Cow<str>`: serde's `deserialize_string`),
//!   a variant name the schema enumerates, an integer (the schema's key
//!   pattern admits one spelling of each), a `char` or a `bool` keep the key;
//! - anything read from a borrowed string or a number (`deserialize_str`,
//!   `deserialize_f64`, bytes) is a parse, and a parse may normalize;
//! - a `bool`, a `char` or an enum that refuses the instance's key, which
//!   the schema accepts, takes keys the schema could not be made to state
//!   (see below): refused too.
//!
//! Keys that serde buffers first (untagged and internally tagged enums,
//! `flatten`) reach their type from serde's buffer, out of this probe's
//! sight: a map there whose key type is not a string is refused by
//! [`crate::register::buffered::buffered_key`]. The reader is the deserializer every
//! tool's arguments are compiled for already: the probe adds none.
//!
//! schemars writes less of a map's keys than its key type reads: any
//! integer key as digits (`^\d+$`, `"300"` for a `u8` key, which the server
//! refuses), and any key at all for a `bool`, a `char`, or an enum whose
//! variants carry doc comments. The same reading tells each map's key type
//! ([`state_keys`]), and the schema then states its keys: an integer
//! type's range in the key's pattern ([`KeyRange::pattern`]), `true` and
//! `false` in a pattern, one character in `propertyNames`, an enum's names
//! in `properties`; so that the server and the schema take the same keys.

use serde_json::Value;

use crate::gate::structural::reader::KeyParse;
use crate::json::pointer::{self, Step};
use crate::schema::map_keys::{KeyRange, Keys, names_pattern};

/// A map whose key type reads its key in a way that may normalize it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ParsedKey {
    /// The map, as a JSON Pointer into the arguments.
    pub(crate) at: String,
    /// What the key type asked the deserializer for (`deserialize_str`, …).
    pub(crate) reads: &'static str,
}

/// The first map in `instance` whose key type parses its key, if any, by
/// `key_parse`, the reader's probe of the arguments type (see
/// [`crate::gate::structural::reader::probing_keys`]). Not generic: compiled once, not once
/// for each tool.
pub(crate) fn parsed_key(
    instance: &Value,
    key_parse: &dyn Fn(&str) -> Option<KeyParse>,
) -> Option<ParsedKey> {
    let text = instance.to_string();
    let (end, reads) = key_parse(&text)?;
    Some(ParsedKey {
        at: object_at(&text, end)?,
        reads,
    })
}

/// The JSON Pointer of the innermost object open at byte `end` of `json`
/// (compact, as serde_json writes it), whose key ends there.
fn object_at(json: &str, end: usize) -> Option<String> {
    Some(pointer::of_steps(&steps_at(json, end)?))
}

/// The steps to the object [`object_at`] names.
fn steps_at(json: &str, end: usize) -> Option<Vec<Step>> {
    let bytes = json.as_bytes();
    // Each open container: the step to the value being read inside it.
    let mut open: Vec<Option<Step>> = Vec::new();
    let mut pos = 0;
    while pos < end {
        match bytes.get(pos)? {
            b'{' => open.push(None),
            b'[' => open.push(Some(Step::Index(0))),
            b'}' | b']' => {
                open.pop();
            }
            b',' => {
                if let Some(Some(Step::Index(i))) = open.last_mut() {
                    *i += 1;
                }
            }
            b'"' => {
                let close = string_end(bytes, pos)?;
                // A string is a key where a `:` follows it.
                if bytes.get(close + 1) == Some(&b':') {
                    let key: String = serde_json::from_str(json.get(pos..=close)?).ok()?;
                    *open.last_mut()? = Some(Step::Key(key));
                }
                pos = close;
            }
            _ => {}
        }
        pos += 1;
    }
    // The object whose key ends at `end` is the last one open; the steps
    // of the containers around it lead to it.
    open.pop();
    open.into_iter().collect()
}

/// States in `schema` what the keys of each map are, where schemars
/// writes less than the key type reads: the range of an integer type
/// (schemars writes digits of any length: `"300"` for a `u8`), that a
/// `bool` takes `true` and `false` and a `char` one character (schemars
/// writes any key for both), and the names of an enum whose variants carry
/// doc comments (schemars writes any key for it). `read` reads a document
/// as the tool's arguments ([`crate::gate::structural::reader::read_keys`]): instances of
/// the schema, with a key in each map, show what each key type asks for
/// (`deserialize_u32`, `deserialize_bool`, `deserialize_char`,
/// `deserialize_enum` and the enum's names), and the key type is then
/// tried with the keys at the edges of what that type reads (see
/// [`decided`]). A key type that takes other keys than the type it asks
/// for (one of its own, with a `Deserialize` of its own), or a map the
/// instances do not reach, is left as schemars wrote it: a map of integer
/// keys then says so in the tool's description (`integer-map-keys` in
/// [`crate::KNOWN_DIFFERENCES`]).
pub(crate) fn state_keys(schema: &mut Value, read: fn(&str)) {
    if maps_in(schema) == 0 {
        return;
    }
    // The arguments' `Deserialize` is the user's code, run here on
    // instances no model sent: should it panic, the maps stay as schemars
    // wrote them, rather than the definition failing with it.
    let learning = std::panic::AssertUnwindSafe(|| learned(schema, read));
    let learned = std::panic::catch_unwind(learning).unwrap_or_default();
    if learned.is_empty() {
        return;
    }
    let mut places = Vec::new();
    located(schema, &learned, &mut Vec::new(), &mut places);
    // The deepest first: a map inside another's values is reached through
    // the other's keywords, still the ones the places were found under.
    places.sort_by_key(|(steps, _)| core::cmp::Reverse(steps.len()));
    for (steps, keys) in places {
        let at = pointer::exact_of_steps(&steps);
        if let Some(Value::Object(map)) = schema.pointer_mut(&at) {
            stated(map, &keys);
        }
    }
}

/// States `keys` in the map subschema `map`: a key pattern of integers
/// that states no range gives way to the range's; values under
/// `additionalProperties` move under the key pattern, the names, or stay
/// beside `propertyNames`.
fn stated(map: &mut serde_json::Map<String, Value>, keys: &Keys) {
    let unstated: Vec<String> = (map.get("patternProperties").and_then(Value::as_object))
        .into_iter()
        .flat_map(|p| p.keys())
        .filter(|k| crate::schema::is_integer_key_pattern(k))
        .cloned()
        .collect();
    if let (Keys::Range(range), false) = (keys, unstated.is_empty()) {
        if let Some(Value::Object(patterns)) = map.get_mut("patternProperties") {
            for key in unstated {
                if let Some(values) = patterns.remove(&key) {
                    patterns.insert(range.pattern(), values);
                }
            }
        }
        return;
    }
    if !map
        .get("additionalProperties")
        .is_some_and(Value::is_object)
    {
        return;
    }
    if *keys == Keys::Char {
        map.insert(
            "propertyNames".to_owned(),
            serde_json::json!({"minLength": 1, "maxLength": 1}),
        );
        return;
    }
    let Some(values) = map.insert("additionalProperties".to_owned(), Value::Bool(false)) else {
        return;
    };
    let (keyword, members) = match keys {
        Keys::Range(range) => ("patternProperties", vec![range.pattern()]),
        Keys::Bools(names) => ("patternProperties", vec![names_pattern(names)]),
        Keys::Names(names) => (
            "properties",
            names.iter().map(|n| (*n).to_owned()).collect(),
        ),
        Keys::Char => return,
    };
    let members = members
        .into_iter()
        .map(|name| (name, values.clone()))
        .collect();
    map.insert(keyword.to_owned(), Value::Object(members));
}

/// How many subschemas of `node` are maps whose keys [`state_keys`] may
/// learn: a key pattern of integers that states no range, or values under
/// `additionalProperties` (keys that schemars says nothing of). The most
/// rounds [`learned`] needs, as each round learns one at least or is the
/// last.
fn maps_in(node: &Value) -> usize {
    match node {
        Value::Object(map) => {
            let own = map
                .get("additionalProperties")
                .is_some_and(Value::is_object)
                || (map.get("patternProperties").and_then(Value::as_object))
                    .is_some_and(|p| p.keys().any(|k| crate::schema::is_integer_key_pattern(k)));
            usize::from(own) + map.values().map(maps_in).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(maps_in).sum(),
        _ => 0,
    }
}

/// How one map's keys were read in a round of [`learned`].
struct Seen<'i> {
    /// The address of the map's subschema.
    map: usize,
    /// What its key type asked for; `None` where two readings differ.
    reads: Option<&'static str>,
    /// An enum's names (see [`crate::gate::structural::reader::KeyRead::names`]).
    names: &'static [&'static str],
    /// An instance that has the map, and the steps to it there.
    instance: &'i Value,
    path: &'i [Step],
}

/// What the instances of `schema` show of each map's keys, by the address
/// of the map's subschema. A key its type refuses ends a reading, and a
/// map after it is read only once that key is one its type takes: so the
/// instances are read in rounds, each with the keys learned so far, until
/// a round reaches no map not yet looked at.
fn learned(schema: &Value, read: fn(&str)) -> Vec<(usize, Keys)> {
    let mut keys: Vec<(usize, String)> = Vec::new();
    let mut looked: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for _ in 0..=maps_in(schema) {
        let instances = crate::register::instance::keyed_instances(schema, &keys);
        let mut seen: Vec<Seen<'_>> = Vec::new();
        for (instance, keyed) in &instances {
            let text = instance.to_string();
            for key in crate::gate::structural::reader::key_reads(|| read(&text)) {
                let Some(steps) = steps_at(&text, key.at) else {
                    continue;
                };
                let Some(entry) = keyed.iter().find(|k| same(&k.path, &steps)) else {
                    continue;
                };
                if looked.contains(&entry.map) {
                    continue;
                }
                match seen.iter_mut().find(|s| s.map == entry.map) {
                    // Two readings of one subschema: one type, or undecided.
                    Some(s) if s.reads != Some(key.reads) => s.reads = None,
                    Some(_) => {}
                    None => seen.push(Seen {
                        map: entry.map,
                        reads: Some(key.reads),
                        names: key.names,
                        instance,
                        path: &entry.path,
                    }),
                }
            }
        }
        if seen.is_empty() {
            break;
        }
        for s in seen {
            looked.push(s.map);
            let learned = decided(&s, read);
            // A key the type takes, stated or not: a later reading goes
            // past it, to the maps after it.
            let taken = match &learned {
                Some(learned) => Some(learned.taken()),
                None => taken_by(&s, read),
            };
            keys.extend(taken.map(|key| (s.map, key)));
            out.extend(learned.map(|learned| (s.map, learned)));
        }
    }
    out
}

/// A key no enum's variant is named: taken only by an enum with a
/// `#[serde(other)]` variant, which takes any key.
const UNNAMED: &str = "\u{0}";

/// What the keys of the map `seen` are, once its key type has been tried
/// with keys at the edges of what the type it asked for reads:
///
/// - an integer type: `0` (refused by a `NonZero…`), its range's ends and
///   `-1`;
/// - `bool`: `true` and `false`;
/// - `char`: one character of one, two, three and four UTF-8 bytes (the
///   last two UTF-16 units), escaped ones, and none, two, and a letter
///   with a combining mark (two code points);
/// - an enum: each name it lists, each variant by its index, and a key
///   that names none. Names but no variant of its own are aliases, which
///   `properties` cannot tell from the names (two of them in one call
///   would be one entry): left as schemars wrote them, and refused at
///   registration (see `RegisterError::ParsedMapKey`).
///
/// `None` where the type took other keys than the type it asked for reads.
fn decided(seen: &Seen<'_>, read: fn(&str)) -> Option<Keys> {
    let takes = |key: &str| tried(seen, key, read);
    match seen.reads? {
        "deserialize_bool" => {
            let names: Vec<&'static str> = ["true", "false"]
                .into_iter()
                .filter(|n| takes(n) == Some(true))
                .collect();
            (!names.is_empty()).then_some(Keys::Bools(names))
        }
        "deserialize_char" => {
            let one = ["a", "é", "€", "😀", "\u{0}", "\"", "\n"];
            let other = ["", "ab", "e\u{301}", "😀😀"];
            let exact = one.iter().all(|k| takes(k) == Some(true))
                && other.iter().all(|k| takes(k) == Some(false));
            exact.then_some(Keys::Char)
        }
        "deserialize_enum" => {
            if takes(UNNAMED) != Some(false) {
                return None;
            }
            let names: Vec<&'static str> = (seen.names.iter().copied())
                .filter(|n| takes(n) == Some(true))
                .collect();
            let variants = (0..seen.names.len())
                .take_while(|i| {
                    takes(&crate::gate::structural::reader::variant_index_key(*i)) == Some(true)
                })
                .count();
            (!names.is_empty() && variants == names.len()).then_some(Keys::Names(names))
        }
        reads => {
            let range = KeyRange::read_by(reads)?;
            let zero = takes("0")?;
            let range = KeyRange { zero, ..range };
            let mut ends = vec!["1".to_owned(), range.max.to_string()];
            if range.min < 0 {
                ends.extend([range.min.to_string(), "-1".to_owned()]);
            }
            ends.iter()
                .all(|key| takes(key) == Some(true))
                .then_some(Keys::Range(range))
        }
    }
}

/// A key that the key type of the map `seen` takes, where its keys are
/// not stated (see [`decided`]): one of those its type takes most often.
fn taken_by(seen: &Seen<'_>, read: fn(&str)) -> Option<String> {
    let candidates: Vec<String> = match seen.reads? {
        "deserialize_bool" => vec!["true".to_owned(), "false".to_owned()],
        "deserialize_char" => ["a", "z", "0", "A"].map(str::to_owned).to_vec(),
        "deserialize_enum" => seen.names.iter().map(|n| (*n).to_owned()).collect(),
        _ => ["1", "2", "0", "100"].map(str::to_owned).to_vec(),
    };
    candidates
        .into_iter()
        .find(|key| tried(seen, key, read) == Some(true))
}

/// Whether the key type of the map `seen` takes `key`: read in its
/// instance, the map's entries replaced by one under `key`. `None` where
/// a reading did not reach the key.
fn tried(seen: &Seen<'_>, key: &str, read: fn(&str)) -> Option<bool> {
    let mut instance = seen.instance.clone();
    let map = seen
        .path
        .iter()
        .try_fold(&mut instance, |value, step| match step {
            Step::Key(k) => value.get_mut(k.as_str()),
            Step::Index(i) => value.get_mut(*i),
        })?
        .as_object_mut()?;
    let entry = map.values().next()?.clone();
    map.clear();
    map.insert(key.to_owned(), entry);
    let text = instance.to_string();
    let reads = crate::gate::structural::reader::key_reads(|| read(&text));
    reads
        .iter()
        .find(|key| steps_at(&text, key.at).is_some_and(|steps| same(seen.path, &steps)))
        .map(|key| key.took)
}

/// Whether two paths name the same place.
pub(crate) fn same(a: &[Step], b: &[Step]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|pair| match pair {
            (Step::Key(a), Step::Key(b)) => a == b,
            (Step::Index(a), Step::Index(b)) => a == b,
            _ => false,
        })
}

/// The steps to the map whose key's colon ends at byte `end` of `json`
/// (compact, as serde_json writes it, or its members in another order),
/// and the key.
pub(crate) fn entry_at(json: &str, end: usize) -> Option<(Vec<Step>, String)> {
    let steps = steps_at(json, end)?;
    // The key: the string whose closing quote comes right before the colon.
    let bytes = json.as_bytes();
    let close = end
        .checked_sub(2)
        .filter(|c| bytes.get(*c) == Some(&b'"'))?;
    let mut open = 0;
    let mut pos = 0;
    while pos < close {
        if bytes.get(pos) == Some(&b'"') {
            let string_close = string_end(bytes, pos)?;
            if string_close == close {
                open = pos;
                break;
            }
            pos = string_close;
        }
        pos += 1;
    }
    let key = serde_json::from_str(json.get(open..=close)?).ok()?;
    Some((steps, key))
}

/// The steps from the root of `node` to each subschema `learned` names (by
/// its address), with its keys; each once.
fn located(
    node: &Value,
    learned: &[(usize, Keys)],
    at: &mut Vec<Step>,
    out: &mut Vec<(Vec<Step>, Keys)>,
) {
    match node {
        Value::Object(map) => {
            let address = core::ptr::from_ref(map) as usize;
            if let Some((_, keys)) = learned.iter().find(|(a, _)| *a == address) {
                out.push((at.clone(), keys.clone()));
            }
            for (key, child) in map {
                at.push(Step::Key(key.clone()));
                located(child, learned, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(Step::Index(i));
                located(child, learned, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// The index of the quote that closes the string opening at `open`.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut pos = open + 1;
    loop {
        match bytes.get(pos)? {
            b'"' => return Some(pos),
            b'\\' => pos += 2,
            _ => pos += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};
    use std::net::IpAddr;

    use serde::Deserialize;
    use serde_json::{Value, json};

    use super::{KeyRange, ParsedKey, object_at, parsed_key, state_keys};
    use crate::json::pointer;

    /// The probe as registration runs it, for the arguments type `A`.
    fn parsed_key_of<A: serde::de::DeserializeOwned>(instance: &Value) -> Option<ParsedKey> {
        let key_parse = |text: &str| {
            crate::gate::structural::reader::probing_keys(|| {
                crate::gate::structural::reader::probe_keys(
                    text,
                    &mut crate::gate::structural::reader::Read::<A>(None),
                );
            })
        };
        parsed_key(instance, &key_parse)
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Hosts {
        /// A value whose type reads itself differently when the format is
        /// not human-readable.
        gateway: IpAddr,
        groups: Vec<Group>,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Group {
        weights: HashMap<IpAddr, u8>,
    }

    #[derive(Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[serde(rename_all = "snake_case")]
    enum Colour {
        Red,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Kept {
        a_numbers: BTreeMap<u32, u8>,
        b_signed: BTreeMap<i8, u8>,
        c_colours: HashMap<Colour, u8>,
        d_flags: BTreeMap<bool, u8>,
        e_letters: BTreeMap<char, u8>,
        f_names: HashMap<Box<str>, u8>,
        z_hosts: HashMap<IpAddr, u8>,
    }

    #[test]
    fn the_probe_reads_past_keys_that_keep_their_spelling() {
        // Integers, variant names, booleans, characters and strings keep
        // the key: the probe reads past each, to the map whose keys parse.
        let instance = json!({
            "a_numbers": {"7": 1},
            "b_signed": {"-3": 1},
            "c_colours": {"red": 1},
            "d_flags": {"true": 1, "false": 0},
            "e_letters": {"x": 1},
            "f_names": {"a\"b": 1},
            "z_hosts": {"::1": 1}
        });
        let found = parsed_key_of::<Kept>(&instance).expect("the hosts' map");
        assert_eq!(found.at, "/z_hosts");
        assert_eq!(found.reads, "deserialize_str");
        // Without it, nothing is found.
        let mut kept = instance.clone();
        kept["z_hosts"] = json!({});
        assert_eq!(parsed_key_of::<Kept>(&kept), None);
    }

    #[test]
    fn the_map_is_named_by_the_keys_and_indexes_that_lead_to_it() {
        // Strings that hold quotes, brackets and commas, keys with escapes,
        // and lists before the map do not move the pointer.
        let instance = json!({
            "gateway": "10.0.0.1",
            "groups": [
                {"weights": {}},
                {"weights": {"1.2.3.4": 1, "::1": 2}}
            ]
        });
        let found = parsed_key_of::<Hosts>(&instance).expect("a map whose keys parse");
        assert_eq!(found.at, "/groups/1/weights");
        let text = r#"{"s":"x\"]},[","a\u002e":["x,]}",{"b":[1,2]},{"m-1":{"k":1}}]}"#;
        let end = text.find(r#""k":"#).map(|k| k + 4).expect("the key");
        assert_eq!(object_at(text, end).as_deref(), Some("/a./2/m-1"));
        // Whatever the key's value: the map is the object the key is in.
        for value in ["[1]", r#"{"x":1}"#, r#""s""#, "7"] {
            let text = format!(r#"{{"a":{{"k":{value}}}}}"#);
            let end = text.find(r#""k":"#).map(|k| k + 4).expect("the key");
            assert_eq!(object_at(&text, end).as_deref(), Some("/a"), "{text}");
        }
    }

    #[test]
    fn an_entry_is_named_by_its_map_and_its_key_decoded() {
        let text = r#"{"s":"x\":[","a":[{"m":{"k\"1":1,"\u0037":2}}]}"#;
        for (key, written) in [("k\"1", r#""k\"1":"#), ("7", r#""\u0037":"#)] {
            let end = text
                .find(written)
                .map(|at| at + written.len())
                .expect("the key");
            let (steps, found) = super::entry_at(text, end).expect("an entry");
            assert_eq!(pointer::of_steps(&steps), "/a/0/m");
            assert_eq!(found, key);
        }
        assert!(super::entry_at(text, 3).is_none());
    }

    #[test]
    fn a_parsed_key_is_found_past_a_value_that_reads_itself_as_text() {
        // JSON is human-readable: the gateway reads as text, and the probe
        // goes on to the maps.
        let instance = json!({
            "gateway": "10.0.0.1",
            "groups": [{"weights": {}}, {"weights": {"::1": 1}}]
        });
        let found = parsed_key_of::<Hosts>(&instance).expect("a map whose keys parse");
        // The second group's map: each item of a list is counted.
        assert_eq!(found.at, "/groups/1/weights");
        assert_eq!(found.reads, "deserialize_str");
    }

    /// Every integer type's range, and each but `0` (`NonZero…`).
    fn ranges() -> Vec<KeyRange> {
        [
            "deserialize_u8",
            "deserialize_u16",
            "deserialize_u32",
            "deserialize_u64",
            "deserialize_u128",
            "deserialize_i8",
            "deserialize_i16",
            "deserialize_i32",
            "deserialize_i64",
            "deserialize_i128",
        ]
        .iter()
        .filter_map(|reads| KeyRange::read_by(reads))
        .flat_map(|range| {
            [
                range,
                KeyRange {
                    zero: false,
                    ..range
                },
            ]
        })
        .collect()
    }

    /// Whether `key` is an integer of `range`, written as JSON writes one:
    /// the oracle, said apart from [`KeyRange::takes`].
    fn within(range: KeyRange, key: &str) -> bool {
        let Ok(n) = key
            .parse::<i128>()
            .map(Some)
            .or_else(|_| key.parse::<u128>().map(|_| None))
        else {
            return false;
        };
        let canonical = match n {
            Some(n) => n.to_string() == key,
            None => key.parse::<u128>().is_ok_and(|u| u.to_string() == key),
        };
        let in_range = match n {
            Some(n) if n < 0 => n >= range.min,
            Some(n) => n.unsigned_abs() <= range.max,
            None => key.parse::<u128>().is_ok_and(|u| u <= range.max),
        };
        canonical && in_range && (range.zero || key != "0")
    }

    #[test]
    fn a_key_pattern_takes_exactly_its_types_integers() {
        // Each end, one past, every power of ten and its neighbours, and
        // other spellings of integers; then digits at random, of every
        // length up to one past the longest end.
        let mut keys: Vec<String> = [
            "0", "-0", "00", "01", "-01", "+1", " 1", "1 ", "1.0", "1e2", "", "-", "x", "٣",
        ]
        .map(str::to_owned)
        .to_vec();
        let ends = [
            i128::MIN.to_string(),
            i128::MAX.to_string(),
            u128::MAX.to_string(),
            "340282366920938463463374607431768211456".to_owned(),
            "-170141183460469231731687303715884105729".to_owned(),
        ];
        keys.extend(ends);
        for range in ranges() {
            for n in [range.min, i128::try_from(range.max).unwrap_or(i128::MAX)] {
                for near in [n.checked_sub(1), Some(n), n.checked_add(1)] {
                    keys.extend(near.map(|n| n.to_string()));
                }
            }
        }
        let mut power = 1u128;
        while let Some(next) = power.checked_mul(10) {
            for n in [power - 1, power, power + 1] {
                keys.extend([n.to_string(), format!("-{n}")]);
            }
            power = next;
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = 1 + (state % 41) as usize;
            let mut key: String = (0..len)
                .map(|i| char::from(b'0' + ((state >> (i % 60)) % 10) as u8))
                .collect();
            if state & 1 == 1 {
                key.insert(0, '-');
            }
            keys.push(key);
        }
        for range in ranges() {
            let pattern = range.pattern();
            let regex = regex::Regex::new(&pattern).expect("the server's regex compiles it");
            for key in &keys {
                assert_eq!(regex.is_match(key), within(range, key), "{pattern} {key:?}");
                assert_eq!(range.takes(key), within(range, key), "{pattern} {key:?}");
            }
            // Read back, and read alike by ECMA-262 (see `crate::register::pattern`).
            assert_eq!(KeyRange::of_pattern(&pattern), Some(range));
            let schema = json!({"patternProperties": {pattern.clone(): {}}});
            let mut compiled = crate::register::pattern::Compiled::default();
            assert!(
                crate::register::pattern::check("t", &schema, &mut compiled).is_ok(),
                "{pattern}"
            );
        }
        assert_eq!(
            KeyRange::read_by("deserialize_u8")
                .map(KeyRange::pattern)
                .as_deref(),
            Some("^(0|[1-9][0-9]?|1[0-9]{2}|2[0-4][0-9]|25[0-5])$")
        );
        assert_eq!(KeyRange::of_pattern("^(0|[1-9][0-9]*)$"), None);
    }

    /// A floor number: read as a `u8`, and no floor is above 200.
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    struct FloorNumber(u8);

    impl<'de> Deserialize<'de> for FloorNumber {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            match u8::deserialize(d)? {
                n @ 0..=200 => Ok(FloorNumber(n)),
                _ => Err(serde::de::Error::custom("no floor above 200")),
            }
        }
    }

    impl schemars::JsonSchema for FloorNumber {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            u8::schema_name()
        }

        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            u8::json_schema(generator)
        }
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Building {
        by_door: BTreeMap<std::num::NonZeroU16, u8>,
        by_wing: Option<HashMap<i8, BTreeMap<u64, bool>>>,
        rooms: Vec<Room>,
        by_floor: BTreeMap<FloorNumber, bool>,
        sign: Sign,
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Room {
        by_seat: HashMap<i128, bool>,
    }

    /// Internally tagged: serde reads the variant from its buffer, where
    /// no integer key can be read.
    #[derive(Deserialize, schemars::JsonSchema)]
    #[serde(tag = "kind")]
    #[allow(dead_code)]
    enum Sign {
        Lit { by_lamp: BTreeMap<u8, bool> },
    }

    /// The key patterns of the map `node` (a subschema, or its `$ref`).
    fn key_patterns<'s>(schema: &'s Value, node: &'s Value) -> Vec<&'s str> {
        let node = crate::schema::resolve(schema, node).unwrap_or(node);
        node["patternProperties"]
            .as_object()
            .unwrap_or_else(|| panic!("keys by pattern: {node}"))
            .keys()
            .map(String::as_str)
            .collect()
    }

    /// The schema of the values of the map `node`.
    fn map_values(node: &Value) -> &Value {
        node["patternProperties"]
            .as_object()
            .and_then(|p| p.values().next())
            .expect("keys by pattern")
    }

    #[test]
    fn each_map_states_the_range_of_its_key_type() {
        let mut schema = crate::schema::canonical::<Building>();
        state_keys(&mut schema, crate::__private::read_keys::<Building>);
        let range = |reads: &str, zero: bool| {
            let range = KeyRange::read_by(reads).expect("an integer type");
            KeyRange { zero, ..range }.pattern()
        };
        let member = |name: &str| &schema["properties"][name];
        assert_eq!(
            key_patterns(&schema, member("by_door")),
            [range("deserialize_u16", false)]
        );
        assert_eq!(
            key_patterns(&schema, member("by_wing")),
            [range("deserialize_i8", true)]
        );
        assert_eq!(
            key_patterns(&schema, map_values(member("by_wing"))),
            [range("deserialize_u64", true)]
        );
        let room = &schema["$defs"]["Room"]["properties"]["by_seat"];
        assert_eq!(
            key_patterns(&schema, room),
            [range("deserialize_i128", true)]
        );
        // A range of the key type's own, and a map in serde's buffer: the
        // schema keeps the pattern that states no range.
        assert_eq!(
            key_patterns(&schema, member("by_floor")),
            ["^(0|[1-9][0-9]*)$"]
        );
        assert!(crate::schema::has_integer_keys(&schema));
        let lamps = &schema["$defs"]["Sign"];
        let lamps = lamps.get("oneOf").map_or(lamps, |b| &b[0]);
        assert!(lamps.to_string().contains("^(0|[1-9][0-9]*)$"), "{lamps}");
        // Without them, no map is left whose keys' range is not stated.
        #[derive(Deserialize, schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Stated {
            by_door: BTreeMap<std::num::NonZeroU16, u8>,
            by_wing: Option<HashMap<i8, BTreeMap<u64, bool>>>,
            rooms: Vec<Room>,
        }
        let mut schema = crate::schema::canonical::<Stated>();
        state_keys(&mut schema, crate::__private::read_keys::<Stated>);
        assert!(!crate::schema::has_integer_keys(&schema), "{schema}");
    }

    /// Documented: schemars writes its names as a union of constants.
    #[derive(Deserialize, schemars::JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
    #[serde(rename_all = "snake_case")]
    enum Shade {
        /// Pale.
        Light,
        /// Deep.
        Dark,
    }

    /// Documented, with an alias: its names cannot be listed apart.
    #[derive(Deserialize, schemars::JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
    #[serde(rename_all = "snake_case")]
    enum Tone {
        /// Pale.
        #[serde(alias = "pale")]
        Light,
        /// Deep.
        Dark,
    }

    /// Documented, with a variant that takes any other name.
    #[derive(Deserialize, schemars::JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
    #[serde(rename_all = "snake_case")]
    enum Mood {
        /// Glad.
        Glad,
        /// Anything else.
        #[serde(other)]
        Other,
    }

    /// A letter read as a `char`, no other than `a` to `z`: a range of its
    /// own.
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    struct Lower(char);

    impl<'de> Deserialize<'de> for Lower {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            match char::deserialize(d)? {
                c @ 'a'..='z' => Ok(Lower(c)),
                _ => Err(serde::de::Error::custom("not a lower-case letter")),
            }
        }
    }

    impl schemars::JsonSchema for Lower {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            char::schema_name()
        }

        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            char::json_schema(generator)
        }
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Scalars {
        // Read first: a key its type refuses (`k0`) once ended the reading.
        a_flags: BTreeMap<bool, u8>,
        b_letters: Option<BTreeMap<char, BTreeMap<bool, u8>>>,
        c_shades: BTreeMap<Shade, u8>,
        d_tones: BTreeMap<Tone, u8>,
        e_moods: BTreeMap<Mood, u8>,
        f_lower: BTreeMap<Lower, u8>,
        g_names: HashMap<String, u8>,
        h_numbers: BTreeMap<u8, u8>,
    }

    #[test]
    fn each_map_states_what_its_bool_char_or_enum_keys_are() {
        let mut schema = crate::schema::canonical::<Scalars>();
        state_keys(&mut schema, crate::__private::read_keys::<Scalars>);
        let member = |name: &str| &schema["properties"][name];
        assert_eq!(key_patterns(&schema, member("a_flags")), ["^(true|false)$"]);
        assert_eq!(member("a_flags")["additionalProperties"], false);
        let letters = member("b_letters");
        assert_eq!(
            letters["propertyNames"],
            json!({"minLength": 1, "maxLength": 1}),
            "{letters}"
        );
        // Inside the values of a map that a round before reached.
        assert_eq!(
            key_patterns(&schema, &letters["additionalProperties"]),
            ["^(true|false)$"]
        );
        let mut names: Vec<&String> = (member("c_shades")["properties"].as_object())
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        names.sort();
        assert_eq!(names, ["dark", "light"]);
        assert_eq!(member("c_shades")["additionalProperties"], false);
        // An alias, a variant that takes any name, a range of its own and
        // strings: as schemars wrote them, any key.
        for open in ["d_tones", "e_moods", "f_lower", "g_names"] {
            let map = member(open);
            assert!(map["additionalProperties"].is_object(), "{open}: {map}");
            assert!(map.get("propertyNames").is_none(), "{open}: {map}");
            assert!(map.get("properties").is_none(), "{open}: {map}");
        }
        assert_eq!(
            key_patterns(&schema, member("h_numbers")),
            [KeyRange::read_by("deserialize_u8")
                .map(KeyRange::pattern)
                .unwrap()]
        );
    }

    /// Many maps whose first key (`k0`) their type refuses, one after the
    /// other: each round of readings goes one further.
    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Switchboard {
        a: BTreeMap<bool, u8>,
        b: BTreeMap<char, u8>,
        c: BTreeMap<bool, u8>,
        d: BTreeMap<char, u8>,
        e: BTreeMap<bool, u8>,
        f: BTreeMap<char, u8>,
        g: BTreeMap<bool, u8>,
        h: BTreeMap<char, u8>,
        i: BTreeMap<bool, u8>,
        j: BTreeMap<char, u8>,
        k: BTreeMap<bool, u8>,
        l: BTreeMap<char, u8>,
        m: BTreeMap<bool, u8>,
        n: BTreeMap<char, u8>,
        o: BTreeMap<bool, u8>,
        p: BTreeMap<char, u8>,
        q: BTreeMap<bool, u8>,
        r: BTreeMap<char, u8>,
        s: BTreeMap<u8, u8>,
    }

    #[test]
    fn every_map_is_reached_however_many_refuse_their_first_key() {
        let mut schema = crate::schema::canonical::<Switchboard>();
        state_keys(&mut schema, crate::__private::read_keys::<Switchboard>);
        let properties = schema["properties"].as_object().expect("members");
        for (name, map) in properties {
            let stated = map.get("propertyNames").is_some()
                || map["patternProperties"]
                    .as_object()
                    .is_some_and(|p| p.keys().all(|k| !crate::schema::is_integer_key_pattern(k)));
            assert!(stated, "{name}: {map}");
        }
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Floors {
        floors: Vec<Floor>,
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Floor {
        rooms: Vec<Ward>,
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Ward {
        lights: Option<BTreeMap<bool, u8>>,
        doors: BTreeMap<char, u8>,
        seats: BTreeMap<u16, u8>,
    }

    #[test]
    fn maps_a_few_lists_and_structs_down_are_reached() {
        let mut schema = crate::schema::canonical::<Floors>();
        state_keys(&mut schema, crate::__private::read_keys::<Floors>);
        let room = &schema["$defs"]["Ward"]["properties"];
        assert_eq!(key_patterns(&schema, &room["lights"]), ["^(true|false)$"]);
        assert_eq!(
            room["doors"]["propertyNames"],
            json!({"minLength": 1, "maxLength": 1})
        );
        assert_eq!(
            key_patterns(&schema, &room["seats"]),
            [KeyRange::read_by("deserialize_u16")
                .map(KeyRange::pattern)
                .unwrap()]
        );
    }

    #[test]
    fn the_rule_of_a_map_s_keys_is_said_in_words() {
        let words = |node: Value| crate::schema::map_keys::rule_in_words(&node);
        assert_eq!(
            words(json!({"patternProperties": {"^(true|false)$": {}}})).as_deref(),
            Some("keys must be true or false")
        );
        assert_eq!(
            words(json!({"patternProperties": {"^(true)$": {}}})).as_deref(),
            Some("keys must be true")
        );
        assert_eq!(
            words(json!({"propertyNames": {"minLength": 1, "maxLength": 1}})).as_deref(),
            Some("keys must be single characters")
        );
        assert_eq!(
            words(json!({"propertyNames": {"maxLength": 3}})).as_deref(),
            Some("keys must be at most 3 characters long")
        );
        assert_eq!(
            words(json!({"propertyNames": {"minLength": 2, "maxLength": 4}})).as_deref(),
            Some("keys must be from 2 to 4 characters long")
        );
        assert_eq!(words(json!({"patternProperties": {"^[a-z]+$": {}}})), None);
        assert_eq!(words(json!({"propertyNames": {"pattern": "^a$"}})), None);
        let pattern = crate::schema::map_keys::names_pattern(&["true", "false"]);
        let regex = regex::Regex::new(&pattern).expect("the server's regex compiles it");
        for (key, taken) in [
            ("true", true),
            ("false", true),
            ("True", false),
            ("truefalse", false),
        ] {
            assert_eq!(regex.is_match(key), taken, "{key}");
        }
        let schema = json!({"patternProperties": {pattern: {}}});
        let mut compiled = crate::register::pattern::Compiled::default();
        assert!(crate::register::pattern::check("t", &schema, &mut compiled).is_ok());
    }

    /// A key type whose `Deserialize` panics once it has read its integer.
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    struct Shaky(u8);

    impl<'de> Deserialize<'de> for Shaky {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let n = u8::deserialize(d)?;
            panic!("shaky key {n}");
        }
    }

    impl schemars::JsonSchema for Shaky {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            u8::schema_name()
        }

        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            u8::json_schema(generator)
        }
    }

    #[test]
    fn a_key_type_that_panics_leaves_the_pattern_as_schemars_wrote_it() {
        #[derive(Deserialize, schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Shelf {
            by_slot: BTreeMap<Shaky, bool>,
        }
        let mut schema = crate::schema::canonical::<Shelf>();
        let written = schema.clone();
        state_keys(&mut schema, crate::__private::read_keys::<Shelf>);
        assert_eq!(schema, written);
    }
}
