//! Test support for toolgate: the provider conformance checkers. The
//! integration tests live in `tests/`, the compile-fail suite in `ui/`.
//! This library also compiles the README's examples as doc tests, so the
//! README cannot drift from the code.

pub mod conformance;

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;

pub mod instances;
