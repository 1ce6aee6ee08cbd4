//! Gate 2's guard: the document has the shape the published schema states.
//!
//! serde's derived `Deserialize` is laxer than the schema toolgate publishes
//! in a few places, and none of them can be switched off: a struct or a
//! struct variant also reads a JSON array positionally (`"window": [30]`),
//! a unit variant of an internally or adjacently tagged enum ignores the
//! other keys of its object (`{"kind":"dot","radius":5}`), and values that
//! serde buffers for tagged and untagged enums are read by serde's own
//! deserializer, out of reach of any wrapper. So once serde has accepted a
//! call, this walk checks the document against the schema's structural
//! keywords: `type`, `properties`, `additionalProperties`,
//! `patternProperties`, `required`, `items`, `prefixItems`, `enum`, `const`,
//! `anyOf`, `oneOf`, `allOf` and `$ref`, and the bounds `minimum`,
//! `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`,
//! `minLength`, `maxLength`, `pattern`, `minItems`, `maxItems`,
//! `minProperties`, `maxProperties`, `unevaluatedProperties: false` (see
//! `crate::schema::unevaluated`), `not` where it names one value (see
//! `crate::schema::names_value`), and `propertyNames` where it states the
//! lengths of keys (see `crate::schema::key_lengths`).
//!
//! The walk never refuses what the schema accepts: it reads `oneOf` as
//! `anyOf` and ignores every other keyword, so it can only be more lenient
//! than the schema, and serde and garde still apply everything else. Each
//! value is read once, against the set of subschemas that may describe it,
//! so the cost is linear in the document times the schema's size. A flat
//! document pays nothing for it: the walk runs only when the document holds
//! an object or array below the arguments object, or a `null`, where
//! serde's laxities live (an array of scalars is none where the schema's
//! members are all scalars or arrays of scalars: no struct is there to
//! read one), or when the schema lists choices (`enum`, `const`), which a
//! derived enum may read more laxly (an alias, a `#[serde(other)]`
//! variant). It runs before serde when the schema has an untagged union
//! (see [`Shape::walks_first`]), and after serde refuses, to say where.

use std::collections::HashMap;

use regex::Regex;
use serde_json::Value;
use smallvec::SmallVec;

use crate::json::pointer::{self, Step};
use crate::{Code, Rejection, outcome::message};

pub(crate) type Id = u32;

/// JSON kinds, as bits.
pub(crate) const NULL: u8 = 1;
pub(crate) const BOOLEAN: u8 = 2;
pub(crate) const INTEGER: u8 = 4;
/// A number with a fraction.
pub(crate) const FRACTION: u8 = 8;
pub(crate) const STRING: u8 = 16;
pub(crate) const ARRAY: u8 = 32;
pub(crate) const OBJECT: u8 = 64;
const ANY: u8 = 127;

/// The structural part of a canonical schema, compiled for the walk.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shape {
    nodes: Vec<Node>,
    root: Option<Id>,
    /// The schema has an untagged union: walk before serde, whose untagged
    /// enums try every variant at every level, which costs exponential
    /// work in the nesting for a document the schema refuses.
    first: bool,
    /// Whether the single pass reads without the schema (see
    /// [`Shape::reads_flat`]).
    reads_flat: ReadsFlat,
    /// Some array's items must differ: the single pass reading without
    /// the schema compares every array's items, and stops at a repeat.
    any_unique: bool,
    /// The members of the arguments object read against their subschemas
    /// where the rest is read without the schema (see [`Shape::guided`]).
    guided: Vec<(Box<str>, Id)>,
    /// The lengths of the names in `guided`, one bit each (63 for every
    /// length from 63 on): a key of another length is none of them.
    guided_lengths: u64,
}

/// [`Shape::reads_flat`]: set by registration's proof, read by each
/// call. A proof is of the tool's type
/// and schema, the same whichever toolbox registers it.
#[derive(Debug, Default)]
struct ReadsFlat(std::sync::atomic::AtomicBool);

impl Clone for ReadsFlat {
    fn clone(&self) -> Self {
        ReadsFlat(self.get().into())
    }
}

impl ReadsFlat {
    fn get(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn set(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Derived from the schema, which a definition compares already.
impl PartialEq for Shape {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[derive(Clone, Debug)]
struct Node {
    kinds: u8,
    /// Each property, what describes it, and whether it is required.
    properties: Vec<(Box<str>, Child, bool)>,
    required: Vec<Box<str>>,
    patterns: Vec<(Regex, Child)>,
    additional: Child,
    prefix: Vec<Child>,
    items: Child,
    /// Each list of `enum` (or the one value of `const`) the value must be in.
    choices: Vec<Vec<Value>>,
    /// Each `anyOf`/`oneOf`: at least one branch must accept.
    any_of: Vec<Vec<Id>>,
    all_of: Vec<Id>,
    /// `minimum` and `maximum`, inclusive.
    range: (Option<Number>, Option<Number>),
    /// `exclusiveMinimum` and `exclusiveMaximum`.
    exclusive: (Option<Number>, Option<Number>),
    /// `multipleOf`, if above zero.
    multiple: Option<Number>,
    /// `minLength` and `maxLength`, in characters.
    length: (Option<u64>, Option<u64>),
    /// `pattern`, compiled when a walk with bounds first meets it: most
    /// schemas are never walked with bounds.
    pattern: Option<Pattern>,
    /// `minItems` and `maxItems`.
    count: (Option<u64>, Option<u64>),
    /// `minProperties` and `maxProperties`: how many members an object
    /// has, whatever their names.
    entries: (Option<u64>, Option<u64>),
    /// The lengths in characters `propertyNames` allows an object's keys
    /// (see [`crate::schema::key_lengths`]): a bound.
    names: (Option<u64>, Option<u64>),
    /// Where it states `unevaluatedProperties: false`, the names of the
    /// members an object may have (see [`crate::schema::unevaluated`]).
    unevaluated: Option<Vec<Box<str>>>,
    /// `uniqueItems`: an array's items must all be different.
    unique: bool,
    /// The value a `not` names (see [`crate::schema::names_value`]),
    /// which the value must not equal: a bound, checked by a walk with
    /// bounds; registration refuses any other `not`.
    excluded: Option<Value>,
    /// The union this subschema is, if its branches are told apart by a
    /// tag (see [`Tagged`]).
    tagged: Option<Box<Tagged>>,
    /// With one list of choices, its strings, if none has a backslash: a
    /// string written as one of them is chosen without decoding it.
    plain_choices: Option<Box<[Box<str>]>>,
}

/// A `pattern`, compiled once, when first matched.
#[derive(Clone, Debug)]
struct Pattern {
    source: Box<str>,
    compiled: std::sync::OnceLock<Option<Regex>>,
}

impl Pattern {
    fn new(source: &str) -> Pattern {
        Pattern {
            source: source.into(),
            compiled: std::sync::OnceLock::new(),
        }
    }

    /// Whether `text` matches. Nothing matches a pattern the regex crate
    /// cannot compile: registration refuses a tool with one (see
    /// [`crate::register::pattern`]), and a walk that meets one anyway refuses
    /// rather than let the bound go unchecked.
    fn matches(&self, text: &str) -> bool {
        let compiled = self.compiled.get_or_init(|| Regex::new(&self.source).ok());
        compiled.as_ref().is_some_and(|regex| regex.is_match(text))
    }
}

/// A union of objects told apart by one required member, the tag, whose
/// value is a constant string different in each branch: serde's internally
/// tagged enums. An object the union reads can then be only the branch its
/// tag names, which alone decides.
#[derive(Clone, Debug)]
pub(crate) struct Tagged {
    key: Box<str>,
    /// Each branch, by its tag, with the tag's [`property_bit`] in the
    /// branch (see [`Self::branch_at`]).
    branches: Vec<(Box<str>, Id, Option<u64>)>,
    /// Whether the key and every tag are written as they are: no quote,
    /// backslash or control character that a document must escape.
    plain: bool,
}

impl Tagged {
    /// The member that names the branch.
    pub(crate) fn key(&self) -> &[u8] {
        self.key.as_bytes()
    }

    /// The branch whose tag is `tag`, written without escapes.
    pub(crate) fn branch(&self, tag: &[u8]) -> Option<Id> {
        let (_, id, _) = self
            .branches
            .iter()
            .find(|(t, ..)| crate::json::text::same_text(t.as_bytes(), tag))?;
        Some(*id)
    }

    /// Whether the key and every tag are written as they are (see
    /// `plain`): a string that is one of them is then that text between
    /// quotes, matched in place.
    pub(crate) fn plain(&self) -> bool {
        self.plain
    }

    /// The branch whose tag is written at `pos`, quotes and all: for a
    /// [`plain`](Self::plain) union, [`branch`](Self::branch) of the
    /// string there, without reading ahead for where it ends.
    ///
    /// With it, the tag's [`property_bit`] in the branch.
    pub(crate) fn branch_at(&self, bytes: &[u8], pos: usize) -> Option<(Id, Option<u64>)> {
        let (_, id, bit) = self
            .branches
            .iter()
            .find(|(t, ..)| quoted_at(bytes, pos, t.as_bytes()))?;
        Some((*id, *bit))
    }
}

/// Whether the string at `pos` is `text` between quotes. Where `text`
/// needs no escape, that is the string whose decoded text is `text`: its
/// first unescaped quote closes it, right after `text`.
pub(crate) fn quoted_at(bytes: &[u8], pos: usize, text: &[u8]) -> bool {
    let start = pos + 1;
    let end = start + text.len();
    // The closing quote first: it tells most texts of another length apart.
    bytes.get(end) == Some(&b'"')
        && bytes.get(pos) == Some(&b'"')
        && bytes
            .get(start..end)
            .is_some_and(|written| crate::json::text::same_text(written, text))
}

/// The bit of the property at `index` among those a subschema lists, by
/// which the reader notes the members it has seen: `None` past the 64th,
/// which it does not note.
pub(crate) fn property_bit(index: usize) -> Option<u64> {
    (index < 64).then(|| 1 << index)
}

/// The bit of a name `len` bytes long in [`Shape::guided`]'s lengths.
#[inline]
fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}

/// Whether `text` is written as it is in a JSON string: no quote,
/// backslash or control character.
fn unescaped(text: &str) -> bool {
    !text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20)
}

/// Whether `multiple` divides 1, as `multipleOf` reads it (see
/// `Number::is_multiple_of`): every integer is then a multiple of it.
pub(crate) fn divides_one(multiple: &Value) -> bool {
    Number::of(multiple).is_some_and(|m| {
        m.cmp(Number::Integer(0)) == Some(core::cmp::Ordering::Greater)
            && Number::Integer(1).is_multiple_of(m)
    })
}

/// A JSON number, exactly for integers that fit 128 bits.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
enum Number {
    Integer(i128),
    Float(f64),
}

impl Number {
    fn parse(text: &str) -> Option<Number> {
        match text.parse::<i128>() {
            Ok(n) => Some(Number::Integer(n)),
            Err(_) => text.parse::<f64>().ok().map(Number::Float),
        }
    }

    fn of(value: &Value) -> Option<Number> {
        let n = value.as_number()?;
        n.as_i64()
            .map(|i| Number::Integer(i.into()))
            .or_else(|| n.as_u64().map(|u| Number::Integer(u.into())))
            .or_else(|| n.as_f64().map(Number::Float))
    }

    /// Whether this is a whole multiple of `m`, read as the jsonschema
    /// crate reads `multipleOf`: by a whole divisor, exactly, the double as
    /// it is; by a fraction, each number as its shortest decimal text
    /// (`0.3` is a multiple of `0.1`, though neither double is what it
    /// looks like). Infinities are left alone.
    fn is_multiple_of(self, m: Number) -> bool {
        const WHOLE: f64 = 9_007_199_254_740_992.0;
        match (self, m) {
            (Number::Integer(a), Number::Integer(b)) => return b == 0 || a % b == 0,
            #[allow(clippy::cast_possible_truncation)]
            (Number::Integer(a), Number::Float(b)) if b.fract() == 0.0 && b.abs() <= WHOLE => {
                let b = b as i128;
                return b == 0 || a % b == 0;
            }
            #[allow(clippy::cast_precision_loss)]
            (Number::Float(v), Number::Integer(b)) if b.unsigned_abs() <= 1 << 53 => {
                return !v.is_finite() || (v.fract() == 0.0 && v % b as f64 == 0.0);
            }
            (Number::Float(v), Number::Float(b)) if b.fract() == 0.0 && b.abs() <= WHOLE => {
                return !v.is_finite() || (v.fract() == 0.0 && v % b == 0.0);
            }
            _ => {}
        }
        let (Some((a, da)), Some((b, db))) = (self.decimal_parts(), m.decimal_parts()) else {
            return true;
        };
        if a == 0 || b == 0 {
            return true;
        }
        // a·10^−da ÷ b·10^−db = (a ÷ b)·10^(db − da).
        match db - da {
            // Whole when b divides a·10^k: by remainders, so that no power
            // of ten is written out.
            k @ 0.. => {
                let ten = (0..k).try_fold(1 % b, |p: i128, _| p.checked_mul(10).map(|p| p % b));
                ten.and_then(|ten| (a % b).checked_mul(ten))
                    .is_some_and(|r| r % b == 0)
            }
            // Whole when b·10^k divides a: past what 128 bits hold, it
            // exceeds a, which is not zero.
            k => (u32::try_from(-k).ok())
                .and_then(|k| 10_i128.checked_pow(k))
                .and_then(|p| b.checked_mul(p))
                .is_some_and(|d| a % d == 0),
        }
    }

    /// This number as `m · 10^−d`, from its shortest decimal text; `None`
    /// for an infinity.
    fn decimal_parts(self) -> Option<(i128, i32)> {
        match self {
            Number::Integer(n) => Some((n, 0)),
            Number::Float(f) if f.is_finite() => {
                let text = format!("{f:e}");
                let (digits, exponent) = text.split_once('e')?;
                let exponent: i32 = exponent.parse().ok()?;
                let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
                let mantissa: i128 = format!("{whole}{fraction}").parse().ok()?;
                Some((mantissa, i32::try_from(fraction.len()).ok()? - exponent))
            }
            Number::Float(_) => None,
        }
    }

    /// Compares by value, as JSON Schema does.
    fn cmp(self, other: Number) -> Option<core::cmp::Ordering> {
        match (self, other) {
            (Number::Integer(a), Number::Integer(b)) => Some(a.cmp(&b)),
            #[allow(clippy::cast_precision_loss)]
            (Number::Integer(a), Number::Float(b)) => (a as f64).partial_cmp(&b),
            #[allow(clippy::cast_precision_loss)]
            (Number::Float(a), Number::Integer(b)) => a.partial_cmp(&(b as f64)),
            (Number::Float(a), Number::Float(b)) => a.partial_cmp(&b),
        }
    }
}

impl Default for Node {
    fn default() -> Self {
        Node {
            kinds: ANY,
            properties: Vec::new(),
            required: Vec::new(),
            patterns: Vec::new(),
            additional: Child::Any,
            prefix: Vec::new(),
            items: Child::Any,
            choices: Vec::new(),
            any_of: Vec::new(),
            all_of: Vec::new(),
            range: (None, None),
            exclusive: (None, None),
            multiple: None,
            length: (None, None),
            pattern: None,
            count: (None, None),
            entries: (None, None),
            names: (None, None),
            unevaluated: None,
            unique: false,
            excluded: None,
            tagged: None,
            plain_choices: None,
        }
    }
}

/// What describes a member of an object or an array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Child {
    Any,
    Never,
    Node(Id),
}

/// A place in the arguments object where the schema holds a value to
/// more than serde is known to (see [`Shape::to_prove`]).
#[derive(Debug, PartialEq)]
pub(crate) enum Place<'s> {
    /// The value of a listed property, or elements of it, must be a
    /// scalar of these kinds.
    Scalar(&'s str, Slot, u8),
    /// The value of a listed property, or elements of it, must be one of
    /// these strings.
    Chosen(&'s str, Slot, &'s [Box<str>]),
    /// The value of a listed property is an array: how many elements it
    /// takes by position, at most how many in all, if the schema says; the
    /// strings its other elements must be one of, if a list; and whether
    /// its items must differ.
    Array(&'s str, usize, Option<u64>, Option<&'s [Box<str>]>, bool),
}

/// Where in a property's value a [`Place`] is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Slot {
    /// The value itself.
    Whole,
    /// The array's element at this index.
    At(usize),
    /// The array's elements from this index on.
    From(usize),
}

