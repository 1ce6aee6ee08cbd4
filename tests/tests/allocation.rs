//! What the boundary allocates, counted: one global allocator counts, per
//! thread, every allocation the code under test asks for.
//!
//! A binary of its own: a global allocator is one per binary, and counting
//! would tax every test of the behaviour binary for the few that read it.
//! The count is per thread, so tests running side by side do not see each
//! other's allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ops::Sub;

mod common;

// Beside the crate root rather than in `allocation/`, proptest would not
// find `refusal`'s regressions (see `behaviour.rs`).
#[path = "allocation/hostile_documents.rs"]
pub mod hostile_documents;
#[path = "allocation/open_object_keys.rs"]
pub mod open_object_keys;
#[path = "allocation/refusal.rs"]
pub mod refusal;
#[path = "allocation/valid_call.rs"]
pub mod valid_call;

/// What one thread asked of the allocator, from its start or between two
/// readings of [`counted`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Counted {
    /// Calls to `alloc`.
    pub allocations: usize,
    /// Calls to `realloc`.
    pub reallocations: usize,
    /// Bytes asked for: each allocation's size and each reallocation's new size.
    pub asked: usize,
    /// Bytes given back: each deallocation's size and each reallocation's old size.
    pub freed: usize,
}

impl Counted {
    /// Allocations and reallocations together.
    pub fn calls(self) -> usize {
        self.allocations + self.reallocations
    }
}

impl Sub for Counted {
    type Output = Counted;

    fn sub(self, before: Counted) -> Counted {
        Counted {
            allocations: self.allocations - before.allocations,
            reallocations: self.reallocations - before.reallocations,
            asked: self.asked - before.asked,
            freed: self.freed - before.freed,
        }
    }
}

thread_local! {
    static COUNTED: Cell<Counted> = const {
        Cell::new(Counted { allocations: 0, reallocations: 0, asked: 0, freed: 0 })
    };
}

/// What this thread has asked of the allocator so far.
pub fn counted() -> Counted {
    COUNTED.with(Cell::get)
}

fn count(change: impl FnOnce(&mut Counted)) {
    COUNTED.with(|c| {
        let mut counted = c.get();
        change(&mut counted);
        c.set(counted);
    });
}

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(|c| {
            c.allocations += 1;
            c.asked += layout.size();
        });
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(|c| c.freed += layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(|c| {
            c.reallocations += 1;
            c.asked += new_size;
            c.freed += layout.size();
        });
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;
