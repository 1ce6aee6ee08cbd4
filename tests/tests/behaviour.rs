//! The boundary's behaviour, one test binary for all of it: a binary per
//! file would link the whole crate graph once per file.
//!
//! Modules follow the runtime's own layout (`runtime/src`): the gates in
//! the order a call meets them, then what the gates answer (`outcomes`),
//! registration, the provider dialects and the published schema. Each
//! file is named after the guarantee it checks.
//!
//! Tests that install a process-wide allocator or tracing subscriber of
//! their own run in binaries of their own (`allocation.rs`, `spans.rs`).

// A crate root's modules are looked up beside it, so each is given its
// path in `behaviour/`. (A `behaviour/main.rs` would need none, but
// proptest would then look for each test's regressions under
// `proptest-regressions/` rather than beside its source.) The modules are
// public, as each file's items were when the file was a crate root: a
// field only serde reads is not dead code.

mod common;

#[path = "behaviour/gates/mod.rs"]
pub mod gates;
#[path = "behaviour/harness.rs"]
pub mod harness;
#[path = "behaviour/outcomes/mod.rs"]
pub mod outcomes;
#[path = "behaviour/providers/mod.rs"]
pub mod providers;
#[path = "behaviour/registration/mod.rs"]
pub mod registration;
#[path = "behaviour/schema/mod.rs"]
pub mod schema;
#[path = "behaviour/security_settings.rs"]
pub mod security_settings;
