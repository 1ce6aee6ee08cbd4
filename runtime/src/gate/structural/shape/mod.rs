//! Gate 2's guard: the document has the shape the published schema states.
//!
//! serde's derived `Deserialize` is laxer than the schema toolgate publishes
//! in a few places, and none of them can be switched off: a struct or a
//! struct variant also reads a JSON array positionally (`"window": [30]`),
//! a unit variant of an internally or adjacently tagged enum ignores the
//! other keys of its object (`{"kind":"dot","radius":5}`), and values that
//! serde buffers for tagged and untagged enums are read by serde's own
//! deserializer, out of reach of any wrapper. So once serde has accepted a
//! call, this walk checks the document against the schema's structural
//! keywords: `type`, `properties`, `additionalProperties`,
//! `patternProperties`, `required`, `items`, `prefixItems`, `enum`, `const`,
//! `anyOf`, `oneOf`, `allOf` and `$ref`, and the bounds `minimum`,
//! `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`,
//! `minLength`, `maxLength`, `pattern`, `minItems`, `maxItems`,
//! `minProperties`, `maxProperties`, `unevaluatedProperties: false` (see
//! `crate::schema::unevaluated`), `not` where it names one value (see
//! `crate::schema::names_value`), and `propertyNames` where it states the
//! lengths of keys (see `crate::schema::key_lengths`).
//!
//! The walk never refuses what the schema accepts: it reads `oneOf` as
//! `anyOf` and ignores every other keyword, so it can only be more lenient
//! than the schema, and serde and garde still apply everything else. Each
//! value is read once, against the set of subschemas that may describe it,
//! so the cost is linear in the document times the schema's size. A flat
//! document pays nothing for it: the walk runs only when the document holds
//! an object or array below the arguments object, or a `null`, where
//! serde's laxities live (an array of scalars is none where the schema's
//! members are all scalars or arrays of scalars: no struct is there to
//! read one), or when the schema lists choices (`enum`, `const`), which a
//! derived enum may read more laxly (an alias, a `#[serde(other)]`
//! variant). It runs before serde when the schema has an untagged union
//! (see [`Shape::walks_first`]), and after serde refuses, to say where.
//!
//! In [`node`], the nodes a schema compiles into (imported by every other
//! part, importing none); in [`verdict`], a subschema's verdict on a
//! value; in [`compile`], the compiling; in [`query`], what the reader
//! asks of a node for each value; in [`walk`], the walk over a document's
//! text and the words of its refusals; in [`flat`], what registration and
//! the single pass ask of the whole shape.

mod compile;
mod flat;
mod node;
mod query;
#[cfg(test)]
mod tests;
mod verdict;
mod walk;

pub(crate) use node::*;
