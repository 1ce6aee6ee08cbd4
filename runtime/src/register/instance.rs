//! The instances of a schema that registration's probes read.
//!
//! The instance is the simplest the schema allows, with every optional
//! field present a few levels deep. A schema the builder cannot satisfy
//! (a custom rule, a pattern it cannot write) leaves the checks that read
//! it undecided, never failed. Beside it, one instance for each variant of
//! each enum it reaches ([`instances`]), and with a key in each map
//! ([`keyed_instances`]). As it builds, the builder notes a value past each
//! bound the schema states (see [`crate::register::unenforced`]).

use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value};

use crate::json::pointer::{self, Step};
use crate::register::pattern::Compiled;
use crate::schema::Evaluated;

/// Levels below which optional fields are left out and lists left empty,
/// so that recursive types end.
const FULL_DEPTH: usize = 4;

/// [`FULL_DEPTH`] of the instances that give each map an entry (see
/// [`keyed_instances`]): a map a few lists and structs down (a list of
/// structs, each with a list of structs that hold maps) is reached, for
/// its keys to be learned and checked.
const KEYED_DEPTH: usize = 8;

/// `keyword` and a name under it, as one step of a place: the name
/// escaped as in a JSON Pointer.
pub(super) fn named(keyword: &str, name: &str) -> String {
    keyword.to_owned() + &pointer::exact([pointer::Segment::Key(name)])
}

/// What tells apart the objects a union's branch takes (see
/// `Builder::tags`): member names, each with its constant if it has one.
type Tags<'s> = Vec<(&'s str, Option<&'s Value>)>;

/// A value put past a bound the schema states.
pub(super) struct Bound {
    pub(super) path: Vec<Step>,
    pub(super) keyword: &'static str,
    pub(super) past: Past,
    /// Where the subschema that states it is reached from the root (see
    /// [`stated`]): one subschema may be reached by several ways, each
    /// tried on its own, and one place in the arguments may be described
    /// by different subschemas in different variants.
    pub(super) place: String,
    /// Whether the tool's refusal of the value proves that it enforces
    /// the bound. Not where the value adds members with `null` to an
    /// object that may hold other members: the tool may refuse the
    /// `null`, not the count (an object flattened into a map of numbers).
    /// There only an acceptance says something.
    pub(super) proves: bool,
}

/// A value past a bound, made only when tried.
pub(super) enum Past {
    Value(Value),
    /// A string of this many `a`s.
    Text(u64),
    /// This many copies of an item.
    Items(u64, Value),
    /// A string of `len` characters that `pattern` matches, made from its
    /// `shortest` match.
    Matching {
        pattern: String,
        shortest: String,
        len: u64,
    },
    /// A string that `pattern` does not match, between `min` and `max`
    /// characters long.
    Unmatched {
        pattern: String,
        min: u64,
        max: Option<u64>,
    },
}

/// The longest string and array a probe writes: past them, a bound is
/// beyond what a call can send under any sane limits, and left untried.
pub(super) const MAX_PAST: u64 = 1 << 16;

impl Past {
    pub(super) fn value(self, compiled: &mut Compiled) -> Option<Value> {
        match self {
            Past::Value(value) => Some(value),
            Past::Text(len) if len <= MAX_PAST => {
                Some(Value::from("a".repeat(usize::try_from(len).ok()?)))
            }
            Past::Items(count, item) if count <= MAX_PAST => {
                Some(Value::Array(vec![item; usize::try_from(count).ok()?]))
            }
            Past::Matching {
                pattern,
                shortest,
                len,
            } if len <= MAX_PAST => {
                matching_of_len(compiled.regex(&pattern)?, &shortest, len).map(Value::from)
            }
            Past::Unmatched { pattern, min, max } => {
                unmatched(compiled.regex(&pattern)?, min, max).map(Value::from)
            }
            Past::Text(_) | Past::Items(..) | Past::Matching { .. } => None,
        }
    }
}

/// The instance registration's probes read: the simplest the schema allows,
/// with every optional field present and one entry in each map, a few
/// levels deep. `None` where the builder cannot satisfy the schema.
pub(crate) fn instance(schema: &Value) -> Option<Value> {
    Builder::new(schema, Vec::new()).value(schema, 0, &mut Vec::new())
}

/// At most this many instances are built to try each branch of a union.
const MAX_INSTANCES: usize = 64;

/// [`instance`], then, for each union it chose a branch of, one instance
/// for each other branch (the others chosen as before): each variant of
/// each enum the simplest instance reaches, up to [`MAX_INSTANCES`].
pub(super) fn instances(schema: &Value) -> Vec<Value> {
    built(schema, false).map(|(_, instance)| instance).collect()
}

/// The instances of [`instances`], each with the builder that wrote it;
/// with `bounded`, only those of the branches of unions whose bounds are
/// tried.
pub(super) fn built(schema: &Value, bounded: bool) -> impl Iterator<Item = (Builder<'_>, Value)> {
    built_with(schema, bounded, false, &[])
}

/// [`built`], the first key of each map whose subschema `keys` names (by
/// its address) written as it says; with `keyed`, a map flattened into a
/// struct (its entries beside the struct's members) has entries too, and
/// so do maps down to [`KEYED_DEPTH`].
fn built_with<'s>(
    schema: &'s Value,
    bounded: bool,
    keyed: bool,
    keys: &'s [(usize, String)],
) -> impl Iterator<Item = (Builder<'s>, Value)> {
    let build = move |plan| {
        let mut builder = Builder::new(schema, plan);
        builder.keys = keys;
        builder.beside = keyed;
        if keyed {
            builder.full_depth = KEYED_DEPTH;
        }
        let instance = builder.value(schema, 0, &mut Vec::new())?;
        Some((builder, instance))
    };
    let first = build(Vec::new());
    let others = first
        .as_ref()
        .map_or_else(Vec::new, |(base, _)| plans(base, bounded));
    first
        .into_iter()
        .chain(others.into_iter().filter_map(build))
}

/// The plans of [`built`] after the first, which `base` followed: for
/// each union it met, one for each other branch, chosen there alone.
fn plans(base: &Builder<'_>, bounded: bool) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let sites = base.branches.iter().zip(&base.bounded).enumerate();
    for (site, (branches, tried)) in sites {
        if bounded && !tried {
            continue;
        }
        for pick in 1..*branches {
            if out.len() + 1 >= MAX_INSTANCES {
                return out;
            }
            let mut plan = vec![0; site];
            plan.push(pick);
            out.push(plan);
        }
    }
    out
}

