//! JSON instances around a schema, for the differential test: valid ones
//! that reach every bound, and edges just past them. Deterministic for a
//! seed.
//!
//! A generated instance is a tree of valid values in which one or two
//! places (chosen uniformly among every value generated) are replaced by an
//! edge of the schema node that described them:
//!
//! - numbers: each end of the stated range and one past it, every integer
//!   type's own ends, `-0`, integers written as floats (`2.0`, `1e2`) and fractions;
//! - strings: lengths at and one past `minLength`/`maxLength`, counted in
//!   characters and written with multi-byte characters, every repetition
//!   count of a pattern's quantifiers (`{1,12}` gives 0, 1, 12 and 13), and
//!   the characters where regex dialects differ (`\r`, `\n`, U+2028,
//!   U+2029, a trailing newline, non-ASCII and fullwidth digits, U+FEFF);
//! - arrays and maps: sizes at and one past their bounds, edge keys (`00`,
//!   `007`, `-0`, `""`, non-ASCII), each integer type's ends and one past
//!   them as keys, `true` and `false` and their near misses (`True`,
//!   `tru`), keys of one character and of more than one code point (a
//!   letter and a combining mark, two emoji), keys at and one past the
//!   lengths `propertyNames` allows, and keys written with escapes
//!   (`"\u0037"`, `"\u0074rue"`, a surrogate pair for an emoji);
//! - free-form values (a schema that states no type, `serde_json::Value`):
//!   numbers in every spelling (`1E2`, `-0`, `-0.0`, `1.0`, integers past
//!   64 bits, the smallest and largest doubles), nested in arrays and
//!   objects;
//! - structure: an array for every object (its values positionally, as
//!   serde reads a struct from a sequence), an object for every array,
//!   every other JSON type for every value, extra and missing keys, and
//!   keys of one union branch mixed into another (`{"kind":"dot",
//!   "radius":5}`).
//!
//! Some edges are JSON text a `Value` cannot hold (`-0`, integers past 64
//! bits): they are kept as raw tokens and written by [`Generator::render`].

use std::collections::HashMap;

use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Number, Value};

/// SplitMix64: small, fast, and the same on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi as i128 - lo as i128) as u128 + 1;
        (lo as i128 + (u128::from(self.next_u64()) % span) as i128) as i64
    }

    /// Uniform in `lo..=hi`, for 128-bit bounds.
    pub fn range128(&mut self, lo: i128, hi: i128) -> i128 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u128 + 1;
        let r = (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64());
        lo + (r % span) as i128
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        items.get((self.next_u64() % items.len() as u64) as usize)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Marks a string that [`Generator::render`] writes as a raw JSON token.
const RAW: &str = "\u{0}\u{1}raw:";

/// Marks a key that [`Generator::render`] writes with every character
/// escaped: `"\u0037"` for `7`.
const ESCAPED: &str = "\u{0}\u{2}esc:";

/// A JSON token a `Value` cannot hold, written as it is by
/// [`Generator::render`]: `-0`, `1e2`, `18446744073709551616`.
pub fn raw(token: &str) -> Value {
    Value::String(format!("{RAW}{token}"))
}

fn is_raw(value: &Value) -> bool {
    value.as_str().is_some_and(|s| s.starts_with(RAW))
}

/// Characters where string lengths and regex dialects part ways: several
/// UTF-8 bytes or two UTF-16 units for one character, line terminators
/// that `.`, `$` and `\s` treat differently, digits that `\d` matches in
/// Unicode mode only, a byte-order mark, and letters whose case folding
/// leaves ASCII.
pub const EDGE_CHARS: [char; 20] = [
    '\r', '\n', '\u{2028}', '\u{2029}', '\u{85}', '\t', '\u{0}', '\u{7f}', '٣', '３', '\u{FEFF}',
    '\u{A0}', 'é', 'ß', '€', '😀', 'İ', '\u{212A}', 'ſ', '\u{301}',
];

/// Characters for strings without a pattern: ASCII and multi-byte.
const ALPHABET: [char; 16] = [
    'a', 'z', 'A', '0', '_', '-', ' ', 'é', 'ß', '€', '😀', '"', '\\', '٣', '\u{2028}', '\n',
];

/// Keys where a map's key reading may part ways with its pattern.
const EDGE_KEYS: [&str; 24] = [
    "",
    "0",
    "00",
    "007",
    "01",
    "-0",
    "-1",
    "1",
    "+1",
    " 1",
    "1 ",
    "1\n",
    "1.0",
    "1e2",
    "255",
    "256",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "٣",
    "３",
    "é",
    "key",
];

/// Keys where a map of `bool` or `char` keys may part ways with its
/// schema: `true` and `false` and their near misses, single characters of
/// one to four UTF-8 bytes (the last two UTF-16 units), and strings of
/// two code points that look like one character (a letter and a combining
/// mark, a flag of two regional indicators, CR LF).
const SCALAR_KEYS: [&str; 20] = [
    "true", "false", "True", "FALSE", "tru", "truee", "yes", "null", "a", "é", "€", "😀", "\u{0}",
    "\"", "\u{301}", "e\u{301}", "😀😀", "🇫🇷", "\r\n", "ab",
];

/// Map keys at the ends of the 128-bit integer types and one past them,
/// and of `i64` and `u64` one past (as keys they are text: no validator
/// rounds them).
const WIDE_KEYS: [&str; 8] = [
    "-170141183460469231731687303715884105729",
    "-170141183460469231731687303715884105728",
    "170141183460469231731687303715884105727",
    "170141183460469231731687303715884105728",
    "340282366920938463463374607431768211455",
    "340282366920938463463374607431768211456",
    "-9223372036854775809",
    "18446744073709551616",
];