impl Shape {
    /// Compiles the structural keywords of `schema`.
    pub(crate) fn new(schema: &Value) -> Shape {
        let mut builder = Builder {
            root: schema,
            nodes: Vec::new(),
            refs: HashMap::new(),
            untagged: false,
        };
        let root = builder.child(schema);
        let mut shape = Shape {
            root: match root {
                Child::Node(id) => Some(id),
                Child::Any | Child::Never => None,
            },
            nodes: builder.nodes,
            first: builder.untagged,
            reads_flat: ReadsFlat::default(),
            any_unique: false,
            guided: Vec::new(),
            guided_lengths: 0,
        };
        shape.any_unique = shape.nodes.iter().any(|node| node.unique);
        for id in 0..shape.nodes.len() {
            let tagged = Id::try_from(id).ok().and_then(|id| shape.find_tag(id));
            if let Some(node) = shape.nodes.get_mut(id) {
                node.tagged = tagged.map(Box::new);
            }
        }
        if let Some(root) = shape.root {
            shape.guided = (shape.node(root).properties.iter())
                .filter_map(|(key, child, _)| match *child {
                    Child::Node(id) if !shape.plain(child, true) => Some((key.clone(), id)),
                    _ => None,
                })
                .collect();
            shape.guided_lengths =
                (shape.guided.iter()).fold(0, |bits, (key, _)| bits | length_bit(key.len()));
        }
        shape
    }

    /// Subschema `id` as a [`Tagged`] union, if it is one: a union whose
    /// branches that take objects at all each list the same required
    /// member with one constant string of its own.
    fn find_tag(&self, id: Id) -> Option<Tagged> {
        let mut branches = Vec::new();
        let mut seen = Vec::new();
        if self.node(id).any_of.is_empty() || !self.object_branches(id, 0, &mut branches, &mut seen)
        {
            return None;
        }
        let first = self.node(*branches.first()?);
        // The first key every branch requires with a constant string.
        first.required.iter().find_map(|key| {
            let mut tagged = Tagged {
                key: key.clone(),
                branches: Vec::new(),
                plain: unescaped(key),
            };
            for branch in &branches {
                let tag = self.constant_member(*branch, key)?;
                if tagged.branch(tag.as_bytes()).is_some() {
                    return None;
                }
                tagged.plain &= unescaped(tag);
                let (index, ..) = self.node(*branch).member_at(key.as_bytes());
                tagged
                    .branches
                    .push((tag.into(), *branch, index.and_then(property_bit)));
            }
            Some(tagged)
        })
    }

    /// Adds to `branches` the subschemas an object under `id` must satisfy
    /// one of: `id` itself if it has no union and takes only objects, or
    /// the branches of its one union if it has nothing else, less those
    /// that take no object. `false` for any other subschema. Each
    /// subschema is looked at once, however often the unions name it, and
    /// at most 64 branches are gathered: the work is bounded by the
    /// schema's size.
    fn object_branches(
        &self,
        id: Id,
        depth: usize,
        branches: &mut Vec<Id>,
        seen: &mut Vec<Id>,
    ) -> bool {
        if seen.contains(&id) {
            return true;
        }
        seen.push(id);
        if branches.len() >= 64 {
            return false;
        }
        let node = self.node(id);
        if self.simple(id) {
            if node.kinds & OBJECT == 0 {
                return true;
            }
            branches.push(id);
            return node.kinds == OBJECT && node.choices.is_empty();
        }
        let [group] = node.any_of.as_slice() else {
            return false;
        };
        depth < 4
            && node.kinds & OBJECT != 0
            && node.choices.is_empty()
            && node.is_bare_beside_unions()
            && group
                .iter()
                .all(|branch| self.object_branches(*branch, depth + 1, branches, seen))
    }

