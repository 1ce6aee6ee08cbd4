//! Registration: what `Toolbox::register` proves of a tool before any call,
//! or the [`RegisterError`](crate::RegisterError) it refuses the tool with.
//! The checks run in `Toolbox::insert`'s order:
//!
//! - no model-facing field is named like trusted context, and the schema
//!   has no keyword the server would not enforce ([`crate::schema`]);
//! - every pattern reads alike to the server and to JSON Schema
//!   validators ([`pattern`]);
//! - a map keeps every key the model sent, and states what its keys are
//!   ([`keys`]);
//! - serde reads from its buffer what the schema accepts: 128-bit
//!   integers, map keys, the members of an enum flattened into a struct
//!   ([`buffered`]);
//! - lengths and sizes mean what the schema says ([`lengths`]), and each
//!   bound is enforced before serde reads past it ([`unenforced`]);
//! - the tool's types hold what its schema states, so the single pass may
//!   read its calls without the schema ([`proven`]).
//!
//! Most checks read instances of the schema ([`instance`]) through gates
//! 1–3 of the tool ([`probe`]).

pub(crate) mod buffered;
pub(crate) mod instance;
pub(crate) mod keys;
pub(crate) mod lengths;
pub(crate) mod pattern;
pub(crate) mod probe;
pub(crate) mod proven;
pub(crate) mod unenforced;
