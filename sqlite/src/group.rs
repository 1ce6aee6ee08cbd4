//! Group commit: the claims and completions that this process's callers
//! make at the same time are written in one transaction, and so flushed
//! to disk by one commit.
//!
//! With [`Durability::Full`](crate::Durability::Full) a commit waits for
//! the disk, and that wait, not the statements, is most of a write. One
//! caller at a time commits as before: its write is a group of one, taken
//! at once. When writes arrive while a group commits, they queue, and the
//! next group takes all of them: sixteen callers pay for a few flushes,
//! not for sixteen. Each write is answered only once the commit that holds
//! it is on disk, so an answered claim or outcome survives a power cut
//! exactly as before.
//!
//! A group has no thread of its own. The first caller to find no group
//! committing leads: it takes the queue, commits it, answers each write,
//! and hands the lead to a caller still queued (whose write is then in the
//! next group) before it returns. Within the group's transaction each
//! write runs in a savepoint of its own: a write that fails is rolled back
//! alone and answered with its error, and the others commit. Writes of one
//! key in one group run in the order they arrived, each seeing the one
//! before, as in separate transactions.
//!
//! **Deadlines.** A queued write that reaches its deadline before a group
//! takes it withdraws and answers with a timeout; a group never runs it. A
//! group waits for this process's other writers (the turn) and for
//! SQLite's lock no longer than its earliest deadline, so no write in it
//! waits past its own.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use rusqlite::{Connection, TransactionBehavior};
use toolgate::store::{Claim, StoreError};

use crate::{Fault, SqliteStore};

/// Writes taken into one transaction at most: a long queue commits in
/// several groups, so that the first write of a group is not answered
/// long after it could have been.
const MOST: usize = 64;

/// What a write in a group answers.
pub(crate) enum Answer {
    Claim(Claim),
    Done,
}

/// A write's statements, run inside the group's transaction.
pub(crate) type Work = Box<dyn FnOnce(&Connection) -> Result<Answer, Fault> + Send>;

/// The writes waiting for a group, and whether a group is being led.
#[derive(Default)]
pub(crate) struct Queue {
    state: Mutex<Waiting>,
    /// The groups committed or tried, for the tests.
    #[cfg(test)]
    groups: std::sync::atomic::AtomicUsize,
}

#[derive(Default)]
struct Waiting {
    writes: VecDeque<Write>,
    leading: bool,
}

struct Write {
    op: &'static str,
    deadline: Instant,
    work: Work,
    slot: Arc<Slot>,
}

/// Where a queued write learns what became of it.
#[derive(Default)]
struct Slot {
    state: Mutex<Stage>,
    changed: Condvar,
}

#[derive(Default)]
enum Stage {
    /// In the queue.
    #[default]
    Queued,
    /// In the queue, and asked to lead the next group.
    Lead,
    /// In a group being committed.
    Taken,
    /// Gave up at its deadline before a group took it.
    Withdrawn,
    Answered(Result<Answer, StoreError>),
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The answer in `stage`, taken out.
fn answered(stage: &mut Stage, op: &str) -> Result<Answer, StoreError> {
    match std::mem::take(stage) {
        Stage::Answered(answer) => answer,
        _ => Err(StoreError::message(format!("{op} was not answered"))),
    }
}

impl Slot {
    fn set(&self, stage: Stage) {
        *lock(&self.state) = stage;
        self.changed.notify_one();
    }
}

impl SqliteStore {
    /// Runs `work` in the next group, on the blocking pool, within the
    /// deadline counted from now.
    pub(crate) async fn grouped(&self, op: &'static str, work: Work) -> Result<Answer, StoreError> {
        let deadline = Instant::now() + self.inner.options.deadline;
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.join_group(op, deadline, work))
            .await
            .map_err(|error| StoreError::context(format!("{op} stopped"), error))?
    }

