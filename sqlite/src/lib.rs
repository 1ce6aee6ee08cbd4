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
//! | `toolgate_approvals` | `id` | the approval as JSON, with its state, approver and expiry in columns, and who may decide it (tenant, actor, approver scope, distinct approver, named approver, when asked) for listing |
//! | `toolgate_idempotency` | `key` | the digest it was claimed with, `in_flight` (with a lease) or `finished` (with the outcome's JSON), and how long it is kept |
//! | `toolgate_counters` | `key` | a count and the end of its window |
//! | `toolgate_buckets` | `key` | tokens left, when they were counted, and when the bucket is full again |
//!
//! Times are microseconds since the Unix epoch. Every operation reads its
//! row and writes it back in one `BEGIN IMMEDIATE` transaction, which
//! takes SQLite's write lock first, so that no two processes interleave;
//! what the row becomes is decided by [`toolgate::store::rules`], the rules every
//! store shares. Completing and releasing a key, whose rules are a
//! condition on one column, are single statements that say which rule
//! they implement; the store suite's seeded model test proves them equal
//! to it. Expired rows (and buckets full again, which are the same
//! as none) are deleted in batches of at most 256, once every 256 writes,
//! in a transaction of their own on the blocking pool: no call waits for
//! it.
//!
//! **Deadlines.** Every operation answers within its deadline (5 seconds
//! unless [`SqliteOptions::deadline`] says otherwise), counted from the
//! call: waiting for this process's other writers, for SQLite's lock
//! (another process's transaction, a backup) and for the statement all
//! come out of it. Past it, the operation fails with a
//! [`StoreError::is_timeout`] error, and the toolbox answers a retryable
//! `UNAVAILABLE` without running anything.
//!
//! **Durability.** The database runs in WAL mode. With
//! [`Durability::Full`] (the default) every commit is flushed to disk
//! before the call goes on: a claim or an outcome that was answered
//! survives a power cut. With [`Durability::Normal`] a commit survives a
//! crash of the process but a power cut or a crash of the operating
//! system can roll back the last commits, so an action that ran just
//! before it could run again; it is several times faster (see the
//! repository's BENCHMARKS.md, "Gate 6 on each store").
//!
//! **Versions.** A database whose schema is newer than this release knows
//! (a newer release migrated it, and this one was rolled back to), or a
//! file whose `user_version` another program set, is refused at open with
//! both versions named, and nothing is written to it.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod group;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};
use toolgate::store::rules::{self, Bucket, ClaimRule, Stage};
use toolgate::store::{
    Approval, Claim, Consumed, Decided, Decision, EffectStore, Recorded, StoreError, Withdrawn,
};
use toolgate::{BoxFuture, ToolContext};

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
    // Who may decide an approval, in columns, so that listing a person's
    // pending approvals is one indexed query; rows of earlier versions
    // are filled from their JSON.
    "
    ALTER TABLE toolgate_approvals ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
    ALTER TABLE toolgate_approvals ADD COLUMN actor TEXT NOT NULL DEFAULT '';
    ALTER TABLE toolgate_approvals ADD COLUMN approver_scope TEXT;
    ALTER TABLE toolgate_approvals ADD COLUMN distinct_approver INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE toolgate_approvals ADD COLUMN approver TEXT;
    ALTER TABLE toolgate_approvals ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
    UPDATE toolgate_approvals SET
        tenant = coalesce(json_extract(record, '$.tenant'), ''),
        actor = coalesce(json_extract(record, '$.actor'), ''),
        approver_scope = json_extract(record, '$.approver_scope'),
        distinct_approver = coalesce(json_extract(record, '$.distinct_approver'), 0),
        approver = json_extract(record, '$.approver'),
        created_at = coalesce(json_extract(record, '$.created_at.secs_since_epoch') * 1000000
            + json_extract(record, '$.created_at.nanos_since_epoch') / 1000, 0);
    CREATE INDEX toolgate_approvals_pending ON toolgate_approvals (tenant, state, created_at);
",
];