/// An entry of a map in an instance: a member that a map's keywords
/// (`patternProperties`, or `additionalProperties` with a schema) take,
/// not one its `properties` list.
#[derive(Clone, Debug)]
pub(crate) struct Keyed {
    /// The steps to the map.
    pub(crate) path: Vec<Step>,
    /// The address of the subschema that describes the map, which one map
    /// of the schema keeps in every instance.
    pub(crate) map: usize,
    /// The entry's key.
    pub(crate) key: String,
}

/// The instances of [`instances`], each with its [`Keyed`] entries (see
/// `crate::register::keys`), the first key of each map whose subschema `keys` names
/// (by its address) written as it says.
pub(crate) fn keyed_instances(
    schema: &Value,
    keys: &[(usize, String)],
) -> Vec<(Value, Vec<Keyed>)> {
    built_with(schema, false, true, keys)
        .map(|(builder, instance)| (instance, builder.keyed))
        .collect()
}

/// The object `out` (whose schema's `properties` are `listed`) with the
/// members `left_out` put back and more added until it has `n`: keys of
/// the map's own (`additionalProperties`) with the value of an entry it
/// has, or unlisted keys with `null` where nothing says what else the
/// object may hold, or where it may hold nothing else and has every
/// listed member. `None` where the object cannot be made that large
/// without a value no entry shows (a second key a `patternProperties`
/// pattern matches, a map's first entry).
fn more_members(
    map: &Map<String, Value>,
    listed: &[&str],
    out: &Map<String, Value>,
    left_out: Vec<(String, Value)>,
    n: usize,
) -> Option<(Value, bool)> {
    let mut more = out.clone();
    // A member put back may be one a rule refuses (where it must be
    // left out): a refusal then proves nothing.
    let mut proves = left_out.is_empty();
    more.extend(left_out);
    let listed_all = listed.iter().all(|name| more.contains_key(*name));
    let listed = |key: &str| listed.contains(&key);
    // What a key of the object's own takes, and whether a refusal of the
    // object proves the count enforced (see `Bound::proves`).
    let entry = match map.get("additionalProperties") {
        // A key a pattern matches may need another value.
        _ if map.contains_key("patternProperties") => None,
        Some(Value::Object(_)) => more
            .iter()
            .find(|(k, _)| !listed(k))
            .map(|(_, v)| (v.clone(), true)),
        None | Some(Value::Bool(true)) => Some((Value::Null, false)),
        // `false`: past every listed member, no object of the schema's
        // has more, and the gates refuse an unlisted key whatever the
        // tool's type.
        Some(Value::Bool(false)) if listed_all => Some((Value::Null, true)),
        _ => None,
    };
    let mut i = 0;
    while more.len() < n {
        let key = format!("k{i}");
        i += 1;
        if !more.contains_key(&key) && !listed(&key) {
            let (value, its_refusal_proves) = entry.clone()?;
            proves &= its_refusal_proves;
            more.insert(key, value);
        }
    }
    Some((Value::Object(more), proves))
}

/// The key of entry `i` of a map of string keys: `k0`, `k1`, …, or of
/// a length `propertyNames` allows (`lengths`, see
/// `crate::schema::key_lengths`): `a`, `b`, … for keys of one character.
fn map_key(i: u64, lengths: Option<(u64, Option<u64>)>) -> Option<String> {
    let Some((min, max)) = lengths else {
        return Some(format!("k{i}"));
    };
    let plain = format!("k{i}").chars().count() as u64;
    let len = plain.clamp(min, max.unwrap_or(u64::MAX).max(min));
    map_key_of_len(i, usize::try_from(len).ok()?)
}

/// Key `i` of `len` characters: `a`, `b`, … for one; `k0`, `k1`, …
/// padded with `a`s or cut short for more; `None` where `i` does not fit.
fn map_key_of_len(i: u64, len: usize) -> Option<String> {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    match len {
        0 => (i == 0).then(String::new),
        1 => LETTERS
            .get(usize::try_from(i).ok()?)
            .map(|c| char::from(*c).to_string()),
        _ => {
            let mut key = format!("k{i}");
            if key.len() > len {
                return None;
            }
            key.extend(core::iter::repeat_n('a', len - key.len()));
            Some(key)
        }
    }
}

pub(super) fn at_mut<'v>(value: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Key(k) => value.get_mut(k.as_str()),
        Step::Index(i) => value.get_mut(*i),
    })
}

pub(super) struct Builder<'s> {
    root: &'s Value,
    /// Strings with a `maxLength` and nothing else to satisfy.
    pub(super) sites: Vec<(Vec<Step>, usize)>,
    /// Maps with string keys and no stated size, with a valid entry.
    pub(super) maps: Vec<(Vec<Step>, Value)>,
    /// Every entry of a map written (see [`keyed_instances`]).
    keyed: Vec<Keyed>,
    /// The first key to write in each map whose subschema this names, by
    /// its address (see [`keyed_instances`]).
    keys: &'s [(usize, String)],
    /// Whether an object with members of its own also has entries of its
    /// map (see [`keyed_instances`]). Not for the bounds tried, whose
    /// places a flattened map's entries have not reached so far: they are
    /// checked on every call.
    beside: bool,
    /// Levels below which optional fields are left out and lists and
    /// maps left empty ([`FULL_DEPTH`], or [`KEYED_DEPTH`]).
    full_depth: usize,
    /// For each union met, in order, which of its branches that is not
    /// `null` to choose; the first where it says nothing.
    plan: Vec<usize>,
    /// For each union met, in order, how many branches that are not
    /// `null` it has.
    branches: Vec<usize>,
    /// Values put past the bounds the schema states, outside unions.
    pub(super) bounds: Vec<Bound>,
    /// For each union met, in order, whether bounds inside its branches
    /// are tried: its tags tell them apart, and it is inside no union
    /// whose bounds are not.
    bounded: Vec<bool>,
    /// How many unions of two or more branches that are not `null` the
    /// value being built is inside: a value past a bound there may be
    /// another branch's.
    unions: usize,
    /// Bounds that need no value past them (see [`Self::enforced`]), by
    /// their place.
    pub(super) enforced: Vec<(String, &'static str)>,
    /// The place of the subschema whose value is being built: the steps
    /// from the root to it (see [`stated`]).
    route: String,
}