/// Numbers for free-form values, in every spelling a model may send: each
/// must reach the tool as serde_json reads it.
const FREE_NUMBERS: [&str; 26] = [
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
    "-7",
    "42",
    "0.1",
    "123456789.123456789",
    "9007199254740993",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "100000000000000000000000",
    "1e-300",
    "5e-324",
    "2.2250738585072014e-308",
    "1.7976931348623157e308",
    "-1.7976931348623157e308",
    "1e-400",
];

/// Every integer type's own ends and one past them. Not past 64 bits: a
/// validator fed by a 64-bit JSON parser reads `18446744073709551616` as a
/// float equal to `u64::MAX`, so it could not judge such a token fairly
/// (those go to `number` fields only, see [`WIDE_TOKENS`]).
const TYPE_ENDS: [i128; 24] = [
    -129,
    -128,
    127,
    128,
    255,
    256,
    -32769,
    -32768,
    32767,
    32768,
    65535,
    65536,
    i32::MIN as i128 - 1,
    i32::MIN as i128,
    i32::MAX as i128,
    i32::MAX as i128 + 1,
    u32::MAX as i128,
    u32::MAX as i128 + 1,
    i64::MIN as i128,
    i64::MAX as i128,
    i64::MAX as i128 + 1,
    u64::MAX as i128,
    -1,
    0,
];

/// JSON number texts that are integral without being integer tokens, or
/// that a `Value` would change.
const NUMBER_TOKENS: [&str; 12] = [
    "-0", "-0.0", "0.0", "2.0", "1e2", "1E0", "1.0e1", "10e-1", "0e5", "-1.0", "1e-300", "5e-324",
];

/// Integer tokens past 64 bits, for `number` fields, which read them as
/// floats.
const WIDE_TOKENS: [&str; 3] = [
    "18446744073709551616",
    "-9223372036854775809",
    "100000000000000000000000",
];

/// Generates instances of one schema.
pub struct Generator<'s> {
    root: &'s Value,
    pub rng: Rng,
    patterns: HashMap<String, Option<Hir>>,
    /// Where each value of the instance being built came from.
    sites: Vec<(String, &'s Value)>,
}

impl<'s> Generator<'s> {
    pub fn new(root: &'s Value, seed: u64) -> Self {
        Generator {
            root,
            rng: Rng::new(seed),
            patterns: HashMap::new(),
            sites: Vec::new(),
        }
    }

    /// The next instance: about four in ten valid, the rest with one or two
    /// edges, and now and then a blind change.
    pub fn instance(&mut self) -> Value {
        self.sites.clear();
        let mut value = self.valid_at(self.root, 0, String::new());
        if self.rng.chance(40) {
            return value;
        }
        if self.rng.chance(10) {
            self.mutate(&mut value);
        }
        let sites = std::mem::take(&mut self.sites);
        // Maps are a few of many values: now and then one of them is the
        // place, so that their keys meet their edges often enough.
        let maps: Vec<(String, &'s Value)> = (sites.iter())
            .filter(|(_, node)| Self::is_map(node))
            .cloned()
            .collect();
        let edges = if self.rng.chance(80) { 1 } else { 2 };
        for _ in 0..edges {
            let from = if !maps.is_empty() && self.rng.chance(25) {
                &maps
            } else {
                &sites
            };
            let Some((pointer, node)) = self.rng.pick(from).cloned() else {
                break;
            };
            let Some(current) = value.pointer(&pointer).cloned() else {
                continue;
            };
            let edge = self.edge(node, &current, pointer.matches('/').count());
            if let Some(target) = value.pointer_mut(&pointer) {
                *target = edge;
            }
        }
        self.sites = sites;
        one_spelling(&mut value);
        value
    }

    /// The instance as JSON text, raw tokens written as they are, and
    /// escaped keys with every character escaped.
    pub fn render(value: &Value) -> String {
        let text = serde_json::to_string(value).expect("a Value serializes");
        let text = Self::escape_keys(&text);
        let marker = "\"\\u0000\\u0001raw:";
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find(marker) {
            out.push_str(&rest[..at]);
            let after = &rest[at + marker.len()..];
            let end = after.find('"').unwrap_or(after.len());
            out.push_str(&after[..end]);
            rest = after.get(end + 1..).unwrap_or("");
        }
        out.push_str(rest);
        out
    }

    /// `text` with each key marked [`ESCAPED`] written with every
    /// character escaped, as UTF-16 units (a surrogate pair for a
    /// character past U+FFFF). Such keys hold no quote, backslash or
    /// control character (see [`Self::escapable`]), so serde_json writes
    /// them as they are.
    fn escape_keys(text: &str) -> String {
        let marker = "\"\\u0000\\u0002esc:";
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(marker) {
            out.push_str(&rest[..at]);
            let after = &rest[at + marker.len()..];
            let end = after.find('"').unwrap_or(after.len());
            out.push('"');
            for unit in after[..end].encode_utf16() {
                out.push_str(&format!("\\u{unit:04x}"));
            }
            out.push('"');
            rest = after.get(end + 1..).unwrap_or("");
        }
        out.push_str(rest);
        out
    }

    /// `key`, to be written with every character escaped.
    pub fn escaped(key: &str) -> String {
        format!("{ESCAPED}{key}")
    }

    /// Whether `key` can be written with every character escaped (see
    /// [`Self::render`]): it holds no quote, backslash or control
    /// character, which serde_json would escape itself.
    pub fn escapable(key: &str) -> bool {
        !key.is_empty() && !key.chars().any(|c| c == '"' || c == '\\' || c < ' ')
    }

    /// The lengths in characters that the `propertyNames` of `node` allows
    /// its keys, if it states them.
    fn key_lengths(node: &Value) -> Option<(usize, Option<usize>)> {
        let names = node.get("propertyNames")?;
        let min = names.get("minLength").and_then(Value::as_u64);
        let max = names.get("maxLength").and_then(Value::as_u64);
        if min.is_none() && max.is_none() {
            return None;
        }
        Some((min.unwrap_or(0) as usize, max.map(|m| m as usize)))
    }

    /// A key of `len` characters: any of them, now and then one where
    /// lengths part ways (several UTF-8 bytes, two UTF-16 units, a
    /// combining mark).
    fn key_of_len(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| match self.rng.chance(30) {
                true => *self.rng.pick(&EDGE_CHARS).unwrap_or(&'é'),
                false => *self.rng.pick(&ALPHABET).unwrap_or(&'a'),
            })
            .collect()
    }

