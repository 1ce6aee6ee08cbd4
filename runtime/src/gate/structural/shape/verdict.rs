//! A subschema's verdict on a value, and why it refused one.

use super::node::Node;
use crate::Code;
use crate::json::pointer::Step;

/// Why a subschema refused a value. A tag that names another variant is a
/// `Choice`: the least telling reason, reported only when no branch of a
/// union got further.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Rank {
    Choice,
    Shape,
}

#[derive(Clone)]
pub(super) struct Failure {
    pub(super) rank: Rank,
    pub(super) code: Code,
    pub(super) path: Vec<Step>,
    /// For an unknown member: its name, last in `path`.
    pub(super) unknown: bool,
}

/// One subschema's verdict on a value, and (on the explaining walk) why.
#[derive(Clone, Default)]
pub(super) struct Verdict {
    pub(super) ok: bool,
    pub(super) why: Vec<Failure>,
}

impl Verdict {
    pub(super) const fn yes() -> Self {
        Verdict {
            ok: true,
            why: Vec::new(),
        }
    }
}

/// The node that accepts any value.
pub(super) static ANY_NODE: std::sync::LazyLock<Node> = std::sync::LazyLock::new(Node::default);
