//! The SQLite store passes the suite every store passes (conformance,
//! 1,000-call races, every approval attack, a restart), and two OS
//! processes share one file: they run a call once between them, and a
//! process killed inside a body leaves a record whose lease runs out.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolgate::Claim;
use toolgate::EffectStore as _;
use toolgate_sqlite::SqliteStore;
use toolgate_store_suite::{self as suite, Store};

/// A database file in a directory of its own, removed with it when the
/// test ends, passed or failed.
struct Scratch {
    dir: PathBuf,
    file: PathBuf,
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.file
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.file
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("toolgate-sqlite-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("effects.db");
    Scratch { dir, file }
}

async fn open(path: &Path) -> Store {
    Arc::new(SqliteStore::open(path).await.unwrap())
}

#[test]
fn the_sqlite_store_passes_the_store_suite() {
    let path = scratch("suite");
    suite::runtime().block_on(suite::assert_suite(|| open(&path)));
}

#[test]
fn records_survive_a_reopen_and_migrations_run_once() {
    let path = scratch("reopen");
    let t0 = std::time::SystemTime::now();
    let hour = std::time::Duration::from_secs(3600);
    let rt = suite::runtime();
    rt.block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        assert_eq!(
            store.claim("k", "d", t0, hour, hour).await.unwrap(),
            Claim::Claimed
        );
        store
            .complete("k", serde_json::json!({"status": "done"}))
            .await
            .unwrap();
    });
    rt.block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        assert_eq!(
            store.claim("k", "d", t0, hour, hour).await.unwrap(),
            Claim::Finished(serde_json::json!({"status": "done"}))
        );
    });
}

/// The variable naming the database file of a second process.
const DB: &str = "TOOLGATE_SQLITE_TEST_DB";

/// Run as the second process of the tests below, never on its own.
#[test]
#[ignore = "the second process of the two-process tests"]
fn second_process() {
    if let Some(path) = std::env::var_os(DB) {
        let path = PathBuf::from(path);
        suite::runtime().block_on(suite::second_half(async { open(&path).await }));
    }
}

#[test]
fn two_processes_on_one_file_run_a_call_once() {
    let path = scratch("processes");
    let rt = suite::runtime();
    // The tables first, so that neither process races the other to them.
    let store = rt.block_on(open(&path));
    let session = suite::fresh("processes");
    let child = suite::spawn_second_process("second_process", &session, &[(DB, path.as_os_str())]);
    let here = rt.block_on(suite::half_of_the_bookings(store, &session));
    let there = suite::effects_of(child);
    assert_eq!(
        here + there,
        1,
        "{here} bookings here, {there} in the other process"
    );
}

/// Run as the process the test below kills, never on its own.
#[test]
#[ignore = "the process a_process_killed_in_a_body_leaves_a_lease_that_runs_out kills"]
fn doomed_process() {
    if let (Some(path), Ok(session)) = (std::env::var_os(DB), std::env::var(suite::SESSION_VAR)) {
        let rt = suite::runtime();
        rt.block_on(async { suite::doomed_booking(open(Path::new(&path)).await, &session).await });
    }
}

#[test]
fn a_process_killed_in_a_body_leaves_a_lease_that_runs_out() {
    let path = scratch("killed");
    let rt = suite::runtime();
    let store = rt.block_on(open(&path));
    let session = suite::fresh("killed");
    let child = suite::spawn_second_process("doomed_process", &session, &[(DB, path.as_os_str())]);
    rt.block_on(suite::take_over_after_a_kill(child, store, &session));
}

#[test]
fn expired_rows_are_swept_in_batches_of_256() {
    let path = scratch("sweep");
    suite::runtime().block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        let t0 = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_900_000_000);
        let later = suite::expiring_rows(&store, t0).await;
        // Nothing has expired yet.
        assert_eq!(store.sweep(t0).await.unwrap(), 0);
        let mut sweeps = Vec::new();
        loop {
            let deleted = store.sweep(later).await.unwrap();
            sweeps.push(deleted);
            if deleted == 0 {
                break;
            }
        }
        // Three tables of 300 rows: 256 each, then the 44 left of each.
        assert_eq!(sweeps, [3 * 256, 3 * 44, 0]);
        assert_eq!(
            store
                .claim(
                    "sweep-0",
                    "other",
                    later,
                    std::time::Duration::from_secs(1),
                    std::time::Duration::from_secs(1)
                )
                .await
                .unwrap(),
            Claim::Claimed
        );
    });
}

#[test]
fn a_toolbox_on_a_clock_ahead_sweeps_no_live_row() {
    let path = scratch("ahead");
    suite::runtime().block_on(async {
        let store = SqliteStore::open(&path).await.unwrap();
        suite::assert_sweeps_spare_live_rows(&store).await;
    });
}

#[test]
fn two_processes_on_one_file_resume_an_approval_once() {
    let path = scratch("resumes");
    let rt = suite::runtime();
    let store = rt.block_on(open(&path));
    let session = suite::fresh("resumes");
    let id = rt.block_on(suite::an_approved_refund(Arc::clone(&store), &session));
    let child = suite::spawn_second_process(
        "second_process",
        &session,
        &[
            (DB, path.as_os_str()),
            (suite::APPROVAL_VAR, std::ffi::OsStr::new(&id)),
        ],
    );
    let here = rt.block_on(suite::half_of_the_resumes(store, &session, &id));
    let there = suite::effects_of(child);
    assert_eq!(
        here + there,
        1,
        "{here} refunds here, {there} in the other process"
    );
}