    /// The one string required member `key` of subschema `id` must be, if
    /// its subschema says nothing else.
    fn constant_member(&self, id: Id, key: &str) -> Option<&str> {
        let (_, child, required) = self
            .node(id)
            .properties
            .iter()
            .find(|(name, ..)| &**name == key)?;
        let Child::Node(member) = child else {
            return None;
        };
        let member = self.node(*member);
        match member.choices.as_slice() {
            [values] if *required && member.kinds & STRING != 0 && member.is_bare() => {
                match values.as_slice() {
                    [Value::String(tag)] => Some(tag),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether subschema `id` has no union, each member it lists is as
    /// `listed` says, and each other member is a scalar or an array of
    /// scalars by its own keywords (see [`Shape::plain`]).
    fn members_are(&self, id: Id, listed: impl Fn(&Child) -> bool) -> bool {
        let node = self.node(id);
        self.simple(id)
            && node.properties.iter().all(|(_, child, _)| listed(child))
            && node
                .patterns
                .iter()
                .all(|(_, child)| self.plain(child, false))
            && self.plain(&node.additional, false)
    }

    /// Whether a member `child` describes is a scalar that is not `null`
    /// and lists no `enum` or `const`, or an array of such scalars whose
    /// items need not differ, by its own keywords. `proven`: what
    /// registration can prove serde holds as the schema does counts too: a
    /// scalar held to a list of strings, and an array whose items must
    /// differ (see [`Shape::to_prove`]).
    fn plain(&self, child: &Child, proven: bool) -> bool {
        const LAX: u8 = NULL | ARRAY | OBJECT;
        let scalar = |child: &Child| match *child {
            Child::Never => true,
            Child::Any => false,
            Child::Node(id) => {
                let node = self.node(id);
                node.simple()
                    && node.kinds & LAX == 0
                    && (node.choices.is_empty() || proven && node.names().is_some())
            }
        };
        // An array of scalars, as a sequence type's schema states it: only
        // an array, each element (by position, then the rest) a scalar.
        let scalars = |child: &Child| match *child {
            Child::Node(id) => {
                let array = self.node(id);
                array.simple()
                    && array.kinds == ARRAY
                    && array.choices.is_empty()
                    && (!array.unique || proven && array.prefix.is_empty())
                    && array.prefix.iter().all(scalar)
                    && scalar(&array.items)
            }
            Child::Never | Child::Any => false,
        };
        scalar(child) || scalars(child)
    }

    /// What registration must prove of serde for the single pass to read
    /// the schema without it: each place a listed property's value (or an
    /// element of it) is a scalar of some kinds, or held to a list of
    /// strings, and each listed property that is an array whose items must
    /// differ. `None` where the arguments object has unions, or members it
    /// does not list that are not scalars or arrays of scalars, and where
    /// a listed member's subschema says nothing.
    ///
    /// A listed member that is neither a scalar nor an array of scalars
    /// needs no proof: the single pass reads it against its subschema
    /// (see [`Shape::guided`]), and the rest without the schema.
    pub(crate) fn to_prove(&self) -> Option<Vec<Place<'_>>> {
        let root = self.root?;
        let listed = |child: &Child| matches!(child, Child::Node(_)) || self.plain(child, true);
        if !self.members_are(root, listed) {
            return None;
        }
        let mut places = Vec::new();
        for (key, child, _) in &self.node(root).properties {
            let Child::Node(id) = *child else { continue };
            if !self.plain(child, true) {
                continue;
            }
            let node = self.node(id);
            if node.kinds != ARRAY {
                self.scalar_place(&mut places, key, Slot::Whole, *child);
                continue;
            }
            let names = match node.items {
                Child::Node(items) => self.node(items).names(),
                Child::Any | Child::Never => None,
            };
            places.push(Place::Array(
                key,
                node.prefix.len(),
                node.count.1,
                names,
                node.unique,
            ));
            for (i, item) in node.prefix.iter().enumerate() {
                self.scalar_place(&mut places, key, Slot::At(i), *item);
            }
            self.scalar_place(&mut places, key, Slot::From(node.prefix.len()), node.items);
        }
        Some(places)
    }

    /// Reading without the schema once registration has proved it (see
    /// [`Shape::reads_flat`]): the subschema of the arguments object's
    /// member `key`, where it is neither a scalar nor an array of scalars.
    /// The single pass reads that member's value against it, as it reads a
    /// whole document against the schema, and stops where it refuses.
    #[inline]
    pub(crate) fn guided(&self, key: &[u8]) -> Option<Id> {
        self.guided
            .iter()
            .find(|(name, _)| crate::json::text::same_text(name.as_bytes(), key))
            .map(|(_, id)| *id)
    }

    /// Whether a key `len` bytes long may be one that [`Shape::guided`]
    /// lists: `false` says it is none of them, without comparing.
    #[inline]
    pub(crate) fn may_be_guided(&self, len: usize) -> bool {
        self.guided_lengths & length_bit(len) != 0
    }

    /// The members the arguments object requires, where it has a
    /// subschema.
    pub(crate) fn required_members(&self) -> &[Box<str>] {
        match self.root {
            Some(root) => &self.node(root).required,
            None => &[],
        }
    }

    /// Whether some member of the arguments object is read against its
    /// subschema where the rest is read without it (see [`Shape::guided`]).
    #[inline]
    pub(crate) fn has_guided(&self) -> bool {
        !self.guided.is_empty()
    }

    /// Whether some array's items must differ.
    pub(crate) fn any_unique(&self) -> bool {
        self.any_unique
    }

    /// The places of [`Shape::to_prove`] at `slot` of member `key`, whose
    /// scalar `child` describes.
    fn scalar_place<'s>(
        &'s self,
        places: &mut Vec<Place<'s>>,
        key: &'s str,
        slot: Slot,
        child: Child,
    ) {
        let Child::Node(id) = child else { return };
        let node = self.node(id);
        places.push(Place::Scalar(key, slot, node.kinds));
        if let Some(names) = node.names() {
            places.push(Place::Chosen(key, slot, names));
        }
    }

    /// Whether no document the schema accepts holds a `null`, an object
    /// below the arguments object, or a container inside an array, no
    /// value is held to a list of choices and no array's items must
    /// differ: every member is a scalar or an array of scalars. Once
    /// registration has proved the tool's types read the kinds the schema
    /// states (see [`Shape::reads_flat`]), the single-pass reader reads
    /// without the schema, and stops where a document holds any of those.
    #[cfg(test)]
    pub(crate) fn flat(&self) -> bool {
        (self.root).is_some_and(|root| self.members_are(root, |child| self.plain(child, false)))
    }

    /// Whether the single pass reads without the schema: registration
    /// proved that the tool holds all the schema states of the places
    /// [`Shape::to_prove`] lists, in a schema flat but for choices, items
    /// that must differ and members read against their subschemas (see
    /// [`crate::register::proven`]). Until then, or where the proof fails, the
    /// schema is read with the call.
    ///
    /// The gates one by one never rely on the proof: they walk every
    /// document serde accepts (see [`Shape::check`]), so a differential
    /// test of the two finds a proof that should not have been made.
    #[inline]
    pub(crate) fn reads_flat(&self) -> bool {
        self.reads_flat.get()
    }

    /// Notes registration's proof (see [`Shape::reads_flat`]).
    pub(crate) fn prove_flat(&self) {
        self.reads_flat.set();
    }

    /// Whether to walk before serde reads the document (see `first`).
    pub(crate) fn walks_first(&self) -> bool {
        self.first
    }

    /// Checks a document that serde accepted. The gates one by one walk
    /// every document serde accepts: what serde reads more laxly than a
    /// schema (a struct from an array, extra keys beside a unit variant's
    /// tag, a name an alias or a `#[serde(other)]` variant reads, a kind of
    /// value a visitor takes beside the one its schema states) can be
    /// anywhere, and the single pass, which holds a schema it reads without
    /// to what its types asked for, has stopped.
    pub(crate) fn check(&self, json: &str, schema: &Value) -> Result<(), Rejection> {
        self.walk(json, schema, false)
    }

    /// Checks a document whatever it holds, bounds included: before serde
    /// reads an untagged union, or after serde refused a document, when a
    /// refusal of the schema's own says where, even inside enums whose
    /// contents serde reads from a buffer with no path.
    pub(crate) fn explain(&self, json: &str, schema: &Value) -> Result<(), Rejection> {
        self.walk(json, schema, true)
    }

    fn walk(&self, json: &str, schema: &Value, bounds: bool) -> Result<(), Rejection> {
        let Some(root) = self.root else { return Ok(()) };
        let mut walk = Walk::new(self, json.as_bytes(), false, bounds);
        let accepted = match walk.quick_value(&[root]) {
            Some(bits) => bits & 1 != 0,
            // Too many readings of one value for the quick walk.
            None => {
                let mut walk = Walk::new(self, json.as_bytes(), false, bounds);
                walk.value(&[root]).first().is_none_or(|v| v.ok)
            }
        };
        if accepted {
            return Ok(());
        }
        // Refused: walk again, this time keeping why each subschema refused.
        let mut walk = Walk::new(self, json.as_bytes(), true, bounds);
        let verdicts = walk.value(&[root]);
        let verdict = verdicts.first().cloned().unwrap_or_default();
        Err(walk.rejection(&verdict, schema))
    }
}

struct Builder<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    refs: HashMap<&'s str, Id>,
    untagged: bool,
}

impl<'s> Builder<'s> {
    fn child(&mut self, schema: &'s Value) -> Child {
        match schema {
            Value::Bool(false) => Child::Never,
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str)
                    && map
                        .keys()
                        .all(|k| k == "$ref" || crate::schema::is_annotation(k))
                {
                    return self.reference(reference);
                }
                let node = self.node(schema);
                if is_trivial(&node) {
                    Child::Any
                } else {
                    let id = self.push(node);
                    Child::Node(id)
                }
            }
            _ => Child::Any,
        }
    }

    /// A subschema that is one list of choices and nothing else.
    fn is_choice(&self, id: Id) -> bool {
        self.nodes
            .get(id as usize)
            .is_some_and(|n| n.choices.len() == 1 && n.is_bare())
    }

    fn push(&mut self, node: Node) -> Id {
        let id = Id::try_from(self.nodes.len()).unwrap_or(Id::MAX);
        self.nodes.push(node);
        id
    }

    /// A local `$ref`, compiled once however often (and however
    /// recursively) it is used.
    fn reference(&mut self, reference: &'s str) -> Child {
        if let Some(id) = self.refs.get(reference) {
            return Child::Node(*id);
        }
        let Some(target) = crate::json::pointer::target(self.root, reference) else {
            return Child::Any;
        };
        let id = self.push(Node::default());
        self.refs.insert(reference, id);
        let node = match target {
            Value::Bool(false) => Node {
                kinds: 0,
                ..Node::default()
            },
            _ => self.node(target),
        };
        if let Some(slot) = self.nodes.get_mut(id as usize) {
            *slot = node;
        }
        Child::Node(id)
    }

    fn node(&mut self, schema: &'s Value) -> Node {
        let mut node = Node::default();
        let Value::Object(map) = schema else {
            return node;
        };
        if let Some(kinds) = map.get("type").and_then(kinds_of) {
            node.kinds = kinds;
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            node.properties = properties
                .iter()
                .map(|(name, s)| (name.as_str().into(), self.child(s), false))
                .collect();
        }
        if let Some(Value::Array(required)) = map.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !node.required.iter().any(|r| &**r == name) {
                    node.required.push(name.into());
                }
            }
        }
        for (name, _, required) in &mut node.properties {
            *required = node.required.iter().any(|r| r == name);
        }
        if let Some(Value::Object(patterns)) = map.get("patternProperties") {
            for (pattern, s) in patterns {
                match Regex::new(pattern) {
                    Ok(regex) => {
                        let child = self.child(s);
                        node.patterns.push((regex, child));
                    }
                    // A pattern this walk cannot read admits every key.
                    Err(_) => {
                        node.patterns.clear();
                        node.additional = Child::Any;
                        break;
                    }
                }
            }
        }
        if let Some(additional) = map.get("additionalProperties") {
            node.additional = self.child(additional);
        }
        if let Some(Value::Array(prefix)) = map.get("prefixItems") {
            node.prefix = prefix.iter().map(|s| self.child(s)).collect();
        }
        if let Some(items) = map.get("items") {
            node.items = self.child(items);
        }
        node.range = (
            map.get("minimum").and_then(Number::of),
            map.get("maximum").and_then(Number::of),
        );
        node.exclusive = (
            map.get("exclusiveMinimum").and_then(Number::of),
            map.get("exclusiveMaximum").and_then(Number::of),
        );
        node.multiple = map
            .get("multipleOf")
            .and_then(Number::of)
            .filter(|m| m.cmp(Number::Integer(0)) == Some(core::cmp::Ordering::Greater));
        node.length = (
            map.get("minLength").and_then(Value::as_u64),
            map.get("maxLength").and_then(Value::as_u64),
        );
        node.pattern = map.get("pattern").and_then(Value::as_str).map(Pattern::new);
        node.count = (
            map.get("minItems").and_then(Value::as_u64),
            map.get("maxItems").and_then(Value::as_u64),
        );
        node.entries = (
            map.get("minProperties").and_then(Value::as_u64),
            map.get("maxProperties").and_then(Value::as_u64),
        );
        if let Some((min, max)) = crate::schema::key_lengths(map) {
            node.names = (Some(min), max);
        }
        if let Some(crate::schema::Evaluated::Names(names)) =
            crate::schema::unevaluated(self.root, map)
        {
            node.unevaluated = Some(names.into_iter().map(Box::from).collect());
        }
        node.unique = map.get("uniqueItems") == Some(&Value::Bool(true));
        node.excluded = crate::schema::excluded(map).cloned();
        // `not` of a subschema that says nothing accepts nothing: schemars
        // writes `{"not":{}}` with a description for an empty enum.
        if map.get("not").is_some_and(crate::schema::says_nothing) {
            node.kinds = 0;
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            node.choices.push(values.clone());
        }
        if let Some(value) = map.get("const") {
            node.choices.push(vec![value.clone()]);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let mut group = Vec::new();
                let mut open = false;
                for branch in branches {
                    match self.child(branch) {
                        Child::Node(id) => group.push(id),
                        Child::Any => open = true,
                        Child::Never => {}
                    }
                }
                // A union of constants (an enum whose variants carry docs)
                // is one list of choices.
                if !open && group.len() > 1 && group.iter().all(|id| self.is_choice(*id)) {
                    let mut kinds = 0;
                    let mut values = Vec::new();
                    for id in &group {
                        if let Some(branch) = self.nodes.get(*id as usize) {
                            kinds |= branch.kinds;
                            values.extend(branch.choices.iter().flatten().cloned());
                        }
                    }
                    node.kinds &= kinds;
                    node.choices.push(values);
                    continue;
                }
                // Any other union of two or more readings, none of them null,
                // is one serde tries variant by variant.
                let null = |b: &Value| b.get("type").and_then(Value::as_str) == Some("null");
                if key == "anyOf" && branches.iter().filter(|b| !null(b)).count() > 1 {
                    self.untagged = true;
                }
                // A branch that accepts everything makes the union accept
                // everything; none at all accepts nothing.
                if !open {
                    if group.is_empty() {
                        node.kinds = 0;
                    } else {
                        node.any_of.push(group);
                    }
                }
            }
        }
        if let [values] = node.choices.as_slice() {
            let strings = values.iter().filter_map(Value::as_str);
            if strings.clone().all(|s| !s.contains('\\')) {
                node.plain_choices = Some(strings.map(Box::from).collect());
            }
        }
        if let Some(Value::Array(all)) = map.get("allOf") {
            for part in all {
                match self.child(part) {
                    Child::Node(id) => node.all_of.push(id),
                    Child::Any => {}
                    Child::Never => node.kinds = 0,
                }
            }
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            match self.reference(reference) {
                Child::Node(id) => node.all_of.push(id),
                Child::Any => {}
                Child::Never => node.kinds = 0,
            }
        }
        node
    }
}

fn is_trivial(node: &Node) -> bool {
    node.kinds == ANY && node.choices.is_empty() && node.is_bare()
}

impl Node {
    /// The strings a string must be one of, where that is all this
    /// subschema says of a value: `type` string, one list of choices, every
    /// one a string written without escapes.
    fn names(&self) -> Option<&[Box<str>]> {
        let plain = self.plain_choices.as_deref()?;
        let [values] = self.choices.as_slice() else {
            return None;
        };
        (self.kinds == STRING && self.is_bare() && plain.len() == values.len()).then_some(plain)
    }

    /// Whether it has no union: its own keywords decide.
    fn simple(&self) -> bool {
        self.any_of.is_empty() && self.all_of.is_empty()
    }

    /// How telling a value of a kind this subschema does not take is: a
    /// choice's, for a subschema that lists choices (a tag naming another
    /// variant says less than a shape that is wrong).
    fn kind_rank(&self) -> Rank {
        if self.choices.is_empty() {
            Rank::Shape
        } else {
            Rank::Choice
        }
    }

    /// No keyword but `type`, `enum` and `const`.
    fn is_bare(&self) -> bool {
        self.any_of.is_empty() && self.is_bare_beside_unions()
    }

    /// No keyword but `type`, `enum`, `const`, `anyOf` and `oneOf`.
    fn is_bare_beside_unions(&self) -> bool {
        self.properties.is_empty()
            && self.required.is_empty()
            && self.patterns.is_empty()
            && self.additional == Child::Any
            && self.prefix.is_empty()
            && self.items == Child::Any
            && self.all_of.is_empty()
            && self.range == (None, None)
            && self.exclusive == (None, None)
            && self.multiple.is_none()
            && self.length == (None, None)
            && self.pattern.is_none()
            && self.count == (None, None)
            && self.entries == (None, None)
            && self.names == (None, None)
            && self.unevaluated.is_none()
            && !self.unique
            && self.excluded.is_none()
    }

    /// What describes the member `key` of an object, and whether the key
    /// is a required one.
    #[inline(always)]
    fn member(&self, key: &[u8]) -> (Child, bool) {
        let (_, child, required) = self.member_at(key);
        (child, required)
    }

    /// [`Self::member`], and the index of `key` among the properties this
    /// subschema lists, if it is one.
    #[inline(always)]
    fn member_at(&self, key: &[u8]) -> (Option<usize>, Child, bool) {
        let listed = self
            .properties
            .iter()
            .enumerate()
            .find(|(_, (n, ..))| crate::json::text::same_text(n.as_bytes(), key));
        if let Some((index, (_, child, required))) = listed {
            return (Some(index), *child, *required);
        }
        let pattern = self
            .patterns
            .iter()
            .find(|(r, _)| core::str::from_utf8(key).is_ok_and(|key| r.is_match(key)));
        match pattern {
            Some((_, child)) => (None, *child, false),
            None => (None, self.additional, false),
        }
    }

    /// Whether an array of `items` items has fewer than `minItems` or
    /// more than `maxItems`.
    fn counts_out(&self, items: usize) -> bool {
        let items = items as u64;
        self.count.0.is_some_and(|min| items < min) || self.count.1.is_some_and(|max| items > max)
    }

    /// Whether an object of `members` members has fewer than
    /// `minProperties` or more than `maxProperties`.
    fn entries_out(&self, members: usize) -> bool {
        let members = members as u64;
        self.entries.0.is_some_and(|min| members < min)
            || self.entries.1.is_some_and(|max| members > max)
    }

