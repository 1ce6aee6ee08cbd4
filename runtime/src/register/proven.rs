//! Registration's proof that a tool's types hold what its schema states,
//! so that the single pass can read its calls without the schema.
//!
//! The proof is made where every argument is a scalar or an array of
//! scalars, the schema flat but for names from a list and items that must
//! differ (see [`Shape::to_prove`](crate::gate::structural::shape::Shape::to_prove)), and
//! for arguments that are neither: those need no proof, as the single
//! pass reads each of their values against its own subschema (see
//! [`Shape::guided`](crate::gate::structural::shape::Shape::guided)). The
//! simplest instance is read in one pass without the schema, each array at
//! its longest (a `maxItems` of at most [`MAX_ITEMS`], else no proof: a
//! hand-written type may read each element by another type), and the
//! reader records what each value's type asked for
//! ([`Asked`](crate::gate::structural::reader::Asked)). A type asks before it sees the value,
//! so what it asks at a place is what every call asks there. The proof
//! holds where the tool accepts that instance and, at each place:
//!
//! - what was asked takes only the kinds of value the schema states there
//!   (a boolean, an integer, any number, a string, an array); a type that
//!   asks for any value (`deserialize_any`), or for something else, gets
//!   no proof;
//! - where the schema lists names, the value was read as an enum whose own
//!   list of names (the one serde's derived enums pass to
//!   `deserialize_enum`, aliases included) the schema's list holds.
//!
//! And for each member the schema requires, serde refuses the instance
//! without it: a type that reads a member left out as a value of its own
//! (an `Option` read by hand, a default) gets no proof, as nothing else
//! would hold the call to `required`.
//!
//! What a request does not settle is held as each call is read without
//! the schema (see `crate::gate::structural::reader`): an enum's name must be one of its
//! type's list, so a visitor that reads more (`#[serde(other)]`, a name in
//! any case) never sees another; an integer type gets only a number
//! written as an integer, whatever its visitor takes; and where some
//! array's items must differ, every array's items are compared, a repeat
//! stopping the single pass. Where the single pass stops, the gates one by
//! one decide against the schema, walking every document serde accepts.
//!
//! Anything else leaves the tool read with its schema: a proof not made
//! costs speed, never a check. A type whose reading changes after
//! registration is not held to what it asked then, as with the tries of
//! bounds (see [`crate::register::unenforced`]).

use serde_json::{Map, Value};

use crate::gate::structural::reader::{Ask, Asked};
use crate::gate::structural::shape::{self, Place, Slot};
use crate::{Tool, ToolDef, gate::bounded, gate::structural::reader};

/// The most elements an array may have for a proof: the array is read at
/// its longest, as a hand-written type may read each element by another
/// type.
const MAX_ITEMS: u64 = 16;

/// Whether the calls of the tool `def` defines can be read in one pass
/// without its schema: its schema is flat but for choices, items that must
/// differ and members read against their subschemas, and the tool's types
/// hold it as the schema does. `simplest`: the simplest instance of its
/// schema ([`crate::register::instance::instance`]); `accepts`: whether the tool
/// accepts a text, read as the proof reads it ([`accepts`]). Not generic,
/// so compiled once, not once for each state type.
pub(crate) fn holds(
    def: &ToolDef,
    simplest: Option<Value>,
    accepts: &dyn Fn(&str) -> bool,
) -> bool {
    if def.shape.walks_first() {
        return false;
    }
    let Some(places) = def.shape.to_prove() else {
        return false;
    };
    let Some(Value::Object(mut instance)) = simplest else {
        return false;
    };
    // Each array at its longest, so that each index is read.
    for place in &places {
        if let Place::Array(key, from, max, names, unique) = *place {
            match longest(&instance, key, from, max, names, unique) {
                Some(items) => instance.insert(key.to_owned(), Value::Array(items)),
                None => return false,
            };
        }
    }
    let written = Written::new(&instance);
    let (read, asked) = reader::recording(|| accepts(&written.text));
    read && required_refused(def, &instance, accepts)
        && places.iter().all(|place| match *place {
            Place::Scalar(key, slot, kinds) => {
                let at = written.places(key, slot);
                !at.is_empty() && at.iter().all(|pos| held(&asked, *pos, |a| takes(a, kinds)))
            }
            Place::Chosen(key, slot, names) => {
                let listed =
                    |variants: &[&str]| variants.iter().all(|v| names.iter().any(|n| **n == **v));
                let at = written.places(key, slot);
                !at.is_empty()
                    && at.iter().all(|pos| {
                        held(
                            &asked,
                            *pos,
                            |a| matches!(a, Asked::Enum(variants) if listed(variants)),
                        )
                    })
            }
            Place::Array(key, ..) => written
                .member(key)
                .is_some_and(|pos| held(&asked, pos, |a| a == Asked::Seq)),
        })
}