    fn resolve(&self, node: &'s Value) -> &'s Value {
        let mut node = node;
        for _ in 0..8 {
            match node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
            {
                Some(pointer) => node = self.root.pointer(pointer).unwrap_or(node),
                None => break,
            }
        }
        node
    }

    fn branches(node: &'s Value) -> Option<&'s Vec<Value>> {
        node.get("anyOf")
            .or_else(|| node.get("oneOf"))
            .and_then(Value::as_array)
    }

    fn types(node: &Value) -> Vec<&str> {
        match node.get("type") {
            Some(Value::String(t)) => vec![t],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// A value the schema accepts (boundaries included).
    pub fn valid(&mut self, node: &'s Value, depth: usize) -> Value {
        self.valid_at(node, depth, String::new())
    }

    fn valid_at(&mut self, node: &'s Value, depth: usize, at: String) -> Value {
        if depth > 12 {
            return Value::Null;
        }
        let node = self.resolve(node);
        if Self::is_free(node) {
            self.sites.push((at, node));
            return self.free(depth);
        }
        if let Some(branches) = Self::branches(node) {
            self.sites.push((at.clone(), node));
            // Deep in a recursive type, take the branch without a `$ref`.
            let branch = if depth > 6 {
                branches
                    .iter()
                    .find(|b| b.get("$ref").is_none())
                    .or(branches.first())
            } else {
                self.rng.pick(branches)
            };
            return self.valid_at(branch.unwrap_or(&Value::Null), depth + 1, at);
        }
        self.sites.push((at.clone(), node));
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            return self.rng.pick(values).cloned().unwrap_or(Value::Null);
        }
        if let Some(constant) = node.get("const") {
            return constant.clone();
        }
        let types = Self::types(node);
        let non_null: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        let kind = if types.contains(&"null") && (non_null.is_empty() || self.rng.chance(15)) {
            "null"
        } else {
            self.rng.pick(&non_null).copied().unwrap_or("string")
        };
        match kind {
            "object" => self.object(node, depth, &at),
            "array" => self.array(node, depth, &at),
            "integer" => self.valid_integer(node),
            "number" => self.valid_number(node),
            "boolean" => Value::Bool(self.rng.chance(50)),
            "null" => Value::Null,
            _ => Value::String(self.valid_string(node)),
        }
    }

    /// Whether `node` describes a map: keys its patterns or its values'
    /// schema take.
    fn is_map(node: &Value) -> bool {
        node.get("patternProperties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty())
            || node
                .get("additionalProperties")
                .is_some_and(Value::is_object)
    }

    /// Whether `node` states nothing of its value's type: a free-form
    /// value (`serde_json::Value`).
    fn is_free(node: &Value) -> bool {
        const TYPING: [&str; 11] = [
            "type",
            "enum",
            "const",
            "anyOf",
            "oneOf",
            "allOf",
            "$ref",
            "properties",
            "items",
            "additionalProperties",
            "patternProperties",
        ];
        match node {
            Value::Bool(any) => *any,
            Value::Object(map) => !TYPING.iter().any(|k| map.contains_key(*k)),
            _ => false,
        }
    }

    /// A free-form value: a number in one of its spellings half the time,
    /// else any other JSON value, nested a few levels at most.
    fn free(&mut self, depth: usize) -> Value {
        let kinds = if depth > 8 { 3 } else { 5 };
        match self.rng.below(kinds) {
            0 => raw(self.rng.pick(&FREE_NUMBERS).unwrap_or(&"1E2")),
            1 => match self.rng.below(4) {
                0 => Value::from(self.rng.range(-5, 5)),
                1 => Value::Null,
                2 => Value::Bool(self.rng.chance(50)),
                _ => Value::String(self.text(3)),
            },
            2 => raw(self.rng.pick(&FREE_NUMBERS).unwrap_or(&"-0")),
            3 => {
                let n = self.rng.below(4);
                Value::Array((0..n).map(|_| self.free(depth + 1)).collect())
            }
            _ => {
                let n = self.rng.below(4);
                Value::Object(
                    (0..n)
                        .map(|i| (format!("k{i}"), self.free(depth + 1)))
                        .collect(),
                )
            }
        }
    }

    fn child(at: &str, key: &str) -> String {
        format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"))
    }

    fn object(&mut self, node: &'s Value, depth: usize, at: &str) -> Value {
        let mut map = Map::new();
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, schema) in node
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if required.contains(&name.as_str()) || (depth < 6 && self.rng.chance(50)) {
                let value = self.valid_at(schema, depth + 1, Self::child(at, name));
                map.insert(name.clone(), value);
            }
        }
        // A map: keys its patterns or its value schema accept, at its sizes.
        let patterns = node.get("patternProperties").and_then(Value::as_object);
        // A map of free-form values says `true`.
        let additional = node
            .get("additionalProperties")
            .filter(|a| a.is_object() || **a == Value::Bool(true));
        if patterns.is_some_and(|p| !p.is_empty()) || additional.is_some() {
            let (min, max) = Self::size_bounds(node, "minProperties", "maxProperties", 4);
            let size = self.size(min, max, depth);
            for _ in 0..size * 3 {
                if map.len() >= size {
                    break;
                }
                let (key, schema) = match patterns.and_then(|p| {
                    let entries: Vec<_> = p.iter().collect();
                    self.rng.pick(&entries).copied()
                }) {
                    Some((pattern, schema)) => {
                        let key = self.matching_pattern(pattern, 0, 12, false);
                        (key, schema)
                    }
                    None => {
                        let key = match Self::key_lengths(node) {
                            Some((min, max)) => {
                                let len = self.rng.range(min as i64, max.unwrap_or(min + 4) as i64);
                                self.key_of_len(len as usize)
                            }
                            None => self.map_key(),
                        };
                        (key, additional.unwrap_or(&Value::Null))
                    }
                };
                if !map.contains_key(&key) {
                    let value = self.valid_at(schema, depth + 1, Self::child(at, &key));
                    map.insert(key, value);
                }
            }
        }
        Value::Object(map)
    }

    /// A key for a map of strings: short text, an edge key, non-ASCII.
    fn map_key(&mut self) -> String {
        if self.rng.chance(40) {
            return (*self.rng.pick(&EDGE_KEYS).unwrap_or(&"k")).to_owned();
        }
        let len = self.rng.range(0, 4) as usize;
        (0..len)
            .map(|_| *self.rng.pick(&ALPHABET).unwrap_or(&'a'))
            .collect()
    }

    fn size_bounds(node: &Value, min_key: &str, max_key: &str, spread: usize) -> (usize, usize) {
        let min = node.get(min_key).and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = node
            .get(max_key)
            .and_then(Value::as_u64)
            .map_or(min + spread, |m| m as usize);
        (min, max)
    }

    /// A size in `min..=max`: either end half the time.
    fn size(&mut self, min: usize, max: usize, depth: usize) -> usize {
        let max = max.min(min + 24);
        if depth > 6 {
            return min;
        }
        match self.rng.below(4) {
            0 => min,
            1 => max,
            _ => self.rng.range(min as i64, max as i64) as usize,
        }
    }

    fn array(&mut self, node: &'s Value, depth: usize, at: &str) -> Value {
        let prefix = node
            .get("prefixItems")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let (min, max) = Self::size_bounds(node, "minItems", "maxItems", 4);
        let len = self.size(min, max, depth);
        let unique = node.get("uniqueItems") == Some(&Value::Bool(true));
        let items = node.get("items").unwrap_or(&Value::Null);
        let mut out: Vec<Value> = Vec::new();
        let mut tries = 0;
        while out.len() < len && tries < 50 {
            tries += 1;
            let schema = prefix.get(out.len()).unwrap_or(items);
            if schema == &Value::Bool(false) {
                break;
            }
            let mark = self.sites.len();
            let item = self.valid_at(schema, depth + 1, format!("{at}/{}", out.len()));
            if unique && out.contains(&item) {
                self.sites.truncate(mark);
            } else {
                out.push(item);
            }
        }
        Value::Array(out)
    }

    /// The stated range of a number, as 128-bit integers where it is whole.
    fn range(node: &Value) -> (Option<f64>, Option<f64>) {
        (
            node.get("minimum").and_then(Value::as_f64),
            node.get("maximum").and_then(Value::as_f64),
        )
    }

    fn int_bound(node: &Value, key: &str) -> Option<i128> {
        let v = node.get(key)?;
        v.as_i64()
            .map(i128::from)
            .or_else(|| v.as_u64().map(i128::from))
            .or_else(|| {
                v.as_f64().map(|f| {
                    if key == "minimum" {
                        f.ceil() as i128
                    } else {
                        f.floor() as i128
                    }
                })
            })
    }

    fn int_value(n: i128) -> Value {
        match (i64::try_from(n), u64::try_from(n)) {
            (Ok(n), _) => Value::from(n),
            (_, Ok(n)) => Value::from(n),
            _ => raw(&n.to_string()),
        }
    }

    fn valid_integer(&mut self, node: &Value) -> Value {
        let min = Self::int_bound(node, "minimum").unwrap_or(-1_000_000);
        let max = Self::int_bound(node, "maximum").unwrap_or(min.saturating_add(2_000_000));
        let n = match self.rng.below(8) {
            0 => min,
            1 => max,
            2 => (min + 1).min(max),
            3 => (max - 1).max(min),
            4 => 0.clamp(min, max),
            5 => self.rng.range128(min, max.min(min + 100)),
            _ => self.rng.range128(min, max),
        };
        Self::int_value(n)
    }

    fn valid_number(&mut self, node: &Value) -> Value {
        let (min, max) = Self::range(node);
        let lo = min.unwrap_or(-1.0e6);
        let hi = max.unwrap_or(lo.abs().max(1.0) * 2.0e6);
        let f = match self.rng.below(8) {
            0 => lo,
            1 => hi,
            // A whole number, written as one.
            2 if lo.ceil() <= hi && lo.abs() < 1.0e15 => return Value::from(lo.ceil() as i64),
            3 if min.is_none() && max.is_none() => *self
                .rng
                .pick(&[1.0e308, -1.0e308, 5e-324, 0.1, 1.0e15 + 0.5])
                .unwrap_or(&0.0),
            _ => lo + (hi - lo) * (self.rng.next_u64() % 1000) as f64 / 1000.0,
        };
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }

    fn valid_string(&mut self, node: &Value) -> String {
        let (min, max) = Self::size_bounds(node, "minLength", "maxLength", 12);
        let target = self.size(min, max, 0);
        if let Some(pattern) = node.get("pattern").and_then(Value::as_str) {
            let mut best = String::new();
            for _ in 0..20 {
                let out = self.matching_pattern(pattern, min, target, false);
                let n = out.chars().count();
                if (min..=max).contains(&n) {
                    return out;
                }
                best = out;
            }
            return best;
        }
        self.text(target)
    }

    fn text(&mut self, len: usize) -> String {
        // Now and then only multi-byte characters, so that a count in bytes
        // or UTF-16 units lands past the bound.
        if self.rng.chance(25) {
            let wide = ['é', '€', '😀', '٣'];
            let c = *self.rng.pick(&wide).unwrap_or(&'é');
            return std::iter::repeat_n(c, len).collect();
        }
        (0..len)
            .map(|_| *self.rng.pick(&ALPHABET).unwrap_or(&'a'))
            .collect()
    }

    fn hir(&mut self, pattern: &str) -> Option<Hir> {
        self.patterns
            .entry(pattern.to_owned())
            .or_insert_with(|| regex_syntax::parse(pattern).ok())
            .clone()
    }

    /// A string from `pattern`, grown at its first unbounded repetition
    /// towards `target` characters. With `edge`, repetition counts reach one
    /// past their bounds.
    fn matching_pattern(&mut self, pattern: &str, min: usize, target: usize, edge: bool) -> String {
        let Some(hir) = self.hir(pattern) else {
            return self.text(target);
        };
        let mut out = String::new();
        let mut grow = None;
        self.matching(&hir, &mut out, edge, &mut grow);
        let n = out.chars().count();
        if let Some((at, sub)) = grow
            && n < target.max(min)
        {
            let mut extra = String::new();
            let mut none = None;
            for _ in n..target.max(min) {
                self.matching(sub, &mut extra, false, &mut none);
            }
            out.insert_str(at, &extra);
        }
        out
    }

    fn matching<'h>(
        &mut self,
        hir: &'h Hir,
        out: &mut String,
        edge: bool,
        grow: &mut Option<(usize, &'h Hir)>,
    ) {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
            HirKind::Class(Class::Unicode(class)) => {
                let ranges = class.ranges();
                if let Some(range) = self.rng.pick(ranges) {
                    let (lo, hi) = (range.start() as i64, range.end() as i64);
                    let c = match self.rng.below(4) {
                        0 => range.start(),
                        1 => range.end(),
                        // Stay in the printable part of wide ranges.
                        _ => char::from_u32(self.rng.range(lo, hi.min(lo + 0x7f)) as u32)
                            .unwrap_or(range.start()),
                    };
                    out.push(c);
                }
            }
            HirKind::Class(Class::Bytes(class)) => {
                if let Some(range) = self.rng.pick(class.ranges()) {
                    out.push(char::from(
                        self.rng
                            .range(i64::from(range.start()), i64::from(range.end()))
                            as u8,
                    ));
                }
            }
            HirKind::Repetition(rep) => {
                let (lo, hi) = (i64::from(rep.min), rep.max.map(i64::from));
                let n = if edge && self.rng.chance(50) {
                    let mut ends = vec![lo, lo + 1];
                    if lo > 0 {
                        ends.push(lo - 1);
                    }
                    if let Some(hi) = hi {
                        ends.extend([hi, hi + 1]);
                    }
                    *self.rng.pick(&ends).unwrap_or(&lo)
                } else {
                    let hi = hi.unwrap_or(lo + 3);
                    match self.rng.below(4) {
                        0 => lo,
                        1 => hi,
                        _ => self.rng.range(lo, hi),
                    }
                };
                for _ in 0..n {
                    self.matching(&rep.sub, out, edge, grow);
                }
                if rep.max.is_none() && grow.is_none() {
                    *grow = Some((out.len(), &rep.sub));
                }
            }
            HirKind::Capture(capture) => self.matching(&capture.sub, out, edge, grow),
            HirKind::Concat(parts) => parts.iter().for_each(|p| self.matching(p, out, edge, grow)),
            HirKind::Alternation(parts) => {
                if let Some(part) = self.rng.pick(parts) {
                    self.matching(part, out, edge, grow);
                }
            }
        }
    }

    /// A value at or just past an edge of `node`, in place of `current`.
    pub fn edge(&mut self, node: &'s Value, current: &Value, depth: usize) -> Value {
        let node = self.resolve(node);
        if let Some(branches) = Self::branches(node) {
            // Mix the keys of another branch's value into this one.
            if let Value::Object(map) = current
                && self.rng.chance(40)
            {
                let other = self.rng.pick(branches).unwrap_or(&Value::Null);
                let mut mixed = map.clone();
                if let Value::Object(extra) = self.valid(other, depth + 1) {
                    for (k, v) in extra {
                        if self.rng.chance(50) || !mixed.contains_key(&k) {
                            mixed.insert(k, v);
                        }
                    }
                }
                return Value::Object(mixed);
            }
            let branch = self.rng.pick(branches).unwrap_or(&Value::Null);
            return self.edge(branch, current, depth + 1);
        }
        if self.rng.chance(25) {
            return self.substitute(node, current, depth);
        }
        if let Some(values) = node
            .get("enum")
            .and_then(Value::as_array)
            .cloned()
            .or_else(|| node.get("const").map(|c| vec![c.clone()]))
        {
            let value = self.rng.pick(&values).cloned().unwrap_or(Value::Null);
            return match value {
                Value::String(s) => Value::String(self.string_edge_of(&s)),
                other => other,
            };
        }
        let types = Self::types(node);
        if types.contains(&"object") {
            return self.object_edge(node, current, depth);
        }
        if types.contains(&"array") {
            return self.array_edge(node, current, depth);
        }
        if types.contains(&"integer") {
            return self.integer_edge(node);
        }
        if types.contains(&"number") {
            return self.number_edge(node);
        }
        if types.contains(&"string") {
            return self.string_edge(node, current);
        }
        self.substitute(node, current, depth)
    }

    /// A value of another JSON type: another scalar, an array for an
    /// object (its values positionally), an object for an array.
    fn substitute(&mut self, node: &'s Value, current: &Value, depth: usize) -> Value {
        match current {
            Value::Object(map) if self.rng.chance(60) => {
                // serde reads a struct from a sequence of its fields in
                // declaration order; the schema's keys are sorted, so try
                // both that order and shuffles of it.
                let mut values: Vec<Value> = match node.get("properties").and_then(Value::as_object)
                {
                    Some(props) if self.rng.chance(50) => props
                        .keys()
                        .map(|k| {
                            map.get(k)
                                .cloned()
                                .unwrap_or_else(|| self.valid(&props[k.as_str()], depth + 1))
                        })
                        .collect(),
                    _ => map.values().cloned().collect(),
                };
                if self.rng.chance(50) {
                    for i in (1..values.len()).rev() {
                        let j = self.rng.below(i + 1);
                        values.swap(i, j);
                    }
                }
                if self.rng.chance(20) {
                    values.pop();
                }
                return Value::Array(values);
            }
            Value::Array(items) if self.rng.chance(60) => {
                return Value::Object(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (i.to_string(), v.clone()))
                        .collect(),
                );
            }
            _ => {}
        }
        match self.rng.below(13) {
            0 => Value::from("text"),
            1 => Value::from(""),
            2 => Value::from(7),
            3 => Value::from(0),
            4 => Value::from(-1),
            5 => serde_json::json!(2.5),
            6 => Value::Bool(true),
            7 => Value::Bool(false),
            8 => Value::Null,
            9 => serde_json::json!([]),
            10 => serde_json::json!({}),
            11 => Value::Array(vec![current.clone()]),
            _ => serde_json::json!({ "value": current }),
        }
    }

