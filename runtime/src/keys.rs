//! Map keys: registration's check that a map keeps every key the model
//! sent, and the range of integer keys, stated in the schema.
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
//!
//! schemars writes any integer key as digits (`^\d+$`), whatever its type:
//! `"300"` for a `u8` key, which the server refuses. The same reading
//! tells each map's integer key type ([`state_ranges`]), and the schema
//! then states its range in the key's pattern ([`KeyRange::pattern`]), so
//! that the server and the schema take the same keys.

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

/// The integers a map's keys may be: `min` to `max`, but `0` where
/// `zero` is false (a `NonZeroU32` key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeyRange {
    pub(crate) min: i128,
    pub(crate) max: u128,
    pub(crate) zero: bool,
}

impl KeyRange {
    /// The range of the integer type whose `deserialize_*` method is
    /// `reads`; `None` for any other method.
    fn read_by(reads: &str) -> Option<KeyRange> {
        let (min, max): (i128, u128) = match reads {
            "deserialize_u8" => (0, u8::MAX.into()),
            "deserialize_u16" => (0, u16::MAX.into()),
            "deserialize_u32" => (0, u32::MAX.into()),
            "deserialize_u64" => (0, u64::MAX.into()),
            "deserialize_u128" => (0, u128::MAX),
            "deserialize_i8" => (i8::MIN.into(), i8::MAX.unsigned_abs().into()),
            "deserialize_i16" => (i16::MIN.into(), i16::MAX.unsigned_abs().into()),
            "deserialize_i32" => (i32::MIN.into(), i32::MAX.unsigned_abs().into()),
            "deserialize_i64" => (i64::MIN.into(), i64::MAX.unsigned_abs().into()),
            "deserialize_i128" => (i128::MIN, i128::MAX.unsigned_abs()),
            _ => return None,
        };
        Some(KeyRange {
            min,
            max,
            zero: true,
        })
    }

    /// The key pattern of exactly the integers of this range, each
    /// written as serde_json reads a number key: `0`, or digits without a
    /// leading zero, after `-` for a negative one. Only literals,
    /// `[0-9]`-style classes, counted repetitions, groups and `|`: read
    /// alike by the server's regex and by ECMA-262, and simple enough for
    /// every provider that keeps patterns. `u8`:
    /// `^(0|[1-9][0-9]?|1[0-9]{2}|2[0-4][0-9]|25[0-5])$`.
    pub(crate) fn pattern(self) -> String {
        let mut branches = Vec::new();
        if self.zero {
            branches.push("0".to_owned());
        }
        branches.extend(up_to(self.max));
        let below = self.min.unsigned_abs();
        if self.min < 0 {
            branches.push(format!("-({})", up_to(below).join("|")));
        }
        format!("^({})$", branches.join("|"))
    }

    /// The range of a pattern [`Self::pattern`] wrote for an integer type,
    /// if `pattern` is one.
    pub(crate) fn of_pattern(pattern: &str) -> Option<KeyRange> {
        static WRITTEN: std::sync::OnceLock<Vec<(String, KeyRange)>> = std::sync::OnceLock::new();
        let written = WRITTEN.get_or_init(|| {
            let types = [
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
            ];
            types
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
                .map(|range| (range.pattern(), range))
                .collect()
        });
        written
            .iter()
            .find(|(written, _)| written == pattern)
            .map(|(_, range)| *range)
    }

    /// Whether `key` is one of these integers, written as JSON writes one:
    /// what [`Self::pattern`] matches.
    pub(crate) fn takes(self, key: &str) -> bool {
        let digits = key.strip_prefix('-').unwrap_or(key);
        let written = matches!(digits.as_bytes(), [b'0'] | [b'1'..=b'9', ..])
            && digits.bytes().all(|b| b.is_ascii_digit())
            && key != "-0";
        let within = match key.strip_prefix('-') {
            Some(_) => key.parse::<i128>().is_ok_and(|n| n >= self.min),
            None => key.parse::<u128>().is_ok_and(|n| n <= self.max),
        };
        written && within && (self.zero || key != "0")
    }

    /// The range in words, for a dialect that drops the pattern: `keys
    /// must be whole numbers from 0 to 255, written in digits`.
    pub(crate) fn words(self) -> String {
        let (min, except) = match (self.min, self.zero) {
            (0, false) => (1, ""),
            (min, false) => (min, " other than 0"),
            (min, true) => (min, ""),
        };
        format!(
            "keys must be whole numbers from {min} to {}{except}, written in digits",
            self.max
        )
    }
}

