//! A SQLite [`EffectStore`] for toolgate: gate 6's approvals, idempotency
//! records, retry budgets and rate limits in one database file, so that
//! they survive a restart and are shared by every process that opens it.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use toolgate::Toolbox;
//! use toolgate_sqlite::SqliteStore;
//!
//! let store = SqliteStore::open("effects.db").await?;
//! let toolbox = Toolbox::new(()).with_effect_store(store);
//! # let _ = toolbox;
//! # Ok(())
//! # }
//! ```
//!
//! **Tables** (created and migrated on open; `PRAGMA user_version` is the
//! schema version):
//!
//! | table | key | what |
//! |---|---|---|
//! | `toolgate_approvals` | `id` | the approval as JSON, with its state, approver and expiry in columns |
//! | `toolgate_idempotency` | `key` | the digest it was claimed with, `in_flight` (with a lease) or `finished` (with the outcome's JSON), and how long it is kept |
//! | `toolgate_counters` | `key` | a count and the end of its window |
//! | `toolgate_buckets` | `key` | tokens left, when they were counted, and when the bucket is full again |
//!
//! Times are microseconds since the Unix epoch. Every operation that
//! reads and then writes runs in one `BEGIN IMMEDIATE` transaction, which
//! takes SQLite's write lock first: no two processes interleave them.
//! Expired rows (and buckets full again, which are the same as none) are
//! deleted in batches of at most 256, once every 256 writes, in a
//! transaction of their own on the blocking pool: no call waits for it.

#![cfg_attr(docsrs, feature(doc_cfg))]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde_json::Value;
use toolgate::{
    Approval, ApprovalState, BoxFuture, Bucket, Claim, Consumed, Decided, Decision, EffectStore,
    StoreError,
};

/// The migrations, in order; `PRAGMA user_version` counts those applied.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE toolgate_approvals (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        decided_by TEXT,
        expires_at INTEGER NOT NULL,
        keep_until INTEGER NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX toolgate_approvals_keep ON toolgate_approvals (keep_until);
    CREATE TABLE toolgate_idempotency (
        key TEXT PRIMARY KEY,
        digest TEXT NOT NULL,
        finished INTEGER NOT NULL,
        lease_until INTEGER NOT NULL,
        keep_until INTEGER NOT NULL,
        outcome TEXT
    );
    CREATE INDEX toolgate_idempotency_keep ON toolgate_idempotency (keep_until);
    CREATE TABLE toolgate_counters (
        key TEXT PRIMARY KEY,
        value INTEGER NOT NULL,
        until INTEGER NOT NULL
    );
    CREATE INDEX toolgate_counters_until ON toolgate_counters (until);
    CREATE TABLE toolgate_buckets (
        key TEXT PRIMARY KEY,
        tokens REAL NOT NULL,
        at INTEGER NOT NULL
    );
",
    "
    ALTER TABLE toolgate_buckets ADD COLUMN full_at INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX toolgate_buckets_full ON toolgate_buckets (full_at);
",
];

/// How long a decided, used or expired approval is kept for lookups.
const KEEP_APPROVALS: Duration = Duration::from_secs(24 * 60 * 60);

/// Rows deleted per sweep, and writes between sweeps.
const SWEEP: i64 = 256;

/// Connections kept open for reuse.
const POOL: usize = 8;

/// Gate 6's state in a SQLite database file.
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// Held by this process's one writer at a time.
    writer: Mutex<()>,
    writes: std::sync::atomic::AtomicI64,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

fn store_error(error: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::new(error)
}

fn micros(time: SystemTime) -> i64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

fn time(micros: i64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_micros(u64::try_from(micros).unwrap_or(0))
}

fn span(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}

