//! The questions the single-pass reader asks of a node for each value it
//! reads: which kinds it takes, which member or item describes a child,
//! and the verdicts of a value against a set of nodes.

use serde_json::Value;
use smallvec::SmallVec;

use super::node::*;
use super::verdict::*;
use crate::Code;

impl Node {
    /// The strings a string must be one of, where that is all this
    /// subschema says of a value: `type` string, one list of choices, every
    /// one a string written without escapes.
    pub(super) fn names(&self) -> Option<&[Box<str>]> {
        let plain = self.plain_choices.as_deref()?;
        let [values] = self.choices.as_slice() else {
            return None;
        };
        (self.kinds == STRING && self.is_bare() && plain.len() == values.len()).then_some(plain)
    }

    /// Whether it has no union: its own keywords decide.
    pub(super) fn simple(&self) -> bool {
        self.any_of.is_empty() && self.all_of.is_empty()
    }

    /// How telling a value of a kind this subschema does not take is: a
    /// choice's, for a subschema that lists choices (a tag naming another
    /// variant says less than a shape that is wrong).
    pub(super) fn kind_rank(&self) -> Rank {
        if self.choices.is_empty() {
            Rank::Shape
        } else {
            Rank::Choice
        }
    }

    /// No keyword but `type`, `enum` and `const`.
    pub(super) fn is_bare(&self) -> bool {
        self.any_of.is_empty() && self.is_bare_beside_unions()
    }

    /// No keyword but `type`, `enum`, `const`, `anyOf` and `oneOf`.
    pub(super) fn is_bare_beside_unions(&self) -> bool {
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
    pub(super) fn member(&self, key: &[u8]) -> (Child, bool) {
        let (_, child, required) = self.member_at(key);
        (child, required)
    }

    /// [`Self::member`], and the index of `key` among the properties this
    /// subschema lists, if it is one.
    #[inline(always)]
    pub(super) fn member_at(&self, key: &[u8]) -> (Option<usize>, Child, bool) {
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
    pub(super) fn counts_out(&self, items: usize) -> bool {
        let items = items as u64;
        self.count.0.is_some_and(|min| items < min) || self.count.1.is_some_and(|max| items > max)
    }

    /// Whether an object of `members` members has fewer than
    /// `minProperties` or more than `maxProperties`.
    pub(super) fn entries_out(&self, members: usize) -> bool {
        let members = members as u64;
        self.entries.0.is_some_and(|min| members < min)
            || self.entries.1.is_some_and(|max| members > max)
    }

    /// Whether `key` (decoded) is shorter or longer, in characters, than
    /// `propertyNames` allows.
    pub(super) fn name_out(&self, key: &[u8]) -> bool {
        if self.names == (None, None) {
            return false;
        }
        let chars = String::from_utf8_lossy(key).chars().count() as u64;
        self.names.0.is_some_and(|min| chars < min) || self.names.1.is_some_and(|max| chars > max)
    }

    /// Whether `key` is a member no subschema in its place lists, where
    /// `unevaluatedProperties` is `false`.
    pub(super) fn unevaluated(&self, key: &[u8]) -> bool {
        self.unevaluated
            .as_ref()
            .is_some_and(|names| !names.iter().any(|name| name.as_bytes() == key))
    }

    /// What describes element `index` of an array.
    #[inline(always)]
    pub(super) fn item(&self, index: usize) -> Child {
        self.prefix.get(index).copied().unwrap_or(self.items)
    }
}

/// The quick walk's verdicts, value by value, for the single-pass reader
/// ([`crate::gate::structural::reader`]), which reads each value once and asks these as it
/// goes: the same keywords, the same answers, without a second reading.
impl Shape {
    pub(super) fn node(&self, id: Id) -> &Node {
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
pub(super) fn accepts(
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
pub(super) fn quick_accepts(
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
pub(super) fn chosen(node: &Node, kind: u8, raw: &[u8]) -> bool {
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
pub(super) fn chosen_by_value(node: &Node, kind: u8, raw: &[u8]) -> bool {
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
pub(super) fn same(a: &Value, b: &Value) -> bool {
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
