//! Gate 7: the body, with `&ToolContext` and state injected; what a
//! failing or panicking body shows the model and leaves in the audit log
//! (`runtime/src/tool.rs`, `runtime/src/gate/panic.rs`).

pub mod failures;
pub mod state_and_context;
