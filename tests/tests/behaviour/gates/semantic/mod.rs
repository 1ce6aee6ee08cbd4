//! Gate 3: garde's rules, as the schema states them
//! (`runtime/src/gate/semantic.rs`).

pub mod custom_rules;
pub mod patterns;
pub mod wide_bounds;
