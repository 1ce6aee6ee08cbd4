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
//! - lengths and sizes mean what the schema says, and each bound is
//!   enforced before serde reads past it ([`lengths`]);
//! - the tool's types hold what its schema states, so the single pass may
//!   read its calls without the schema ([`proven`]).

pub(crate) mod keys;
pub(crate) mod lengths;
pub(crate) mod pattern;
pub(crate) mod proven;
