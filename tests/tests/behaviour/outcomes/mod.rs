//! What the gates answer: the rejection's shape, codes and pointers, what
//! never comes back to the model, and the audit log
//! (`runtime/src/outcome`, `runtime/src/audit/`).

pub mod audit_log;
pub mod field_names;
pub mod no_echo;
pub mod rejections;
