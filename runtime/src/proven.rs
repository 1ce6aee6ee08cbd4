//! Registration's proof that a tool's types and rules hold what its schema
//! states, so that the single pass can read its calls without the schema.
//!
//! In a [flat](crate::shape::Shape::flat) schema every member is a scalar
//! or an array of scalars, and serde's verdict on the argument struct is
//! the schema's, provided each type reads the kinds of value its schema
//! states and no others (a hand-written schema may say `integer` of a type
//! that reads a name). Two things more, in a schema otherwise flat, serde
//! may read more laxly:
//!
//! - A list of choices. A derived enum reads a name its schema does not
//!   list if a variant has an alias or is `#[serde(other)]`.
//! - Items that must differ (`uniqueItems`). Only a rule of the tool's
//!   refuses a repeat.
//!
//! Registration asks the tool, at each place a listed property's value or
//! its elements take (see [`Shape::to_prove`](crate::shape::Shape::to_prove)).
//! The simplest instance is read in one pass without the schema, each enum
//! read by its name recorded with every name its type reads (the list
//! serde's derived enums pass to `deserialize_enum`, aliases included).
//! The proof holds where the tool accepts that instance and:
//!
//! - refuses, at each place, a value of each kind the schema does not
//!   take there (a string, an integer, a fraction, a boolean; a `null`
//!   stops the single pass anyway);
//! - read each value the schema holds to choices as an enum whose every
//!   name the schema lists;
//! - refuses a name the schema does not list, put in its place (no
//!   variant reads every other name);
//! - where an array's elements are held to choices, the array has a
//!   `maxItems` of at most [`MAX_ITEMS`], and is read at its longest, each
//!   index tried: a hand-written type may read its first element as an
//!   enum and the rest as text;
//! - refuses an array whose items must differ with one item repeated, as
//!   written and written otherwise (`"\u0069d"` for `"id"`), so that a
//!   rule comparing what was written rather than what it means is found.
//!
//! Anything else leaves the tool read with its schema: a proof not made
//! costs speed, never a check. A proof is of what registration saw: a type
//! whose reading changes afterwards is not held to it, as with the tries
//! of bounds (see [`crate::lengths`]).

use serde_json::{Map, Value};

use crate::shape::{self, Place, Slot};
use crate::{Tool, bounded, reader};

/// The most elements an array whose elements are held to choices may have
/// for a proof: each index is tried, as a hand-written type may read each
/// element by another type.
const MAX_ITEMS: u64 = 16;

/// Whether the calls of `tool` can be read in one pass without its schema:
/// its schema is flat but for choices and items that must differ, and the
/// tool holds them as the schema does. `simplest`: the simplest instance
/// of its schema ([`crate::lengths::instance`]).
pub(crate) fn holds<S: 'static>(tool: &dyn Tool<S>, simplest: Option<Value>) -> bool {
    let def = tool.definition();
    if def.shape.walks_first() {
        return false;
    }
    let Some(places) = def.shape.to_prove() else {
        return false;
    };
    let Some(Value::Object(mut instance)) = simplest else {
        return false;
    };
    // Each array whose elements are held to choices, at its longest, so
    // that each index is read.
    for place in &places {
        if let Place::Chosen(key, Slot::From(from, max), names) = *place {
            let unique = places
                .iter()
                .any(|p| matches!(p, Place::Unique(k, _) if *k == key));
            match longest(&instance, key, from, max, names, unique) {
                Some(items) => instance.insert(key.to_owned(), Value::Array(items)),
                None => return false,
            };
        }
    }
    let written = Written::new(&instance, None);
    let (read, named) = reader::recording(|| accepts(tool, &written.text));
    read && places.iter().all(|place| match *place {
        Place::Chosen(key, slot, names) => {
            let at = written.places(key, slot);
            let listed =
                |variants: &[&str]| variants.iter().all(|v| names.iter().any(|n| **n == **v));
            let read_as_listed = |pos| {
                named
                    .iter()
                    .any(|(at, variants)| *at == pos && listed(variants))
            };
            !at.is_empty()
                && at.iter().all(|(_, pos)| read_as_listed(*pos))
                && at
                    .iter()
                    .all(|(index, _)| refuses_unlisted(tool, &instance, key, *index, names))
        }
        Place::Scalar(key, slot, kinds) => {
            let index = match slot {
                Slot::Whole => None,
                Slot::At(i) | Slot::From(i, _) => Some(i),
            };
            OTHER_KINDS
                .iter()
                .filter(|(kind, _)| kinds & kind == 0)
                .all(|(_, value)| refuses_at(tool, &instance, key, index, value()))
        }
        Place::Unique(key, max) => refuses_repeats(tool, &instance, key, max),
    })
}