/// The branches of a pattern of the integers from 1 to `max`, written
/// without a leading zero: those with fewer digits than `max`, then, for
/// each digit of `max`, those that keep the digits before it and are
/// lower there (at the last digit, not higher). `255`: `[1-9][0-9]?`,
/// `1[0-9]{2}`, `2[0-4][0-9]`, `25[0-5]`.
fn up_to(max: u128) -> Vec<String> {
    let digits = max.to_string().into_bytes();
    let n = digits.len();
    let mut branches = Vec::new();
    if max == 0 {
        return branches;
    }
    if n >= 2 {
        branches.push(format!("[1-9]{}", any_digits(0, n - 2)));
    }
    for (i, &digit) in digits.iter().enumerate() {
        let lowest = if i == 0 { b'1' } else { b'0' };
        let last = i + 1 == n;
        let highest = if last { digit } else { digit.saturating_sub(1) };
        if digit < lowest || (!last && digit == lowest) {
            continue;
        }
        let prefix = String::from_utf8_lossy(digits.get(..i).unwrap_or_default());
        let rest = any_digits(n - i - 1, n - i - 1);
        branches.push(format!("{prefix}{}{rest}", class(lowest, highest)));
    }
    branches
}

/// One digit from `low` to `high`: `7` or `[0-6]`.
fn class(low: u8, high: u8) -> String {
    if low == high {
        char::from(low).to_string()
    } else {
        format!("[{}-{}]", char::from(low), char::from(high))
    }
}

/// From `min` to `max` digits: ``, `[0-9]`, `[0-9]?`, `[0-9]{3}`,
/// `[0-9]{0,8}`.
fn any_digits(min: usize, max: usize) -> String {
    match (min, max) {
        (_, 0) => String::new(),
        (1, 1) => "[0-9]".to_owned(),
        (0, 1) => "[0-9]?".to_owned(),
        (min, max) if min == max => format!("[0-9]{{{min}}}"),
        (min, max) => format!("[0-9]{{{min},{max}}}"),
    }
}

/// Replaces in `schema` each key pattern of integers that states no range
/// (see [`crate::schema::is_integer_key_pattern`]) with the range of the
/// key type the map reads (see [`KeyRange::pattern`]). `read` reads a
/// document as the tool's arguments ([`crate::reader::read_keys`]):
/// instances of the schema with the key `1` in each such map show what
/// each key type asks for (`deserialize_u32`), and the key type is tried
/// with `0` (refused by a `NonZeroU32`), its range's ends and `-1`. A map
/// the instances do not reach, or whose key type takes other keys than an
/// integer type's (one of its own with a `Deserialize` of its own), keeps
/// its pattern, and the tool's description says that keys must fit their
/// type (`integer-map-keys` in [`crate::KNOWN_DIFFERENCES`]).
pub(crate) fn state_ranges(schema: &mut Value, read: fn(&str)) {
    if !crate::schema::has_integer_keys(schema) {
        return;
    }
    // The arguments' `Deserialize` is the user's code, run here on
    // instances no model sent: should it panic, the patterns stay as
    // schemars wrote them, rather than the definition failing with it.
    let learning = std::panic::AssertUnwindSafe(|| learned(schema, read));
    let ranges = std::panic::catch_unwind(learning).unwrap_or_default();
    if ranges.is_empty() {
        return;
    }
    let mut places = Vec::new();
    located(schema, &ranges, &mut Vec::new(), &mut places);
    // The deepest first: a map inside another's values is reached through
    // the other's pattern, still the one the places were found under.
    places.sort_by_key(|(steps, _)| core::cmp::Reverse(steps.len()));
    for (steps, range) in places {
        let at = pointer::exact_of_steps(&steps);
        let patterns = schema
            .pointer_mut(&at)
            .and_then(|node| node.get_mut("patternProperties"))
            .and_then(Value::as_object_mut);
        let Some(patterns) = patterns else { continue };
        let unstated: Vec<String> = patterns
            .keys()
            .filter(|k| crate::schema::is_integer_key_pattern(k))
            .cloned()
            .collect();
        for key in unstated {
            if let Some(values) = patterns.remove(&key) {
                patterns.insert(range.pattern(), values);
            }
        }
    }
}

