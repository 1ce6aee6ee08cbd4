//! Finds Chromium and chromedriver for the approvals page's browser test
//! (`tests/approvals_page.rs`): without them, that test is ignored, with
//! its reason, rather than passed. With `TOOLGATE_CHROMIUM` set (as CI
//! sets it) the test always runs, and fails if the browser is not there.

use std::path::Path;

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_chromium)");
    println!("cargo::rerun-if-env-changed=TOOLGATE_CHROMIUM");
    println!("cargo::rerun-if-env-changed=TOOLGATE_CHROMEDRIVER");
    println!("cargo::rerun-if-env-changed=PATH");
    let named = std::env::var_os("TOOLGATE_CHROMIUM").is_some_and(|v| !v.is_empty());
    let found = (on_path("chromium") || Path::new("/usr/bin/chromium").is_file())
        && on_path("chromedriver");
    if !named && !found {
        println!("cargo::rustc-cfg=no_chromium");
    }
}