    fn integer_edge(&mut self, node: &Value) -> Value {
        let min = Self::int_bound(node, "minimum");
        let max = Self::int_bound(node, "maximum");
        let mut ends: Vec<i128> = Vec::new();
        for b in [min, max].into_iter().flatten() {
            ends.extend([b - 1, b, b + 1]);
        }
        // Past 64 bits a validator cannot judge (see `TYPE_ENDS`).
        ends.retain(|n| (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(n));
        match self.rng.below(6) {
            0 => raw(self.rng.pick(&NUMBER_TOKENS).unwrap_or(&"-0")),
            // An integral float at a bound, or a fraction just inside it.
            1 => {
                let b = *self.rng.pick(&ends).unwrap_or(&0) as f64;
                let f = if self.rng.chance(50) { b } else { b + 0.5 };
                Number::from_f64(f).map_or(Value::Null, Value::Number)
            }
            2 => Self::int_value(*self.rng.pick(&TYPE_ENDS).unwrap_or(&0)),
            _ if !ends.is_empty() => Self::int_value(*self.rng.pick(&ends).unwrap_or(&0)),
            _ => Self::int_value(*self.rng.pick(&TYPE_ENDS).unwrap_or(&0)),
        }
    }

    fn number_edge(&mut self, node: &Value) -> Value {
        let (min, max) = Self::range(node);
        let mut ends: Vec<f64> = Vec::new();
        for b in [min, max].into_iter().flatten() {
            ends.extend([
                b - 1.0,
                b - 0.5,
                b,
                b + 0.5,
                b + 1.0,
                b.next_down(),
                b.next_up(),
            ]);
        }
        ends.extend([0.0, 1.0e308, -1.0e308, 2.0, 0.1]);
        match self.rng.below(5) {
            0 => raw(self.rng.pick(&NUMBER_TOKENS).unwrap_or(&"-0")),
            1 if min.is_none() && max.is_none() => raw(self.rng.pick(&WIDE_TOKENS).unwrap_or(&"1")),
            1 => Self::int_value(*self.rng.pick(&TYPE_ENDS).unwrap_or(&0)),
            _ => {
                let f = *self.rng.pick(&ends).unwrap_or(&0.0);
                Number::from_f64(f).map_or(Value::Null, Value::Number)
            }
        }
    }

    fn string_edge(&mut self, node: &Value, current: &Value) -> Value {
        let (min, max) = Self::size_bounds(node, "minLength", "maxLength", 12);
        let pattern = node.get("pattern").and_then(Value::as_str);
        let mut lengths = vec![min, max, max + 1, 0, 1];
        if min > 0 {
            lengths.push(min - 1);
        }
        let target = *self.rng.pick(&lengths).unwrap_or(&0);
        let base = match current.as_str() {
            Some(s) if !is_raw(current) && self.rng.chance(50) => s.to_owned(),
            _ => match pattern {
                Some(p) => self.matching_pattern(p, 0, target, true),
                None => self.text(target),
            },
        };
        Value::String(match (pattern, self.rng.below(3)) {
            // Grow or cut a valid string to a length edge.
            (_, 0) => {
                let mut s: Vec<char> = base.chars().collect();
                if s.len() > target {
                    s.truncate(target);
                } else {
                    let fill = self.text(target - s.len());
                    s.extend(fill.chars());
                }
                s.into_iter().collect()
            }
            (Some(_), 1) => base,
            _ => self.string_edge_of(&base),
        })
    }

    /// `s` with one edge character put in, put first or last, or in place
    /// of one of its characters.
    fn string_edge_of(&mut self, s: &str) -> String {
        let mut chars: Vec<char> = s.chars().collect();
        let c = *self.rng.pick(&EDGE_CHARS).unwrap_or(&'\n');
        let at = self.rng.below(chars.len() + 1);
        match self.rng.below(7) {
            0 => chars.push('\n'),
            1 => chars.push(c),
            2 => chars.insert(0, c),
            3 => chars.insert(at, c),
            4 if at < chars.len() => {
                // A digit in another script, or a letter in the other case.
                chars[at] = match chars[at] {
                    d @ '0'..='9' => {
                        let offset = d as u32 - '0' as u32;
                        let base = if self.rng.chance(50) { 0x660 } else { 0xFF10 };
                        char::from_u32(base + offset).unwrap_or(c)
                    }
                    l if l.is_ascii_lowercase() => l.to_ascii_uppercase(),
                    l if l.is_ascii_uppercase() => l.to_ascii_lowercase(),
                    _ => c,
                }
            }
            5 => {
                chars.push('\r');
                chars.push('\n');
            }
            _ => {
                if at < chars.len() {
                    chars[at] = c;
                } else {
                    chars.push(c);
                }
            }
        }
        chars.into_iter().collect()
    }

    fn array_edge(&mut self, node: &'s Value, current: &Value, depth: usize) -> Value {
        let (min, max) = Self::size_bounds(node, "minItems", "maxItems", 4);
        let mut sizes = vec![min, max, max + 1, 0];
        if min > 0 {
            sizes.push(min - 1);
        }
        let target = *self.rng.pick(&sizes).unwrap_or(&0);
        let mut items = match current {
            Value::Array(items) => items.clone(),
            _ => Vec::new(),
        };
        let prefix = node
            .get("prefixItems")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let schema = node.get("items").unwrap_or(&Value::Null);
        if items.len() > target {
            items.truncate(target);
        }
        while items.len() < target {
            let item = match prefix.get(items.len()) {
                Some(s) => self.valid(s, depth + 1),
                None if self.rng.chance(50) && !items.is_empty() => {
                    // A repeat, for `uniqueItems`.
                    items[self.rng.below(items.len())].clone()
                }
                None if schema.is_object() => self.valid(schema, depth + 1),
                None => self.valid(prefix.last().unwrap_or(&Value::Null), depth + 1),
            };
            items.push(item);
        }
        if self.rng.chance(20) && items.len() > 1 {
            items.reverse();
        }
        Value::Array(items)
    }

    fn object_edge(&mut self, node: &'s Value, current: &Value, depth: usize) -> Value {
        let mut map = match current {
            Value::Object(map) => map.clone(),
            _ => Map::new(),
        };
        let properties = node.get("properties").and_then(Value::as_object);
        let is_map = Self::is_map(node);
        match self.rng.below(if is_map { 6 } else { 4 }) {
            // Drop a key: a required field, a tag, an optional one.
            0 => {
                let keys: Vec<String> = map.keys().cloned().collect();
                if let Some(k) = self.rng.pick(&keys) {
                    map.remove(k);
                }
            }
            // A key nobody declared, or a near miss of one that is.
            1 => {
                let names: Vec<String> = properties
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                let key = match self.rng.pick(&names) {
                    // The name itself, every character escaped: the same
                    // key, read by its value.
                    Some(name) if Self::escapable(name) && self.rng.chance(15) => {
                        let escaped = Self::escaped(name);
                        let value = map.remove(name);
                        let value = value.unwrap_or_else(|| {
                            let schema = properties.and_then(|p| p.get(name));
                            self.valid(schema.unwrap_or(&Value::Null), depth + 1)
                        });
                        map.insert(escaped, value);
                        return Value::Object(map);
                    }
                    Some(name) if self.rng.chance(50) => {
                        let mut near = name.clone();
                        match self.rng.below(3) {
                            0 => near = near.to_uppercase(),
                            1 => near.push('_'),
                            _ => near.insert(0, ' '),
                        }
                        near
                    }
                    _ => (*self
                        .rng
                        .pick(&["unexpected", "kind", "t", "c", "radius", "value", ""])
                        .unwrap_or(&"x"))
                    .to_owned(),
                };
                let value = self.substitute(&Value::Null, &Value::from(5), depth);
                map.insert(
                    key,
                    if self.rng.chance(50) {
                        Value::from(5)
                    } else {
                        value
                    },
                );
            }
            // `null` for an optional field, a field missing from a
            // minimal object.
            2 => {
                if let Some(props) = properties {
                    let keys: Vec<&String> = props.keys().collect();
                    if let Some(k) = self.rng.pick(&keys) {
                        // One spelling of the key at a time (see below).
                        map.remove(&Self::escaped(k));
                        map.insert((*k).clone(), Value::Null);
                    }
                }
            }
            3 => return self.substitute(node, current, depth),
            // A map key at an edge, with a valid value: an edge key, an
            // integer type's end or one past it, or a key the map takes,
            // any of them now and then with its characters escaped.
            4 => {
                let patterns = node.get("patternProperties").and_then(Value::as_object);
                let key = match self.rng.below(7) {
                    0 => (*self.rng.pick(&EDGE_KEYS).unwrap_or(&"")).to_owned(),
                    1 => self.rng.pick(&TYPE_ENDS).unwrap_or(&0).to_string(),
                    2 => (*self.rng.pick(&WIDE_KEYS).unwrap_or(&"")).to_owned(),
                    3 => (*self.rng.pick(&SCALAR_KEYS).unwrap_or(&"")).to_owned(),
                    // At and one past each length `propertyNames` allows.
                    4 if let Some((min, max)) = Self::key_lengths(node) => {
                        let mut lengths = vec![min, min + 1];
                        lengths.extend(min.checked_sub(1));
                        lengths.extend(max.into_iter().flat_map(|m| [m, m + 1]));
                        let len = *self.rng.pick(&lengths).unwrap_or(&0);
                        self.key_of_len(len)
                    }
                    // A near miss of a key the pattern takes: `True`,
                    // `tru`, `truee`, ` true`.
                    4 if let Some(pattern) = patterns.and_then(|p| p.keys().next()) => {
                        let taken = self.matching_pattern(pattern, 0, 12, false);
                        let mut chars: Vec<char> = taken.chars().collect();
                        match self.rng.below(5) {
                            0 => chars = taken.to_uppercase().chars().collect(),
                            1 => {
                                if let Some(first) = chars.first_mut() {
                                    *first = first.to_ascii_uppercase();
                                }
                            }
                            2 => {
                                chars.pop();
                            }
                            3 => chars.extend(chars.last().copied()),
                            _ => chars.insert(0, ' '),
                        }
                        chars.into_iter().collect()
                    }
                    _ => match patterns.and_then(|p| p.keys().next()) {
                        Some(pattern) => self.matching_pattern(pattern, 0, 12, false),
                        None => self.map_key(),
                    },
                };
                let plain = Self::escapable(&key);
                // One spelling of the key at a time: two would be a
                // repeated key, a difference of its own (`duplicate-keys`).
                let escaped = Self::escaped(&key);
                map.remove(&key);
                map.remove(&escaped);
                let key = if plain && self.rng.chance(30) {
                    escaped
                } else {
                    key
                };
                let schema = node
                    .get("additionalProperties")
                    .filter(|a| a.is_object())
                    .or_else(|| {
                        node.get("patternProperties")
                            .and_then(Value::as_object)
                            .and_then(|p| p.values().next())
                    })
                    .unwrap_or(&Value::Null);
                let value = self.valid(schema, depth + 1);
                map.insert(key, value);
            }
            // A map at a size edge.
            _ => {
                let (min, max) = Self::size_bounds(node, "minProperties", "maxProperties", 4);
                let mut sizes = vec![min, max, max + 1, 0, 5];
                if min > 0 {
                    sizes.push(min - 1);
                }
                let target = *self.rng.pick(&sizes).unwrap_or(&0);
                while map.len() > target {
                    let Some(k) = map.keys().next().cloned() else {
                        break;
                    };
                    map.remove(&k);
                }
                let mut n = 0;
                while map.len() < target && n < 40 {
                    n += 1;
                    let entry = self.valid(node, depth);
                    if let Value::Object(more) = entry {
                        for (k, v) in more {
                            if map.len() < target {
                                map.insert(k, v);
                            }
                        }
                    }
                }
            }
        }
        Value::Object(map)
    }

    /// One blind change somewhere in `value`.
    pub fn mutate(&mut self, value: &mut Value) {
        let mut pointers = Vec::new();
        collect(value, String::new(), &mut pointers);
        let Some(pointer) = self.rng.pick(&pointers).cloned() else {
            return;
        };
        let Some(target) = value.pointer_mut(&pointer) else {
            return;
        };
        let replacement = match self.rng.next_u64() % 8 {
            0 => Value::from("text"),
            1 => serde_json::json!(3.0),
            2 => Value::Null,
            3 => match target.as_i64() {
                Some(n) => Value::from(n.saturating_add(1)),
                None => Value::from(-1),
            },
            4 => match target.as_str() {
                Some(s) if !s.starts_with(RAW) => Value::from(format!("{s}x")),
                _ => Value::from(""),
            },
            5 => Value::from(u64::MAX),
            6 => match target.as_str() {
                Some(s) if !s.starts_with(RAW) => Value::from(s.to_uppercase()),
                _ => Value::from("UPPER"),
            },
            _ => Value::from(""),
        };
        *target = replacement;
    }
}

/// Leaves one spelling of each key in every object of `value`: where an
/// edge wrote a key with escapes that another edge wrote plainly, the one
/// with escapes goes. Two spellings of one key are a repeated key, a
/// difference of its own (`duplicate-keys`).
fn one_spelling(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let twice: Vec<String> = map
                .keys()
                .filter_map(|k| k.strip_prefix(ESCAPED))
                .filter(|k| map.contains_key(*k))
                .map(Generator::escaped)
                .collect();
            for key in twice {
                map.remove(&key);
            }
            map.values_mut().for_each(one_spelling);
        }
        Value::Array(items) => items.iter_mut().for_each(one_spelling),
        _ => {}
    }
}

/// Every pointer in `value`, the root included.
fn collect(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                collect(
                    child,
                    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                collect(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}
