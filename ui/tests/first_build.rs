//! A new user's first build: a crate made of nothing but the README's
//! `[dependencies]` block and its first program builds on the first try,
//! the same crate without `garde` fails with one error that names the
//! line to add, and without serde and schemars a type of the user's own
//! fails with an error that names theirs.
//!
//! Each case builds a crate of its own from scratch (toolgate, rmcp, axum,
//! tokio), which takes minutes, so the test is ignored in a plain
//! `cargo test`; CI runs it:
//! `cargo test -p toolgate-ui --test first_build -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root, where the README and the crates are.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("ui/ is inside the workspace")
        .to_path_buf()
}

/// The fenced block that follows the marker `<!-- first-build: {name} -->`
/// in the README, without its fences; rustdoc's hidden lines (`# …`) shown.
fn block(readme: &str, name: &str) -> String {
    let marker = format!("<!-- first-build: {name} -->");
    let after = readme
        .split_once(&marker)
        .unwrap_or_else(|| panic!("the README has no {marker}"))
        .1;
    let fenced = after
        .trim_start()
        .split_once('\n')
        .expect("a fence after the marker")
        .1;
    let body = fenced.split_once("\n```").expect("the fence's end").0;
    body.lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(hidden) => hidden,
            None if line == "#" => "",
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writes the user's crate, with `dependencies` as its `[dependencies]`,
/// and checks it (what the compiler says of a first build, without code
/// generation): the toolgate crates from this workspace in place
/// of the registry's, everything else at the versions the workspace locked.
fn build(name: &str, dependencies: &str, main: &str) -> std::process::Output {
    check(name, dependencies, main, "short")
}

/// [`build`], with the compiler's messages in `format` (`human` shows each
/// error's notes, where `short` shows its first line).
fn check(name: &str, dependencies: &str, main: &str, format: &str) -> std::process::Output {
    let root = root();
    let dir = root.join("target").join("first-build").join(name);
    std::fs::create_dir_all(dir.join("src")).expect("the crate's folder");
    let patch = ["toolgate", "toolgate-macros", "toolgate-mcp"]
        .iter()
        .map(|krate| {
            let folder = match *krate {
                "toolgate" => "runtime",
                "toolgate-macros" => "macros",
                _ => "mcp",
            };
            format!("{krate} = {{ path = {:?} }}\n", root.join(folder))
        })
        .collect::<String>();
    let manifest = format!(
        "[package]\nname = \"first-build\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         {dependencies}\n\n[patch.crates-io]\n{patch}\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("Cargo.toml");
    std::fs::write(dir.join("src").join("main.rs"), main).expect("main.rs");
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    Command::new(cargo)
        .args(["check", "--quiet", &format!("--message-format={format}")])
        .current_dir(&dir)
        // A target of its own, shared by the cases: the outer build holds
        // the workspace's.
        .env(
            "CARGO_TARGET_DIR",
            root.join("target").join("first-build").join("target"),
        )
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs")
}

#[test]
#[ignore = "builds a crate of its own from scratch: run with --ignored (CI does)"]
fn the_readme_s_dependencies_and_first_program_build_on_the_first_try() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let output = build(
        "documented",
        &block(&readme, "dependencies"),
        &block(&readme, "main"),
    );
    assert!(
        output.status.success(),
        "the README's crate does not build:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
#[ignore = "builds a crate of its own from scratch: run with --ignored (CI does)"]
fn without_garde_the_build_fails_with_one_error_naming_the_line_to_add() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let dependencies: String = block(&readme, "dependencies")
        .lines()
        .filter(|line| !line.starts_with("garde"))
        .map(|line| format!("{line}\n"))
        .collect();
    let output = build("without-garde", &dependencies, &block(&readme, "main"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "built without garde:\n{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("error:") || line.contains("error["))
        .filter(|line| !line.contains("could not compile"))
        .filter(|line| !line.contains("aborting due to"))
        .collect();
    assert_eq!(errors.len(), 1, "not one error:\n{stderr}");
    assert!(
        errors[0].contains("garde = \"0.23\"") && errors[0].contains("[dependencies]"),
        "the error does not name the line to add:\n{stderr}"
    );
}

/// A type of the user's own, which a tool takes from the model: its
/// derives are the user's, and need serde and schemars in their crate.
const OWN_TYPE: &str = r#"
use toolgate::{tool, ToolError, Toolbox};

/// How fast the money goes.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub enum Speed { Standard, Instant }

/// Send money at the speed asked for.
#[tool(effect = write)]
fn send(#[garde(skip)] speed: Speed) -> Result<String, ToolError> {
    Ok(format!("{speed:?}"))
}

fn main() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Send).expect("registers");
}
"#;

#[test]
#[ignore = "builds a crate of its own from scratch: run with --ignored (CI does)"]
fn without_serde_and_schemars_a_type_of_ones_own_fails_naming_the_lines_to_add() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let dependencies: String = block(&readme, "dependencies")
        .lines()
        .filter(|line| !line.starts_with("serde ") && !line.starts_with("schemars"))
        .map(|line| format!("{line}\n"))
        .collect();
    let output = check("without-serde", &dependencies, OWN_TYPE, "human");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "built without serde:\n{stderr}");
    assert!(
        stderr.contains(r#"serde = { version = "1", features = ["derive"] }"#)
            && stderr.contains(r#"schemars = "1""#)
            && stderr.contains("[dependencies]"),
        "no error names the lines to add:\n{stderr}"
    );
    // With them, the same crate builds: the lines named are enough.
    let output = build("with-serde", &block(&readme, "dependencies"), OWN_TYPE);
    assert!(
        output.status.success(),
        "the README's dependencies do not build a type of one's own:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
