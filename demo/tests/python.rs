//! The Python MCP SDK (`mcp` from the Python package registry) as a real
//! client of the demo, over stdio and streamable HTTP, on both protocol
//! generations: `python/clients.py` holds the checks.
//!
//! The interpreter is `TOOLGATE_PYTHON` (CI sets it to a virtual
//! environment with `mcp==2.3.0`), else `python3` if it can import `mcp`.
//! Without either, the test says on standard error that it was skipped and
//! how to run it, and passes, except under CI (`CI` set), where it fails;
//! with `TOOLGATE_PYTHON` set it always runs.

use std::io::Write as _;
use std::process::Command;

const VAR: &str = "TOOLGATE_PYTHON";

fn python() -> Option<String> {
    if let Ok(python) = std::env::var(VAR)
        && !python.is_empty()
    {
        return Some(python);
    }
    let found = Command::new("python3")
        .args(["-c", "import mcp, httpx2"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some("python3".to_owned());
    }
    // CI installs the SDK: there a missing one is a broken setup, not a
    // reason to pass without running.
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but no Python with the `mcp` package was found: set {VAR}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED python_sdk_clients: no Python with the `mcp` package. \
         Run `python3 -m venv .venv && .venv/bin/pip install mcp==2.3.0`, \
         then set {VAR}=.venv/bin/python."
    );
    None
}

#[test]
fn python_sdk_clients() {
    let Some(python) = python() else {
        return;
    };
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
