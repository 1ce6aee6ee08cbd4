//! Gate 1's own allocations, counted: the keys of open objects take one
//! allocation, sized by the document, and only when an object outgrows the
//! inline space. Written for surviving mutants of `bounded.rs` (see
//! docs/maintainers/mutation.md): every answer stayed the same, only the allocations changed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use toolgate::Limits;

struct Counting;

thread_local! {
    /// (allocations and reallocations, bytes asked for) on this thread.
    static ALLOCATED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

fn count(bytes: usize) {
    ALLOCATED.with(|a| {
        let (calls, total) = a.get();
        a.set((calls + 1, total + bytes));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations and bytes gate 1 spends accepting `doc`.
fn cost_of_accepting(doc: &[u8]) -> (usize, usize) {
    let limits = Limits::default();
    let before = ALLOCATED.with(Cell::get);
    let accepted = limits.check(doc).is_ok();
    let after = ALLOCATED.with(Cell::get);
    assert!(accepted, "{}", String::from_utf8_lossy(doc));
    (after.0 - before.0, after.1 - before.1)
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