/// A value of each kind of scalar but `null` (which the single pass
/// leaves to the gates one by one), put where the schema takes no value
/// of that kind.
const OTHER_KINDS: [(u8, fn() -> Value); 4] = [
    (shape::STRING, || Value::from("0")),
    (shape::INTEGER, || Value::from(0)),
    (shape::FRACTION, || Value::from(0.5)),
    (shape::BOOLEAN, || Value::from(false)),
];

/// Whether `tool` refuses `instance` with `value` at member `key` (its
/// element `index`, if given). An element the instance does not have is
/// not tried.
fn refuses_at<S: 'static>(
    tool: &dyn Tool<S>,
    instance: &Map<String, Value>,
    key: &str,
    index: Option<usize>,
    value: Value,
) -> bool {
    let mut instance = instance.clone();
    let slot = match (instance.get_mut(key), index) {
        (Some(member), None) => member,
        (Some(member), Some(i)) => match member.get_mut(i) {
            Some(element) => element,
            None => return true,
        },
        (None, _) => return false,
    };
    *slot = value;
    !accepts(tool, &Written::new(&instance, None).text)
}

/// The elements of the array at member `key` of `instance` at its longest:
/// its first `from` as they are, then `names` in turn. `None` where the
/// array may be longer than [`MAX_ITEMS`], or (its items all different if
/// `unique`) than the names make it, or the instance lacks its first
/// elements. (Registration cannot try the `maxItems` of such an array, and
/// reads it against its bounds before serde.)
fn longest(
    instance: &Map<String, Value>,
    key: &str,
    from: usize,
    max: Option<u64>,
    names: &[Box<str>],
    unique: bool,
) -> Option<Vec<Value>> {
    let max = usize::try_from(max.filter(|max| *max <= MAX_ITEMS)?).ok()?;
    let Some(Value::Array(items)) = instance.get(key) else {
        return None;
    };
    if items.len() < from || names.is_empty() {
        return None;
    }
    if unique && from + names.len() < max {
        return None;
    }
    let mut items: Vec<Value> = items.iter().take(from).cloned().collect();
    let mut names = names.iter().cycle();
    while items.len() < max {
        items.push(Value::String(names.next()?.to_string()));
    }
    Some(items)
}

/// A string none of `names` is.
fn unlisted(names: &[Box<str>]) -> String {
    let mut unlisted = String::from("unlisted");
    while names.iter().any(|n| **n == *unlisted) {
        unlisted.push('_');
    }
    unlisted
}

/// Gates 1–3 of `tool` on `text`, read in one pass and only so, as
/// registration's proof reads it.
fn accepts<S: 'static>(tool: &dyn Tool<S>, text: &str) -> bool {
    let limits = &crate::lengths::PROBE_LIMITS;
    bounded::begin(text.as_bytes(), Some(text), limits)
        .is_ok_and(|raw| tool.__check(raw.probing()).is_ok())
}

