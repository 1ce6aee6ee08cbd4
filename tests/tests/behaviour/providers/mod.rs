//! Each provider dialect's export, import and rendering
//! (`runtime/src/providers`), and the conformance checkers that judge them.

pub mod conformance;
pub mod defaults_and_notes;
pub mod export;
pub mod roundtrip;
