//! Integration tests for toolgate live in `tests/`; the compile-fail suite in
//! `ui/`. This library only compiles the README's examples as doc tests, so
//! the README cannot drift from the code.

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;