impl<'s> Builder<'s> {
    pub(super) fn new(root: &'s Value, plan: Vec<usize>) -> Self {
        Builder {
            root,
            sites: Vec::new(),
            maps: Vec::new(),
            keyed: Vec::new(),
            keys: &[],
            beside: false,
            full_depth: FULL_DEPTH,
            plan,
            branches: Vec::new(),
            bounds: Vec::new(),
            bounded: Vec::new(),
            unions: 0,
            enforced: Vec::new(),
            route: String::new(),
        }
    }

    /// For each of the union's `live` branches, whether an object it
    /// accepts is accepted by no other branch, whatever its members hold
    /// beyond their tags; `None` unless each branch that may take an
    /// object is told apart by its only, required, member's name (an
    /// externally tagged enum's variant), or all of them by one required
    /// member's constant (an internally or adjacently tagged enum's tag),
    /// and the rest take no object.
    fn told_apart(&self, live: &[&'s Value]) -> Option<Vec<bool>> {
        let tags = (live.iter())
            .map(|b| self.tags(b))
            .collect::<Option<Vec<_>>>()?;
        let apart = tags_apart(&tags);
        apart.then(|| tags.iter().map(|t| !t.is_empty()).collect())
    }

    /// What tells apart the objects branch `branch` takes: empty if it
    /// takes none; its only member's name (required, nothing else
    /// allowed), paired with `None`; or each required member whose value
    /// is a constant, with it. `None` where it may take an object and
    /// none of those holds.
    fn tags(&self, branch: &'s Value) -> Option<Tags<'s>> {
        if let Some(beside) = beside_ref(branch) {
            // A struct's members beside the tag, which alone tells it apart.
            let target = self.resolve(branch)?.as_object()?;
            if target.get("type").and_then(Value::as_str) != Some("object") {
                return None;
            }
            let tags = self.tags_of(beside, true)?;
            return (!tags.is_empty()).then_some(tags);
        }
        self.tags_of(self.resolve(branch)?.as_object()?, false)
    }

    /// [`Self::tags`] of the keywords `map`, known to describe an object
    /// if `object`.
    fn tags_of(&self, map: &'s Map<String, Value>, object: bool) -> Option<Tags<'s>> {
        let constants = map.get("const").into_iter().chain(
            map.get("enum")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
        // Only a branch of type `object` alone is one the builder writes as
        // an object, told apart by its members.
        match map.get("type") {
            _ if object => {}
            Some(Value::String(t)) if t == "object" => {}
            Some(Value::String(_)) => return Some(Vec::new()),
            Some(Value::Array(ts)) if ts.iter().all(|t| t != "object") => return Some(Vec::new()),
            None if (map.contains_key("const") || map.contains_key("enum"))
                && constants.clone().all(|c| !c.is_object()) =>
            {
                return Some(Vec::new());
            }
            _ => return None,
        }
        let properties = map.get("properties")?.as_object()?;
        let required: Vec<&str> = (map.get("required")?.as_array()?.iter())
            .filter_map(Value::as_str)
            .collect();
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false))
            && map.get("patternProperties").is_none();
        if let ([name], true, 1) = (required.as_slice(), closed, properties.len())
            && let Some(member) = properties.get(*name)
        {
            let tag = (self.resolve(member))
                .and_then(constant)
                .filter(|c| c.is_string());
            return Some(
                [(*name, None)]
                    .into_iter()
                    .chain(tag.map(|c| (*name, Some(c))))
                    .collect(),
            );
        }
        let tags: Tags<'s> = required
            .iter()
            .filter_map(|name| {
                // A string, as serde's tags are: strings are equal as JSON
                // values exactly when their texts are.
                let member = self.resolve(properties.get(*name)?)?;
                Some((*name, Some(constant(member).filter(|c| c.is_string())?)))
            })
            .collect();
        (!tags.is_empty()).then_some(tags)
    }

    /// Notes that the bound `keyword` of the subschema being built needs
    /// no value past it: none can be sent, every integer written past 64
    /// bits is compared with it, or the pattern beside it refuses what it
    /// would.
    fn enforced(&mut self, keyword: &'static str) {
        self.enforced.push((self.route.clone(), keyword));
    }

    /// `build` one step further from the root, by `step`.
    fn stepping<T>(&mut self, step: &str, build: impl FnOnce(&mut Self) -> T) -> T {
        let mark = self.route.len();
        self.route.push('/');
        self.route.push_str(step);
        let built = build(self);
        self.route.truncate(mark);
        built
    }

    /// Notes `past`, a value put past the bound `keyword` states for the
    /// value at `path`, unless inside a union.
    fn bound(&mut self, path: &[Step], keyword: &'static str, past: Option<Past>) {
        self.bound_proving(path, keyword, past.map(|past| (past, true)));
    }

    /// [`Self::bound`], saying whether a refusal of the value proves the
    /// bound enforced (see [`Bound::proves`]).
    fn bound_proving(&mut self, path: &[Step], keyword: &'static str, past: Option<(Past, bool)>) {
        if let (0, Some((past, proves))) = (self.unions, past) {
            self.bounds.push(Bound {
                path: path.to_vec(),
                keyword,
                past,
                place: self.route.clone(),
                proves,
            });
        }
    }

    fn resolve(&self, mut node: &'s Value) -> Option<&'s Value> {
        for _ in 0..16 {
            match node.get("$ref").and_then(Value::as_str) {
                Some(r) => node = pointer::target(self.root, r)?,
                None => return Some(node),
            }
        }
        None
    }

    pub(super) fn value(
        &mut self,
        node: &'s Value,
        depth: usize,
        path: &mut Vec<Step>,
    ) -> Option<Value> {
        if depth > 64 {
            return None;
        }
        let beside = beside_ref(node);
        let node = self.resolve(node)?;
        let Value::Object(map) = node else {
            return Some(Value::Null);
        };
        if let Some(value) = map.get("const") {
            return Some(value.clone());
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            return values.first().cloned();
        }
        if let Some(Value::Array(branches)) = map.get("anyOf").or_else(|| map.get("oneOf")) {
            let null = |b: &&Value| b.get("type").and_then(Value::as_str) == Some("null");
            let branch = if depth > self.full_depth {
                branches.iter().find(null).or_else(|| branches.first())
            } else {
                let pick = self.plan.get(self.branches.len()).copied().unwrap_or(0);
                let live = branches.iter().filter(|b| !null(b));
                self.branches.push(live.clone().count());
                live.clone().nth(pick).or_else(|| branches.first())
            };
            let live: Vec<&Value> = branches.iter().filter(|b| !null(b)).collect();
            // Which branches' objects are told apart, if any: `None` for one
            // branch or none, which is no union.
            let apart = (live.len() > 1).then(|| self.told_apart(&live));
            if depth <= self.full_depth {
                let tried = self.unions == 0
                    && apart
                        .as_ref()
                        .is_none_or(|a| a.as_ref().is_some_and(|a| a.contains(&true)));
                self.bounded.push(tried);
            }
            let chosen = branch?;
            let alone = |a: &Vec<bool>| {
                let at = live.iter().position(|b| core::ptr::eq(*b, chosen));
                at.and_then(|i| a.get(i).copied()).unwrap_or(false)
            };
            let union = match &apart {
                None => 0,
                Some(a) => usize::from(!a.as_ref().is_some_and(alone)),
            };
            self.unions += union;
            let key = if map.contains_key("anyOf") {
                "anyOf"
            } else {
                "oneOf"
            };
            let at = branches
                .iter()
                .position(|b| core::ptr::eq(b, chosen))
                .unwrap_or(0);
            let value = self.stepping(&format!("{key}/{at}"), |b| b.value(chosen, depth, path));
            self.unions -= union;
            // An object with members of its own beside the union (a struct
            // with a flattened enum): its members and the branch's, in one.
            return match value {
                Some(Value::Object(members))
                    if map.contains_key("properties") || map.contains_key("required") =>
                {
                    self.object(map, beside, depth, path, members)
                }
                value => value,
            };
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => return Some(Value::Null),
        };
        let kind = if depth > self.full_depth && types.contains(&"null") {
            "null"
        } else {
            types
                .iter()
                .copied()
                .find(|t| *t != "null")
                .unwrap_or("null")
        };
        // The value a `not` names, put where it stands.
        if let Some(named) = crate::schema::excluded(map) {
            self.bound(path, "not", Some(Past::Value(named.clone())));
        }
        match kind {
            "object" => self.object(map, beside, depth, path, Map::new()),
            "array" => self.array(map, depth, path),
            "string" => self.string(map, path),
            "integer" | "number" => {
                self.number_bounds(map, path);
                if let Some(number) = within(map, kind == "integer") {
                    return Some(number);
                }
                let min = map.get("minimum").and_then(Value::as_i64);
                let xmin = map
                    .get("exclusiveMinimum")
                    .and_then(Value::as_i64)
                    .map(|n| n + 1);
                Some(Value::from(
                    min.or(xmin).unwrap_or(0).max(0).min(
                        map.get("maximum")
                            .and_then(Value::as_i64)
                            .unwrap_or(i64::MAX),
                    ),
                ))
            }
            "boolean" => Some(Value::Bool(false)),
            _ => Some(Value::Null),
        }
    }

    /// An object of `map`, with the members `beside` lists too: the
    /// keywords beside a `$ref` to `map` (an internally tagged enum's
    /// tag, beside its newtype variant's struct). `out`: the members of the
    /// branch of a union beside `map`'s own, already built.
    fn object(
        &mut self,
        map: &'s Map<String, Value>,
        beside: Option<&'s Map<String, Value>>,
        depth: usize,
        path: &mut Vec<Step>,
        mut out: Map<String, Value>,
    ) -> Option<Value> {
        // Each subschema `allOf` lists holds the object too: its members
        // (the branch of an enum flattened into a struct beside another).
        let all_of = map.get("allOf").and_then(Value::as_array);
        for (i, part) in all_of.into_iter().flatten().enumerate() {
            let built = self.stepping(&format!("allOf/{i}"), |b| b.value(part, depth, path));
            if let Some(Value::Object(members)) = built {
                for (name, value) in members {
                    out.entry(name).or_insert(value);
                }
            }
        }
        // Members of a union's branch, which lists and requires members of
        // its own: the counts below would take them for optional ones.
        let branched = !out.is_empty();
        let both = || core::iter::once(map).chain(beside);
        let required: Vec<&str> = both()
            .filter_map(|m| m.get("required").and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let properties = both().filter_map(|m| m.get("properties").and_then(Value::as_object));
        for (name, schema) in properties.flatten() {
            if (depth > self.full_depth && !required.contains(&name.as_str()))
                || out.contains_key(name)
            {
                continue;
            }
            path.push(Step::Key(name.clone()));
            let step = named("properties", name);
            let value = self.stepping(&step, |b| b.value(schema, depth + 1, path));
            path.pop();
            out.insert(name.clone(), value?);
        }
        // Entries beside the members built (a map flattened into a
        // struct): as many more as the object must have.
        let entries = map
            .get("minProperties")
            .and_then(Value::as_u64)
            .map_or(u64::from(depth <= self.full_depth), |min| {
                min.saturating_sub(out.len() as u64)
            });
        if entries > MAX_PAST {
            return None;
        }
        let entry_schema = map
            .get("patternProperties")
            .and_then(Value::as_object)
            .and_then(|p| p.iter().next())
            .map(|(pattern, schema)| (Some(pattern), schema))
            .or_else(|| {
                map.get("additionalProperties")
                    .filter(|a| a.is_object())
                    .map(|schema| (None, schema))
            });
        let unsized_map = map.get("minProperties").is_none()
            && map.get("maxProperties").is_none()
            && map.get("properties").is_none()
            && map.get("patternProperties").is_none();
        // The lengths its `propertyNames` allows a key (see
        // `crate::schema::key_lengths`).
        let lengths = crate::schema::key_lengths(map);
        let entry_schema = entry_schema.filter(|_| self.beside || out.is_empty());
        if let Some((pattern, schema)) = entry_schema {
            let address = core::ptr::from_ref(map) as usize;
            let chosen = (self.keys.iter()).find_map(|(a, key)| (*a == address).then_some(key));
            let mut first = None;
            for i in 0..entries {
                // `1`, the one integer every integer key type takes.
                let integer = pattern.is_some_and(|p| crate::schema::is_integer_key_pattern(p));
                let key = match (pattern, i, chosen) {
                    (_, 0, Some(key)) => key.clone(),
                    (Some(_), 0, None) if integer => "1".to_owned(),
                    (Some(pattern), 0, None) => matching(pattern)?,
                    // A second key the pattern matches is not easy to write.
                    (Some(_), ..) => return None,
                    (None, ..) => map_key(i, lengths)?,
                };
                if out.contains_key(&key) {
                    return None;
                }
                path.push(Step::Key(key.clone()));
                let step = pattern.map_or_else(
                    || "additionalProperties".to_owned(),
                    |p| named("patternProperties", p),
                );
                let value = self.stepping(&step, |b| b.value(schema, depth + 1, path));
                path.pop();
                let value = value?;
                first.get_or_insert_with(|| (key.clone(), value.clone()));
                out.insert(key.clone(), value);
                self.keyed.push(Keyed {
                    path: path.clone(),
                    map: address,
                    key,
                });
            }
            if unsized_map && let Some(entry) = out.values().next() {
                self.maps.push((path.clone(), entry.clone()));
            }
            if let (Some(lengths), Some(first)) = (lengths, first) {
                self.key_lengths(lengths, first, &out, path);
            }
        }
        // Beside a union, the counts go untried, checked on each call.
        if (map.contains_key("maxProperties") || map.contains_key("minProperties")) && !branched {
            let listed: Vec<&str> = both()
                .filter_map(|m| m.get("properties").and_then(Value::as_object))
                .flat_map(Map::keys)
                .map(String::as_str)
                .collect();
            self.member_counts(map, (&required, &listed), &mut out, path);
        }
        // `unevaluatedProperties: false`: a member no subschema in its
        // place lists.
        if let Some(Evaluated::Names(names)) = crate::schema::unevaluated(self.root, map) {
            let mut more = out.clone();
            let key = (0..)
                .map(|i| format!("k{i}"))
                .find(|k| !names.contains(&k.as_str()) && !more.contains_key(k));
            more.extend(key.map(|key| (key, Value::Null)));
            // A refusal of the `null` proves the member refused only where
            // the gates refuse any unlisted member.
            let proves = map.get("additionalProperties") == Some(&Value::Bool(false));
            let past = (Past::Value(Value::Object(more)), proves);
            self.bound_proving(path, "unevaluatedProperties", Some(past));
        }
        Some(Value::Object(out))
    }

    /// Puts a key past each length `propertyNames` allows the keys of the
    /// map `out` (see `crate::schema::key_lengths`): the object with its
    /// entry `first` under a key one character longer than the longest,
    /// and one shorter than the shortest. Each is a place of its own
    /// (see [`stated`]).
    fn key_lengths(
        &mut self,
        (min, max): (u64, Option<u64>),
        (key, value): (String, Value),
        out: &Map<String, Value>,
        path: &[Step],
    ) {
        let with_key_of = |len: u64| {
            let len = usize::try_from(len)
                .ok()
                .filter(|len| *len as u64 <= MAX_PAST)?;
            let mut past = out.clone();
            past.remove(&key);
            let written = (0..)
                .map_while(|i| map_key_of_len(i, len))
                .find(|k| !past.contains_key(k))?;
            past.insert(written, value.clone());
            Some(Past::Value(Value::Object(past)))
        };
        if let Some(max) = max {
            let past = max.checked_add(1).and_then(with_key_of);
            self.stepping("propertyNames/maxLength", |b| {
                b.bound(path, "propertyNames", past);
            });
        }
        if min > 0 {
            let past = with_key_of(min - 1);
            self.stepping("propertyNames/minLength", |b| {
                b.bound(path, "propertyNames", past);
            });
        }
    }

    /// Puts values past the `maxProperties` and `minProperties` of `map`,
    /// whose object `out` is built: first leaving out of it members that
    /// are not required while it has more than it may (their bounds then
    /// go untried, checked on each call), then one member more than it may
    /// have (those left out, then a key of the map's own with the value of
    /// an entry it has, or an unlisted key with `null` where nothing says
    /// what else an object may hold), and one fewer than it must (members
    /// that are not required go first).
    fn member_counts(
        &mut self,
        map: &Map<String, Value>,
        (required, listed): (&[&str], &[&str]),
        out: &mut Map<String, Value>,
        path: &[Step],
    ) {
        let count = |keyword: &str| map.get(keyword).and_then(Value::as_u64);
        let optional = |out: &Map<String, Value>| -> Vec<String> {
            out.keys()
                .filter(|k| !required.contains(&k.as_str()))
                .cloned()
                .collect()
        };
        if let Some(max) = count("maxProperties") {
            let mut left_out = Vec::new();
            for name in optional(out).into_iter().rev() {
                if out.len() as u64 <= max {
                    break;
                }
                if let Some(value) = out.remove(&name) {
                    left_out.push((name, value));
                }
            }
            let more = max
                .checked_add(1)
                .filter(|n| *n <= MAX_PAST)
                .and_then(|n| usize::try_from(n).ok())
                .and_then(|n| more_members(map, listed, out, left_out, n));
            let more = more.map(|(more, proves)| (Past::Value(more), proves));
            self.bound_proving(path, "maxProperties", more);
        }
        if let Some(min) = count("minProperties").filter(|min| *min > 0) {
            let fewer = usize::try_from(min - 1).ok().and_then(|n| {
                let mut fewer = out.clone();
                let mut names = optional(out);
                names.reverse();
                names.extend(out.keys().rev().cloned());
                // A listed member left out may be one a rule requires
                // (`#[garde(required)]`): a refusal then proves nothing.
                // Entries of a map are alike.
                let mut proves = true;
                for name in names {
                    if fewer.len() <= n {
                        break;
                    }
                    if fewer.remove(&name).is_some() {
                        proves &= !listed.contains(&name.as_str());
                    }
                }
                (fewer.len() == n).then_some((Past::Value(Value::Object(fewer)), proves))
            });
            self.bound_proving(path, "minProperties", fewer);
        }
    }

    fn array(
        &mut self,
        map: &'s Map<String, Value>,
        depth: usize,
        path: &mut Vec<Step>,
    ) -> Option<Value> {
        let mut out = Vec::new();
        if let Some(Value::Array(prefix)) = map.get("prefixItems") {
            for (i, schema) in prefix.iter().enumerate() {
                path.push(Step::Index(i));
                let value = self.stepping(&format!("prefixItems/{i}"), |b| {
                    b.value(schema, depth + 1, path)
                });
                path.pop();
                out.push(value?);
            }
            // A tuple: one item more (the last again), or one fewer.
            let count = |keyword: &str| map.get(keyword).and_then(Value::as_u64);
            if let (Some(max), Some(last)) = (count("maxItems"), out.last()) {
                let more = (max == out.len() as u64).then(|| {
                    let mut more = out.clone();
                    more.push(last.clone());
                    Past::Value(Value::Array(more))
                });
                self.bound(path, "maxItems", more);
            }
            if let Some(min) = count("minItems").filter(|m| *m > 0) {
                let fewer = usize::try_from(min - 1).ok().and_then(|n| out.get(..n));
                let fewer = fewer.map(|items| Past::Value(Value::Array(items.to_vec())));
                self.bound(path, "minItems", fewer);
            }
            return Some(Value::Array(out));
        }
        let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = map.get("maxItems").and_then(Value::as_u64);
        let count = min.max(u64::from(depth <= self.full_depth));
        let count = max.map_or(count, |max| count.min(max));
        if let Some(items) = map.get("items").filter(|i| i.is_object()) {
            for i in 0..count {
                path.push(Step::Index(usize::try_from(i).ok()?));
                let value = self.stepping("items", |b| b.value(items, depth + 1, path));
                path.pop();
                out.push(value?);
            }
            // Past a count: the first item repeated, where items may repeat.
            if let (Some(first), false) = (out.first(), map.contains_key("uniqueItems")) {
                let repeat = |n: u64| Past::Items(n, first.clone());
                if let Some(max) = max {
                    self.bound(path, "maxItems", max.checked_add(1).map(repeat));
                }
                if min > 0 {
                    self.bound(path, "minItems", Some(repeat(min - 1)));
                }
            } else if !out.is_empty() {
                // Items that must differ: as many different ones.
                let different = |n: u64| {
                    let n = usize::try_from(n).ok()?;
                    let items = self.different(items, n)?;
                    Some(Past::Value(Value::Array(items)))
                };
                let more = max.and_then(|max| different(max.checked_add(1)?));
                let fewer = (min > 0).then(|| different(min - 1)).flatten();
                if max.is_some() {
                    self.bound(path, "maxItems", more);
                }
                if min > 0 {
                    self.bound(path, "minItems", fewer);
                }
            }
        }
        Some(Value::Array(out))
    }

    /// `n` different values that `items` takes, where they are easy to
    /// write: its choices (an `enum`, or a union of constants), integers
    /// inside its bounds, or strings of one length without a pattern or a
    /// format.
    fn different(&self, items: &'s Value, n: usize) -> Option<Vec<Value>> {
        const LETTERS: &str = "abcdefghijklmnopqrstuvwxyz";
        if n > LETTERS.len() {
            return None;
        }
        let map = self.resolve(items)?.as_object()?;
        let choices: Option<Vec<Value>> = match map.get("enum") {
            Some(Value::Array(values)) => Some(values.clone()),
            _ => (map.get("oneOf").or_else(|| map.get("anyOf")))
                .and_then(Value::as_array)
                .and_then(|branches| {
                    branches
                        .iter()
                        .map(|b| self.resolve(b).and_then(constant).cloned())
                        .collect()
                }),
        };
        if let Some(choices) = choices {
            return choices.get(..n).map(<[Value]>::to_vec);
        }
        match map.get("type").and_then(Value::as_str)? {
            "integer" if !map.contains_key("multipleOf") => {
                // Upwards from one inside the bounds, so above the lowest.
                let (_, high) = whole_bounds(map);
                let start = whole_within(map)?;
                (0..n)
                    .map(|i| {
                        let k = start.checked_add(i128::try_from(i).ok()?)?;
                        high.is_none_or(|h| k <= h).then(|| integer(k))?
                    })
                    .collect()
            }
            "string" if !map.contains_key("pattern") && !map.contains_key("format") => {
                let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
                let len = usize::try_from(min.max(1)).ok()?;
                if map
                    .get("maxLength")
                    .and_then(Value::as_u64)
                    .is_some_and(|max| max < len as u64)
                {
                    return None;
                }
                let rest = "a".repeat(len - 1);
                Some(
                    LETTERS
                        .chars()
                        .take(n)
                        .map(|c| Value::from(format!("{c}{rest}")))
                        .collect(),
                )
            }
            _ => None,
        }
    }

    /// Notes a value past each bound of a number: the next integer, or
    /// for a fraction where the type allows one, the bound one further,
    /// where a double can tell the two apart; and one inside the bounds
    /// that is not a multiple of its `multipleOf`.
    fn number_bounds(&mut self, map: &Map<String, Value>, path: &[Step]) {
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let integer_type = types.contains(&"integer");
        // Only integers (or null): no fraction is a value of it.
        let integers_only = integer_type && types.iter().all(|t| matches!(*t, "integer" | "null"));
        let single = map.get("format").and_then(Value::as_str) == Some("float");
        // A value past the bound; `Err(true)` where none is needed, `Err(false)`
        // where none can be written.
        let step = |bound: &Value, up: bool| -> Result<Value, bool> {
            // A single-precision float reads a value just past any bound
            // as the bound itself (`1.00000001` as `1.0`), which its rules
            // then take: no try can show the bound held.
            if single {
                return Err(false);
            }
            if let Some(n) = exact(bound) {
                // Past 64 bits, an integer written as one is compared with
                // its range on every call (see `shape`): enforced where
                // the value can only be an integer.
                return integer(if up { n + 1 } else { n - 1 }).ok_or(integers_only);
            }
            let b = bound.as_f64().ok_or(false)?;
            if integer_type {
                return Err(false);
            }
            // One whole unit past, or further past a bound so large that a
            // double cannot tell it from one unit more.
            let step = (b.abs() / f64::from(1 << 20)).max(1.0);
            let n = if up { b + step } else { b - step };
            if !n.is_finite() {
                // No double lies past it: a call cannot send one.
                return Err(true);
            }
            serde_json::Number::from_f64(n)
                .map(Value::Number)
                .ok_or(false)
        };
        for (keyword, up) in [("maximum", true), ("minimum", false)] {
            if let Some(bound) = map.get(keyword) {
                match step(bound, up) {
                    Ok(past) => self.bound(path, keyword, Some(Past::Value(past))),
                    Err(true) => self.enforced(keyword),
                    Err(false) => {}
                }
            }
        }
        for keyword in ["exclusiveMaximum", "exclusiveMinimum"] {
            if let Some(bound) = map.get(keyword).filter(|b| b.is_number()) {
                self.bound(path, keyword, Some(Past::Value(bound.clone())));
            }
        }
        if let Some(multiple) = map.get("multipleOf") {
            // Every integer is a multiple of 1, or of a half, a quarter, ….
            let of_one = crate::gate::structural::shape::divides_one(multiple);
            match off_multiple(map, integer_type) {
                Some(off) => self.bound(path, "multipleOf", Some(Past::Value(off))),
                None if integers_only && of_one => self.enforced("multipleOf"),
                None => {}
            }
        }
    }

    fn string(&mut self, map: &'s Map<String, Value>, path: &[Step]) -> Option<Value> {
        let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = map.get("maxLength").and_then(Value::as_u64);
        if let Some(format) = map.get("format").and_then(Value::as_str) {
            let value = match format {
                "email" => "a@example.com",
                "date" => "2024-01-01",
                "date-time" => "2024-01-01T00:00:00Z",
                "time" => "00:00:00",
                "uuid" => "00000000-0000-0000-0000-000000000000",
                "ipv4" | "ip" => "127.0.0.1",
                "ipv6" => "::1",
                "uri" | "url" => "https://example.com",
                "hostname" => "example.com",
                _ => return None,
            };
            return Some(Value::from(value));
        }
        if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
            let shortest = matching(pattern)?;
            // Compiled only when tried: registration builds many instances.
            let of_len = |len: u64| Past::Matching {
                pattern: pattern.to_owned(),
                shortest: shortest.clone(),
                len,
            };
            let unmatched = Past::Unmatched {
                pattern: pattern.to_owned(),
                min,
                max,
            };
            self.bound(path, "pattern", Some(unmatched));
            if let Some(max) = max.and_then(|m| m.checked_add(1)) {
                self.bound(path, "maxLength", Some(of_len(max)));
            }
            // Where every match is as long, the pattern enforces the
            // minimum: a shorter string is not a match.
            let least = regex_syntax::parse(pattern).map_or(0, |hir| least_chars(&hir));
            if min > 0 && least >= min {
                self.enforced("minLength");
            } else if min > 0 {
                self.bound(path, "minLength", Some(of_len(min - 1)));
            }
            // The shortest match, or one as long as the bounds ask.
            let have = shortest.chars().count() as u64;
            let len = have.clamp(min, max.unwrap_or(u64::MAX).max(min));
            if len == have {
                return Some(Value::from(shortest));
            }
            let written = of_len(len).value(&mut Compiled::default());
            return Some(written.unwrap_or(Value::from(shortest)));
        }
        if let Some(max) = max.and_then(|m| usize::try_from(m).ok())
            && max > 0
        {
            self.sites.push((path.to_vec(), max));
        }
        if let Some(max) = max {
            self.bound(path, "maxLength", max.checked_add(1).map(Past::Text));
        }
        if min > 0 {
            self.bound(path, "minLength", Some(Past::Text(min - 1)));
        }
        let len = usize::try_from(min.max(1).min(max.unwrap_or(u64::MAX))).ok()?;
        Some(Value::from("a".repeat(len)))
    }
}

/// Whether each branch's `tags` tell its objects apart (see
/// [`Builder::told_apart`]).
fn tags_apart(tags: &[Tags<'_>]) -> bool {
    let objects: Vec<&Tags<'_>> = tags.iter().filter(|t| !t.is_empty()).collect();
    let distinct = |of: &dyn Fn(&Tags<'_>) -> Option<String>| {
        let seen: Option<Vec<String>> = objects.iter().map(|t| of(t)).collect();
        seen.is_some_and(|mut seen| {
            let all = seen.len();
            seen.sort();
            seen.dedup();
            seen.len() == all
        })
    };
    // Externally tagged: the only member's name.
    let only_name = |t: &Tags<'_>| match t.as_slice() {
        [(name, None)] | [(name, None), (_, Some(_))] => Some((*name).to_owned()),
        _ => None,
    };
    if distinct(&only_name) {
        return true;
    }
    // Internally or adjacently tagged: one member's constant, the same
    // member in every branch.
    objects.first().is_some_and(|first| {
        first.iter().filter(|(_, c)| c.is_some()).any(|(key, _)| {
            distinct(&|t| {
                t.iter()
                    .find(|(k, c)| k == key && c.is_some())
                    .and_then(|(_, c)| c.map(Value::to_string))
            })
        })
    })
}

/// The one value a subschema allows by `const`, or by an `enum` of one
/// value (a one-variant enum's schema).
fn constant(schema: &Value) -> Option<&Value> {
    schema
        .get("const")
        .or_else(|| match schema.get("enum")?.as_array()?.as_slice() {
            [one] => Some(one),
            _ => None,
        })
}

/// The keywords beside a `$ref` in `node`, if it has any but annotations.
fn beside_ref(node: &Value) -> Option<&Map<String, Value>> {
    let map = node.as_object()?;
    let beside = |k: &String| k != "$ref" && !crate::schema::is_annotation(k);
    (map.contains_key("$ref") && map.keys().any(beside)).then_some(map)
}

/// `value` as an exact integer, if it is written as one that fits 64 bits.
fn exact(value: &Value) -> Option<i128> {
    (value.as_i64().map(i128::from)).or_else(|| value.as_u64().map(i128::from))
}

/// `n` as a JSON integer, if it fits 64 bits, signed or not.
fn integer(n: i128) -> Option<Value> {
    (i64::try_from(n).ok().map(Value::from)).or_else(|| u64::try_from(n).ok().map(Value::from))
}

/// The first of a few plain numbers (zero, then each bound and the
/// integer or half step inside each exclusive one) that every bound of
/// `map` and its `multipleOf` take: `None` if none does.
fn within(map: &Map<String, Value>, whole: bool) -> Option<Value> {
    if whole {
        return whole_within(map).and_then(integer);
    }
    let get = |k: &str| map.get(k).and_then(Value::as_f64);
    let candidates = [
        Some(0.0),
        get("minimum"),
        get("exclusiveMinimum").map(|x| x + 0.5),
        get("maximum"),
        get("exclusiveMaximum").map(|x| x - 0.5),
        Some(1.0),
    ];
    let named = crate::schema::excluded(map).and_then(Value::as_f64);
    let fits = |n: f64| {
        inside(map, n)
            && get("multipleOf").is_none_or(|m| m > 0.0 && (n / m).fract() == 0.0)
            && named != Some(n)
    };
    let n = candidates.into_iter().flatten().find(|n| fits(*n))?;
    fraction(n)
}

/// `n` as a JSON number: whole numbers as integers, exactly, where a
/// double holds them.
fn fraction(n: f64) -> Option<Value> {
    #[allow(clippy::cast_possible_truncation)]
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        return Some(Value::from(n as i64));
    }
    serde_json::Number::from_f64(n).map(Value::Number)
}

/// Whether `n` is finite and inside the bounds of `map` (its `multipleOf`
/// aside).
fn inside(map: &Map<String, Value>, n: f64) -> bool {
    let get = |k: &str| map.get(k).and_then(Value::as_f64);
    n.is_finite()
        && get("minimum").is_none_or(|m| n >= m)
        && get("maximum").is_none_or(|m| n <= m)
        && get("exclusiveMinimum").is_none_or(|m| n > m)
        && get("exclusiveMaximum").is_none_or(|m| n < m)
}

/// The lowest and highest integer the bounds of `map` take, exactly:
/// bounds past a double's precision are not rounded.
fn whole_bounds(map: &Map<String, Value>) -> (Option<i128>, Option<i128>) {
    // A bound as the nearest integer on its side: exact for an integer,
    // the ceiling (`up`) or floor of a fraction.
    let whole = |k: &str, up: bool| -> Option<i128> {
        let v = map.get(k)?;
        if let Some(n) = exact(v) {
            return Some(n);
        }
        let f = v.as_f64().filter(|f| f.is_finite() && f.abs() < 1e36)?;
        #[allow(clippy::cast_possible_truncation)]
        Some(if up { f.ceil() } else { f.floor() } as i128)
    };
    let low = [
        whole("minimum", true),
        whole("exclusiveMinimum", false).and_then(|m| m.checked_add(1)),
    ]
    .into_iter()
    .flatten()
    .max();
    let high = [
        whole("maximum", false),
        whole("exclusiveMaximum", true).and_then(|m| m.checked_sub(1)),
    ]
    .into_iter()
    .flatten()
    .min();
    (low, high)
}

/// [`within`] for an integer, compared exactly.
fn whole_within(map: &Map<String, Value>) -> Option<i128> {
    let (low, high) = whole_bounds(map);
    let multiple = match map.get("multipleOf") {
        None => None,
        Some(m) => Some(m.as_u64().map(i128::from).filter(|m| *m > 0)?),
    };
    // Not the value a `not` names (zero, for a signed `NonZero` integer).
    let named = crate::schema::excluded(map).and_then(exact);
    let fits = |n: &i128| {
        low.is_none_or(|l| *n >= l)
            && high.is_none_or(|h| *n <= h)
            && multiple.is_none_or(|m| n % m == 0)
            && named != Some(*n)
    };
    [
        Some(0),
        low,
        high,
        Some(1),
        Some(-1),
        low.map(|l| l + 1),
        high.map(|h| h - 1),
        multiple,
        multiple.map(|m| -m),
    ]
    .into_iter()
    .flatten()
    .find(fits)
}

/// A number the bounds of `map` take and its `multipleOf` refuses: one
/// step (or half a multiple, for a fraction) from the one [`within`]
/// chooses. `None` where there is none to write: an integer's
/// `multipleOf` of 1 or a fraction, or bounds that leave no room.
fn off_multiple(map: &Map<String, Value>, whole: bool) -> Option<Value> {
    let multiple = map.get("multipleOf")?;
    if whole {
        exact(multiple).filter(|m| *m > 1)?;
        let base = whole_within(map)?;
        let (low, high) = whole_bounds(map);
        let fits = |n: &i128| low.is_none_or(|l| *n >= l) && high.is_none_or(|h| *n <= h);
        // Next to a multiple of more than 1: not one.
        return [base + 1, base - 1]
            .into_iter()
            .find(fits)
            .and_then(integer);
    }
    let m = multiple.as_f64().filter(|m| *m > 0.0 && m.is_finite())?;
    let base = within(map, false)?.as_f64()?;
    [base + m / 2.0, base - m / 2.0]
        .into_iter()
        .find(|n| *n != base && inside(map, *n))
        .and_then(fraction)
}

/// A short string `pattern` does not match, of a length between `min` and
/// `max`, when one is easy to write.
fn unmatched(regex: &regex::Regex, min: u64, max: Option<u64>) -> Option<String> {
    let len = usize::try_from(min).ok()?;
    if max.is_some_and(|max| max < min) {
        return None;
    }
    ['~', '0', 'a', 'A', ' ']
        .into_iter()
        .map(|c| core::iter::repeat_n(c, len.max(1)).collect::<String>())
        .chain((len == 0).then(String::new))
        .filter(|s| max.is_none_or(|max| s.chars().count() as u64 <= max))
        .find(|s| !regex.is_match(s))
}

/// A string of `len` characters that `regex` matches, from `shortest`, a
/// match: itself, or with its last or first character repeated, when one
/// of those matches.
fn matching_of_len(regex: &regex::Regex, shortest: &str, len: u64) -> Option<String> {
    let have = shortest.chars().count() as u64;
    if len == have {
        return Some(shortest.to_owned());
    }
    let more = usize::try_from(len.checked_sub(have)?).ok()?;
    let (first, last) = (shortest.chars().next()?, shortest.chars().last()?);
    let candidates = [
        format!("{shortest}{}", String::from(last).repeat(more)),
        format!("{}{shortest}", String::from(first).repeat(more)),
    ];
    candidates.into_iter().find(|s| regex.is_match(s))
}

/// A short string the pattern matches, when one is easy to write.
fn matching(pattern: &str) -> Option<String> {
    let hir = regex_syntax::parse(pattern).ok()?;
    let mut out = String::new();
    write_match(&hir, &mut out)?;
    Some(out)
}

/// The fewest characters a string `hir` matches can have.
fn least_chars(hir: &Hir) -> u64 {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(literal) => {
            core::str::from_utf8(&literal.0).map_or(literal.0.len(), |s| s.chars().count()) as u64
        }
        HirKind::Class(_) => 1,
        HirKind::Repetition(repetition) => {
            u64::from(repetition.min).saturating_mul(least_chars(&repetition.sub))
        }
        HirKind::Capture(capture) => least_chars(&capture.sub),
        HirKind::Concat(parts) => parts.iter().map(least_chars).fold(0, u64::saturating_add),
        HirKind::Alternation(branches) => branches.iter().map(least_chars).min().unwrap_or(0),
    }
}

fn write_match(hir: &Hir, out: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(()),
        HirKind::Literal(literal) => {
            out.push_str(core::str::from_utf8(&literal.0).ok()?);
            Some(())
        }
        HirKind::Class(Class::Unicode(class)) => {
            out.push(class.ranges().first()?.start());
            Some(())
        }
        HirKind::Class(Class::Bytes(class)) => {
            out.push(char::from(class.ranges().first()?.start()));
            Some(())
        }
        HirKind::Repetition(repetition) => {
            for _ in 0..repetition.min {
                write_match(&repetition.sub, out)?;
            }
            Some(())
        }
        HirKind::Capture(capture) => write_match(&capture.sub, out),
        HirKind::Concat(parts) => parts.iter().try_for_each(|p| write_match(p, out)),
        HirKind::Alternation(branches) => write_match(branches.first()?, out),
    }
}
