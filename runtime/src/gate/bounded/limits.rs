//! Gate 1 limits: how much JSON a call may carry before anything is parsed.

/// Bounds on the argument JSON of one call, checked before any allocation that
/// grows with the input.
///
/// The defaults fit every tool a model can reasonably call: 64 KiB of JSON,
/// 16 levels of nesting, 4096 values and 8 KiB per string. Duplicate object
/// keys are always rejected, at every depth; that is not a limit and cannot be
/// turned off, because two readers of the same bytes could otherwise disagree
/// about what the model sent.
///
/// Limits apply per toolbox ([`Toolbox::with_limits`](crate::Toolbox::with_limits))
/// and can be overridden per tool
/// ([`Toolbox::register_with_limits`](crate::Toolbox::register_with_limits)).
///
/// ```
/// use toolgate::Limits;
///
/// let small = Limits::default().max_bytes(4 * 1024).max_depth(4);
/// assert_eq!(small.bytes(), 4096);
/// assert_eq!(Limits::default().nodes(), 4096);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    bytes: usize,
    depth: usize,
    nodes: usize,
    string_bytes: usize,
}

impl Limits {
    /// The defaults: 64 KiB, depth 16, 4096 nodes, 8 KiB per string.
    pub const DEFAULT: Limits = Limits {
        bytes: 64 * 1024,
        depth: 16,
        nodes: 4096,
        string_bytes: 8 * 1024,
    };

    /// Longest argument document, in bytes of JSON text.
    #[must_use]
    pub const fn max_bytes(mut self, bytes: usize) -> Self {
        self.bytes = bytes;
        self
    }

    /// Deepest nesting of objects and arrays; the arguments object itself is
    /// depth 1.
    #[must_use]
    pub const fn max_depth(mut self, depth: usize) -> Self {
        self.depth = depth;
        self
    }

    /// Most values (objects, arrays, strings, numbers, booleans and nulls,
    /// the arguments object included) in one document. Object keys are not
    /// values.
    #[must_use]
    pub const fn max_nodes(mut self, nodes: usize) -> Self {
        self.nodes = nodes;
        self
    }

    /// Longest string, keys included, counted in bytes of its JSON text
    /// between the quotes (an escape counts as written).
    #[must_use]
    pub const fn max_string_bytes(mut self, bytes: usize) -> Self {
        self.string_bytes = bytes;
        self
    }

    /// The byte limit.
    pub const fn bytes(&self) -> usize {
        self.bytes
    }

    /// The depth limit.
    pub const fn depth(&self) -> usize {
        self.depth
    }

    /// The node limit.
    pub const fn nodes(&self) -> usize {
        self.nodes
    }

    /// The per-string limit.
    pub const fn string_bytes(&self) -> usize {
        self.string_bytes
    }

    /// Runs gate 1 over any JSON object: what a transport does to a whole
    /// message before a parser that allocates for depth, size and
    /// duplicate keys sees it. The toolbox runs it on every call's
    /// arguments itself; this is for the envelope around them.
    ///
    /// ```
    /// use toolgate::{Code, Limits};
    ///
    /// let limits = Limits::default();
    /// assert!(limits.check(br#"{"id":1,"params":{"a":1}}"#).is_ok());
    /// let refused = limits.check(br#"{"id":1,"params":{"a":1,"a":2}}"#).unwrap_err();
    /// assert_eq!((refused.code(), refused.path()), (Code::DuplicateKey, "/params"));
    /// ```
    pub fn check<'a>(&self, json: &'a [u8]) -> Result<crate::RawArgs<'a>, crate::Rejection> {
        crate::gate::bounded::scan(json, self)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// The limits registration checks an instance under: wide enough for any
/// instance it builds (see `crate::register::instance`), so that only the
/// tool's own gates decide.
pub(crate) const PROBE_LIMITS: Limits = Limits::DEFAULT
    .max_bytes(1 << 20)
    .max_depth(256)
    .max_nodes(1 << 20)
    .max_string_bytes(1 << 20);