/// Whether serde refuses `instance` without each member the schema
/// requires, where it is read without the schema: nothing else holds the
/// call to the schema's `required`. A member left out reaches its type
/// with no value at all (a generated argument struct hands it serde's
/// `Deserializer` of a missing field), so what the type makes of it does
/// not depend on the call: a type that reads "left out" as a value (an
/// `Option` read by hand, a default) takes it on every call, and gets no
/// proof. Refused by a rule instead, it would depend on the other members.
fn required_refused(
    def: &ToolDef,
    instance: &Map<String, Value>,
    accepts: &dyn Fn(&str) -> bool,
) -> bool {
    def.shape.required_members().iter().all(|key| {
        let mut without = instance.clone();
        without.remove(&**key).is_some() && {
            let text = Written::new(&without).text;
            !reader::probe_reads(|| {
                accepts(&text);
            })
        }
    })
}

/// Whether the value at `pos` was asked for, and only as `fits` allows.
fn held(asked: &[Ask], pos: usize, fits: impl Fn(Asked) -> bool) -> bool {
    let mut at = asked.iter().filter(|(at, _)| *at == pos).peekable();
    at.peek().is_some() && at.all(|(_, a)| fits(*a))
}

/// Whether every value the reader takes for `asked` is of `kinds`.
fn takes(asked: Asked, kinds: u8) -> bool {
    let taken = match asked {
        Asked::Bool => shape::BOOLEAN,
        Asked::Integer => shape::INTEGER,
        Asked::Float => shape::INTEGER | shape::FRACTION,
        Asked::Str | Asked::Enum(_) => shape::STRING,
        Asked::Seq | Asked::Other => return false,
    };
    taken & !kinds == 0
}

/// The elements of the array at member `key` of `instance` at its longest:
/// its first `from` as they are, then `names` in turn, or else its element
/// at `from` again. `None` where the array may be longer than
/// [`MAX_ITEMS`], lacks those elements, or (its items all different if
/// `unique`) cannot be that long.
fn longest(
    instance: &Map<String, Value>,
    key: &str,
    from: usize,
    max: Option<u64>,
    names: Option<&[Box<str>]>,
    unique: bool,
) -> Option<Vec<Value>> {
    let max = usize::try_from(max.filter(|max| *max <= MAX_ITEMS)?).ok()?;
    let Some(Value::Array(items)) = instance.get(key) else {
        return None;
    };
    let mut items: Vec<Value> = items.iter().take(max).cloned().collect();
    if items.len() == max {
        return Some(items);
    }
    match names {
        Some(names) if !names.is_empty() => {
            if items.len() < from || unique && from + names.len() < max {
                return None;
            }
            items.truncate(from);
            let mut names = names.iter().cycle();
            while items.len() < max {
                items.push(Value::String(names.next()?.to_string()));
            }
        }
        _ => {
            let again = items.get(from)?.clone();
            if unique {
                return None;
            }
            items.resize(max, again);
        }
    }
    Some(items)
}

/// Gates 1–3 of `tool` on `text`, read in one pass and only so, as
/// registration's proof reads it.
pub(crate) fn accepts<S: 'static>(tool: &dyn Tool<S>, text: &str) -> bool {
    let limits = &crate::gate::bounded::limits::PROBE_LIMITS;
    bounded::begin(text.as_bytes(), Some(text), limits)
        .is_ok_and(|raw| tool.__check(raw.probing(), tool.definition()).is_ok())
}

/// An arguments object written as JSON text, keeping where each member's
/// value and each element of it starts.
struct Written {
    text: String,
    /// Each value's member, element index (if in an array) and offset.
    values: Vec<(String, Option<usize>, usize)>,
}

impl Written {
    fn new(object: &Map<String, Value>) -> Written {
        let mut written = Written {
            text: String::from("{"),
            values: Vec::new(),
        };
        for (n, (key, value)) in object.iter().enumerate() {
            if n > 0 {
                written.text.push(',');
            }
            written
                .text
                .push_str(&Value::String(key.clone()).to_string());
            written.text.push(':');
            written.values.push((key.clone(), None, written.text.len()));
            match value {
                Value::Array(items) => {
                    written.text.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            written.text.push(',');
                        }
                        written
                            .values
                            .push((key.clone(), Some(i), written.text.len()));
                        written.text.push_str(&item.to_string());
                    }
                    written.text.push(']');
                }
                _ => written.text.push_str(&value.to_string()),
            }
        }
        written.text.push('}');
        written
    }

    /// Where the value of member `key` starts.
    fn member(&self, key: &str) -> Option<usize> {
        self.values
            .iter()
            .find(|(k, index, _)| k == key && index.is_none())
            .map(|(.., pos)| *pos)
    }

    /// Where the values at `slot` of member `key` start.
    fn places(&self, key: &str, slot: Slot) -> Vec<usize> {
        let at = |index: Option<usize>| match (slot, index) {
            (Slot::Whole, None) => true,
            (Slot::At(i), Some(j)) => i == j,
            (Slot::From(i), Some(j)) => j >= i,
            _ => false,
        };
        self.values
            .iter()
            .filter(|(k, index, _)| k == key && at(*index))
            .map(|(.., pos)| *pos)
            .collect()
    }
}
