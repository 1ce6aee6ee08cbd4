//! Registration's check that each bound the schema states is enforced.
//!
//! The instance of the schema (see [`crate::register::instance`]), with
//! one value put past one bound the schema states, shows a bound nothing
//! enforces ([`unenforced`]): a keyword such as
//! `#[schemars(length(max = 3))]` writes, or a hand-written schema states,
//! with no garde rule and no type behind it. A key of a length past what
//! a map's `propertyNames` allows is tried as such a value.

use serde_json::Value;

use crate::Tool;
use crate::json::pointer;
use crate::register::instance::{at_mut, built, named};
use crate::register::pattern::Compiled;
use crate::register::probe::{Probe, passes, probe};
use crate::schema::{Evaluated, keywords};

/// A bound the schema states that the tool does not enforce: the keyword
/// and where its value is, as a JSON Pointer into the arguments.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unenforced {
    pub(crate) keyword: &'static str,
    pub(crate) at: String,
}

/// What registration made of the bounds a schema states, none of them
/// found unenforced.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Tried {
    /// Whether each, at each place, was tried and refused by the tool, or
    /// needs no try (see `Builder::enforced`). Where not, each call is
    /// checked against the bounds before serde reads it.
    pub(crate) all: bool,
}

/// The first bound the schema states (a keyword the table marks `bound`,
/// see [`crate::schema::keywords`]; `not` where it names a value, see
/// [`crate::schema::names_value`], which the tool must refuse) whose value, put past it
/// in an instance, the tool accepts.
/// The instances are the simplest one and one for each variant of each
/// enum it reaches (see [`instances`]). Only values the schema refuses
/// whatever else the document holds are tried: outside unions, or inside
/// the branches of a union that its objects' tags tell apart (serde's
/// externally, internally and adjacently tagged enums). An instance the
/// tool refuses as built leaves its bounds untried, as does a bound no
/// value past it can be written for, or one the instances do not reach;
/// `Ok` says whether any is left.
pub(crate) fn unenforced<S: 'static>(
    tool: &dyn Tool<S>,
    compiled: &mut Compiled,
) -> Result<Tried, Unenforced> {
    let schema = tool.definition().schema();
    let mut tried: Vec<(String, &'static str, String)> = Vec::new();
    // Each bound the tool refused a value past, by its place.
    let mut refused: Vec<(String, &'static str)> = Vec::new();
    for (builder, base) in built(schema, true) {
        refused.extend(builder.enforced.iter().cloned());
        if passes(tool, &base).is_err() {
            continue;
        }
        for bound in builder.bounds {
            let key = (
                pointer::exact_of_steps(&bound.path),
                bound.keyword,
                bound.place.clone(),
            );
            if tried.contains(&key) {
                continue;
            }
            let mut instance = base.clone();
            if let (Some(slot), Some(past)) = (
                at_mut(&mut instance, &bound.path),
                bound.past.value(compiled),
            ) {
                *slot = past;
                match probe(tool, &instance) {
                    Probe::Accepted => {
                        let at = pointer::of_steps(&bound.path);
                        return Err(Unenforced {
                            keyword: bound.keyword,
                            at,
                        });
                    }
                    Probe::Refused if bound.proves => {
                        refused.push((bound.place.clone(), bound.keyword));
                    }
                    // Past the probe's own limits, or refused for what
                    // else the value holds: untried, checked on each call.
                    Probe::Refused | Probe::TooLarge => {}
                }
            }
            tried.push(key);
        }
    }
    let all = stated(schema).is_some_and(|stated| stated.iter().all(|b| refused.contains(b)));
    Ok(Tried { all })
}

/// Every bound (see [`unenforced`]) that a subschema reachable from the root of
/// `schema` states, by its place: the steps from the root to it through
/// the keywords the shape guard follows (a `$ref` is no step), as
/// [`Builder`] takes them; the keywords beside a `$ref` are listed too,
/// which the builder never tries. A subschema reached by several ways is listed
/// once for each, a recursive one down to its first repeat. `None` past
/// [`MAX_PLACES`].
fn stated(schema: &Value) -> Option<Vec<(String, &'static str)>> {
    let mut out = Vec::new();
    let mut visits = 0;
    stated_in(
        schema,
        schema,
        &mut String::new(),
        &mut Vec::new(),
        &mut visits,
        &mut out,
    )?;
    Some(out)
}

/// The most places [`stated`] walks before it gives up: the schemas of
/// shared definitions reached in many ways.
const MAX_PLACES: usize = 4096;

fn stated_in(
    root: &Value,
    node: &Value,
    route: &mut String,
    above: &mut Vec<usize>,
    visits: &mut usize,
    out: &mut Vec<(String, &'static str)>,
) -> Option<()> {
    let Value::Object(map) = node else {
        return Some(());
    };
    let site = core::ptr::from_ref(map) as usize;
    if above.contains(&site) {
        return Some(());
    }
    *visits += 1;
    if *visits > MAX_PLACES || above.len() > 64 {
        return None;
    }
    // A minimum length or count of 0 bounds nothing.
    let zero = |keyword: &str| {
        matches!(keyword, "minLength" | "minItems" | "minProperties")
            && map.get(keyword).and_then(Value::as_u64) == Some(0)
    };
    // Beside a `$ref`, a place of their own: the builder tries the
    // target's bounds where the `$ref` stands, never those beside it, and a
    // bound the target states under the same keyword must not count for
    // them.
    let place = match map.contains_key("$ref") {
        true => format!("{route}/$ref"),
        false => route.clone(),
    };
    // The subschema's keys, each looked at once (most are no bound).
    out.extend(
        map.iter()
            .filter_map(|(key, value)| {
                let keyword = keywords::find(key).filter(|keyword| keyword.bound.is_some())?;
                Some((keyword.name, value))
            })
            .filter(|(keyword, _)| !zero(keyword))
            // `not` is a bound where it names a value; of nothing (or of
            // `false`), the gates read it as it is.
            .filter(|(keyword, _)| *keyword != "not" || crate::schema::excluded(map).is_some())
            // `unevaluatedProperties` is a bound where it is `false` and
            // some member may be left unevaluated.
            .filter(|(keyword, _)| {
                *keyword != "unevaluatedProperties"
                    || matches!(
                        crate::schema::unevaluated(root, map),
                        Some(Evaluated::Names(_))
                    )
            })
            .map(|(keyword, _)| (place.clone(), keyword)),
    );
    // The lengths `propertyNames` allows a map's keys: each a place of its
    // own, as the builder tries them (see `Builder::key_lengths`).
    if let Some((min, max)) = crate::schema::key_lengths(map) {
        if max.is_some() {
            out.push((format!("{place}/propertyNames/maxLength"), "propertyNames"));
        }
        if min > 0 {
            out.push((format!("{place}/propertyNames/minLength"), "propertyNames"));
        }
    }
    above.push(site);
    for (key, value) in map {
        let children: Vec<(String, &Value)> = match (key.as_str(), value) {
            ("properties" | "patternProperties", Value::Object(children)) => children
                .iter()
                .map(|(name, child)| (named(key, name), child))
                .collect(),
            ("items" | "additionalProperties", child) => vec![(key.clone(), child)],
            ("prefixItems" | "allOf" | "anyOf" | "oneOf", Value::Array(children)) => children
                .iter()
                .enumerate()
                .map(|(i, child)| (format!("{key}/{i}"), child))
                .collect(),
            // In place: the builder resolves it where it stands.
            ("$ref", Value::String(target)) => pointer::target(root, target)
                .map(|child| vec![(String::new(), child)])
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        for (step, child) in children {
            let mark = route.len();
            if !step.is_empty() {
                route.push('/');
                route.push_str(&step);
            }
            let walked = stated_in(root, child, route, above, visits, out);
            route.truncate(mark);
            walked?;
        }
    }
    above.pop();
    Some(())
}
