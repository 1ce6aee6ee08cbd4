#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod direct;
mod enums;
mod load;
mod policies;
mod rules;
mod schema;
mod types;

use std::borrow::Cow;

pub use load::{LoadError, Problem};
pub use policies::{Policies, Watch};
pub use schema::{GROUPS, PRINCIPAL, Schema, SchemaBuilder, SchemaError, TENANT};

/// How a resource type appears to Cedar: an entity of type
/// [`entity_type`](Self::entity_type) (the schema name by default), with
/// id [`entity_id`](Self::entity_id) and its serialized fields as
/// attributes.
///
/// What a policy may read is what serializes: `#[serde(skip)]` keeps a
/// field from policies, `#[serde(rename)]` renames it. Fields Cedar
/// cannot hold (maps, unions) are left out of the schema, and a policy
/// naming one is refused at load.
pub trait CedarEntity: serde::Serialize + schemars::JsonSchema {
    /// The entity's id (`ord_1001`): `Order::"ord_1001"` in a policy.
    fn entity_id(&self) -> String;

    /// The entity type's name in the schema and in policies.
    fn entity_type() -> Cow<'static, str> {
        Self::schema_name()
    }
}
