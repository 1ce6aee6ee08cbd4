//! What registration and the single pass ask of a whole shape: the shape
//! of a schema (`Shape::new`), what registration must prove of it, the
//! members a reader finds by key, and whether its calls read flat.

use std::collections::HashMap;

use serde_json::Value;

use super::compile::Builder;
use super::node::*;
use super::walk::Walk;
use crate::Rejection;

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
    pub(super) fn find_tag(&self, id: Id) -> Option<Tagged> {
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
    pub(super) fn object_branches(
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
    pub(super) fn constant_member(&self, id: Id, key: &str) -> Option<&str> {
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
    pub(super) fn members_are(&self, id: Id, listed: impl Fn(&Child) -> bool) -> bool {
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
    pub(super) fn plain(&self, child: &Child, proven: bool) -> bool {
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
    pub(super) fn scalar_place<'s>(
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

    pub(super) fn walk(&self, json: &str, schema: &Value, bounds: bool) -> Result<(), Rejection> {
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
