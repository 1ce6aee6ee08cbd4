//! Test support for toolgate: the provider conformance checkers and the
//! benchmarks' floor. The
//! integration tests live in `tests/`, the compile-fail suite in `ui/`.
//! This library also compiles the README's examples as doc tests, so the
//! README cannot drift from the code.

pub mod conformance;

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;

pub mod instances;

/// garde's verdict on a tool's arguments under every rule its parameters
/// state: the struct's own, and those of each argument type with rules of
/// its own (a `#[garde(dive)]` the parameter writes, which `#[tool]` runs
/// apart from the struct's, so that a missing `dive` cannot switch them
/// off). What gate 3 checks: the benchmarks' floor checks no less.
#[inline]
pub fn floor_rules<A: toolgate::__private::Arguments>(args: &A) -> bool {
    let mut report = garde::Report::new();
    garde::Validate::validate_into(args, &(), &mut garde::Path::empty, &mut report);
    args.validate_nested(&mut report);
    report.is_empty()
}