    /// Whether `key` (decoded) is shorter or longer, in characters, than
    /// `propertyNames` allows.
    fn name_out(&self, key: &[u8]) -> bool {
        if self.names == (None, None) {
            return false;
        }
        let chars = String::from_utf8_lossy(key).chars().count() as u64;
        self.names.0.is_some_and(|min| chars < min) || self.names.1.is_some_and(|max| chars > max)
    }

    /// Whether `key` is a member no subschema in its place lists, where
    /// `unevaluatedProperties` is `false`.
    fn unevaluated(&self, key: &[u8]) -> bool {
        self.unevaluated
            .as_ref()
            .is_some_and(|names| !names.iter().any(|name| name.as_bytes() == key))
    }

    /// What describes element `index` of an array.
    #[inline(always)]
    fn item(&self, index: usize) -> Child {
        self.prefix.get(index).copied().unwrap_or(self.items)
    }
}

fn kinds_of(types: &Value) -> Option<u8> {
    let one = |t: &str| match t {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "integer" => INTEGER,
        "number" => INTEGER | FRACTION,
        "string" => STRING,
        "array" => ARRAY,
        "object" => OBJECT,
        _ => ANY,
    };
    match types {
        Value::String(t) => Some(one(t)),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .map(one)
                .fold(0, |a, b| a | b),
        ),
        _ => None,
    }
}

/// Why a subschema refused a value. A tag that names another variant is a
/// `Choice`: the least telling reason, reported only when no branch of a
/// union got further.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rank {
    Choice,
    Shape,
}

#[derive(Clone)]
struct Failure {
    rank: Rank,
    code: Code,
    path: Vec<Step>,
    /// For an unknown member: its name, last in `path`.
    unknown: bool,
}

/// One subschema's verdict on a value, and (on the explaining walk) why.
#[derive(Clone, Default)]
struct Verdict {
    ok: bool,
    why: Vec<Failure>,
}

impl Verdict {
    const fn yes() -> Self {
        Verdict {
            ok: true,
            why: Vec::new(),
        }
    }
}

type Verdicts = SmallVec<[Verdict; 4]>;

struct Walk<'a> {
    shape: &'a Shape,
    bytes: &'a [u8],
    pos: usize,
    /// Keep the path and each subschema's reasons (the second walk only).
    explain: bool,
    /// Check the bounds too (ranges, multiples, lengths, patterns and
    /// item counts): when the walk runs before serde or explains a
    /// refusal. After serde, serde and garde check them, but for an
    /// integer that may not fit 64 bits (see [`Walk::scalar`]).
    bounds: bool,
    path: Vec<Step>,
}

impl<'a> Walk<'a> {
    fn new(shape: &'a Shape, bytes: &'a [u8], explain: bool, bounds: bool) -> Self {
        Walk {
            shape,
            bytes,
            pos: 0,
            explain,
            bounds,
            path: Vec::new(),
        }
    }