/// The schema version this release writes and reads.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// Rows deleted per sweep, and writes between sweeps.
const SWEEP: i64 = 256;

/// How long a sweep waits for SQLite's lock: a sweep can wait for the
/// next one, and the callers queued behind it cannot.
const SWEEP_WAIT: Duration = Duration::from_millis(100);

/// How durable a commit is: what a power cut can take back.
///
/// ```
/// use toolgate_sqlite::{Durability, SqliteOptions};
///
/// let faster = SqliteOptions::default().durability(Durability::Normal);
/// # let _ = faster;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Durability {
    /// `PRAGMA synchronous = FULL`: every commit is on disk before the call
    /// goes on. An answered claim or outcome survives a power cut.
    #[default]
    Full,
    /// `PRAGMA synchronous = NORMAL`: a commit survives a crash of the
    /// process; a power cut or an operating-system crash can roll back the
    /// last commits, and with them the claims of actions that then run
    /// again.
    Normal,
}

/// How a [`SqliteStore`] waits and how durable its commits are.
///
/// ```
/// use std::time::Duration;
/// use toolgate_sqlite::SqliteOptions;
///
/// // Answer UNAVAILABLE after one second rather than five.
/// let options = SqliteOptions::default().deadline(Duration::from_secs(1));
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
pub struct SqliteOptions {
    deadline: Duration,
    durability: Durability,
    connections: usize,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            deadline: Duration::from_secs(5),
            durability: Durability::Full,
            connections: 8,
        }
    }
}

impl SqliteOptions {
    /// The longest an operation takes before it answers with a timeout
    /// (default 5 seconds): its wait for this process's other writers,
    /// SQLite's busy timeout (the wait for another process's lock) and
    /// the statements themselves, together. Opening the store has the
    /// same deadline.
    #[must_use]
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// How durable each commit is (default [`Durability::Full`]).
    #[must_use]
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// How many connections are kept open for reuse (default 8).
    #[must_use]
    pub fn connections(mut self, connections: usize) -> Self {
        self.connections = connections;
        self
    }
}

/// Gate 6's state in a SQLite database file.
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    options: SqliteOptions,
    idle: Mutex<Vec<Connection>>,
    /// Taken by this process's one writer at a time.
    turn: Turn,
    /// Claims and completions waiting to be committed together.
    queue: group::Queue,
    writes: AtomicI64,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.inner.path)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

/// The writers of this process take turns here rather than in SQLite's
/// busy handler, which sleeps and retries: the slowest writes stay close
/// to the typical one. Unlike a mutex, a turn is waited for until a
/// deadline only, so that a call queued behind a writer that waits for
/// another process's lock still answers in time.
#[derive(Default)]
struct Turn {
    taken: Mutex<bool>,
    given_back: Condvar,
}

/// A turn held; given back when dropped.
struct Held<'a>(&'a Turn);

impl Turn {
    /// The turn, once free, if that is before `deadline`.
    fn take(&self, deadline: Instant) -> Option<Held<'_>> {
        let taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        let wait = deadline.saturating_duration_since(Instant::now());
        let (mut taken, _) = self
            .given_back
            .wait_timeout_while(taken, wait, |taken| *taken)
            .unwrap_or_else(PoisonError::into_inner);
        if *taken {
            return None;
        }
        *taken = true;
        Some(Held(self))
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        *self.0.taken.lock().unwrap_or_else(PoisonError::into_inner) = false;
        self.0.given_back.notify_one();
    }
}

/// How an operation takes its turn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A read: no turn; WAL readers do not wait for writers.
    Read,
    /// A write: waits for its turn until the deadline.
    Write,
    /// A sweep: waits for its turn as a write does, and for SQLite's lock
    /// only briefly, since it holds the turn while it waits.
    Sweep,
}

/// Why an operation's closure stopped: SQLite failed, or the store refused.
enum Fault {
    Sql(rusqlite::Error),
    Store(StoreError),
}

impl From<rusqlite::Error> for Fault {
    fn from(error: rusqlite::Error) -> Self {
        Fault::Sql(error)
    }
}