/// The range of each map's integer keys that the instances of `schema`
/// show, by the address of the map's subschema.
fn learned(schema: &Value, read: fn(&str)) -> Vec<(usize, KeyRange)> {
    let instances = crate::lengths::keyed_instances(schema);
    // Each map: how its keys were read, and one place to try other keys.
    let mut seen: Vec<(usize, Option<&'static str>, &Value, &[Step])> = Vec::new();
    for (instance, keyed) in &instances {
        let text = instance.to_string();
        let reads = crate::reader::integer_keys(|| read(&text));
        for (end, reads, took) in reads {
            let Some(steps) = steps_at(&text, end) else {
                continue;
            };
            let Some((path, map)) = keyed.iter().find(|(path, _)| same(path, &steps)) else {
                continue;
            };
            match seen.iter_mut().find(|(m, ..)| m == map) {
                // Two readings of one subschema: one type, or undecided.
                Some((_, method, ..)) if *method != Some(reads).filter(|_| took) => {
                    *method = None;
                }
                Some(_) => {}
                None => seen.push((*map, Some(reads).filter(|_| took), instance, path)),
            }
        }
    }
    seen.into_iter()
        .filter_map(|(map, reads, instance, path)| {
            let range = KeyRange::read_by(reads?)?;
            Some((map, tried(range, instance, path, read)?))
        })
        .collect()
}

/// `range`, once the key type has taken its ends, `-1` and `1` (which it
/// took already), and `0` where it takes it; `None` where it refused
/// one, or where a reading did not reach the key.
fn tried(range: KeyRange, instance: &Value, path: &[Step], read: fn(&str)) -> Option<KeyRange> {
    let takes = |key: String| -> Option<bool> {
        let mut instance = instance.clone();
        let map = path
            .iter()
            .try_fold(&mut instance, |value, step| match step {
                Step::Key(k) => value.get_mut(k.as_str()),
                Step::Index(i) => value.get_mut(*i),
            })?
            .as_object_mut()?;
        let entry = map.remove("1")?;
        map.insert(key, entry);
        let text = instance.to_string();
        let reads = crate::reader::integer_keys(|| read(&text));
        reads
            .iter()
            .find(|(end, ..)| steps_at(&text, *end).is_some_and(|steps| same(path, &steps)))
            .map(|(_, _, took)| *took)
    };
    let zero = takes("0".to_owned())?;
    let range = KeyRange { zero, ..range };
    let mut ends = vec![range.max.to_string()];
    if range.min < 0 {
        ends.extend([range.min.to_string(), "-1".to_owned()]);
    }
    ends.into_iter()
        .all(|key| takes(key) == Some(true))
        .then_some(range)
}

/// Whether two paths name the same place.
fn same(a: &[Step], b: &[Step]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|pair| match pair {
            (Step::Key(a), Step::Key(b)) => a == b,
            (Step::Index(a), Step::Index(b)) => a == b,
            _ => false,
        })
}

/// The steps from the root of `node` to each subschema `ranges` names (by
/// its address), with its range; each once.
fn located(
    node: &Value,
    ranges: &[(usize, KeyRange)],
    at: &mut Vec<Step>,
    out: &mut Vec<(Vec<Step>, KeyRange)>,
) {
    match node {
        Value::Object(map) => {
            let address = core::ptr::from_ref(map) as usize;
            if let Some((_, range)) = ranges.iter().find(|(a, _)| *a == address) {
                out.push((at.clone(), *range));
            }
            for (key, child) in map {
                at.push(Step::Key(key.clone()));
                located(child, ranges, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(Step::Index(i));
                located(child, ranges, at, out);
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

    use super::{KeyRange, ParsedKey, object_at, parsed_key, state_ranges};

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
            // Read back, and read alike by ECMA-262 (see `crate::pattern`).
            assert_eq!(KeyRange::of_pattern(&pattern), Some(range));
            let schema = json!({"patternProperties": {pattern.clone(): {}}});
            let mut compiled = crate::pattern::Compiled::default();
            assert!(
                crate::pattern::check("t", &schema, &mut compiled).is_ok(),
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
        state_ranges(&mut schema, crate::__private::read_keys::<Building>);
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
        state_ranges(&mut schema, crate::__private::read_keys::<Stated>);
        assert!(!crate::schema::has_integer_keys(&schema), "{schema}");
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
        state_ranges(&mut schema, crate::__private::read_keys::<Shelf>);
        assert_eq!(schema, written);
    }
}
