//! Gate 2: the arguments are read into a closed struct, in one pass where
//! registration proved it can, and accepted exactly as the published schema
//! accepts them (`runtime/src/gate/structural`).

pub mod generated_read;
pub mod lax_types;
pub mod negative_zero;
pub mod read_without_schema;
pub mod schema_agreement;
pub mod single_pass;
pub mod tagged_union;