/// Whether `tool` refuses `instance` with a name `names` does not hold at
/// member `key` (its element `index`, if given).
fn refuses_unlisted<S: 'static>(
    tool: &dyn Tool<S>,
    instance: &Map<String, Value>,
    key: &str,
    index: Option<usize>,
    names: &[Box<str>],
) -> bool {
    refuses_at(tool, instance, key, index, Value::String(unlisted(names)))
}

/// Whether `tool` refuses `instance` with an item of the array at member
/// `key` repeated, both as written and written otherwise: the second item
/// the first, and the last the first. An array of at most one item
/// (`max`) cannot repeat one.
fn refuses_repeats<S: 'static>(
    tool: &dyn Tool<S>,
    instance: &Map<String, Value>,
    key: &str,
    max: Option<u64>,
) -> bool {
    if max.is_some_and(|max| max < 2) {
        return true;
    }
    let Some(Value::Array(items)) = instance.get(key) else {
        return false;
    };
    let Some(first) = items.first() else {
        return false;
    };
    let mut tries = vec![1];
    if items.len() > 2 {
        tries.push(items.len() - 1);
    }
    tries.into_iter().all(|at| {
        let mut repeated = items.clone();
        match repeated.get_mut(at) {
            Some(item) => *item = first.clone(),
            None => repeated.push(first.clone()),
        }
        let mut instance = instance.clone();
        instance.insert(key.to_owned(), Value::Array(repeated));
        let as_written = Written::new(&instance, None);
        let otherwise = Written::new(&instance, Some((key, at)));
        !accepts(tool, &as_written.text) && !accepts(tool, &otherwise.text)
    })
}

/// An arguments object written as JSON text, keeping where each string of
/// its members and their elements starts.
struct Written {
    text: String,
    /// Each string's member, element index (if in an array) and offset.
    strings: Vec<(String, Option<usize>, usize)>,
}

impl Written {
    /// `object` as text; the element `otherwise` names (member and index)
    /// written another way than serde_json writes it, if it has one.
    fn new(object: &Map<String, Value>, otherwise: Option<(&str, usize)>) -> Written {
        let mut written = Written {
            text: String::from("{"),
            strings: Vec::new(),
        };
        for (n, (key, value)) in object.iter().enumerate() {
            if n > 0 {
                written.text.push(',');
            }
            written
                .text
                .push_str(&Value::String(key.clone()).to_string());
            written.text.push(':');
            match value {
                Value::Array(items) => {
                    written.text.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            written.text.push(',');
                        }
                        let other = otherwise == Some((key.as_str(), i));
                        written.value(key, Some(i), item, other);
                    }
                    written.text.push(']');
                }
                _ => written.value(key, None, value, false),
            }
        }
        written.text.push('}');
        written
    }

    fn value(&mut self, key: &str, index: Option<usize>, value: &Value, otherwise: bool) {
        if value.is_string() {
            self.strings.push((key.to_owned(), index, self.text.len()));
        }
        match (value, otherwise) {
            (Value::String(text), true) => {
                let mut chars = text.chars();
                self.text.push('"');
                if let Some(first) = chars.next() {
                    for unit in first.encode_utf16(&mut [0; 2]) {
                        self.text.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                let rest = Value::String(chars.collect()).to_string();
                self.text.push_str(rest.get(1..).unwrap_or_default());
            }
            (Value::Number(number), true) => self.text.push_str(&format!("{number}e0")),
            _ => self.text.push_str(&value.to_string()),
        }
    }

    /// Where the strings at `slot` of member `key` start, each with its
    /// element index (`None` for the member itself).
    fn places(&self, key: &str, slot: Slot) -> Vec<(Option<usize>, usize)> {
        let at = |index: Option<usize>| match (slot, index) {
            (Slot::Whole, None) => true,
            (Slot::At(i), Some(j)) => i == j,
            (Slot::From(i, _), Some(j)) => j >= i,
            _ => false,
        };
        self.strings
            .iter()
            .filter(|(k, index, _)| k == key && at(*index))
            .map(|(_, index, pos)| (*index, *pos))
            .collect()
    }
}
