//! What a map's keys are, as the schema states them: the integers a key
//! may be ([`KeyRange`]) and the pattern that spells them, the names or
//! `bool`s a map takes ([`Keys`]), and each in words for a refusal.
//! Registration finds them (`crate::register::keys`); refusals and lookups
//! read them.

use serde_json::Value;

use crate::schema::keywords;

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
    pub(crate) fn read_by(reads: &str) -> Option<KeyRange> {
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
pub(crate) fn up_to(max: u128) -> Vec<String> {
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
pub(crate) fn class(low: u8, high: u8) -> String {
    if low == high {
        char::from(low).to_string()
    } else {
        format!("[{}-{}]", char::from(low), char::from(high))
    }
}

/// From `min` to `max` digits: ``, `[0-9]`, `[0-9]?`, `[0-9]{3}`,
/// `[0-9]{0,8}`.
pub(crate) fn any_digits(min: usize, max: usize) -> String {
    match (min, max) {
        (_, 0) => String::new(),
        (1, 1) => "[0-9]".to_owned(),
        (0, 1) => "[0-9]?".to_owned(),
        (min, max) if min == max => format!("[0-9]{{{min}}}"),
        (min, max) => format!("[0-9]{{{min},{max}}}"),
    }
}

/// What a map's keys are, learned from its key type (see
/// [`state_keys`](crate::register::keys::state_keys)), and how the schema
/// states it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Keys {
    /// Integers of a range: a key pattern (see [`KeyRange::pattern`]).
    Range(KeyRange),
    /// `true`, `false` or both, as a `bool` reads them: a key pattern
    /// (see [`names_pattern`]).
    Bools(Vec<&'static str>),
    /// The names of an enum's variants (no alias among them): each a
    /// member of `properties`, as schemars writes a map keyed by an enum
    /// whose variants carry no doc comments.
    Names(Vec<&'static str>),
    /// One character, as a `char` reads it:
    /// `propertyNames: {"minLength": 1, "maxLength": 1}`. JSON Schema
    /// counts a string's length in code points, on every side; a pattern
    /// for one character would count UTF-16 units in ECMA-262.
    Char,
}

impl Keys {
    /// A key of these that the key type takes: the one written in each
    /// map of this key type in the instances read after it is learned.
    pub(crate) fn taken(&self) -> String {
        match self {
            Keys::Range(_) => "1".to_owned(),
            Keys::Bools(names) | Keys::Names(names) => {
                names.first().copied().unwrap_or_default().to_owned()
            }
            Keys::Char => "a".to_owned(),
        }
    }
}

/// The pattern of exactly `names`, each written as it is:
/// `^(true|false)$`. Only letters are ever written (`true`, `false`):
/// read alike by the server's regex and by ECMA-262.
pub(crate) fn names_pattern(names: &[&str]) -> String {
    format!("^({})$", names.join("|"))
}

/// The names of the `bool` keys `pattern` takes, if [`names_pattern`]
/// wrote it for a `bool`.
pub(crate) fn bools_of_pattern(pattern: &str) -> Option<Vec<&'static str>> {
    [&["true", "false"][..], &["true"], &["false"]]
        .into_iter()
        .find(|names| names_pattern(names) == pattern)
        .map(<[&str]>::to_vec)
}

/// The rule of the keys of the map whose subschema is `node`, in words,
/// where the schema states it and a dialect may drop it: `keys must be
/// whole numbers from 0 to 255, written in digits`, `keys must be true or
/// false`, `keys must be single characters`.
pub(crate) fn rule_in_words(node: &Value) -> Option<String> {
    let mut rules: Vec<String> = node
        .get("patternProperties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys())
        .filter_map(|pattern| pattern_in_words(pattern))
        .collect();
    if let Some(lengths) = node.as_object().and_then(key_lengths) {
        rules.push(lengths_in_words(lengths));
    }
    (!rules.is_empty()).then(|| rules.join("; "))
}

/// The keys a key pattern the runtime writes takes, in words (see
/// [`rule_in_words`]); `None` for any other pattern.
pub(crate) fn pattern_in_words(pattern: &str) -> Option<String> {
    if let Some(range) = KeyRange::of_pattern(pattern) {
        return Some(range.words());
    }
    let names = bools_of_pattern(pattern)?;
    Some(match names.as_slice() {
        [one] => format!("keys must be {one}"),
        _ => "keys must be true or false".to_owned(),
    })
}

/// The lengths `propertyNames` allows keys (see
/// [`key_lengths`]), in words.
pub(crate) fn lengths_in_words((min, max): (u64, Option<u64>)) -> String {
    let plural = |n: u64| if n == 1 { "character" } else { "characters" };
    match (min, max) {
        (1, Some(1)) => "keys must be single characters".to_owned(),
        (min, Some(max)) if min == max => format!("keys must be {min} {} long", plural(min)),
        (0, Some(max)) => format!("keys must be at most {max} {} long", plural(max)),
        (min, Some(max)) => format!("keys must be from {min} to {max} characters long"),
        (min, None) => format!("keys must be at least {min} {} long", plural(min)),
    }
}

/// The lengths in characters that the `propertyNames` of subschema `map`
/// allows its object's keys, where that is all it says (beside a `type`
/// of `string` and annotations): the shortest, and the longest if it
/// states one. What the runtime publishes for a map keyed by `char`
/// (`{"minLength": 1, "maxLength": 1}`, see `crate::register::keys`): JSON Schema
/// counts a string's length in code points, as Rust counts `char`s, where
/// a pattern's `.` may count UTF-16 units. The gates read it as a bound
/// (see `crate::gate::structural::shape`); registration tries a key past each length (see
/// `crate::register::unenforced`). `None` where it says more, or nothing.
pub(crate) fn key_lengths(map: &serde_json::Map<String, Value>) -> Option<(u64, Option<u64>)> {
    lengths_of_keys(map.get("propertyNames")?)
}

/// [`key_lengths`] of a `propertyNames` subschema.
pub(crate) fn lengths_of_keys(names: &Value) -> Option<(u64, Option<u64>)> {
    let names = names.as_object()?;
    let mut lengths = (None, None);
    for (key, value) in names {
        match key.as_str() {
            "minLength" => lengths.0 = Some(value.as_u64()?),
            "maxLength" => lengths.1 = Some(value.as_u64()?),
            "type" if value == "string" => {}
            key if keywords::is_annotation(key) => {}
            _ => return None,
        }
    }
    match lengths {
        (None, None) => None,
        (min, max) => Some((min.unwrap_or(0), max)),
    }
}
