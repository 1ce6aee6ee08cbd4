//! The crate the generated code names directly, which the user's crate must
//! depend on itself: garde, whose derive writes `::garde::…` paths that no
//! re-export can stand in for.
//!
//! Without it, every rule and the derive would each fail to resolve, a
//! screenful of errors; the user gets one instead, naming the line to add.

use std::path::Path;

/// The error to give when the crate being compiled cannot depend on garde:
/// its manifest does not mention it at all. A manifest that cannot be read,
/// or that names garde anywhere (a workspace dependency, a renamed one, a
/// target's), is taken at its word, so no crate that builds is refused.
pub(crate) fn missing() -> Option<&'static str> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let manifest = std::fs::read_to_string(Path::new(&dir).join("Cargo.toml")).ok()?;
    (!manifest.contains("garde")).then_some(
        "#[tool] needs `garde` as a dependency of this crate: its argument struct derives `garde::Validate`, whose code names the crate directly. Add `garde = \"0.23\"` under `[dependencies]` in Cargo.toml",
    )
}
