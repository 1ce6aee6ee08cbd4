//! The published schema (`runtime/src/schema`): what `#[tool]` writes, and
//! its agreement with the server on generated instances.

pub mod described;
pub mod validator_agreement;