impl SqliteStore {
    /// Opens (creating it if needed) the database at `path` and brings its
    /// tables up to date.
    pub async fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        let store = SqliteStore {
            inner: Arc::new(Inner {
                path,
                idle: Mutex::new(Vec::new()),
                writer: Mutex::new(()),
                writes: std::sync::atomic::AtomicI64::new(0),
            }),
        };
        store
            .write(|connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let applied: usize = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
                for (i, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
                    tx.execute_batch(migration)?;
                    tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))?;
                }
                tx.commit()
            })
            .await?;
        Ok(store)
    }

    fn connect(&self) -> rusqlite::Result<Connection> {
        let connection = Connection::open(&self.inner.path)?;
        connection.busy_timeout(Duration::from_secs(10))?;
        connection.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")?;
        Ok(connection)
    }

    /// Runs the read `f` on a pooled connection, on tokio's blocking pool.
    async fn with<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        self.run(false, f).await
    }

    /// Runs the write `f` as [`with`](Self::with) does, one at a time in
    /// this process. SQLite has one writer per file anyway; taking turns
    /// here instead of in SQLite's busy handler, which sleeps and retries,
    /// keeps the slowest writes close to the typical one. Other processes
    /// still meet SQLite's lock, and wait for it up to the busy timeout.
    async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        self.run(true, f).await
    }

    async fn run<T, F>(&self, exclusive: bool, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || {
            let pooled = store
                .inner
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            let mut connection = match pooled {
                Some(connection) => connection,
                None => store.connect().map_err(store_error)?,
            };
            let result = if exclusive {
                let _turn = store
                    .inner
                    .writer
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                f(&mut connection).map_err(store_error)
            } else {
                f(&mut connection).map_err(store_error)
            };
            let mut idle = store
                .inner
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if idle.len() < POOL {
                idle.push(connection);
            }
            result
        })
        .await
        .map_err(store_error)?
    }

    /// Every [`SWEEP`] writes, deletes expired rows in a blocking task of
    /// its own, so that no call waits for it.
    ///
    /// It sweeps up to the earlier of the call's time and the system
    /// clock: a toolbox on a clock of its own that runs ahead (a test's)
    /// must not remove rows that callers on the system clock still hold.
    fn sweep_if_due(&self, now: i64) {
        let n = self
            .inner
            .writes
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if n % SWEEP != 0 {
            return;
        }
        let store = self.clone();
        tokio::spawn(async move {
            // A failed sweep is retried by the next one.
            let _ = store.sweep_at(now.min(micros(SystemTime::now()))).await;
        });
    }

    /// Deletes at most 256 expired rows of each table (and buckets that
    /// are full again); returns how many went.
    pub async fn sweep(&self, now: SystemTime) -> Result<u64, StoreError> {
        self.sweep_at(micros(now)).await
    }

    async fn sweep_at(&self, now: i64) -> Result<u64, StoreError> {
        self.write(move |connection| {
            let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut deleted = 0;
            for (table, column) in [
                ("toolgate_approvals", "keep_until"),
                ("toolgate_idempotency", "keep_until"),
                ("toolgate_counters", "until"),
                ("toolgate_buckets", "full_at"),
            ] {
                deleted += tx.execute(
                    &format!(
                        "DELETE FROM {table} WHERE rowid IN
                             (SELECT rowid FROM {table} WHERE {column} <= ?1 LIMIT {SWEEP})"
                    ),
                    params![now],
                )?;
            }
            tx.commit()?;
            Ok(u64::try_from(deleted).unwrap_or(u64::MAX))
        })
        .await
    }
}

