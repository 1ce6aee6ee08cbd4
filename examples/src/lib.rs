//! Tools built from the scenarios toolgate grew from, shared by the runnable
//! examples, the integration tests and the benchmarks.

pub mod agent;
pub mod export;
pub mod hotel;
pub mod invoice;
pub mod policies;
pub mod refund;
