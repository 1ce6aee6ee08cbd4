//! The guide: one page for each part of toolgate, beyond what the crate's
//! front page shows. Each page's examples are compiled and run as tests.
//!
//! | page | what it covers |
//! |---|---|
//! | [`tools`] | what `#[tool]` reads and generates, dependencies, map keys, the bounds registration proves, unions, the single pass, patterns |
//! | [`resources`] | references resolved in the caller's tenant, then authorized; the denial model; what the compiler refuses |
//! | [`effects`] | gate 6: approvals, idempotency, the stores, deadlines, durability, failures, budgets, rate and time limits |
//! | [`outcomes`] | limits, outcomes, rejections and their codes, the audit log, stored calls |
//! | [`telemetry`] | a span per call, MCP's server spans, metrics |
//! | [`providers`] | exports in each provider's dialect, imports, rendered results |
//! | [`testing`] | an attacker in your own test suite |

#[doc = include_str!("../docs/tools.md")]
pub mod tools {}

#[doc = include_str!("../docs/resources.md")]
pub mod resources {}

#[doc = include_str!("../docs/effects.md")]
pub mod effects {}

#[doc = include_str!("../docs/outcomes.md")]
pub mod outcomes {}

#[doc = include_str!("../docs/telemetry.md")]
pub mod telemetry {}

#[doc = include_str!("../docs/providers.md")]
pub mod providers {}

#[cfg_attr(feature = "testing", doc = include_str!("../docs/testing.md"))]
#[cfg_attr(
    not(feature = "testing"),
    doc = "Testing your own tools: this page's examples need the `testing` feature; see it on docs.rs, which builds with every feature."
)]
pub mod testing {}
