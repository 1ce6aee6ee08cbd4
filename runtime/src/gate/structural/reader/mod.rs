//! Gates 1 and 2 in one pass: a JSON reader that serde drives and that
//! enforces gate 1 and the schema's shape as it reads.
//!
//! A call's bytes are read once, straight into the tool's argument struct.
//! As it reads, the reader counts depth, values and string bytes against
//! the [`Limits`](crate::Limits), compares each object's keys, refuses lone
//! surrogates and text that is not UTF-8, and requires nothing after the
//! closing brace: what the bounded scan of [`bounded`](crate::gate::bounded)
//! proves before serde, proved while serde reads. It also checks each
//! value against the schema's structural keywords, as the shape walk of
//! [`shape`](crate::gate::structural::shape) does over the text, one value at a time (see
//! [`Guide`](guide::Guide)): so serde's laxities (a struct read from an array, a unit
//! variant with other keys, a key the schema does not list) are refused
//! in the same pass.
//!
//! The reader only ever accepts. Wherever it would refuse, or is unsure
//! (a limit crossed, a duplicate key, a number written as a float that
//! equals an integer, a map key read as a number), it stops, and the call
//! goes through the gates one by one, whose refusals say what and where
//! ([`structural::read`](crate::gate::structural::read)). So a refusal keeps its code,
//! path and message, and the reader's job is narrower: what it accepts,
//! the separate gates accept, with the same value. It reads every value
//! exactly as serde_json does: strings borrowed unless escaped, integers as
//! `u64` or `i64`, every other number parsed by serde_json itself.
//!
//! Stopping costs what the limits allow: the reader stops at the first
//! limit crossed, and the separate gates then stop there too.
//!
//! Its three modes (one pass; explaining, which keeps serde's message and
//! the path of a refusal; registration's probes, which watch how a type
//! reads) are this module's entry points, over three layers: [`read`], the
//! bytes (tokens, strings, numbers, gate 1's limits, each value's verdict);
//! [`guide`], what the schema expects of the next value; and
//! [`deserializer`] with [`key`], how serde sees the reader. The entry
//! points, the reader's state and the types every layer shares are in
//! [`state`], which imports none of the others: each layer imports the
//! ones below it, never this module.

mod deserializer;
mod guide;
mod key;
mod read;
mod state;
#[cfg(test)]
mod tests;

pub(crate) use state::*;
