//! The gates a call passes, one module each. Their order is written once,
//! as the variants of [`Gate`], each naming the module that holds it; the
//! crate's documentation shows the same table to users.
//!
//! [`accepted`] is what gates 1–3 hand on: the arguments as accepted, for
//! policies, approvals and idempotency keys. The calls themselves chain
//! through `Toolbox::start` (gates 0 and 1) and then the tool's generated
//! code, one [`Invocation`](crate::tool::Invocation) method a gate.

pub(crate) mod accepted;
pub(crate) mod bounded;
pub(crate) mod effect;
pub(crate) mod panic;
pub(crate) mod resource;
pub(crate) mod semantic;
pub(crate) mod structural;

/// Where in the call path a decision was made: the gates in the order a
/// call passes them, each beside the module that holds it. The audit log
/// and the call's span name a refusal's gate by [`Gate::as_str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Gate 0: the tool exists, is in this request's allow-list, and the
    /// caller holds its scope (`Toolbox::admit`, in [`crate::toolbox`]).
    Admission,
    /// Gate 1: the bounded parse ([`bounded`]), within the
    /// [`Limits`](crate::Limits).
    BoundedParse,
    /// Gate 2: serde into the closed argument struct ([`structural`]),
    /// through the single-pass [`reader`](structural::reader) and the
    /// schema's [`shape`](structural::shape).
    Structure,
    /// Gate 3: the argument struct's garde rules ([`semantic`]).
    Rules,
    /// A stored or approved call meets the tool version and schema it was
    /// made for, before gates 4 and 5 run again on it ([`crate::toolbox`]).
    Version,
    /// Gate 4: each named object resolved in the caller's tenant
    /// ([`resource`]).
    Resolve,
    /// Gate 5: each resolved object authorized ([`resource`]).
    Authorize,
    /// The tool's own checks on the authorized objects, before gate 6
    /// ([`crate::tool`](mod@crate::tool)).
    Checks,
    /// Gate 6: approval, idempotency, the store and its rules, the body's
    /// deadline ([`effect`]); rate limits and retry budgets are counted in
    /// [`crate::toolbox`], a call's admission by gate 6 in [`crate::tool`](mod@crate::tool).
    Effect,
    /// Gate 7: the body, its panics contained ([`panic`](mod@panic)).
    Execute,
}

impl Gate {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Gate::Admission => "admission",
            Gate::BoundedParse => "bounded_parse",
            Gate::Structure => "structure",
            Gate::Rules => "rules",
            Gate::Version => "version",
            Gate::Resolve => "resolve",
            Gate::Authorize => "authorize",
            Gate::Checks => "checks",
            Gate::Effect => "effect",
            Gate::Execute => "execute",
        }
    }
}
