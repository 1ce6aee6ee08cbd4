//! The compile-time experience of `#[tool]`: what must compile, and the exact
//! errors for each mistake (`fail/*.stderr`, reviewed like code).

use std::io::Write as _;

#[test]
fn ui() {
    let cases = |dir: &str| {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
                    .count()
            })
            .unwrap_or(0)
    };
    // trybuild compiles every case in one build before it reports any, so
    // say what is happening (straight to the terminal: the test harness
    // captures `eprintln!`). A first run also builds toolgate and its
    // dependencies for the cases, about a minute on two cores.
    let _ = writeln!(
        std::io::stderr(),
        "ui: compiling {} cases that must build and {} that must fail",
        cases("pass"),
        cases("fail"),
    );
    let t = trybuild::TestCases::new();
    t.pass("pass/*.rs");
    t.compile_fail("fail/*.rs");
}