/// An approval's state and expiry, inside the transaction that changes it.
fn approval_state(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
) -> rusqlite::Result<Option<(String, i64)>> {
    tx.query_row(
        "SELECT state, expires_at FROM toolgate_approvals WHERE id = ?1",
        params![id],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
    .optional()
}

fn state_of(state: &str, by: Option<String>) -> ApprovalState {
    let by = by.unwrap_or_default();
    match state {
        "approved" => ApprovalState::Approved { by },
        "denied" => ApprovalState::Denied { by },
        "used" => ApprovalState::Used { by },
        _ => ApprovalState::Pending,
    }
}

impl EffectStore for SqliteStore {
    fn create_approval(&self, record: Approval) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(&record).map_err(store_error)?;
            let created = micros(record.created_at);
            self.sweep_if_due(created);
            self.write(move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let expires = micros(record.expires_at);
                tx.execute(
                    "INSERT INTO toolgate_approvals (id, state, decided_by, expires_at, keep_until, record)
                     VALUES (?1, 'pending', NULL, ?2, ?3, ?4)",
                    params![record.id, expires, expires.saturating_add(span(KEEP_APPROVALS)), json],
                )?;
                tx.commit()
            })
            .await
        })
    }

    fn approval<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Approval>, StoreError>> {
        let id = id.to_owned();
        Box::pin(async move {
            let row = self
                .with(move |connection| {
                    connection
                        .query_row(
                            "SELECT record, state, decided_by FROM toolgate_approvals WHERE id = ?1",
                            params![id],
                            |row| {
                                Ok((
                                    row.get::<_, String>(0)?,
                                    row.get::<_, String>(1)?,
                                    row.get::<_, Option<String>>(2)?,
                                ))
                            },
                        )
                        .optional()
                })
                .await?;
            let Some((json, state, by)) = row else {
                return Ok(None);
            };
            let mut approval: Approval = serde_json::from_str(&json).map_err(store_error)?;
            approval.state = state_of(&state, by);
            Ok(Some(approval))
        })
    }

    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Decided, StoreError>> {
        let id = id.to_owned();
        Box::pin(async move {
            let (state, by) = match decision {
                Decision::Approve(by) => ("approved", by),
                Decision::Deny(by) => ("denied", by),
            };
            let now = micros(now);
            self.write(move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let decided = match approval_state(&tx, &id)? {
                    None => Decided::Unknown,
                    Some((current, _)) if current != "pending" => Decided::AlreadyDecided,
                    Some((_, expires)) if now >= expires => Decided::Expired,
                    Some(_) => {
                        tx.execute(
                            "UPDATE toolgate_approvals SET state = ?2, decided_by = ?3 WHERE id = ?1",
                            params![id, state, by],
                        )?;
                        Decided::Done
                    }
                };
                tx.commit()?;
                Ok(decided)
            })
            .await
        })
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Consumed, StoreError>> {
        let id = id.to_owned();
        Box::pin(async move {
            let now = micros(now);
            self.write(move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let consumed = match approval_state(&tx, &id)? {
                    None => Consumed::Unknown,
                    Some((state, expires)) => match state.as_str() {
                        "denied" => Consumed::Denied,
                        "used" => Consumed::Used,
                        _ if now >= expires => Consumed::Expired,
                        "approved" => {
                            tx.execute(
                                "UPDATE toolgate_approvals SET state = 'used' WHERE id = ?1",
                                params![id],
                            )?;
                            Consumed::Done
                        }
                        _ => Consumed::Pending,
                    },
                };
                tx.commit()?;
                Ok(consumed)
            })
            .await
        })
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        now: SystemTime,
        lease: Duration,
        retain: Duration,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        let (key, digest) = (key.to_owned(), digest.to_owned());
        Box::pin(async move {
            let now = micros(now);
            self.sweep_if_due(now);
            let claimed = self
                .write(move |connection| {
                    let tx =
                        connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    let row: Option<(String, bool, i64, i64, Option<String>)> = tx
                        .query_row(
                            "SELECT digest, finished, lease_until, keep_until, outcome
                             FROM toolgate_idempotency WHERE key = ?1",
                            params![key],
                            |row| {
                                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
                            },
                        )
                        .optional()?;
                    let answer = match row {
                        Some((held, finished, lease_until, keep_until, outcome))
                            if keep_until > now =>
                        {
                            if held != digest {
                                Some(Err(()))
                            } else if finished {
                                Some(Ok(outcome))
                            } else if lease_until > now {
                                Some(Ok(None))
                            } else {
                                None
                            }
                        }
                        _ => None,
                    };
                    if answer.is_none() {
                        tx.execute(
                            "INSERT INTO toolgate_idempotency (key, digest, finished, lease_until, keep_until, outcome)
                             VALUES (?1, ?2, 0, ?3, ?4, NULL)
                             ON CONFLICT (key) DO UPDATE SET digest = ?2, finished = 0,
                                 lease_until = ?3, keep_until = ?4, outcome = NULL",
                            params![
                                key,
                                digest,
                                now.saturating_add(span(lease)),
                                now.saturating_add(span(retain))
                            ],
                        )?;
                    }
                    tx.commit()?;
                    Ok(answer)
                })
                .await?;
            Ok(match claimed {
                None => Claim::Claimed,
                Some(Err(())) => Claim::Conflict,
                Some(Ok(None)) => Claim::InFlight,
                Some(Ok(Some(outcome))) => {
                    Claim::Finished(serde_json::from_str(&outcome).map_err(store_error)?)
                }
            })
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let key = key.to_owned();
        Box::pin(async move {
            let json = serde_json::to_string(&outcome).map_err(store_error)?;
            self.write(move |connection| {
                connection.execute(
                    "UPDATE toolgate_idempotency SET finished = 1, outcome = ?2 WHERE key = ?1",
                    params![key, json],
                )?;
                Ok(())
            })
            .await
        })
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let key = key.to_owned();
        Box::pin(async move {
            self.write(move |connection| {
                connection.execute(
                    "DELETE FROM toolgate_idempotency WHERE key = ?1 AND finished = 0",
                    params![key],
                )?;
                Ok(())
            })
            .await
        })
    }

    fn count<'a>(
        &'a self,
        key: &'a str,
        now: SystemTime,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StoreError>> {
        let key = key.to_owned();
        Box::pin(async move {
            let now = micros(now);
            let until = now.saturating_add(span(window));
            self.sweep_if_due(now);
            self.write(move |connection| {
                // One statement: a new counter, a counter whose window
                // ended starting over, or one more.
                connection.query_row(
                    "INSERT INTO toolgate_counters (key, value, until) VALUES (?1, 1, ?3)
                     ON CONFLICT (key) DO UPDATE SET
                         value = CASE WHEN until <= ?2 THEN 1 ELSE value + 1 END,
                         until = CASE WHEN until <= ?2 THEN ?3 ELSE until END
                     RETURNING value",
                    params![key, now, until],
                    |row| row.get::<_, u32>(0),
                )
            })
            .await
        })
    }

    fn take<'a>(
        &'a self,
        key: &'a str,
        capacity: u32,
        period: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        let key = key.to_owned();
        Box::pin(async move {
            self.sweep_if_due(micros(now));
            self.write(move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let bucket = tx
                    .query_row(
                        "SELECT tokens, at FROM toolgate_buckets WHERE key = ?1",
                        params![key],
                        |row| {
                            Ok(Bucket {
                                tokens: row.get(0)?,
                                at: time(row.get(1)?),
                            })
                        },
                    )
                    .optional()?
                    .unwrap_or_else(|| Bucket::full(capacity, now));
                let (after, wait) = bucket.take(capacity, period, now);
                tx.execute(
                    "INSERT INTO toolgate_buckets (key, tokens, at, full_at) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (key) DO UPDATE SET tokens = ?2, at = ?3, full_at = ?4",
                    params![
                        key,
                        after.tokens,
                        micros(after.at),
                        micros(after.full_at(capacity, period))
                    ],
                )?;
                tx.commit()?;
                Ok(wait)
            })
            .await
        })
    }
}
