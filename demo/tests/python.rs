//! The Python MCP SDK (`mcp` from the Python package registry) as a real
//! client of the demo, over stdio and streamable HTTP, on both protocol
//! generations: `python/clients.py` holds the checks.
//!
//! The interpreter is `TOOLGATE_PYTHON` (CI sets it to a virtual
//! environment with `mcp==2.3.0`), else `python3` if it can import `mcp`.
//! The test is ignored unless asked for, and says so with its reason:
//! `cargo test -p toolgate-demo --test python -- --ignored` runs it, as CI
//! does.

use std::process::Command;

const VAR: &str = "TOOLGATE_PYTHON";

/// The interpreter: `TOOLGATE_PYTHON`, else `python3` if it can import
/// `mcp`. The test is ignored unless asked for (`-- --ignored`); asked for
/// without either, it fails, saying how to set one up.
fn python() -> String {
    if let Ok(python) = std::env::var(VAR)
        && !python.is_empty()
    {
        return python;
    }
    let found = Command::new("python3")
        .args(["-c", "import mcp, httpx2"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "no Python with the `mcp` package. Run `python3 -m venv .venv && \
         .venv/bin/pip install mcp==2.3.0`, then set {VAR}=.venv/bin/python."
    );
    "python3".to_owned()
}

#[test]
#[ignore = "needs the Python MCP SDK: set TOOLGATE_PYTHON"]
fn python_sdk_clients() {
    let python = python();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/clients.py");
    let output = Command::new(&python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_toolgate-demo"))
        .output()
        .unwrap_or_else(|e| panic!("{VAR}={python} does not run: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("every check passed"), "{stdout}");
    // Both transports, both generations, the hand-written frame on each.
    for label in [
        "stdio 2025-11-25",
        "stdio 2026-07-28",
        "http 2025-11-25",
        "http 2026-07-28",
    ] {
        assert!(
            stdout.contains(&format!("ok   {label}: a repeated key is DUPLICATE_KEY")),
            "{stdout}"
        );
    }
    // Two callers of one tenant over HTTP, on both generations; a session
    // presented by the other.
    for check in [
        "http 2025-11-25: another caller's same call gets its own outcome",
        "http 2026-07-28: another caller's same call gets its own outcome",
        "http 2025-11-25: a session presented with another caller's token is refused as unknown",
    ] {
        assert!(stdout.contains(&format!("ok   {check}")), "{stdout}");
    }
}
