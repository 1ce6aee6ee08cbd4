//! The names a model must never choose (`tenant_id`, `actorId`, …) are
//! listed twice: in the macro, which refuses them on a tool's parameters
//! at compile time, and in the runtime, which refuses them anywhere in a
//! registered schema (nested types the macro cannot see). A procedural
//! macro crate cannot share a constant with the crate that depends on it,
//! so this test holds the two lists equal, name for name.

/// The quoted names of the `TRUSTED_NAMES` array in a Rust source file.
fn trusted_names(source: &str, file: &str) -> Vec<String> {
    let start = source
        .find("const TRUSTED_NAMES")
        .unwrap_or_else(|| panic!("{file} declares no TRUSTED_NAMES"));
    let list = &source[start..];
    let open = list.find("= [").expect("an array") + 3;
    let close = open + list[open..].find("];").expect("the array's end");
    list[open..close]
        .split(',')
        .map(|item| item.trim().trim_matches('"').to_owned())
        .filter(|name| !name.is_empty())
        .collect()
}

#[test]
fn the_macro_and_registration_refuse_the_same_trusted_names() {
    let macro_list = trusted_names(
        include_str!("../../../../macros/src/check.rs"),
        "macros/src/check.rs",
    );
    let runtime_list = trusted_names(
        include_str!("../../../../runtime/src/schema/mod.rs"),
        "runtime/src/schema/mod.rs",
    );
    assert!(
        macro_list.len() >= 12 && macro_list.iter().any(|n| n == "tenantid"),
        "the macro's list was not read: {macro_list:?}"
    );
    assert_eq!(
        macro_list, runtime_list,
        "the macro (left) and registration (right) must refuse the same names"
    );
}