    fn join_group(
        &self,
        op: &'static str,
        deadline: Instant,
        work: Work,
    ) -> Result<Answer, StoreError> {
        let slot = Arc::new(Slot::default());
        let leads = {
            let mut waiting = lock(&self.inner.queue.state);
            waiting.writes.push_back(Write {
                op,
                deadline,
                work,
                slot: Arc::clone(&slot),
            });
            !std::mem::replace(&mut waiting.leading, true)
        };
        if !leads {
            let mut stage = lock(&slot.state);
            loop {
                match &*stage {
                    Stage::Queued => {
                        let wait = deadline.saturating_duration_since(Instant::now());
                        if wait.is_zero() {
                            // The group that reaches it skips it.
                            *stage = Stage::Withdrawn;
                            return Err(self.timed_out(op));
                        }
                        stage = slot
                            .changed
                            .wait_timeout(stage, wait)
                            .unwrap_or_else(PoisonError::into_inner)
                            .0;
                    }
                    // A group holds it: the group answers within the
                    // earliest deadline among its writes.
                    Stage::Taken => {
                        stage = slot
                            .changed
                            .wait(stage)
                            .unwrap_or_else(PoisonError::into_inner);
                    }
                    Stage::Lead => break,
                    Stage::Withdrawn => return Err(self.timed_out(op)),
                    Stage::Answered(_) => return answered(&mut stage, op),
                }
            }
        }
        // A leader's own write is in the group it commits.
        self.lead();
        answered(&mut lock(&slot.state), op)
    }

    /// Commits the writes queued now (the leader's own among them), then
    /// hands the lead to the next write still queued, if any.
    fn lead(&self) {
        // Even if a write's statements panic: the lead passes on, and no
        // caller waits for an answer that will not come.
        let _hand_off = HandOff(self);
        let group: Vec<Write> = {
            let mut waiting = lock(&self.inner.queue.state);
            let n = waiting.writes.len().min(MOST);
            waiting.writes.drain(..n).collect()
        };
        let group: Vec<Write> = group
            .into_iter()
            .filter(|write| {
                let mut stage = lock(&write.slot.state);
                if matches!(*stage, Stage::Withdrawn) {
                    return false;
                }
                *stage = Stage::Taken;
                true
            })
            .collect();
        self.commit(group);
    }

    /// One transaction for `group`, each write in a savepoint of its own;
    /// every write is answered once the commit is known.
    fn commit(&self, group: Vec<Write>) {
        let Some(earliest) = group.iter().map(|write| write.deadline).min() else {
            return;
        };
        #[cfg(test)]
        self.inner
            .queue
            .groups
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut works = Vec::with_capacity(group.len());
        let mut unanswered = Unanswered(Vec::with_capacity(group.len()));
        for write in group {
            unanswered.0.push((write.op, write.slot));
            works.push(write.work);
        }
        let answers = self.run_now("commit", crate::Mode::Write, earliest, move |connection| {
            let mut tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut answers = Vec::with_capacity(works.len());
            for work in works {
                let savepoint = tx.savepoint()?;
                let answer = work(&savepoint);
                if answer.is_ok() {
                    savepoint.commit()?;
                }
                // Dropped uncommitted, a savepoint rolls back its write.
                answers.push(answer);
            }
            tx.commit()?;
            Ok(answers)
        });
        let slots = std::mem::take(&mut unanswered.0);
        match answers {
            Ok(answers) => {
                for ((op, slot), answer) in slots.into_iter().zip(answers) {
                    slot.set(Stage::Answered(
                        answer.map_err(|fault| self.fault(op, fault)),
                    ));
                }
            }
            // The transaction did not commit: no write in it happened.
            Err(error) => {
                let timed_out = error.is_timeout();
                let what = error.to_string();
                for (op, slot) in slots {
                    let what = format!("{op}: {what}");
                    slot.set(Stage::Answered(Err(if timed_out {
                        StoreError::timed_out(what)
                    } else {
                        StoreError::message(what)
                    })));
                }
            }
        }
    }
}

/// Passes the lead on when a group is done: to the first write still
/// queued, or to no one.
struct HandOff<'a>(&'a SqliteStore);

impl Drop for HandOff<'_> {
    fn drop(&mut self) {
        let mut waiting = lock(&self.0.inner.queue.state);
        while let Some(next) = waiting.writes.front() {
            let mut stage = lock(&next.slot.state);
            if matches!(*stage, Stage::Queued) {
                *stage = Stage::Lead;
                next.slot.changed.notify_one();
                return;
            }
            drop(stage);
            // Withdrawn at its deadline: it has answered already.
            waiting.writes.pop_front();
        }
        waiting.leading = false;
    }
}