impl From<StoreError> for Fault {
    fn from(error: StoreError) -> Self {
        Fault::Store(error)
    }
}

fn json_error(error: serde_json::Error) -> Fault {
    Fault::Store(StoreError::context("a record is not valid JSON", error))
}

fn micros(time: SystemTime) -> i64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

fn time(micros: i64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_micros(u64::try_from(micros).unwrap_or(0))
}

/// `now` as the database keeps it: whole microseconds.
fn exact(now: SystemTime) -> SystemTime {
    time(micros(now))
}

fn millis(duration: Duration) -> u128 {
    duration.as_millis()
}

impl SqliteStore {
    /// Opens (creating it if needed) the database at `path` with the
    /// default [`SqliteOptions`] and brings its tables up to date.
    ///
    /// Refuses a database whose schema is newer than this release's
    /// ([`SCHEMA_VERSION`]) and a file whose `user_version` another program
    /// set, naming both versions.
    pub async fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_with(path, SqliteOptions::default()).await
    }

    /// [`open`](Self::open), with `options`.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolgate::StoreError> {
    /// use std::time::Duration;
    /// use toolgate_sqlite::{SqliteOptions, SqliteStore};
    ///
    /// let options = SqliteOptions::default().deadline(Duration::from_secs(2));
    /// let store = SqliteStore::open_with("effects.db", options).await?;
    /// # let _ = store;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn open_with(
        path: impl AsRef<Path>,
        options: SqliteOptions,
    ) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        let store = SqliteStore {
            inner: Arc::new(Inner {
                path,
                options,
                idle: Mutex::new(Vec::new()),
                turn: Turn::default(),
                queue: group::Queue::default(),
                writes: AtomicI64::new(0),
            }),
        };
        let shown = store.inner.path.display().to_string();
        store
            .run("open", Mode::Write, move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let applied: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
                let ours: bool = tx.query_row(
                    "SELECT EXISTS (SELECT 1 FROM sqlite_master
                         WHERE type = 'table' AND name = 'toolgate_idempotency')",
                    [],
                    |row| row.get(0),
                )?;
                let applied = refuse_unknown(&shown, applied, ours)?;
                for (i, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
                    tx.execute_batch(migration)?;
                    tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))?;
                }
                tx.commit()?;
                // Only once the file is known to be toolgate's: WAL mode is
                // kept in the file, for every connection after this one.
                let _: String =
                    connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
                Ok(())
            })
            .await?;
        Ok(store)
    }

    fn connect(&self, wait: Duration) -> rusqlite::Result<Connection> {
        let connection = Connection::open(&self.inner.path)?;
        connection.busy_timeout(wait)?;
        let synchronous = match self.inner.options.durability {
            Durability::Full => "FULL",
            Durability::Normal => "NORMAL",
        };
        connection.execute_batch(&format!("PRAGMA synchronous = {synchronous};"))?;
        Ok(connection)
    }

    /// Runs `f` on a pooled connection, on tokio's blocking pool, within
    /// the deadline counted from now.
    async fn run<T, F>(&self, op: &'static str, mode: Mode, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, Fault> + Send + 'static,
    {
        let deadline = Instant::now() + self.inner.options.deadline;
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.run_now(op, mode, deadline, f))
            .await
            .map_err(|error| StoreError::context(format!("{op} stopped"), error))?
    }

    fn run_now<T, F>(
        &self,
        op: &'static str,
        mode: Mode,
        deadline: Instant,
        f: F,
    ) -> Result<T, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<T, Fault>,
    {
        let limit = millis(self.inner.options.deadline);
        let _turn = match mode {
            Mode::Read => None,
            Mode::Write | Mode::Sweep => Some(self.inner.turn.take(deadline).ok_or_else(|| {
                StoreError::timed_out(format!(
                    "{op} did not finish within {limit} ms: this process's other writers held the database"
                ))
            })?),
        };
        let mut wait = deadline.saturating_duration_since(Instant::now());
        if mode == Mode::Sweep {
            wait = wait.min(SWEEP_WAIT);
        }
        if wait.is_zero() {
            return Err(StoreError::timed_out(format!(
                "{op} did not finish within {limit} ms"
            )));
        }
        let fault = |fault: Fault| self.fault(op, fault);
        let pooled = self
            .inner
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut connection = match pooled {
            Some(connection) => {
                // SQLite's busy handler waits for another process's lock
                // no longer than this call may.
                connection
                    .busy_timeout(wait)
                    .map_err(|e| fault(Fault::Sql(e)))?;
                connection
            }
            None => self.connect(wait).map_err(|e| fault(Fault::Sql(e)))?,
        };
        let result = f(&mut connection).map_err(fault);
        let mut idle = self
            .inner
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if idle.len() < self.inner.options.connections {
            idle.push(connection);
        }
        result
    }

    /// A write that waited in the queue for a group until its deadline.
    fn timed_out(&self, op: &str) -> StoreError {
        let limit = millis(self.inner.options.deadline);
        StoreError::timed_out(format!(
            "{op} did not finish within {limit} ms: this process's other writers held the database"
        ))
    }

    /// `fault` of the operation `op` as the caller sees it: SQLite's lock
    /// held past the deadline is a timeout.
    fn fault(&self, op: &str, fault: Fault) -> StoreError {
        let limit = millis(self.inner.options.deadline);
        match fault {
            Fault::Store(error) => error,
            Fault::Sql(error) => match error.sqlite_error_code() {
                Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                    StoreError::timed_out(format!(
                        "{op} did not finish within {limit} ms: another connection held the database's lock"
                    ))
                    .caused_by(error)
                }
                _ => StoreError::context(format!("{op} failed"), error),
            },
        }
    }

    /// The durability the store's connections run with, as SQLite reports
    /// it (`PRAGMA synchronous`): what the store promises about a power
    /// cut, read back rather than assumed.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolgate::StoreError> {
    /// use toolgate_sqlite::{Durability, SqliteStore};
    ///
    /// let store = SqliteStore::open("effects.db").await?;
    /// assert_eq!(store.durability().await?, Durability::Full);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn durability(&self) -> Result<Durability, StoreError> {
        self.run("durability", Mode::Read, |connection| {
            let level: i64 = connection.query_row("PRAGMA synchronous", [], |row| row.get(0))?;
            // 2 is FULL, 3 EXTRA; below them a power cut can take commits back.
            Ok(if level >= 2 {
                Durability::Full
            } else {
                Durability::Normal
            })
        })
        .await
    }

    /// Every [`SWEEP`] writes, deletes expired rows in a blocking task of
    /// its own, so that no call waits for it.
    ///
    /// It sweeps up to the earlier of the call's time and the system
    /// clock: a toolbox on a clock of its own that runs ahead (a test's)
    /// must not remove rows that callers on the system clock still hold.
    fn sweep_if_due(&self, now: i64) {
        let n = self.inner.writes.fetch_add(1, Ordering::Relaxed);
        if n % SWEEP != 0 {
            return;
        }
        let store = self.clone();
        tokio::spawn(async move {
            // A failed sweep is retried by the next one.
            let _ = store
                .sweep_at(now.min(micros(SystemTime::now())), Mode::Sweep)
                .await;
        });
    }

    /// Deletes at most 256 expired rows of each table (and buckets that
    /// are full again); returns how many went.
    pub async fn sweep(&self, now: SystemTime) -> Result<u64, StoreError> {
        self.sweep_at(micros(now), Mode::Write).await
    }

    async fn sweep_at(&self, now: i64, mode: Mode) -> Result<u64, StoreError> {
        self.run("sweep", mode, move |connection| {
            let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut deleted = 0;
            // The instant after which each table's rows are gone
            // (`rules::gone`).
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

/// Refuses a database this release does not know: one whose `user_version`
/// another program set (a version, but none of toolgate's tables), or
/// whose schema is newer than this release's. The migrations already
/// applied, otherwise.
fn refuse_unknown(path: &str, version: i64, ours: bool) -> Result<usize, StoreError> {
    let known = SCHEMA_VERSION;
    if version != 0 && !ours {
        return Err(StoreError::message(format!(
            "{path} is not a toolgate database: its user_version is {version}, set by another \
             program, and it has none of toolgate's tables (this release's schema is version \
             {known}); give the store a file of its own"
        )));
    }
    if version == 0 && ours {
        return Err(StoreError::message(format!(
            "{path} has toolgate's tables but no schema version (user_version 0; this release's \
             schema is version {known}): another program reset it"
        )));
    }
    match usize::try_from(version) {
        Ok(version) if version <= known => Ok(version),
        _ => Err(StoreError::message(format!(
            "{path} holds toolgate schema version {version}, newer than this release's \
             version {known}: a newer release migrated it; run that release, or restore the \
             database from before the upgrade"
        ))),
    }
}

/// An approval's stage and expiry, inside the transaction that changes it.
fn approval_stage(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
) -> Result<Option<(Stage, SystemTime)>, Fault> {
    let row: Option<(String, i64)> = tx
        .prepare_cached("SELECT state, expires_at FROM toolgate_approvals WHERE id = ?1")?
        .query_row(params![id], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    row.map(|(state, expires)| Ok((stage(&state)?, time(expires))))
        .transpose()
}

fn stage(text: &str) -> Result<Stage, Fault> {
    Stage::parse(text).ok_or_else(|| {
        Fault::Store(StoreError::message(format!(
            "an approval has the unknown state {text:?}"
        )))
    })
}

impl EffectStore for SqliteStore {
    fn create_approval(&self, record: Approval) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(&record)
                .map_err(|e| StoreError::context("an approval is not valid JSON", e))?;
            self.sweep_if_due(micros(record.created_at));
            self.run("create_approval", Mode::Write, move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let taken: bool = tx
                    .prepare_cached("SELECT EXISTS (SELECT 1 FROM toolgate_approvals WHERE id = ?1)")?
                    .query_row(params![record.id], |row| row.get(0))?;
                rules::create(&record.id, taken)?;
                tx.prepare_cached(
                    "INSERT INTO toolgate_approvals (id, state, decided_by, expires_at, keep_until, record,
                         tenant, actor, approver_scope, distinct_approver, approver, created_at)
                     VALUES (?1, ?2, NULL, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                )?
                .execute(params![
                    record.id,
                    Stage::Pending.as_str(),
                    micros(record.expires_at),
                    micros(rules::approval_kept_until(record.expires_at)),
                    json,
                    record.tenant,
                    record.actor,
                    record.approver_scope,
                    record.distinct_approver,
                    record.approver,
                    micros(record.created_at),
                ])?;
                tx.commit()?;
                Ok(())
            })
            .await
        })
    }

    fn approval<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Approval>, StoreError>> {
        let id = id.to_owned();
        Box::pin(async move {
            self.run("approval", Mode::Read, move |connection| {
                let row = connection
                    .prepare_cached(
                        "SELECT record, state, decided_by FROM toolgate_approvals WHERE id = ?1",
                    )?
                    .query_row(params![id], |row| {
                        Ok((
                            row.get::<_, String>(0)?,
                            row.get::<_, String>(1)?,
                            row.get::<_, Option<String>>(2)?,
                        ))
                    })
                    .optional()?;
                let Some((json, state, by)) = row else {
                    return Ok(None);
                };
                let mut approval: Approval = serde_json::from_str(&json).map_err(json_error)?;
                approval.state = stage(&state)?.with_approver(by);
                Ok(Some(approval))
            })
            .await
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
            let (stage, by) = match decision {
                Decision::Approve(by) => (Stage::Approved, by),
                Decision::Deny(by) => (Stage::Denied, by),
            };
            let now = exact(now);
            self.run("decide", Mode::Write, move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let decided = rules::decide(approval_stage(&tx, &id)?, now);
                if decided == Decided::Done {
                    tx.prepare_cached(
                        "UPDATE toolgate_approvals SET state = ?2, decided_by = ?3 WHERE id = ?1",
                    )?
                    .execute(params![id, stage.as_str(), by])?;
                }
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
            let now = exact(now);
            self.run("consume", Mode::Write, move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let consumed = rules::consume(approval_stage(&tx, &id)?, now);
                if consumed == Consumed::Done {
                    tx.prepare_cached("UPDATE toolgate_approvals SET state = ?2 WHERE id = ?1")?
                        .execute(params![id, Stage::Used.as_str()])?;
                }
                tx.commit()?;
                Ok(consumed)
            })
            .await
        })
    }

    fn pending_approvals<'a>(
        &'a self,
        approver: &'a ToolContext,
        now: SystemTime,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Approval>, StoreError>> {
        let tenant = approver.tenant().to_owned();
        let actor = approver.actor().to_owned();
        let scopes: Vec<&str> = approver.scopes().collect();
        let scopes = serde_json::to_string(&scopes);
        Box::pin(async move {
            let scopes =
                scopes.map_err(|e| StoreError::context("the scopes are not valid JSON", e))?;
            let at = micros(exact(now));
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            self.run("pending_approvals", Mode::Read, move |connection| {
                // `rules::listed` as the query's condition, in
                // `rules::listing_order`.
                let mut statement = connection.prepare_cached(
                    "SELECT record, state, decided_by FROM toolgate_approvals
                     WHERE tenant = ?1 AND state = 'pending' AND expires_at > ?2
                       AND (approver_scope IS NULL
                            OR approver_scope IN (SELECT value FROM json_each(?3)))
                       AND NOT (distinct_approver AND actor = ?4)
                       AND (approver IS NULL OR approver = ?4)
                     ORDER BY created_at, id LIMIT ?5",
                )?;
                let rows =
                    statement.query_map(params![tenant, at, scopes, actor, limit], |row| {
                        Ok((
                            row.get::<_, String>(0)?,
                            row.get::<_, String>(1)?,
                            row.get::<_, Option<String>>(2)?,
                        ))
                    })?;
                let mut listed = Vec::new();
                for row in rows {
                    let (json, state, by) = row?;
                    let mut approval: Approval = serde_json::from_str(&json).map_err(json_error)?;
                    approval.state = stage(&state)?.with_approver(by);
                    listed.push(approval);
                }
                Ok(listed)
            })
            .await
        })
    }

    fn withdraw<'a>(
        &'a self,
        id: &'a str,
        by: String,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Withdrawn, StoreError>> {
        let id = id.to_owned();
        Box::pin(async move {
            let now = exact(now);
            self.run("withdraw", Mode::Write, move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let withdrawn = rules::withdraw(approval_stage(&tx, &id)?, now);
                if withdrawn == Withdrawn::Done {
                    tx.prepare_cached(
                        "UPDATE toolgate_approvals SET state = ?2, decided_by = ?3 WHERE id = ?1",
                    )?
                    .execute(params![id, Stage::Withdrawn.as_str(), by])?;
                }
                tx.commit()?;
                Ok(withdrawn)
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
            let now = exact(now);
            self.sweep_if_due(micros(now));
            // In a group's transaction (`group`), which holds SQLite's
            // write lock from its start, as `BEGIN IMMEDIATE` did.
            let work: group::Work = Box::new(move |tx| {
                let row: Option<(String, bool, i64, i64, Option<String>)> = tx
                    .prepare_cached(
                        "SELECT digest, finished, lease_until, keep_until, outcome
                         FROM toolgate_idempotency WHERE key = ?1",
                    )?
                    .query_row(params![key], |row| {
                        Ok((
                            row.get(0)?,
                            row.get(1)?,
                            row.get(2)?,
                            row.get(3)?,
                            row.get(4)?,
                        ))
                    })
                    .optional()?;
                let held = row
                    .as_ref()
                    .map(|(held, finished, lease, keep, _)| rules::Held {
                        digest: held,
                        finished: *finished,
                        lease_until: time(*lease),
                        kept_until: time(*keep),
                    });
                let claim = match rules::claim(held, &digest, now, lease, retain) {
                    ClaimRule::Take(hold) => {
                        tx.prepare_cached(
                            "INSERT INTO toolgate_idempotency (key, digest, finished, lease_until, keep_until, outcome)
                             VALUES (?1, ?2, 0, ?3, ?4, NULL)
                             ON CONFLICT (key) DO UPDATE SET digest = ?2, finished = 0,
                                 lease_until = ?3, keep_until = ?4, outcome = NULL",
                        )?
                        .execute(params![
                            key,
                            digest,
                            micros(hold.lease_until),
                            micros(hold.kept_until)
                        ])?;
                        Claim::Claimed
                    }
                    ClaimRule::InFlight => Claim::InFlight,
                    ClaimRule::Conflict => Claim::Conflict,
                    ClaimRule::Finished => {
                        let outcome = row.and_then(|(.., outcome)| outcome);
                        Claim::Finished(
                            Recorded::from_json(outcome.unwrap_or_else(|| "null".to_owned()))
                                .map_err(json_error)?,
                        )
                    }
                };
                Ok(group::Answer::Claim(claim))
            });
            match self.grouped("claim", work).await? {
                group::Answer::Claim(claim) => Ok(claim),
                group::Answer::Done => Err(StoreError::message("a claim was answered as no claim")),
            }
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Recorded,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let key = key.to_owned();
        Box::pin(async move {
            let work: group::Work = Box::new(move |connection| {
                // `rules::complete` as one statement: only a record in
                // flight takes an outcome.
                connection
                    .prepare_cached(
                        "UPDATE toolgate_idempotency SET finished = 1, outcome = ?2
                         WHERE key = ?1 AND finished = 0",
                    )?
                    .execute(params![key, outcome.as_json()])?;
                Ok(group::Answer::Done)
            });
            self.grouped("complete", work).await.map(|_| ())
        })
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let key = key.to_owned();
        Box::pin(async move {
            self.run("release", Mode::Write, move |connection| {
                // `rules::release` as one statement, atomic on its own:
                // only a record without an outcome is given up.
                connection
                    .prepare_cached(
                        "DELETE FROM toolgate_idempotency WHERE key = ?1 AND finished = 0",
                    )?
                    .execute(params![key])?;
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
            let now = exact(now);
            self.sweep_if_due(micros(now));
            self.run("count", Mode::Write, move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let held = tx
                    .prepare_cached("SELECT value, until FROM toolgate_counters WHERE key = ?1")?
                    .query_row(params![key], |row| {
                        Ok(rules::Counter {
                            value: u32::try_from(row.get::<_, i64>(0)?.max(0)).unwrap_or(u32::MAX),
                            until: time(row.get(1)?),
                        })
                    })
                    .optional()?;
                let counter = rules::count(held, now, window);
                tx.prepare_cached(
                    "INSERT INTO toolgate_counters (key, value, until) VALUES (?1, ?2, ?3)
                     ON CONFLICT (key) DO UPDATE SET value = ?2, until = ?3",
                )?
                .execute(params![key, counter.value, micros(counter.until)])?;
                tx.commit()?;
                Ok(counter.value)
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
            let now = exact(now);
            self.sweep_if_due(micros(now));
            self.run("take", Mode::Write, move |connection| {
                let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let held = tx
                    .prepare_cached(
                        "SELECT tokens, at, full_at FROM toolgate_buckets WHERE key = ?1",
                    )?
                    .query_row(params![key], |row| {
                        let bucket = Bucket {
                            tokens: row.get(0)?,
                            at: time(row.get(1)?),
                        };
                        Ok((bucket, time(row.get(2)?)))
                    })
                    .optional()?;
                let ((after, full_at), wait) = rules::take(held, capacity, period, now);
                tx.prepare_cached(
                    "INSERT INTO toolgate_buckets (key, tokens, at, full_at) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (key) DO UPDATE SET tokens = ?2, at = ?3, full_at = ?4",
                )?
                .execute(params![key, after.tokens, micros(after.at), micros(full_at)])?;
                tx.commit()?;
                Ok(wait)
            })
            .await
        })
    }
}
