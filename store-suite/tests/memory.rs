//! The memory store passes the suite every store passes. Its "restart" is
//! a new toolbox on the same store: a process restart loses it, which is
//! why the durable stores exist.

use std::sync::Arc;

use toolgate::MemoryStore;
use toolgate_store_suite::{self as suite, Store};

#[test]
fn the_memory_store_passes_the_store_suite() {
    let store: Store = Arc::new(MemoryStore::new());
    suite::runtime().block_on(suite::assert_suite(|| {
        let store = Arc::clone(&store);
        async move { store }
    }));
}

#[test]
fn the_memory_store_follows_the_rules() {
    let store = MemoryStore::new();
    suite::runtime().block_on(suite::model::assert_follows_the_rules(&store));
}

/// The suite runs again and again on a store that keeps the rows of its
/// earlier runs, as a shared database does: every name a run uses is its
/// own. (Nine runs: more than the approvals gate 6 asks for one action
/// while earlier ones are live, had every run shared one conversation.)
#[test]
fn the_suite_runs_again_and_again_on_the_rows_of_earlier_runs() {
    let store: Store = Arc::new(MemoryStore::new());
    for _ in 0..9 {
        suite::runtime().block_on(suite::assert_suite(|| {
            let store = Arc::clone(&store);
            async move { store }
        }));
    }
}