    fn node(&self, id: Id) -> &'a Node {
        self.shape.node(id)
    }

    /// Refuses `verdict`, saying why if this walk explains.
    fn refuse(&self, verdict: &mut Verdict, rank: Rank, code: Code, unknown: bool) {
        verdict.ok = false;
        if self.explain {
            verdict.why.push(Failure {
                rank,
                code,
                path: self.path.clone(),
                unknown,
            });
        }
    }

    /// Reads one value and gives each subschema of `set` its verdict.
    fn value(&mut self, set: &[Id]) -> Verdicts {
        let mut verdicts: Verdicts = if let [id] = set
            && let node = self.node(*id)
            && node.any_of.is_empty()
            && node.all_of.is_empty()
        {
            // One subschema without unions: its own keywords decide.
            self.local(set)
        } else {
            let atoms = self.atoms(set);
            let local = self.local(&atoms);
            let mut memo: SmallVec<[Option<Verdict>; 8]> = SmallVec::from_elem(None, atoms.len());
            set.iter()
                .map(|id| accepts(self.shape, *id, &atoms, &local, &mut memo))
                .collect()
        };
        if self.explain {
            for verdict in &mut verdicts {
                if !verdict.ok && verdict.why.is_empty() {
                    self.refuse(verdict, Rank::Choice, Code::InvalidValue, false);
                }
            }
        }
        verdicts
    }

    /// Every subschema the verdicts on `set` depend on: the set and the
    /// branches of its unions, each read against the value at once. The
    /// set comes first, in its order.
    #[inline(always)]
    fn atoms(&self, set: &[Id]) -> SmallVec<[Id; 8]> {
        self.shape.atoms(set)
    }

    /// Reads one value against each atom's own keywords (not its unions).
    fn local(&mut self, atoms: &[Id]) -> Verdicts {
        self.skip_ws();
        let start = self.pos;
        let all = || SmallVec::from_elem(Verdict::yes(), atoms.len());
        let (kind, mut verdicts) = match self.peek() {
            Some(b'{') => (OBJECT, self.object(atoms)),
            Some(b'[') => (ARRAY, self.array(atoms)),
            first => (self.skip_scalar(first), all()),
        };
        let raw = self.bytes.get(start..self.pos).unwrap_or_default();
        for (verdict, id) in verdicts.iter_mut().zip(atoms) {
            let node = self.node(*id);
            if node.kinds & kind == 0 {
                // The members' reasons do not matter: the kind is wrong.
                verdict.why.clear();
                self.refuse(verdict, node.kind_rank(), Code::WrongType, false);
                continue;
            }
            if !verdict.ok {
                continue;
            }
            if let Err((rank, code)) = self.scalar(node, kind, raw) {
                self.refuse(verdict, rank, code, false);
            }
        }
        verdicts
    }

    /// A value's bounds (when this walk checks them) and choices, against
    /// one subschema whose kind it has.
    fn scalar(&self, node: &Node, kind: u8, raw: &[u8]) -> Result<(), (Rank, Code)> {
        // An integer that may not fit 64 bits is compared even after serde
        // read it: serde_json reads a 128-bit integer from any integer that
        // fits it, past the range its schema states.
        let wide = kind == INTEGER && raw.len() > 19 && !crate::json::number::fits_64_bits(raw);
        let bounded =
            node.range != (None, None) || node.exclusive != (None, None) || node.multiple.is_some();
        if (self.bounds || wide) && kind & (INTEGER | FRACTION) != 0 && bounded {
            let text = core::str::from_utf8(raw).unwrap_or_default();
            if let Some(n) = Number::parse(text) {
                use core::cmp::Ordering::{self, Equal, Greater, Less};
                let past = |bound: Option<Number>, out: &[Ordering]| {
                    bound.is_some_and(|b| n.cmp(b).is_some_and(|o| out.contains(&o)))
                };
                if past(node.range.0, &[Less])
                    || past(node.range.1, &[Greater])
                    || past(node.exclusive.0, &[Less, Equal])
                    || past(node.exclusive.1, &[Greater, Equal])
                {
                    return Err((Rank::Shape, Code::OutOfRange));
                }
                if self.bounds && node.multiple.is_some_and(|m| !n.is_multiple_of(m)) {
                    return Err((Rank::Shape, Code::InvalidValue));
                }
            }
        }
        if self.bounds && kind == STRING && node.length != (None, None) {
            let chars = string_chars(raw);
            let short = node.length.0.is_some_and(|min| chars < min);
            let long = node.length.1.is_some_and(|max| chars > max);
            if short || long {
                return Err((Rank::Shape, Code::InvalidLength));
            }
        }
        if self.bounds
            && kind == STRING
            && let Some(pattern) = &node.pattern
            && !pattern.matches(&string_text(raw))
        {
            return Err((Rank::Shape, Code::PatternMismatch));
        }
        if self.bounds
            && let Some(excluded) = &node.excluded
            && serde_json::from_slice::<Value>(raw).is_ok_and(|value| same(excluded, &value))
        {
            return Err((Rank::Shape, Code::InvalidValue));
        }
        if chosen(node, kind, raw) {
            Ok(())
        } else {
            Err((Rank::Choice, Code::InvalidValue))
        }
    }

    // --- the quick walk: verdicts as bits, no reasons ---

    /// Like [`Self::value`], with one bit per subschema of `set`; `None`
    /// when a value has more subschemas than bits, for the full walk to
    /// decide.
    fn quick_value(&mut self, set: &[Id]) -> Option<u64> {
        let atoms = self.atoms(set);
        if atoms.len() > 64 {
            return None;
        }
        let local = self.quick_local(&atoms)?;
        if atoms.len() == set.len() && atoms.iter().all(|id| self.node(*id).simple()) {
            return Some(local);
        }
        let mut known = 0u64;
        let mut value = 0u64;
        let mut bits = 0u64;
        for (i, id) in set.iter().enumerate() {
            if quick_accepts(self.shape, *id, &atoms, local, &mut known, &mut value) {
                bits |= 1 << i;
            }
        }
        Some(bits)
    }

    fn quick_local(&mut self, atoms: &[Id]) -> Option<u64> {
        self.skip_ws();
        let start = self.pos;
        let all = if atoms.len() == 64 {
            u64::MAX
        } else {
            (1u64 << atoms.len()) - 1
        };
        let (kind, bits) = match self.peek() {
            Some(b'{') => (OBJECT, self.quick_object(atoms)?),
            Some(b'[') => (ARRAY, self.quick_array(atoms)?),
            first => (self.skip_scalar(first), all),
        };
        let raw = self.bytes.get(start..self.pos).unwrap_or_default();
        let mut out = 0u64;
        for (i, id) in atoms.iter().enumerate() {
            let node = self.node(*id);
            if bits & (1 << i) != 0
                && node.kinds & kind != 0
                && self.scalar(node, kind, raw).is_ok()
            {
                out |= 1 << i;
            }
        }
        Some(out)
    }

    fn quick_object(&mut self, atoms: &[Id]) -> Option<u64> {
        self.pos += 1;
        let mut alive = 0u64;
        for (i, id) in atoms.iter().enumerate() {
            if self.node(*id).kinds & OBJECT != 0 {
                alive |= 1 << i;
            }
        }
        let mut found: SmallVec<[usize; 8]> = SmallVec::from_elem(0, atoms.len());
        let mut members = 0;
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = self.key();
            members += 1;
            let mut children: SmallVec<[Child; 8]> = SmallVec::new();
            for (i, (id, found)) in atoms.iter().zip(found.iter_mut()).enumerate() {
                let node = self.node(*id);
                let child = if alive & (1 << i) == 0 {
                    Child::Any
                } else if self.bounds && (node.unevaluated(&key) || node.name_out(&key)) {
                    Child::Never
                } else {
                    let (child, required) = node.member(&key);
                    *found += usize::from(required);
                    child
                };
                if child == Child::Never {
                    alive &= !(1 << i);
                }
                children.push(child);
            }
            alive = self.quick_member(alive, &children)?;
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
        for (i, (id, found)) in atoms.iter().zip(&found).enumerate() {
            let node = self.node(*id);
            if *found < node.required.len() || (self.bounds && node.entries_out(members)) {
                alive &= !(1 << i);
            }
        }
        Some(alive)
    }

    fn quick_array(&mut self, atoms: &[Id]) -> Option<u64> {
        self.pos += 1;
        let mut alive = 0u64;
        let mut unique = 0u64;
        for (i, id) in atoms.iter().enumerate() {
            let node = self.node(*id);
            if node.kinds & ARRAY != 0 {
                alive |= 1 << i;
                unique |= u64::from(node.unique) << i;
            }
        }
        let mut items: SmallVec<[&'a [u8]; 8]> = SmallVec::new();
        let mut index = 0;
        loop {
            self.skip_ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                break;
            }
            if alive == 0 {
                // Every atom refused: the rest is skipped, not judged (nor
                // counted: no count can revive an atom).
                self.skip_value();
                self.skip_ws();
                if self.peek() == Some(b',') {
                    self.pos += 1;
                }
                continue;
            }
            let start = self.pos;
            let mut children: SmallVec<[Child; 8]> = SmallVec::new();
            for (i, id) in atoms.iter().enumerate() {
                let node = self.node(*id);
                let child = if alive & (1 << i) == 0 {
                    Child::Any
                } else {
                    node.item(index)
                };
                if child == Child::Never {
                    alive &= !(1 << i);
                }
                children.push(child);
            }
            alive = self.quick_member(alive, &children)?;
            if unique & alive != 0 {
                let item = self.bytes.get(start..self.pos).unwrap_or_default();
                // An item written as one of the first few is a repeat
                // whatever else the array holds: the arrays that must
                // differ refuse here, and, if nothing else is alive, the
                // rest of the array is skipped, not judged.
                if crate::gate::structural::unique::written_before(&items, item) {
                    alive &= !unique;
                } else {
                    items.push(item);
                }
            }
            index += 1;
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
        if self.bounds {
            for (i, id) in atoms.iter().enumerate() {
                if self.node(*id).counts_out(index) {
                    alive &= !(1 << i);
                }
            }
        }
        if unique & alive != 0 && !crate::gate::structural::unique::all_different(&items) {
            alive &= !unique;
        }
        Some(alive)
    }

    fn quick_member(&mut self, mut alive: u64, children: &[Child]) -> Option<u64> {
        let mut set: SmallVec<[Id; 8]> = SmallVec::new();
        for (i, child) in children.iter().enumerate() {
            if let (true, Child::Node(id)) = (alive & (1 << i) != 0, child)
                && !set.contains(id)
            {
                set.push(*id);
            }
        }
        if set.is_empty() {
            self.skip_value();
            return Some(alive);
        }
        let members = self.quick_value(&set)?;
        for (i, child) in children.iter().enumerate() {
            if let (true, Child::Node(id)) = (alive & (1 << i) != 0, child)
                && let Some(j) = set.iter().position(|s| s == id)
                && members & (1 << j) == 0
            {
                alive &= !(1 << i);
            }
        }
        Some(alive)
    }

    fn object(&mut self, atoms: &[Id]) -> Verdicts {
        self.pos += 1;
        let mut verdicts: Verdicts = atoms
            .iter()
            .map(|id| Verdict {
                ok: self.node(*id).kinds & OBJECT != 0,
                why: Vec::new(),
            })
            .collect();
        let mut found: SmallVec<[usize; 8]> = SmallVec::from_elem(0, atoms.len());
        let mut seen: Vec<String> = Vec::new();
        let mut members = 0;
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = self.key();
            members += 1;
            if self.explain {
                let text = String::from_utf8_lossy(&key).into_owned();
                seen.push(text.clone());
                self.path.push(Step::Key(text));
            }
            let mut children: SmallVec<[Child; 8]> = SmallVec::new();
            for ((verdict, id), found) in verdicts.iter_mut().zip(atoms).zip(found.iter_mut()) {
                let node = self.node(*id);
                let child = if !self.reads(verdict, node, OBJECT) {
                    Child::Any
                } else if self.bounds && (node.unevaluated(&key) || node.name_out(&key)) {
                    Child::Never
                } else {
                    let (child, required) = node.member(&key);
                    *found += usize::from(required);
                    child
                };
                if child == Child::Never {
                    self.refuse(verdict, Rank::Shape, Code::UnknownField, true);
                }
                children.push(child);
            }
            self.member(&mut verdicts, &children);
            if self.explain {
                self.path.pop();
            }
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
        for ((verdict, id), found) in verdicts.iter_mut().zip(atoms).zip(&found) {
            let node = self.node(*id);
            if self.reads(verdict, node, OBJECT) && *found < node.required.len() {
                let missing = node
                    .required
                    .iter()
                    .find(|r| !seen.iter().any(|s| **s == ***r));
                if let (true, Some(missing)) = (self.explain, missing) {
                    // A missing tag says no more than a wrong one.
                    let tag = node.properties.iter().any(|(name, child, _)| {
                        **name == **missing
                            && matches!(child, Child::Node(id) if !self.node(*id).choices.is_empty())
                    });
                    let rank = if tag { Rank::Choice } else { Rank::Shape };
                    self.path.push(Step::Key(missing.to_string()));
                    self.refuse(verdict, rank, Code::MissingField, false);
                    self.path.pop();
                } else {
                    verdict.ok = false;
                }
            }
        }
        if self.bounds {
            for (verdict, id) in verdicts.iter_mut().zip(atoms) {
                let node = self.node(*id);
                if node.entries_out(members) && self.reads(verdict, node, OBJECT) {
                    self.refuse(verdict, Rank::Shape, Code::InvalidLength, false);
                }
            }
        }
        verdicts
    }

    fn array(&mut self, atoms: &[Id]) -> Verdicts {
        self.pos += 1;
        let mut verdicts: Verdicts = atoms
            .iter()
            .map(|id| Verdict {
                ok: self.node(*id).kinds & ARRAY != 0,
                why: Vec::new(),
            })
            .collect();
        let unique = atoms.iter().any(|id| self.node(*id).unique);
        let mut items: SmallVec<[&'a [u8]; 8]> = SmallVec::new();
        // Whether an item was written as one of the first few: a repeat,
        // refused at the end as any other, with no more items kept.
        let mut repeated = false;
        let mut index = 0;
        loop {
            self.skip_ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                break;
            }
            let start = self.pos;
            if self.explain {
                self.path.push(Step::Index(index));
            }
            let mut children: SmallVec<[Child; 8]> = SmallVec::new();
            for (verdict, id) in verdicts.iter_mut().zip(atoms) {
                let node = self.node(*id);
                let child = if !self.reads(verdict, node, ARRAY) {
                    Child::Any
                } else {
                    node.item(index)
                };
                if child == Child::Never {
                    self.refuse(verdict, Rank::Shape, Code::InvalidLength, false);
                }
                children.push(child);
            }
            self.member(&mut verdicts, &children);
            if self.explain {
                self.path.pop();
            }
            if unique && !repeated {
                let item = self.bytes.get(start..self.pos).unwrap_or_default();
                repeated = crate::gate::structural::unique::written_before(&items, item);
                if !repeated {
                    items.push(item);
                }
            }
            index += 1;
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
        if self.bounds {
            for (verdict, id) in verdicts.iter_mut().zip(atoms) {
                let node = self.node(*id);
                if node.counts_out(index) && self.reads(verdict, node, ARRAY) {
                    self.refuse(verdict, Rank::Shape, Code::InvalidLength, false);
                }
            }
        }
        if unique && (repeated || !crate::gate::structural::unique::all_different(&items)) {
            for (verdict, id) in verdicts.iter_mut().zip(atoms) {
                let node = self.node(*id);
                if node.unique && self.reads(verdict, node, ARRAY) {
                    self.refuse(verdict, Rank::Shape, Code::InvalidValue, false);
                }
            }
        }
        verdicts
    }

    /// Whether an atom's members are still worth reading: it takes this
    /// kind and has not refused yet, or this walk explains and wants every
    /// reason (a variant refused for an unknown key may also have a tag
    /// that names another variant, which makes it the wrong branch to blame).
    fn reads(&self, verdict: &Verdict, node: &Node, kind: u8) -> bool {
        node.kinds & kind != 0 && (verdict.ok || self.explain)
    }

    /// Reads the scalar at `pos`, whose first byte is `first`: its kind.
    fn skip_scalar(&mut self, first: Option<u8>) -> u8 {
        match first {
            Some(b'"') => {
                self.skip_string();
                STRING
            }
            Some(b't') => {
                self.pos += 4;
                BOOLEAN
            }
            Some(b'f') => {
                self.pos += 5;
                BOOLEAN
            }
            Some(b'n') => {
                self.pos += 4;
                NULL
            }
            _ => self.number(),
        }
    }

    /// Reads one member against the subschema each live atom gives it.
    fn member(&mut self, verdicts: &mut Verdicts, children: &[Child]) {
        if let ([verdict], [Child::Node(id)]) = (verdicts.as_mut_slice(), children) {
            self.skip_ws();
            let node = self.node(*id);
            if node.simple() && !matches!(self.peek(), Some(b'{' | b'[')) {
                self.one_scalar(verdict, node);
                return;
            }
        }
        let mut set: SmallVec<[Id; 8]> = SmallVec::new();
        for child in children {
            if let Child::Node(id) = child
                && !set.contains(id)
            {
                set.push(*id);
            }
        }
        if set.is_empty() {
            self.skip_value();
            return;
        }
        let members = self.value(&set);
        for (verdict, child) in verdicts.iter_mut().zip(children) {
            if let Child::Node(id) = child
                && let Some(member) = set
                    .iter()
                    .position(|s| s == id)
                    .and_then(|i| members.get(i))
                && !member.ok
            {
                verdict.ok = false;
                verdict.why.extend(member.why.iter().cloned());
            }
        }
    }

    /// [`Self::member`] of a scalar against one subschema without unions,
    /// which alone decides: what [`Self::value`] and [`Self::local`] would
    /// say, without a verdict for each atom to make, move and drop (an
    /// array of many scalars is read item by item here).
    fn one_scalar(&mut self, verdict: &mut Verdict, node: &Node) {
        let start = self.pos;
        let kind = self.skip_scalar(self.peek());
        let raw = self.bytes.get(start..self.pos).unwrap_or_default();
        let refused = if node.kinds & kind == 0 {
            Some((node.kind_rank(), Code::WrongType))
        } else {
            self.scalar(node, kind, raw).err()
        };
        if let Some((rank, code)) = refused {
            self.refuse(verdict, rank, code, false);
        }
    }

    /// The refusal to report: the first reason that is not a tag naming
    /// another variant, or else the first reason.
    fn rejection(&self, verdict: &Verdict, schema: &Value) -> Rejection {
        let failure = verdict
            .why
            .iter()
            .find(|f| f.rank == Rank::Shape)
            .or_else(|| verdict.why.first());
        let Some(failure) = failure else {
            return Rejection::new(
                Code::InvalidValue,
                message::for_value(Code::InvalidValue, "", schema),
            );
        };
        if failure.unknown
            && let Some((Step::Key(field), parent)) = failure.path.split_last()
        {
            let parent_at = pointer::exact_of_steps(parent);
            let at = pointer::shown(&pointer::exact_of_steps(&failure.path)).to_owned();
            // An integer key past its map's range is a number out of range,
            // not a field the model misnamed.
            if let Some(text) = message::key_out_of_range(&parent_at, field, schema) {
                return Rejection::new(Code::OutOfRange, text).at(at);
            }
            let text = message::unknown(&parent_at, Some(field), schema);
            return Rejection::new(Code::UnknownField, text).at(at);
        }
        // The message reads the schema at the exact place; the rejection
        // shows only what may be echoed of it.
        let at = pointer::exact_of_steps(&failure.path);
        let text = match failure.code {
            Code::MissingField => message::missing(&at, schema),
            code => message::for_value(code, &at, schema),
        };
        Rejection::new(failure.code, text).at(pointer::shown(&at).to_owned())
    }

    // --- reading the document; gate 1 has proven it well formed ---

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Reads `"key":` and returns the key's bytes, unescaped. Gate 1 has
    /// proven them UTF-8.
    fn key(&mut self) -> std::borrow::Cow<'a, [u8]> {
        let start = self.pos;
        let escaped = self.skip_string();
        let raw: &'a [u8] = self.bytes.get(start..self.pos).unwrap_or_default();
        let key = if escaped {
            std::borrow::Cow::Owned(
                serde_json::from_slice::<String>(raw)
                    .unwrap_or_default()
                    .into_bytes(),
            )
        } else {
            std::borrow::Cow::Borrowed(raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default())
        };
        self.skip_ws();
        if self.peek() == Some(b':') {
            self.pos += 1;
        }
        key
    }

    /// Skips a string; says whether it has escapes.
    fn skip_string(&mut self) -> bool {
        self.pos += 1;
        let mut escaped = false;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.pos += 1;
                }
                _ => {}
            }
        }
        escaped
    }

    /// Reads a number: an integer, or a fraction unless its value is whole.
    fn number(&mut self) -> u8 {
        let start = self.pos;
        let mut plain = true;
        while let Some(b) = self.peek() {
            match b {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => plain = false,
                _ => break,
            }
            self.pos += 1;
        }
        if plain {
            return INTEGER;
        }
        let text = core::str::from_utf8(self.bytes.get(start..self.pos).unwrap_or_default())
            .unwrap_or_default();
        match text.parse::<f64>() {
            Ok(n) if n.is_finite() && n.fract() == 0.0 => INTEGER,
            Ok(n) if n.is_finite() => FRACTION,
            // Past f64: whichever the schema wants; serde decides.
            _ => INTEGER | FRACTION,
        }
    }

    fn skip_value(&mut self) {
        self.skip_ws();
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return,
                Some(b'"') => {
                    self.skip_string();
                }
                Some(b'{' | b'[') => {
                    depth += 1;
                    self.pos += 1;
                }
                Some(b'}' | b']') => {
                    depth = depth.saturating_sub(1);
                    self.pos += 1;
                }
                Some(_) if depth > 0 => self.pos += 1,
                Some(_) => {
                    // A scalar at the top: read to its end.
                    while let Some(b) = self.peek() {
                        if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                            break;
                        }
                        self.pos += 1;
                    }
                    return;
                }
            }
            if depth == 0 {
                return;
            }
        }
    }
}

/// The text of the JSON string written as `raw` (with its quotes), escapes
/// decoded; gate 1 has proven it UTF-8.
fn string_text(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
    if !inner.contains(&b'\\') {
        return std::borrow::Cow::Borrowed(core::str::from_utf8(inner).unwrap_or_default());
    }
    std::borrow::Cow::Owned(serde_json::from_slice::<String>(raw).unwrap_or_default())
}

/// The characters of a JSON string (with its quotes), as JSON Schema counts
/// them: code points, an escape being the one it stands for.
fn string_chars(raw: &[u8]) -> u64 {
    string_text(raw).chars().count() as u64
}

static ANY_NODE: std::sync::LazyLock<Node> = std::sync::LazyLock::new(Node::default);

/// The quick walk's verdicts, value by value, for the single-pass reader
/// ([`crate::gate::structural::reader`]), which reads each value once and asks these as it
/// goes: the same keywords, the same answers, without a second reading.
impl Shape {
    fn node(&self, id: Id) -> &Node {
        // Every id was issued for a node of this shape.
        match self.nodes.get(id as usize) {
            Some(node) => node,
            None => &ANY_NODE,
        }
    }

    /// The subschema the arguments object must satisfy, if the schema
    /// has a structural keyword.
    pub(crate) fn root(&self) -> Option<Id> {
        self.root
    }

