//! The gates, in the order a call meets them (the table in
//! `runtime/src/lib.rs`): one module each, named after the runtime's own
//! (`runtime/src/gate/…`; gate 0 is the toolbox's admission).

// Gate 0: the tool exists, is allowed in this request, the caller holds its scope.
pub mod admission;
// Gate 1: limits before parsing.
pub mod bounded;
// Gate 2: the arguments read into a closed struct, as the schema reads them.
pub mod structural;
// Gate 3: garde's rules.
pub mod semantic;
// Gates 4–5: each referenced object resolved in the caller's tenant, then authorized.
pub mod resource;
// Gate 6: approvals, idempotency, budgets and rate limits.
pub mod effect;
// Gate 7: the body, with its state and context, and what its failures show.
pub mod body;

// Every gate at once: arbitrary bytes, and an attacker's calls, refused
// where they should be with nothing reaching the side effect.
pub mod arbitrary_bytes;
pub mod raw_attacks;
