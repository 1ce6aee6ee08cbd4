//! Schema guidance: the subschemas a value is checked against (`Guide`),
//! an array's items (`Many`) and the keys of the object being read.

use serde::de::{self, Visitor};
use smallvec::SmallVec;

use crate::gate::structural::shape::{self, Child, Id, Shape};

use super::state::*;

/// An object's or array's check against the schema as it is read: the
/// quick walk of [`shape`], one value at a time.
// On the stack while one container is read; boxing the larger variant
// would allocate for every union read.
#[allow(clippy::large_enum_variant)]
pub(super) enum Guide {
    /// One subschema without unions, whose own keywords decide.
    One {
        id: Id,
        /// Whether it still accepts the container.
        alive: bool,
        /// How many of its required members were seen.
        found: usize,
        /// What describes the member being read.
        child: Child,
        /// The listed properties seen so far, by index (the first 64).
        seen: u64,
        /// A tagged union's branch, found ahead by its tag: where the tag's
        /// key was read ahead (its opening quote) and its bit in `seen`.
        /// [`NO_TAG`] for any other subschema.
        tag: (usize, u64),
    },
    Many(Many),
}

/// No tag read ahead (see [`Reader::branch_ahead`]): at no place, of no bit.
pub(super) const NO_TAG: (usize, u64) = (usize::MAX, 0);

/// Whether a key is one of the properties a [`Guide`] lists, which it
/// then checks for repeats itself: two keys that are the same property
/// are the same text, and a listed key is never an unlisted one.
pub(super) enum Listed {
    New,
    Repeated,
    /// Not listed (or no single subschema to list it): the reader compares
    /// it with the object's other such keys.
    No,
}

impl Guide {
    /// The check of an object or array (`kind`) against subschema `id`,
    /// which has no union, before its first member.
    /// `tag`: see [`Reader::branch_ahead`].
    #[inline]
    pub(super) fn one(shape: &Shape, id: Id, kind: u8, tag: (usize, u64)) -> Guide {
        Guide::One {
            id,
            alive: shape.takes_one(id, kind),
            found: 0,
            child: Child::Any,
            seen: 0,
            tag,
        }
    }

    /// Whether the key whose opening quote is at `quote` is the tag read
    /// ahead to find the branch this guide checks (see
    /// `Reader::branch_ahead`).
    #[inline]
    pub(super) fn is_tag_at(&self, quote: usize) -> bool {
        matches!(self, Guide::One { tag: (at, _), .. } if *at == quote)
    }

    /// [`key`](Self::key) for the tag read ahead: a required member the
    /// branch lists, whose value was read ahead too and is the branch's
    /// constant (so it needs no judging again), seen for the first time:
    /// the tag was the first key of its name the reading ahead met.
    pub(super) fn tag_read(&mut self) -> Listed {
        if let Guide::One {
            alive,
            found,
            child,
            seen,
            tag: (_, bit),
            ..
        } = self
        {
            *child = Child::Any;
            *found += usize::from(*alive);
            *seen |= *bit;
        }
        Listed::New
    }

    pub(super) fn key(&mut self, shape: &Shape, key: &[u8]) -> Listed {
        match self {
            Guide::One {
                id,
                alive,
                found,
                child,
                seen,
                ..
            } => {
                // Looked up even once the subschema refused the object: its
                // listed keys are compared here, alive or not.
                let (index, member, required) = shape.member_at(*id, key);
                *child = Child::Any;
                if *alive {
                    *found += usize::from(required);
                    *alive = member != Child::Never;
                    *child = member;
                }
                match index.and_then(shape::property_bit) {
                    Some(bit) if *seen & bit != 0 => Listed::Repeated,
                    Some(bit) => {
                        *seen |= bit;
                        Listed::New
                    }
                    None => Listed::No,
                }
            }
            Guide::Many(many) => {
                many.key(shape, key);
                Listed::No
            }
        }
    }

    pub(super) fn index(&mut self, shape: &Shape, index: usize) {
        match self {
            Guide::One {
                id, alive, child, ..
            } => {
                *child = Child::Any;
                if *alive {
                    let item = shape.item(*id, index);
                    *alive = item != Child::Never;
                    *child = item;
                }
            }
            Guide::Many(many) => many.index(shape, index),
        }
    }

