//! The nodes a schema compiles into, and what they hold.

use regex::Regex;
use serde_json::Value;

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
pub(super) const ANY: u8 = 127;

/// The structural part of a canonical schema, compiled for the walk.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shape {
    pub(super) nodes: Vec<Node>,
    pub(super) root: Option<Id>,
    /// The schema has an untagged union: walk before serde, whose untagged
    /// enums try every variant at every level, which costs exponential
    /// work in the nesting for a document the schema refuses.
    pub(super) first: bool,
    /// Whether the single pass reads without the schema (see
    /// [`Shape::reads_flat`]).
    pub(super) reads_flat: ReadsFlat,
    /// Some array's items must differ: the single pass reading without
    /// the schema compares every array's items, and stops at a repeat.
    pub(super) any_unique: bool,
    /// The members of the arguments object read against their subschemas
    /// where the rest is read without the schema (see [`Shape::guided`]).
    pub(super) guided: Vec<(Box<str>, Id)>,
    /// The lengths of the names in `guided`, one bit each (63 for every
    /// length from 63 on): a key of another length is none of them.
    pub(super) guided_lengths: u64,
}

/// [`Shape::reads_flat`]: set by registration's proof, read by each
/// call. A proof is of the tool's type
/// and schema, the same whichever toolbox registers it.
#[derive(Debug, Default)]
pub(super) struct ReadsFlat(std::sync::atomic::AtomicBool);

impl Clone for ReadsFlat {
    fn clone(&self) -> Self {
        ReadsFlat(self.get().into())
    }
}

impl ReadsFlat {
    pub(super) fn get(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(super) fn set(&self) {
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
pub(super) struct Node {
    pub(super) kinds: u8,
    /// Each property, what describes it, and whether it is required.
    pub(super) properties: Vec<(Box<str>, Child, bool)>,
    pub(super) required: Vec<Box<str>>,
    pub(super) patterns: Vec<(Regex, Child)>,
    pub(super) additional: Child,
    pub(super) prefix: Vec<Child>,
    pub(super) items: Child,
    /// Each list of `enum` (or the one value of `const`) the value must be in.
    pub(super) choices: Vec<Vec<Value>>,
    /// Each `anyOf`/`oneOf`: at least one branch must accept.
    pub(super) any_of: Vec<Vec<Id>>,
    pub(super) all_of: Vec<Id>,
    /// `minimum` and `maximum`, inclusive.
    pub(super) range: (Option<Number>, Option<Number>),
    /// `exclusiveMinimum` and `exclusiveMaximum`.
    pub(super) exclusive: (Option<Number>, Option<Number>),
    /// `multipleOf`, if above zero.
    pub(super) multiple: Option<Number>,
    /// `minLength` and `maxLength`, in characters.
    pub(super) length: (Option<u64>, Option<u64>),
    /// `pattern`, compiled when a walk with bounds first meets it: most
    /// schemas are never walked with bounds.
    pub(super) pattern: Option<Pattern>,
    /// `minItems` and `maxItems`.
    pub(super) count: (Option<u64>, Option<u64>),
    /// `minProperties` and `maxProperties`: how many members an object
    /// has, whatever their names.
    pub(super) entries: (Option<u64>, Option<u64>),
    /// The lengths in characters `propertyNames` allows an object's keys
    /// (see [`crate::schema::key_lengths`]): a bound.
    pub(super) names: (Option<u64>, Option<u64>),
    /// Where it states `unevaluatedProperties: false`, the names of the
    /// members an object may have (see [`crate::schema::unevaluated`]).
    pub(super) unevaluated: Option<Vec<Box<str>>>,
    /// `uniqueItems`: an array's items must all be different.
    pub(super) unique: bool,
    /// The value a `not` names (see [`crate::schema::names_value`]),
    /// which the value must not equal: a bound, checked by a walk with
    /// bounds; registration refuses any other `not`.
    pub(super) excluded: Option<Value>,
    /// The union this subschema is, if its branches are told apart by a
    /// tag (see [`Tagged`]).
    pub(super) tagged: Option<Box<Tagged>>,
    /// With one list of choices, its strings, if none has a backslash: a
    /// string written as one of them is chosen without decoding it.
    pub(super) plain_choices: Option<Box<[Box<str>]>>,
}

/// A `pattern`, compiled once, when first matched.
#[derive(Clone, Debug)]
pub(super) struct Pattern {
    pub(super) source: Box<str>,
    pub(super) compiled: std::sync::OnceLock<Option<Regex>>,
}

impl Pattern {
    pub(super) fn new(source: &str) -> Pattern {
        Pattern {
            source: source.into(),
            compiled: std::sync::OnceLock::new(),
        }
    }

    /// Whether `text` matches. Nothing matches a pattern the regex crate
    /// cannot compile: registration refuses a tool with one (see
    /// [`crate::register::pattern`]), and a walk that meets one anyway refuses
    /// rather than let the bound go unchecked.
    pub(super) fn matches(&self, text: &str) -> bool {
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
    pub(super) key: Box<str>,
    /// Each branch, by its tag, with the tag's [`property_bit`] in the
    /// branch (see [`Self::branch_at`]).
    pub(super) branches: Vec<(Box<str>, Id, Option<u64>)>,
    /// Whether the key and every tag are written as they are: no quote,
    /// backslash or control character that a document must escape.
    pub(super) plain: bool,
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
pub(super) fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}

/// Whether `text` is written as it is in a JSON string: no quote,
/// backslash or control character.
pub(super) fn unescaped(text: &str) -> bool {
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
pub(super) enum Number {
    Integer(i128),
    Float(f64),
}

impl Number {
    pub(super) fn parse(text: &str) -> Option<Number> {
        match text.parse::<i128>() {
            Ok(n) => Some(Number::Integer(n)),
            Err(_) => text.parse::<f64>().ok().map(Number::Float),
        }
    }

    pub(super) fn of(value: &Value) -> Option<Number> {
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
    pub(super) fn is_multiple_of(self, m: Number) -> bool {
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
    pub(super) fn decimal_parts(self) -> Option<(i128, i32)> {
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
    pub(super) fn cmp(self, other: Number) -> Option<core::cmp::Ordering> {
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