/// The writes of a group not yet answered; if the group stops before it
/// answers them (a panic), each is answered with an error.
struct Unanswered(Vec<(&'static str, Arc<Slot>)>);

impl Drop for Unanswered {
    fn drop(&mut self) {
        for (op, slot) in self.0.drain(..) {
            slot.set(Stage::Answered(Err(StoreError::message(format!(
                "{op} stopped before its group committed"
            )))));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use rusqlite::params;

    use super::*;

    fn store(name: &str) -> (SqliteStore, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "toolgate-sqlite-group-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let store = rt
            .block_on(SqliteStore::open(dir.join("effects.db")))
            .unwrap();
        (store, dir)
    }

    fn deadline() -> Instant {
        Instant::now() + Duration::from_secs(10)
    }

    /// Writes `key` into the idempotency table, then fails if `fail`.
    fn insert(key: &'static str, fail: bool) -> Work {
        Box::new(move |connection| {
            connection.execute(
                "INSERT INTO toolgate_idempotency (key, digest, finished, lease_until, keep_until)
                 VALUES (?1, 'd', 0, 0, 0)",
                params![key],
            )?;
            if fail {
                return Err(Fault::Store(StoreError::message("this write fails")));
            }
            Ok(Answer::Done)
        })
    }

    fn queued(store: &SqliteStore) -> usize {
        lock(&store.inner.queue.state).writes.len()
    }

    /// Starts `writes` on threads of their own while this process's turn
    /// is held: the first leads a group of one and waits for the turn,
    /// the others queue behind it. Once all are queued, gives the turn
    /// back, and returns each write's answer.
    fn behind_the_turn(store: &SqliteStore, writes: Vec<Work>) -> Vec<Result<Answer, StoreError>> {
        let held = store.inner.turn.take(deadline()).unwrap();
        let count = writes.len();
        let mut threads = Vec::new();
        for (i, work) in writes.into_iter().enumerate() {
            let writer = store.clone();
            threads.push(std::thread::spawn(move || {
                writer.join_group("test", deadline(), work)
            }));
            if i == 0 {
                // Until the leader has taken its group of one.
                while {
                    let waiting = lock(&store.inner.queue.state);
                    !(waiting.leading && waiting.writes.is_empty())
                } {
                    std::thread::yield_now();
                }
            }
        }
        while queued(store) < count - 1 {
            std::thread::yield_now();
        }
        drop(held);
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    }

    #[test]
    fn writes_that_arrive_while_a_group_commits_are_committed_together() {
        let (store, dir) = store("together");
        let keys = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let answers = behind_the_turn(&store, keys.iter().map(|key| insert(key, false)).collect());
        assert!(answers.iter().all(Result::is_ok));
        // The leader's group of one, then the seven queued behind it.
        assert_eq!(store.inner.queue.groups.load(Ordering::Relaxed), 2);
        let connection = rusqlite::Connection::open(dir.join("effects.db")).unwrap();
        let rows: i64 = connection
            .query_row("SELECT count(*) FROM toolgate_idempotency", [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(rows, 8);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_write_that_fails_in_a_group_is_rolled_back_alone() {
        let (store, dir) = store("alone");
        let answers = behind_the_turn(
            &store,
            vec![
                insert("first", false),
                insert("fails", true),
                insert("after", false),
            ],
        );
        assert!(answers[0].is_ok() && answers[2].is_ok());
        let error = answers[1].as_ref().err().expect("the failing write fails");
        assert_eq!(error.to_string(), "effect store: this write fails");
        assert_eq!(store.inner.queue.groups.load(Ordering::Relaxed), 2);
        let connection = rusqlite::Connection::open(dir.join("effects.db")).unwrap();
        let mut keys: Vec<String> = connection
            .prepare("SELECT key FROM toolgate_idempotency ORDER BY key")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        keys.sort();
        assert_eq!(keys, ["after", "first"]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_write_queued_past_its_deadline_answers_and_never_runs() {
        let (store, dir) = store("deadline");
        let held = store.inner.turn.take(deadline()).unwrap();
        let leader = {
            let store = store.clone();
            std::thread::spawn(move || store.join_group("test", deadline(), insert("led", false)))
        };
        while {
            let waiting = lock(&store.inner.queue.state);
            !(waiting.leading && waiting.writes.is_empty())
        } {
            std::thread::yield_now();
        }
        let started = Instant::now();
        let late = store.join_group(
            "late",
            Instant::now() + Duration::from_millis(50),
            insert("late", false),
        );
        let error = late.err().expect("the queued write gives up");
        assert!(error.is_timeout(), "{error:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
        drop(held);
        assert!(leader.join().unwrap().is_ok());
        let connection = rusqlite::Connection::open(dir.join("effects.db")).unwrap();
        let late: i64 = connection
            .query_row(
                "SELECT count(*) FROM toolgate_idempotency WHERE key = 'late'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(late, 0);
        let _ = std::fs::remove_dir_all(dir);
    }
}
