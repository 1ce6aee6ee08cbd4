//! Registration's check that a map keeps every key the model sent.
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
//!   `deserialize_f64`, bytes) is a parse, and a parse may normalize.
//!
//! Keys that serde buffers first (untagged and internally tagged enums,
//! `flatten`) reach their type from serde's buffer, out of this probe's
//! sight; they are left undecided, never refused. The reader is the
//! deserializer every tool's arguments are compiled for already: the probe
//! adds none.

use serde_json::Value;

use crate::pointer::{self, Step};
use crate::reader::KeyParse;

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
/// [`crate::reader::probing_keys`]). Not generic: compiled once, not once
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
    let steps: Vec<Step> = open.into_iter().collect::<Option<_>>()?;
    Some(pointer::of_steps(&steps))
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

    use super::{ParsedKey, object_at, parsed_key};

    /// The probe as registration runs it, for the arguments type `A`.
    fn parsed_key_of<A: serde::de::DeserializeOwned>(instance: &Value) -> Option<ParsedKey> {
        let key_parse = |text: &str| {
            crate::reader::probing_keys(|| {
                crate::reader::probe_keys(text, &mut crate::reader::Read::<A>(None));
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
}