    /// `set` and the branches of its unions, the set first, in its order.
    #[inline(always)]
    pub(crate) fn atoms(&self, set: &[Id]) -> SmallVec<[Id; 8]> {
        let mut atoms: SmallVec<[Id; 8]> = SmallVec::new();
        for id in set {
            if !atoms.contains(id) {
                atoms.push(*id);
            }
        }
        let mut i = 0;
        while let Some(&id) = atoms.get(i) {
            let node = self.node(id);
            for member in node.any_of.iter().flatten().chain(&node.all_of) {
                if !atoms.contains(member) {
                    atoms.push(*member);
                }
            }
            i += 1;
        }
        atoms
    }

    /// One bit per atom whose own keywords take a scalar of `kind`
    /// written as `raw` (bounds aside, as after serde).
    pub(crate) fn scalar_bits(&self, atoms: &[Id], kind: u8, raw: &[u8]) -> u64 {
        let mut bits = 0;
        for (i, id) in atoms.iter().enumerate() {
            let node = self.node(*id);
            if node.kinds & kind != 0 && chosen(node, kind, raw) {
                bits |= 1 << i;
            }
        }
        bits
    }

    /// Subschema `id` as a union told apart by a tag, if it is one.
    #[inline]
    pub(crate) fn tagged(&self, id: Id) -> Option<&Tagged> {
        self.node(id).tagged.as_deref()
    }

    /// Whether subschema `id` has no union: its own keywords decide.
    pub(crate) fn simple(&self, id: Id) -> bool {
        self.node(id).simple()
    }

    /// Whether subschema `id` takes an object or array (`kind`) by its
    /// type and lists no `enum` or `const`: the single-pass reader compares
    /// only scalars with choices, so it refuses (and so stops on) any
    /// container whose subschema lists them, and the walk decides. An
    /// array whose items must differ, it compares only against one
    /// subschema without unions (see [`Self::unique`]); against several,
    /// it refuses it too.
    pub(crate) fn takes(&self, id: Id, kind: u8) -> bool {
        self.takes_one(id, kind) && !(kind == ARRAY && self.node(id).unique)
    }

    /// [`Self::takes`], where `id` alone decides: the reader then compares
    /// the items of an array whose items must differ itself.
    #[inline]
    pub(crate) fn takes_one(&self, id: Id, kind: u8) -> bool {
        let node = self.node(id);
        node.kinds & kind != 0 && node.choices.is_empty()
    }

    /// Whether subschema `id` takes numbers that are integers and no
    /// other (`"type": "integer"`): a number there is read into an
    /// integer type (see [`crate::gate::structural::integers::with_plain_integers`]).
    pub(crate) fn integer_only(&self, id: Id) -> bool {
        self.node(id).kinds & (INTEGER | FRACTION) == INTEGER
    }

    /// Whether subschema `id` requires an array's items to be all
    /// different (`uniqueItems`).
    #[inline]
    pub(crate) fn unique(&self, id: Id) -> bool {
        self.node(id).unique
    }

    /// Whether subschema `id`'s own keywords take the scalar of `kind`
    /// written as `raw` (bounds aside), where they alone decide: `None`
    /// where it has unions, which decide too.
    #[inline]
    pub(crate) fn takes_scalar(&self, id: Id, kind: u8, raw: &[u8]) -> Option<bool> {
        let node = self.node(id);
        if !node.simple() {
            return None;
        }
        Some(node.kinds & kind != 0 && (node.choices.is_empty() || chosen(node, kind, raw)))
    }

    /// One bit per atom that [`Self::takes`] an object or array (`kind`).
    pub(crate) fn container_bits(&self, atoms: &[Id], kind: u8) -> u64 {
        let mut bits = 0;
        for (i, id) in atoms.iter().enumerate() {
            if self.takes(*id, kind) {
                bits |= 1 << i;
            }
        }
        bits
    }

    /// What describes member `key` of an object under subschema `id`, and
    /// whether it is a required one.
    pub(crate) fn member(&self, id: Id, key: &[u8]) -> (Child, bool) {
        self.node(id).member(key)
    }

    /// [`Self::member`], and the index of `key` among the properties
    /// subschema `id` lists, if it is one.
    #[inline]
    pub(crate) fn member_at(&self, id: Id, key: &[u8]) -> (Option<usize>, Child, bool) {
        self.node(id).member_at(key)
    }

    /// What describes element `index` of an array under subschema `id`.
    pub(crate) fn item(&self, id: Id, index: usize) -> Child {
        self.node(id).item(index)
    }

    /// How many members subschema `id` requires.
    #[inline]
    pub(crate) fn required(&self, id: Id) -> usize {
        self.node(id).required.len()
    }

    /// One bit per subschema of `set`: its verdict, from each atom's own
    /// (`local`) and its unions.
    pub(crate) fn verdicts(&self, set: &[Id], atoms: &[Id], local: u64) -> u64 {
        // No unions among the atoms: they are the set, in its order, and
        // their own keywords decide.
        if atoms.len() == set.len() && atoms.iter().all(|id| self.simple(*id)) {
            return local;
        }
        let (mut known, mut value, mut bits) = (0u64, 0u64, 0u64);
        for (i, id) in set.iter().enumerate() {
            if quick_accepts(self, *id, atoms, local, &mut known, &mut value) {
                bits |= 1 << i;
            }
        }
        bits
    }
}

/// Subschema `id`'s verdict on the value, from each atom's own verdict and
/// its unions. A failing union explains itself by its best branch: the
/// first whose tag (if it has one) matched and that got furthest. A union
/// that refers back to itself without reading anything is taken to accept:
/// the walk may only be more lenient than the schema.
fn accepts(
    shape: &Shape,
    id: Id,
    atoms: &[Id],
    local: &[Verdict],
    memo: &mut [Option<Verdict>],
) -> Verdict {
    let Some(index) = atoms.iter().position(|a| *a == id) else {
        return Verdict::yes();
    };
    if let Some(Some(known)) = memo.get(index) {
        return known.clone();
    }
    if let Some(slot) = memo.get_mut(index) {
        *slot = Some(Verdict::yes());
    }
    let Some(node) = shape.nodes.get(id as usize) else {
        return Verdict::yes();
    };
    let mut verdict = local.get(index).cloned().unwrap_or_else(Verdict::yes);
    if verdict.ok {
        for part in &node.all_of {
            let part = accepts(shape, *part, atoms, local, memo);
            if !part.ok {
                verdict = part;
                break;
            }
        }
    }
    if verdict.ok {
        for group in &node.any_of {
            let mut best: Option<Verdict> = None;
            for branch in group {
                let branch = accepts(shape, *branch, atoms, local, memo);
                if branch.ok {
                    best = None;
                    break;
                }
                // A branch whose tag matched, then one that got furthest
                // into the value, then one that took the value's kind (and
                // refused it for a bound), tells the model what to fix.
                let telling = |v: &Verdict| {
                    (
                        v.why.iter().all(|f| f.rank == Rank::Shape),
                        v.why.iter().map(|f| f.path.len()).max().unwrap_or(0),
                        v.why.iter().all(|f| f.code != Code::WrongType),
                    )
                };
                if best.as_ref().is_none_or(|b| telling(&branch) > telling(b)) {
                    best = Some(branch);
                }
            }
            if let Some(mut failed) = best {
                // No branch's tag matched: the tag is the reason, not what
                // some variant would have wanted beside it.
                if failed.why.iter().any(|f| f.rank == Rank::Choice) {
                    failed.why.retain(|f| f.rank == Rank::Choice);
                    failed.why.truncate(1);
                }
                verdict = failed;
                break;
            }
        }
    }
    if let Some(slot) = memo.get_mut(index) {
        *slot = Some(verdict.clone());
    }
    verdict
}

/// [`accepts`] for the quick walk: `known` and `value` hold, per atom,
/// whether its verdict is settled and what it is. An atom asked again while
/// it is being settled (a union that refers back to itself) accepts.
fn quick_accepts(
    shape: &Shape,
    id: Id,
    atoms: &[Id],
    local: u64,
    known: &mut u64,
    value: &mut u64,
) -> bool {
    let Some(index) = atoms.iter().position(|a| *a == id) else {
        return true;
    };
    let bit = 1u64 << index;
    if *known & bit != 0 {
        return *value & bit != 0;
    }
    *known |= bit;
    *value |= bit;
    let Some(node) = shape.nodes.get(id as usize) else {
        return true;
    };
    let ok = local & bit != 0
        && node
            .all_of
            .iter()
            .all(|part| quick_accepts(shape, *part, atoms, local, known, value))
        && node.any_of.iter().all(|group| {
            group
                .iter()
                .any(|branch| quick_accepts(shape, *branch, atoms, local, known, value))
        });
    if !ok {
        *value &= !bit;
    }
    ok
}

/// Whether a scalar of `kind`, written as `raw`, is among each list of
/// choices (`enum`, `const`) of `node`.
///
/// Inline where it is quick: a string of at most 16 bytes written as one
/// of the plain choices, compared with no call. The rest is out of line.
#[inline]
fn chosen(node: &Node, kind: u8, raw: &[u8]) -> bool {
    if kind == STRING
        && let Some(plain) = &node.plain_choices
        && let Some(inner) = raw.get(1..raw.len().saturating_sub(1))
        && inner.len() <= 16
        && plain
            .iter()
            .any(|choice| crate::json::text::same_text(choice.as_bytes(), inner))
    {
        return true;
    }
    chosen_by_value(node, kind, raw)
}

/// [`chosen`], out of line.
#[inline(never)]
fn chosen_by_value(node: &Node, kind: u8, raw: &[u8]) -> bool {
    if node.choices.is_empty() {
        return true;
    }
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
    // A string written as one of the choices is one, unless that needs a
    // backslash (`"a\\nb"`), which the written string may decode. Up to
    // 16 bytes, [`chosen`] has looked already.
    if kind == STRING
        && let Some(plain) = &node.plain_choices
        && inner.len() > 16
        && plain
            .iter()
            .any(|choice| crate::json::text::same_text(choice.as_bytes(), inner))
    {
        return true;
    }
    // A plain string (the usual tag) is compared where it lies.
    if kind == STRING && !raw.contains(&b'\\') {
        node.choices.iter().all(|values| {
            values
                .iter()
                .any(|v| v.as_str().map(str::as_bytes) == Some(inner))
        })
    } else {
        let value: Value = serde_json::from_slice(raw).unwrap_or(Value::Null);
        node.choices
            .iter()
            .all(|values| values.iter().any(|v| same(v, &value)))
    }
}

