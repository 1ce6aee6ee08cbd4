//! The compile-time experience of `#[tool]`: what must compile, and the exact
//! errors for each mistake (`fail/*.stderr`, reviewed like code).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("pass/*.rs");
    t.compile_fail("fail/*.rs");
}
