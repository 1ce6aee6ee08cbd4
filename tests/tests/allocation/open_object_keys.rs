//! Gate 1's own allocations, counted: the keys of open objects take one
//! allocation, sized by the document, and only when an object outgrows the
//! inline space. Written for surviving mutants of `bounded.rs` (see
//! docs/maintainers/mutation.md): every answer stayed the same, only the allocations changed.

use toolgate::Limits;

use crate::counted;

/// Allocations and bytes gate 1 spends accepting `doc`.
fn cost_of_accepting(doc: &[u8]) -> (usize, usize) {
    let limits = Limits::default();
    let before = counted();
    let accepted = limits.check(doc).is_ok();
    let spent = counted() - before;
    assert!(accepted, "{}", String::from_utf8_lossy(doc));
    (spent.calls(), spent.asked)
}

/// `{"k0":0,"k1":1,…}` with `keys` keys.
fn wide_object(keys: usize) -> Vec<u8> {
    let members: Vec<String> = (0..keys).map(|i| format!("\"k{i}\":{i}")).collect();
    format!("{{{}}}", members.join(",")).into_bytes()
}

#[test]
fn a_wide_object_s_keys_take_one_allocation_sized_by_the_document() {
    let doc = wide_object(300);
    let (calls, bytes) = cost_of_accepting(&doc);
    // A key takes at least four bytes of text and eight bytes of memory:
    // one allocation, for at most as many keys as the text can hold.
    assert_eq!(calls, 1, "{bytes} bytes");
    assert!(
        bytes <= doc.len() / 4 * 8,
        "{bytes} bytes for {} of text",
        doc.len()
    );
    assert!(bytes >= 300 * 8, "{bytes} bytes for 300 keys");
}

#[test]
fn a_narrow_object_allocates_nothing_however_long_its_values() {
    // Few keys, long text: the inline space holds the keys.
    let doc = format!("{{\"a\":\"{}\",\"b\":1}}", "x".repeat(4000));
    assert_eq!(cost_of_accepting(doc.as_bytes()), (0, 0));
}