/// JSON Schema's equality: numbers by value, `1` equals `1.0`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(schema: &Value, doc: &str) -> Result<(), Code> {
        Shape::new(schema).check(doc, schema).map_err(|r| r.code())
    }

    #[test]
    fn an_object_is_never_an_array() {
        let schema = json!({"type":"object","properties":{"w":{"$ref":"#/$defs/W"}},"$defs":{"W":{"type":"object","properties":{"d":{"type":"integer"}},"required":["d"]}}});
        assert_eq!(check(&schema, r#"{"w":{"d":1}}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"w":[1]}"#), Err(Code::WrongType));
    }

    #[test]
    fn a_tag_selects_a_closed_branch() {
        let schema = json!({"oneOf":[
            {"type":"object","properties":{"kind":{"const":"dot"}},"required":["kind"],"additionalProperties":false},
            {"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"integer"}},"required":["kind","radius"],"additionalProperties":false}
        ]});
        assert_eq!(check(&schema, r#"{"kind":"dot"}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"kind":"circle","radius":2}"#), Ok(()));
        assert_eq!(
            check(&schema, r#"{"kind":"dot","radius":5}"#),
            Err(Code::UnknownField)
        );
        assert_eq!(
            check(&schema, r#"{"radius":5,"kind":"dot"}"#),
            Err(Code::UnknownField)
        );
    }

    #[test]
    fn a_union_accepts_a_value_that_only_a_later_branch_takes() {
        // The quick walk's answer for a union is its branches' answers
        // combined, not the first branch's alone.
        let union = json!({"anyOf":[{"type":"integer"},{"type":"string"}]});
        assert_eq!(check(&union, r#""s""#), Ok(()));
        assert_eq!(check(&union, "1"), Ok(()));
        assert_eq!(check(&union, "true"), Err(Code::WrongType));
        let nested = json!({"type":"object","properties":{
            "v":{"anyOf":[{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false},
                          {"type":"array","items":{"type":"string"}}]}
        }});
        assert_eq!(check(&nested, r#"{"v":["x"]}"#), Ok(()));
        assert_eq!(check(&nested, r#"{"v":{"a":1}}"#), Ok(()));
        assert!(check(&nested, r#"{"v":{"b":1}}"#).is_err());
    }

    #[test]
    fn objects_and_arrays_are_held_to_their_choices() {
        // `enum` and `const` may list objects and arrays; the walk
        // compares them by value (numbers by value, keys in any order).
        let schema = json!({"type":"object","properties":{
            "o":{"const":{"a":1,"b":[1,2]}},
            "l":{"enum":[[1,2],[3]]},
            "t":{"type":"object","enum":[{"k":"x"}]},
            "u":{"type":"array","items":{"type":"integer"},"const":[1.0]}
        }});
        assert_eq!(check(&schema, r#"{"o":{"b":[1,2.0],"a":1}}"#), Ok(()));
        assert_eq!(
            check(&schema, r#"{"o":{"a":1,"b":[2,1]}}"#),
            Err(Code::InvalidValue)
        );
        assert_eq!(check(&schema, r#"{"o":{"a":1}}"#), Err(Code::InvalidValue));
        assert_eq!(check(&schema, r#"{"l":[3]}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"l":[1]}"#), Err(Code::InvalidValue));
        assert_eq!(check(&schema, r#"{"l":{"a":1}}"#), Err(Code::InvalidValue));
        assert_eq!(check(&schema, r#"{"t":{"k":"x"}}"#), Ok(()));
        assert_eq!(
            check(&schema, r#"{"t":{"k":"y"}}"#),
            Err(Code::InvalidValue)
        );
        assert_eq!(check(&schema, r#"{"u":[1]}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"u":[2]}"#), Err(Code::InvalidValue));
        let union = json!({"anyOf":[{"const":{"a":1}},{"const":[1]}]});
        assert_eq!(check(&union, r#"{"a":1}"#), Ok(()));
        assert_eq!(check(&union, "[1]"), Ok(()));
        assert!(check(&union, r#"{"a":2}"#).is_err());
        assert!(check(&union, "[2]").is_err());
    }

    #[test]
    fn a_branch_past_the_first_that_lacks_a_required_key_refuses() {
        let union = json!({"anyOf":[
            {"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false},
            {"type":"object","properties":{"b":{"type":"integer"}},"required":["b"]}
        ]});
        assert_eq!(check(&union, r#"{"b":1,"c":1}"#), Ok(()));
        assert!(check(&union, r#"{"c":1}"#).is_err());
    }

    #[test]
    fn each_item_of_a_lone_array_schema_is_checked() {
        let list = json!({"type":"array","items":{"type":"string"}});
        assert_eq!(check(&list, r#"["a","b"]"#), Ok(()));
        assert_eq!(check(&list, r#"["a",1]"#), Err(Code::WrongType));
        let nested = json!({"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}});
        assert_eq!(check(&nested, r#"{"tags":[1]}"#), Err(Code::WrongType));
    }

    /// The walk that explains a refusal, bounds included: its code and path.
    fn explain(schema: &Value, doc: &str) -> Result<(), (Code, String)> {
        Shape::new(schema)
            .explain(doc, schema)
            .map_err(|r| (r.code(), r.path().to_owned()))
    }

    fn refused(code: Code, path: &str) -> Result<(), (Code, String)> {
        Err((code, path.to_owned()))
    }

    #[test]
    fn an_explanation_reads_past_nested_values_and_names_what_is_missing() {
        let schema = json!({"type":"object","properties":{
            "w":{"type":"object","properties":{"d":{"type":"integer"}}},
            "l":{"type":"array","items":{"type":"integer"}},
            "n":{"type":"integer"},
            "a":{"type":"integer"},
            "b":{"type":"integer"}
        },"required":["a","b"],"additionalProperties":false});
        // The reason lies after an object and an array that are fine.
        assert_eq!(
            explain(&schema, r#"{"w":{"d":1},"l":[1],"n":"x","a":1,"b":1}"#),
            refused(Code::WrongType, "/n")
        );
        assert_eq!(
            explain(&schema, r#"{"l":[1],"w":{"d":1},"n":1,"a":1,"b":1,"c":1}"#),
            refused(Code::UnknownField, "/c")
        );
        // The required key that is missing, not one that was sent.
        assert_eq!(
            explain(&schema, r#"{"l":[1],"w":{"d":1},"a":1}"#),
            refused(Code::MissingField, "/b")
        );
        assert_eq!(
            explain(&schema, r#"{"b":1,"l":[2]}"#),
            refused(Code::MissingField, "/a")
        );
    }

    #[test]
    fn an_explanation_names_the_item_of_a_list_or_tuple() {
        let schema = json!({"type":"object","properties":{
            "l":{"type":"array","items":{"type":"integer"}},
            "t":{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}
        }});
        assert_eq!(
            explain(&schema, r#"{"l":[1,2,"x"]}"#),
            refused(Code::WrongType, "/l/2")
        );
        assert_eq!(
            explain(&schema, r#"{"t":[1,"a"],"l":[true]}"#),
            refused(Code::WrongType, "/l/0")
        );
        assert_eq!(
            explain(&schema, r#"{"t":[1,2]}"#),
            refused(Code::WrongType, "/t/1")
        );
        assert_eq!(
            explain(&schema, r#"{"t":[1,"a",3]}"#),
            refused(Code::InvalidLength, "/t/2")
        );
    }

    #[test]
    fn a_wrong_constant_is_reported_only_when_nothing_else_is_wrong() {
        // A tag that names another variant says less than a value of the
        // wrong shape.
        let schema = json!({"type":"object","properties":{
            "kind":{"const":"a"},
            "n":{"type":"integer"}
        }});
        assert_eq!(
            explain(&schema, r#"{"kind":"b","n":"x"}"#),
            refused(Code::WrongType, "/n")
        );
        assert_eq!(
            explain(&schema, r#"{"kind":"b","n":1}"#),
            refused(Code::InvalidValue, "/kind")
        );
    }

    #[test]
    fn a_number_past_a_double_is_left_to_serde() {
        // `1e400` is no double: the walk takes it as an integer or a
        // fraction, whichever the schema wants, and serde says it is out
        // of range.
        let schema = json!({"type":"object","properties":{
            "i":{"type":"integer"},
            "f":{"type":"number"}
        }});
        assert_eq!(explain(&schema, r#"{"i":1e400,"f":-1e400}"#), Ok(()));
        assert_eq!(
            explain(&schema, r#"{"i":1.5}"#),
            refused(Code::WrongType, "/i")
        );
    }

    #[test]
    fn an_explanation_reads_a_reference_with_sibling_keywords() {
        // `$ref` beside other keywords is a conjunction: the reference
        // refuses for itself.
        let schema = json!({"type":"object","properties":{
            "w":{"$ref":"#/$defs/W","type":"object","minProperties":1}
        },"$defs":{"W":{"type":"object","properties":{"d":{"type":"integer"}}}}});
        assert_eq!(explain(&schema, r#"{"w":{"d":1}}"#), Ok(()));
        assert_eq!(
            explain(&schema, r#"{"w":{"d":"x"}}"#),
            refused(Code::WrongType, "/w/d")
        );
    }

    #[test]
    fn of_union_branches_that_refuse_alike_the_first_is_the_reason() {
        let schema = json!({"anyOf":[
            {"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},
            {"type":"object","properties":{
                "b":{"type":"object","properties":{"c":{"type":"integer"}}}
            },"required":["b"]}
        ]});
        assert_eq!(explain(&schema, "{}"), refused(Code::MissingField, "/a"));
        assert_eq!(explain(&schema, r#"{"b":{"c":1}}"#), Ok(()));
        // One that got further into the value is the better reason.
        assert_eq!(
            explain(&schema, r#"{"b":{"c":"x"}}"#),
            refused(Code::WrongType, "/b/c")
        );
    }

    #[test]
    fn a_union_that_refers_back_to_itself_is_settled_once() {
        // U's first branch is U: asked again while U is being settled, it
        // accepts, and the other branch decides.
        let schema = json!({"$ref":"#/$defs/U","$defs":{
            "U":{"anyOf":[{"$ref":"#/$defs/U"},{"type":"integer"}]}
        }});
        assert_eq!(check(&schema, "1"), Ok(()));
        let wrapped = json!({"type":"object","properties":{"u":{"$ref":"#/$defs/U"}},"$defs":{
            "U":{"anyOf":[{"$ref":"#/$defs/U"},{"type":"integer"}]}
        }});
        assert_eq!(check(&wrapped, r#"{"u":1}"#), Ok(()));
    }

    #[test]
    fn integer_choices_past_a_double_compare_exactly() {
        // Neighbours that one double cannot tell apart.
        let schema = json!({"type":"object","properties":{
            "u":{"const":18_446_744_073_709_551_615_u64},
            "i":{"const":-9_007_199_254_740_993_i64}
        }});
        assert_eq!(check(&schema, r#"{"u":18446744073709551615}"#), Ok(()));
        assert_eq!(
            check(&schema, r#"{"u":18446744073709551614}"#),
            Err(Code::InvalidValue)
        );
        assert_eq!(check(&schema, r#"{"i":-9007199254740993}"#), Ok(()));
        assert_eq!(
            check(&schema, r#"{"i":-9007199254740992}"#),
            Err(Code::InvalidValue)
        );
    }

    #[test]
    fn a_missing_tag_is_the_reason_whatever_else_a_branch_lacks() {
        let schema = json!({"oneOf":[
            {"type":"object","properties":{"kind":{"const":"dot"}},"required":["kind"],"additionalProperties":false},
            {"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"integer"}},"required":["kind","radius"],"additionalProperties":false}
        ]});
        assert_eq!(
            explain(&schema, r#"{"radius":1}"#),
            refused(Code::MissingField, "/kind")
        );
        // Another missing key, where a branch's tag matched, is that
        // branch's reason.
        assert_eq!(
            explain(&schema, r#"{"kind":"circle"}"#),
            refused(Code::MissingField, "/radius")
        );
    }

    #[test]
    fn an_explanation_takes_a_union_branch_whose_array_is_fine() {
        let schema = json!({"type":"object","properties":{
            "v":{"anyOf":[
                {"type":"array","items":{"type":"integer"}},
                {"type":"object","properties":{"a":{"type":"integer"}}}
            ]},
            "n":{"type":"integer"}
        }});
        assert_eq!(
            explain(&schema, r#"{"v":[1],"n":"x"}"#),
            refused(Code::WrongType, "/n")
        );
        assert_eq!(
            explain(&schema, r#"{"v":{"a":1},"n":"x"}"#),
            refused(Code::WrongType, "/n")
        );
    }

    #[test]
    fn whole_numbers_are_integers() {
        let schema = json!({"type":"object","properties":{"n":{"type":"integer"}},"anyOf":[{}]});
        assert_eq!(check(&schema, r#"{"n":-0}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"n":1.0}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"n":1.5}"#), Err(Code::WrongType));
    }

    #[test]
    fn bounds_are_checked_before_serde_reads_and_left_to_serde_and_garde_after() {
        let schema = json!({"type":"object","properties":{
            "n":{"type":"integer","minimum":1,"maximum":30},
            "s":{"type":"string","minLength":2,"maxLength":3},
            "o":{"type":"object"}
        }});
        assert_eq!(
            explain(&schema, r#"{"n":0}"#),
            refused(Code::OutOfRange, "/n")
        );
        assert_eq!(
            explain(&schema, r#"{"n":31}"#),
            refused(Code::OutOfRange, "/n")
        );
        assert_eq!(explain(&schema, r#"{"n":1}"#), Ok(()));
        assert_eq!(explain(&schema, r#"{"n":30}"#), Ok(()));
        // Compared by value: 1.5e1 is 15.
        assert_eq!(explain(&schema, r#"{"n":1.5e1}"#), Ok(()));
        assert_eq!(
            explain(&schema, r#"{"n":3.1e1}"#),
            refused(Code::OutOfRange, "/n")
        );
        assert_eq!(
            explain(&schema, r#"{"s":"a"}"#),
            refused(Code::InvalidLength, "/s")
        );
        assert_eq!(
            explain(&schema, r#"{"s":"abcd"}"#),
            refused(Code::InvalidLength, "/s")
        );
        assert_eq!(explain(&schema, r#"{"s":"ab"}"#), Ok(()));
        assert_eq!(explain(&schema, r#"{"s":"abc"}"#), Ok(()));
        // Characters, an escape counting as the one it stands for.
        assert_eq!(explain(&schema, r#"{"s":"\u00e9\u00e9"}"#), Ok(()));
        assert_eq!(explain(&schema, r#"{"s":"éé"}"#), Ok(()));
        // After serde accepted, the walk looks at the structure only.
        assert_eq!(check(&schema, r#"{"n":0,"s":"a","o":{}}"#), Ok(()));
    }

    #[test]
    fn exclusive_bounds_patterns_and_item_counts_are_bounds_too() {
        let schema = json!({"type":"object","properties":{
            "n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":10},
            "s":{"type":"string","pattern":"^a+$"},
            "a":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}
        }});
        for (json, code, at) in [
            (r#"{"n":0}"#, Code::OutOfRange, "/n"),
            (r#"{"n":10}"#, Code::OutOfRange, "/n"),
            (r#"{"n":-1.5}"#, Code::OutOfRange, "/n"),
            (r#"{"s":"ab"}"#, Code::PatternMismatch, "/s"),
            (r#"{"s":""}"#, Code::PatternMismatch, "/s"),
            // Matched as decoded: `\u0062` is `b`.
            (r#"{"s":"a\u0062"}"#, Code::PatternMismatch, "/s"),
            (r#"{"a":[]}"#, Code::InvalidLength, "/a"),
            (r#"{"a":[1,2,3]}"#, Code::InvalidLength, "/a"),
        ] {
            assert_eq!(explain(&schema, json), refused(code, at), "{json}");
        }
        for json in [
            r#"{"n":0.5}"#,
            r#"{"n":9.99}"#,
            r#"{"s":"aaa"}"#,
            r#"{"s":"\u0061"}"#,
            r#"{"a":[1]}"#,
            r#"{"a":[1,2]}"#,
        ] {
            assert_eq!(explain(&schema, json), Ok(()), "{json}");
        }
        // After serde accepted, they are left to serde and garde.
        assert_eq!(check(&schema, r#"{"n":0,"s":"b","a":[]}"#), Ok(()));
        let multiple = json!({"type":"object","properties":{
            "i":{"type":"integer","multipleOf":5},
            "f":{"type":"number","multipleOf":0.25},
            "t":{"type":"number","multipleOf":0.1}
        }});
        for json in [
            r#"{"i":10}"#,
            r#"{"i":-5}"#,
            r#"{"i":0}"#,
            r#"{"i":1e1}"#,
            r#"{"f":0.75}"#,
            r#"{"f":-7}"#,
            r#"{"f":1e300}"#,
            r#"{"t":0.5}"#,
        ] {
            assert_eq!(explain(&multiple, json), Ok(()), "{json}");
        }
        // As decimals: 0.3 is a multiple of 0.1; the double after 2 is no
        // multiple of 0.25; past 128 bits, as the doubles are exactly.
        for json in [r#"{"t":0.3}"#, r#"{"t":-12.7}"#] {
            assert_eq!(explain(&multiple, json), Ok(()), "{json}");
        }
        for (json, at) in [
            (r#"{"i":7}"#, "/i"),
            (r#"{"i":12.5}"#, "/i"),
            (r#"{"f":0.3}"#, "/f"),
            (r#"{"f":2.0000000000000004}"#, "/f"),
            (r#"{"f":1e-300}"#, "/f"),
            (r#"{"t":0.35}"#, "/t"),
            (r#"{"t":1e-300}"#, "/t"),
        ] {
            let refused = explain(&multiple, json).err().map(|(_, path)| path);
            assert_eq!(refused.as_deref(), Some(at), "{json}");
        }
        let message = Shape::new(&multiple).explain(r#"{"i":7}"#, &multiple);
        assert_eq!(
            message.map_err(|r| (r.code(), r.safe_message().to_owned())),
            Err((
                Code::InvalidValue,
                "i must be an integer that is a multiple of 5".to_owned()
            ))
        );
        // Inside a union, a branch whose bound refuses the value is not
        // the one that takes it.
        let union = json!({"type":"object","properties":{"v":{"anyOf":[
            {"type":"string","pattern":"^[0-9]+$"},
            {"type":"array","maxItems":1}
        ]}}});
        assert_eq!(explain(&union, r#"{"v":"12"}"#), Ok(()));
        assert_eq!(explain(&union, r#"{"v":[1]}"#), Ok(()));
        assert!(explain(&union, r#"{"v":"1x"}"#).is_err());
        assert!(explain(&union, r#"{"v":[1,2]}"#).is_err());
    }

    #[test]
    fn choices_compare_numbers_by_value_and_strings_unescaped() {
        let schema = json!({"type":"object","properties":{
            "n":{"enum":[1,2]},
            "k":{"const":"dot"}
        }});
        assert_eq!(check(&schema, r#"{"n":1}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"n":2.0}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"n":3}"#), Err(Code::InvalidValue));
        assert_eq!(check(&schema, r#"{"k":"dot"}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"k":"\u0064ot"}"#), Ok(()));
        assert_eq!(
            check(&schema, r#"{"k":"\u0064og"}"#),
            Err(Code::InvalidValue)
        );
        assert_eq!(check(&schema, r#"{"k":"dog"}"#), Err(Code::InvalidValue));
    }

    /// Which unions are told apart by a tag: every branch that takes an
    /// object requires the same member with a constant string of its own.
    #[test]
    fn a_union_is_tagged_when_each_object_branch_names_itself() {
        let branch = |tag: Value, required: bool| {
            serde_json::json!({
                "type": "object",
                "properties": {"kind": {"type": "string", "const": tag}, "n": {"type": "integer"}},
                "required": if required { vec!["kind"] } else { vec![] },
                "additionalProperties": false,
            })
        };
        let tagged = |union: Value| {
            let shape =
                Shape::new(&serde_json::json!({"type": "object", "properties": {"u": union}}));
            shape
                .nodes
                .iter()
                .filter_map(|n| n.tagged.as_deref())
                .map(|t| t.branches.len())
                .max()
        };
        let a = branch(serde_json::json!("a"), true);
        let b = branch(serde_json::json!("b"), true);
        assert_eq!(tagged(serde_json::json!({"oneOf": [a, b]})), Some(2));
        // An optional one: the null branch takes no object.
        assert_eq!(
            tagged(serde_json::json!({"anyOf": [{"oneOf": [a, b]}, {"type": "null"}]})),
            Some(2)
        );
        // Not tagged: two branches with one tag, a tag not required, a tag
        // that is not a string, a branch that is not an object's, or the
        // union beside other keywords.
        assert_eq!(tagged(serde_json::json!({"oneOf": [a, a]})), None);
        let loose = branch(serde_json::json!("b"), false);
        assert_eq!(tagged(serde_json::json!({"oneOf": [a, loose]})), None);
        let number = branch(serde_json::json!(2), true);
        assert_eq!(tagged(serde_json::json!({"oneOf": [a, number]})), None);
        let any = serde_json::json!({"type": ["object", "string"]});
        assert_eq!(tagged(serde_json::json!({"oneOf": [a, any]})), None);
        let beside = serde_json::json!({"oneOf": [a, b], "required": ["kind"]});
        assert_eq!(tagged(beside), None);
        // A branch named twice, through a reference, is one branch; unions
        // that name the same ones many times over are looked at once each.
        let shape = Shape::new(&serde_json::json!({
            "type": "object",
            "properties": {"u": {"oneOf": [
                {"$ref": "#/$defs/U"}, {"$ref": "#/$defs/U"}, {"$ref": "#/$defs/A"},
            ]}},
            "$defs": {
                "A": a,
                "B": b,
                "U": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, {"$ref": "#/$defs/U"}]},
            },
        }));
        let sizes: Vec<usize> = shape
            .nodes
            .iter()
            .filter_map(|n| n.tagged.as_deref())
            .map(|t| t.branches.len())
            .collect();
        assert_eq!(sizes, [2, 2], "{sizes:?}");
    }

    #[test]
    fn only_an_untagged_union_walks_before_serde() {
        let first = |schema: Value| Shape::new(&schema).walks_first();
        // Two readings serde tries one by one.
        assert!(first(
            json!({"anyOf":[{"type":"string"},{"type":"integer"}]})
        ));
        // A union of constants is one list of choices,
        assert!(!first(json!({"anyOf":[{"const":"a"},{"const":"b"}]})));
        assert!(!first(
            json!({"anyOf":[{"enum":["a"]},{"type":"string","const":"b"}]})
        ));
        // an Option is one reading or null,
        assert!(!first(
            json!({"anyOf":[{"type":"object","properties":{"a":{}}},{"type":"null"}]})
        ));
        // and a tagged enum's `oneOf` is read by its tag.
        assert!(!first(json!({"oneOf":[
            {"type":"object","properties":{"kind":{"const":"a"}}},
            {"type":"object","properties":{"kind":{"const":"b"}}}
        ]})));
    }

    #[test]
    fn a_union_of_typed_constants_takes_only_their_type() {
        let schema = json!({"type":"object","properties":{"k":{"anyOf":[
            {"type":"string","const":"a"},
            {"type":"string","const":"b"}
        ]}}});
        assert_eq!(explain(&schema, r#"{"k":"a"}"#), Ok(()));
        assert_eq!(
            explain(&schema, r#"{"k":"c"}"#),
            refused(Code::InvalidValue, "/k")
        );
        assert_eq!(
            explain(&schema, r#"{"k":5}"#),
            refused(Code::WrongType, "/k")
        );
    }

    #[test]
    fn a_reference_keeps_its_sibling_keywords_and_false_refuses() {
        let schema = json!({"type":"object","properties":{
            "n":{"$ref":"#/$defs/N","enum":[1,2]},
            "d":{"$ref":"#/$defs/N","description":"documented"},
            "x":{"$ref":"#/$defs/No"}
        },"$defs":{"N":{"type":"integer"},"No":false}});
        assert_eq!(check(&schema, r#"{"n":1,"d":5}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"n":3}"#), Err(Code::InvalidValue));
        assert_eq!(check(&schema, r#"{"d":"five"}"#), Err(Code::WrongType));
        assert_eq!(check(&schema, r#"{"x":1}"#), Err(Code::WrongType));
    }

    #[test]
    fn every_required_name_counts_once() {
        let schema = json!({"type":"object","properties":{"a":{},"b":{}},"required":["a","b","a"]});
        assert_eq!(check(&schema, r#"{"a":1,"b":2}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"a":1}"#), Err(Code::MissingField));
        assert_eq!(check(&schema, r#"{"b":1}"#), Err(Code::MissingField));
    }

    #[test]
    fn each_type_admits_its_own_kind_only() {
        let values = [
            ("null", "null"),
            ("boolean", "true"),
            ("integer", "1"),
            ("number", "1.5"),
            ("string", "\"s\""),
            ("array", "[]"),
            ("object", "{}"),
        ];
        for (name, _) in values {
            let schema = json!({"type":"object","properties":{"v":{"type":name}}});
            for (kind, value) in values {
                let admitted = kind == name || (name == "number" && kind == "integer");
                let verdict = check(&schema, &format!("{{\"v\":{value}}}"));
                let expected = if admitted {
                    Ok(())
                } else {
                    Err(Code::WrongType)
                };
                assert_eq!(verdict, expected, "{value} for {name}");
            }
        }
        let either = json!({"type":"object","properties":{"v":{"type":["integer","number"]}}});
        assert_eq!(check(&either, r#"{"v":1}"#), Ok(()));
        assert_eq!(check(&either, r#"{"v":1.5}"#), Ok(()));
        let or_null = json!({"type":"object","properties":{"v":{"type":["string","null"]}}});
        assert_eq!(check(&or_null, r#"{"v":null}"#), Ok(()));
        assert_eq!(check(&or_null, r#"{"v":5}"#), Err(Code::WrongType));
    }

    /// A tagged union with `variants` object variants.
    fn tagged(variants: usize) -> Value {
        let branches: Vec<Value> = (0..variants)
            .map(|i| json!({"type":"object","properties":{"kind":{"const":format!("v{i}")}},"required":["kind"]}))
            .collect();
        json!({"oneOf":branches})
    }

    #[test]
    fn a_union_of_sixty_four_subschemas_or_more_is_walked_in_full() {
        // The quick walk keeps one bit per subschema: 64 at most.
        for variants in [62, 63, 64, 80] {
            let schema = tagged(variants);
            assert_eq!(check(&schema, r#"{"kind":"v7"}"#), Ok(()), "{variants}");
            assert_eq!(
                check(&schema, r#"{"kind":"none"}"#),
                Err(Code::InvalidValue),
                "{variants}"
            );
        }
        // The full walk reads arrays too, against a union and without.
        let mut schema = tagged(80);
        if let Some(Value::Array(branches)) = schema.get_mut("oneOf") {
            branches.push(json!({"type":"array","items":{"type":"integer"}}));
            branches.push(json!({"type":"object","properties":{
                "list":{"type":"array","items":{"type":"integer"}},
                "any":{"anyOf":[{"type":"array"},{"type":"string"}]}
            },"required":["list"],"additionalProperties":false}));
        }
        assert_eq!(check(&schema, "[1,2]"), Ok(()));
        assert_eq!(check(&schema, r#"{"list":[1],"any":[true]}"#), Ok(()));
        assert_eq!(check(&schema, r#"["x"]"#), Err(Code::WrongType));
        assert_eq!(check(&schema, r#"{"list":["x"]}"#), Err(Code::WrongType));
    }

    #[test]
    fn a_member_read_against_a_union_and_its_branch_at_once() {
        // `x` is read against U and V together, and U is a union over V.
        let schema = json!({"anyOf":[
            {"type":"object","properties":{"x":{"$ref":"#/$defs/U"},"y":{}},"required":["x","y"]},
            {"type":"object","properties":{"x":{"$ref":"#/$defs/V"}},"required":["x"]}
        ],"$defs":{"U":{"anyOf":[{"$ref":"#/$defs/V"}]},"V":{"type":"integer"}}});
        // Only the second branch accepts,
        assert_eq!(check(&schema, r#"{"x":1}"#), Ok(()));
        // and U is no better than V.
        assert!(check(&schema, r#"{"x":"s","y":1}"#).is_err());
    }

    #[test]
    fn array_members_are_read_against_every_branch_of_a_union() {
        let pair = json!({"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false});
        let schema = json!({"type":"object","properties":{"v":{"anyOf":[
            pair,
            {"type":"array","items":{"type":"boolean"}}
        ]}}});
        assert_eq!(check(&schema, r#"{"v":[1,"s"]}"#), Ok(()));
        assert_eq!(check(&schema, r#"{"v":[true,false]}"#), Ok(()));
        assert!(check(&schema, r#"{"v":[1,"s",3]}"#).is_err());
        assert!(check(&schema, r#"{"v":[1,true]}"#).is_err());
        // The pair ends at its third member; the other branch reads on.
        let schema = json!({"type":"object","properties":{"v":{"anyOf":[
            pair,
            {"type":"array","items":{"type":["integer","string"]}}
        ]}}});
        assert_eq!(check(&schema, r#"{"v":[1,"s",3]}"#), Ok(()));
    }
}