    /// Sets what the member being read must satisfy. Written in place:
    /// an `Expect` made apart and then moved is copied whole from the
    /// pieces just written, which the processor cannot forward.
    #[inline]
    pub(super) fn expect(&mut self, expect: &mut Expect) {
        match self {
            Guide::One {
                alive: true,
                child: Child::Node(id),
                ..
            } => *expect = Expect::One(*id),
            Guide::One { .. } => *expect = Expect::Any,
            Guide::Many(many) => *expect = many.expect(),
        }
    }

    /// Takes the verdict on the member just read, as [`expect`](Self::expect)
    /// asked for it.
    #[inline]
    pub(super) fn member_read(&mut self, verdict: u64) {
        match self {
            // Once dead, a subschema stays dead whatever the verdict.
            Guide::One {
                alive,
                child: Child::Node(_),
                ..
            } => *alive &= verdict & 1 != 0,
            Guide::One { .. } => {}
            Guide::Many(many) => many.member_read(verdict),
        }
    }
}

/// [`Guide`] for several subschemas, or one with unions.
pub(super) struct Many {
    pub(super) set: Set,
    /// What the member being read was expected to satisfy.
    pub(super) asked: Set,
    /// The set and the branches of its unions.
    pub(super) atoms: SmallVec<[Id; 8]>,
    /// The atoms that still accept the container.
    pub(super) alive: u64,
    /// For each atom, how many of its required members were seen.
    pub(super) found: SmallVec<[usize; 8]>,
    /// For each atom, what describes the member being read.
    pub(super) children: SmallVec<[Child; 8]>,
}

impl Many {
    /// The subschemas the member being read must satisfy, for the atoms
    /// still alive.
    pub(super) fn member_set(&self) -> Set {
        let mut set = Set::new();
        for (i, child) in self.children.iter().enumerate() {
            if let (true, Child::Node(id)) = (self.alive & (1 << i) != 0, child)
                && !set.contains(id)
            {
                set.push(*id);
            }
        }
        set
    }

    /// What the member being read must satisfy, kept for its verdict.
    #[inline(never)]
    pub(super) fn expect(&mut self) -> Expect {
        self.asked = self.member_set();
        match self.asked.as_slice() {
            [] => Expect::Any,
            [id] => Expect::One(*id),
            set => Expect::Many(set.into()),
        }
    }

    /// Takes the verdict on the member just read against what it was
    /// asked to satisfy.
    #[inline(never)]
    pub(super) fn member_read(&mut self, verdict: u64) {
        for (i, child) in self.children.iter().enumerate() {
            if let Child::Node(id) = child
                && let Some(j) = self.asked.iter().position(|s| s == id)
                && verdict & (1 << j) == 0
            {
                self.alive &= !(1 << i);
            }
        }
    }

    /// Each atom's reading of member `key`.
    pub(super) fn key(&mut self, shape: &Shape, key: &[u8]) {
        self.children.clear();
        for (i, (id, found)) in self.atoms.iter().zip(self.found.iter_mut()).enumerate() {
            let child = if self.alive & (1 << i) == 0 {
                Child::Any
            } else {
                let (child, required) = shape.member(*id, key);
                *found += usize::from(required);
                child
            };
            if child == Child::Never {
                self.alive &= !(1 << i);
            }
            self.children.push(child);
        }
    }

    /// Each atom's reading of element `index`. Out of line, so that the
    /// step to an element of one subschema saves no registers for it.
    #[inline(never)]
    pub(super) fn index(&mut self, shape: &Shape, index: usize) {
        self.children.clear();
        for (i, id) in self.atoms.iter().enumerate() {
            let child = if self.alive & (1 << i) == 0 {
                Child::Any
            } else {
                shape.item(*id, index)
            };
            if child == Child::Never {
                self.alive &= !(1 << i);
            }
            self.children.push(child);
        }
    }
}

/// A number as serde_json hands it to a visitor.
pub(super) enum Number {
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Number {
    pub(super) fn unexpected(&self) -> de::Unexpected<'static> {
        match *self {
            Number::U64(v) => de::Unexpected::Unsigned(v),
            Number::I64(v) => de::Unexpected::Signed(v),
            Number::F64(v) => de::Unexpected::Float(v),
        }
    }

    pub(super) fn visit<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Number::U64(v) => visitor.visit_u64(v),
            Number::I64(v) => visitor.visit_i64(v),
            Number::F64(v) => visitor.visit_f64(v),
        }
    }
}
