//! A PostgreSQL [`EffectStore`] for toolgate: gate 6's approvals,
//! idempotency records, retry budgets and rate limits in one database that
//! every server of a deployment shares. A user outgrowing one machine
//! points every replica at the same database; nothing else changes.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use toolgate::Toolbox;
//! use toolgate_postgres::PostgresStore;
//!
//! let store = PostgresStore::connect("postgres://toolgate:secret@db.internal/app").await?;
//! let toolbox = Toolbox::new(()).with_effect_store(store);
//! # let _ = toolbox;
//! # Ok(())
//! # }
//! ```
//!
//! **Tables** (created and migrated on connect, under an advisory lock so
//! that replicas starting together migrate once; `toolgate_schema` holds
//! the version):
//!
//! | table | key | what |
//! |---|---|---|
//! | `toolgate_approvals` | `id` | the approval as JSON, with its state, approver and expiry in columns |
//! | `toolgate_idempotency` | `key` | the digest it was claimed with, in flight (with a lease) or finished (with the outcome's JSON), and how long it is kept |
//! | `toolgate_counters` | `key` | a count and the end of its window |
//! | `toolgate_buckets` | `key` | tokens left, when they were counted, and when the bucket is full again |
//!
//! Times are microseconds since the Unix epoch, as the toolbox's clock
//! gives them (never the database's clock). Deciding and consuming an
//! approval, claiming a key and counting are each one statement whose
//! row lock makes concurrent calls take turns; taking a rate token is one
//! transaction holding the bucket's row lock. Expired rows are deleted in
//! batches of at most 256, in a task of their own, once every 256 writes.

#![cfg_attr(docsrs, feature(doc_cfg))]

use std::str::FromStr as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

pub use deadpool_postgres;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use serde_json::Value;
use tokio_postgres::NoTls;
use toolgate::{
    Approval, ApprovalState, BoxFuture, Bucket, Claim, Consumed, Decided, Decision, EffectStore,
    StoreError,
};

/// The migrations, in order; `toolgate_schema.version` counts those
/// applied.
const MIGRATIONS: &[&str] = &["
    CREATE TABLE toolgate_approvals (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        decided_by TEXT,
        expires_at BIGINT NOT NULL,
        keep_until BIGINT NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX toolgate_approvals_keep ON toolgate_approvals (keep_until);
    CREATE TABLE toolgate_idempotency (
        key TEXT PRIMARY KEY,
        digest TEXT NOT NULL,
        finished BOOLEAN NOT NULL,
        lease_until BIGINT NOT NULL,
        keep_until BIGINT NOT NULL,
        outcome TEXT,
        won BOOLEAN NOT NULL
    );
    CREATE INDEX toolgate_idempotency_keep ON toolgate_idempotency (keep_until);
    CREATE TABLE toolgate_counters (
        key TEXT PRIMARY KEY,
        value BIGINT NOT NULL,
        until BIGINT NOT NULL
    );
    CREATE INDEX toolgate_counters_until ON toolgate_counters (until);
    CREATE TABLE toolgate_buckets (
        key TEXT PRIMARY KEY,
        tokens DOUBLE PRECISION NOT NULL,
        at BIGINT NOT NULL,
        full_at BIGINT NOT NULL
    );
    CREATE INDEX toolgate_buckets_full ON toolgate_buckets (full_at);
"];

/// The advisory lock taken while migrating (an arbitrary constant: the
/// bytes of "toolgate").
const MIGRATION_LOCK: i64 = 0x746f_6f6c_6761_7465;

/// How long a decided, used or expired approval is kept for lookups.
const KEEP_APPROVALS: Duration = Duration::from_secs(24 * 60 * 60);

/// Rows deleted per sweep, and writes between sweeps.
const SWEEP: u64 = 256;

/// Connections in the pool unless the host builds its own.
const POOL: usize = 16;

/// Gate 6's state in a PostgreSQL database.
#[derive(Clone)]
pub struct PostgresStore {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
    writes: AtomicU64,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("pool", &self.inner.pool.status())
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

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/db`,
    /// or the key-value form), with a pool of 16 connections without TLS,
    /// and brings its tables up to date.
    ///
    /// For TLS or another pool size, build a pool yourself and use
    /// [`PostgresStore::from_pool`].
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let config = tokio_postgres::Config::from_str(url).map_err(store_error)?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .build()
            .map_err(store_error)?;
        PostgresStore::from_pool(pool).await
    }

    /// A store on a pool the host built, after bringing the tables up to
    /// date.
    pub async fn from_pool(pool: Pool) -> Result<PostgresStore, StoreError> {
        let mut client = pool.get().await.map_err(store_error)?;
        let tx = client.transaction().await.map_err(store_error)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(store_error)?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS toolgate_schema (version INTEGER NOT NULL);
             INSERT INTO toolgate_schema (version)
                 SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM toolgate_schema);",
        )
        .await
        .map_err(store_error)?;
        let applied: i32 = tx
            .query_one("SELECT version FROM toolgate_schema", &[])
            .await
            .map_err(store_error)?
            .get(0);
        let applied = usize::try_from(applied).unwrap_or(0);
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
            tx.batch_execute(migration).await.map_err(store_error)?;
            let version = i32::try_from(i + 1).unwrap_or(i32::MAX);
            tx.execute("UPDATE toolgate_schema SET version = $1", &[&version])
                .await
                .map_err(store_error)?;
        }
        tx.commit().await.map_err(store_error)?;
        Ok(PostgresStore {
            inner: Arc::new(Inner {
                pool,
                writes: AtomicU64::new(0),
            }),
        })
    }

    /// A pooled connection.
    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.inner.pool.get().await.map_err(store_error)
    }

    /// Every [`SWEEP`] writes, deletes expired rows in a task of its own,
    /// so that no call waits for it.
    ///
    /// It sweeps up to the earlier of the call's time and the system
    /// clock: a toolbox on a clock of its own that runs ahead (a test's)
    /// must not remove rows that callers on the system clock still hold.
    fn sweep_if_due(&self, now: i64) {
        if !self
            .inner
            .writes
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(SWEEP)
        {
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
        let client = self.client().await?;
        let mut deleted = 0;
        for (table, column) in [
            ("toolgate_approvals", "keep_until"),
            ("toolgate_idempotency", "keep_until"),
            ("toolgate_counters", "until"),
            ("toolgate_buckets", "full_at"),
        ] {
            // SKIP LOCKED: rows a call holds are left for the next sweep.
            deleted += client
                .execute(
                    &format!(
                        "DELETE FROM {table} WHERE ctid = ANY (ARRAY(
                             SELECT ctid FROM {table} WHERE {column} <= $1
                             LIMIT {SWEEP} FOR UPDATE SKIP LOCKED))"
                    ),
                    &[&now],
                )
                .await
                .map_err(store_error)?;
        }
        Ok(deleted)
    }
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

impl EffectStore for PostgresStore {
    fn create_approval(&self, record: Approval) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(&record).map_err(store_error)?;
            let expires = micros(record.expires_at);
            let keep = expires.saturating_add(span(KEEP_APPROVALS));
            let client = self.client().await?;
            let statement = client
                .prepare_cached(
                    "INSERT INTO toolgate_approvals (id, state, decided_by, expires_at, keep_until, record)
                     VALUES ($1, 'pending', NULL, $2, $3, $4)",
                )
                .await
                .map_err(store_error)?;
            client
                .execute(&statement, &[&record.id, &expires, &keep, &json])
                .await
                .map_err(store_error)?;
            self.sweep_if_due(micros(record.created_at));
            Ok(())
        })
    }

    fn approval<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Approval>, StoreError>> {
        Box::pin(async move {
            let client = self.client().await?;
            let statement = client
                .prepare_cached(
                    "SELECT record, state, decided_by FROM toolgate_approvals WHERE id = $1",
                )
                .await
                .map_err(store_error)?;
            let Some(row) = client
                .query_opt(&statement, &[&id])
                .await
                .map_err(store_error)?
            else {
                return Ok(None);
            };
            let json: &str = row.get(0);
            let mut approval: Approval = serde_json::from_str(json).map_err(store_error)?;
            approval.state = state_of(row.get(1), row.get(2));
            Ok(Some(approval))
        })
    }

    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Decided, StoreError>> {
        Box::pin(async move {
            let (state, by) = match decision {
                Decision::Approve(by) => ("approved", by),
                Decision::Deny(by) => ("denied", by),
            };
            let now = micros(now);
            let client = self.client().await?;
            // One statement: the update takes the row's lock, so of two
            // deciders the second sees the first's decision and changes
            // nothing. The join reads the row as it was before.
            let statement = client
                .prepare_cached(
                    "WITH decided AS (
                         UPDATE toolgate_approvals SET state = $2, decided_by = $3
                         WHERE id = $1 AND state = 'pending' AND expires_at > $4
                         RETURNING 1)
                     SELECT EXISTS (SELECT 1 FROM decided), a.state, a.expires_at
                     FROM (SELECT 1) AS one LEFT JOIN toolgate_approvals a ON a.id = $1",
                )
                .await
                .map_err(store_error)?;
            let row = client
                .query_one(&statement, &[&id, &state, &by, &now])
                .await
                .map_err(store_error)?;
            let done: bool = row.get(0);
            let before: Option<&str> = row.get(1);
            let expires: Option<i64> = row.get(2);
            Ok(match (done, before, expires) {
                (true, _, _) => Decided::Done,
                (false, None, _) => Decided::Unknown,
                (false, Some(state), _) if state != "pending" => Decided::AlreadyDecided,
                (false, _, Some(expires)) if now >= expires => Decided::Expired,
                // Pending and live before, yet not updated: another
                // decision took the row first.
                (false, _, _) => Decided::AlreadyDecided,
            })
        })
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Consumed, StoreError>> {
        Box::pin(async move {
            let now = micros(now);
            let client = self.client().await?;
            let statement = client
                .prepare_cached(
                    "WITH used AS (
                         UPDATE toolgate_approvals SET state = 'used'
                         WHERE id = $1 AND state = 'approved' AND expires_at > $2
                         RETURNING 1)
                     SELECT EXISTS (SELECT 1 FROM used), a.state, a.expires_at
                     FROM (SELECT 1) AS one LEFT JOIN toolgate_approvals a ON a.id = $1",
                )
                .await
                .map_err(store_error)?;
            let row = client
                .query_one(&statement, &[&id, &now])
                .await
                .map_err(store_error)?;
            let done: bool = row.get(0);
            let before: Option<&str> = row.get(1);
            let expires: i64 = row.get::<_, Option<i64>>(2).unwrap_or(0);
            Ok(match (done, before) {
                (true, _) => Consumed::Done,
                (false, None) => Consumed::Unknown,
                (false, Some("denied")) => Consumed::Denied,
                (false, Some("used")) => Consumed::Used,
                (false, Some(_)) if now >= expires => Consumed::Expired,
                // Approved and live before, yet not updated: another
                // consume used it first.
                (false, Some("approved")) => Consumed::Used,
                (false, Some(_)) => Consumed::Pending,
            })
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
        Box::pin(async move {
            let now = micros(now);
            let lease_until = now.saturating_add(span(lease));
            let keep_until = now.saturating_add(span(retain));
            let client = self.client().await?;
            // One statement. A new key is inserted; an existing one is
            // taken over only if its record is past retention, or is this
            // action's and its lease ran out. Either way the row is locked
            // and returned as this statement left it, with `won` saying
            // whether this statement claimed it.
            let statement = client
                .prepare_cached(
                    "INSERT INTO toolgate_idempotency AS r
                         (key, digest, finished, lease_until, keep_until, outcome, won)
                     VALUES ($1, $2, FALSE, $4, $5, NULL, TRUE)
                     ON CONFLICT (key) DO UPDATE SET
                         won = (r.keep_until <= $3
                             OR (r.digest = $2 AND NOT r.finished AND r.lease_until <= $3)),
                         digest = CASE WHEN r.keep_until <= $3
                             OR (r.digest = $2 AND NOT r.finished AND r.lease_until <= $3)
                             THEN $2 ELSE r.digest END,
                         finished = CASE WHEN r.keep_until <= $3
                             OR (r.digest = $2 AND NOT r.finished AND r.lease_until <= $3)
                             THEN FALSE ELSE r.finished END,
                         lease_until = CASE WHEN r.keep_until <= $3
                             OR (r.digest = $2 AND NOT r.finished AND r.lease_until <= $3)
                             THEN $4 ELSE r.lease_until END,
                         keep_until = CASE WHEN r.keep_until <= $3
                             OR (r.digest = $2 AND NOT r.finished AND r.lease_until <= $3)
                             THEN $5 ELSE r.keep_until END,
                         outcome = CASE WHEN r.keep_until <= $3
                             OR (r.digest = $2 AND NOT r.finished AND r.lease_until <= $3)
                             THEN NULL ELSE r.outcome END
                     RETURNING won, digest, finished, outcome",
                )
                .await
                .map_err(store_error)?;
            let row = client
                .query_one(
                    &statement,
                    &[&key, &digest, &now, &lease_until, &keep_until],
                )
                .await
                .map_err(store_error)?;
            self.sweep_if_due(now);
            let won: bool = row.get(0);
            let held: &str = row.get(1);
            let finished: bool = row.get(2);
            Ok(if won {
                Claim::Claimed
            } else if held != digest {
                Claim::Conflict
            } else if finished {
                let outcome: Option<&str> = row.get(3);
                Claim::Finished(
                    serde_json::from_str(outcome.unwrap_or("null")).map_err(store_error)?,
                )
            } else {
                Claim::InFlight
            })
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(&outcome).map_err(store_error)?;
            let client = self.client().await?;
            let statement = client
                .prepare_cached(
                    "UPDATE toolgate_idempotency SET finished = TRUE, outcome = $2 WHERE key = $1",
                )
                .await
                .map_err(store_error)?;
            client
                .execute(&statement, &[&key, &json])
                .await
                .map_err(store_error)?;
            Ok(())
        })
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let client = self.client().await?;
            let statement = client
                .prepare_cached("DELETE FROM toolgate_idempotency WHERE key = $1 AND NOT finished")
                .await
                .map_err(store_error)?;
            client
                .execute(&statement, &[&key])
                .await
                .map_err(store_error)?;
            Ok(())
        })
    }

    fn count<'a>(
        &'a self,
        key: &'a str,
        now: SystemTime,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StoreError>> {
        Box::pin(async move {
            let now = micros(now);
            let until = now.saturating_add(span(window));
            let client = self.client().await?;
            // One statement: a new counter, a counter whose window ended
            // starting over, or one more.
            let statement = client
                .prepare_cached(
                    "INSERT INTO toolgate_counters AS c (key, value, until) VALUES ($1, 1, $3)
                     ON CONFLICT (key) DO UPDATE SET
                         value = CASE WHEN c.until <= $2 THEN 1 ELSE c.value + 1 END,
                         until = CASE WHEN c.until <= $2 THEN $3 ELSE c.until END
                     RETURNING value",
                )
                .await
                .map_err(store_error)?;
            let row = client
                .query_one(&statement, &[&key, &now, &until])
                .await
                .map_err(store_error)?;
            self.sweep_if_due(now);
            let value: i64 = row.get(0);
            Ok(u32::try_from(value).unwrap_or(u32::MAX))
        })
    }

    fn take<'a>(
        &'a self,
        key: &'a str,
        capacity: u32,
        period: Duration,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        Box::pin(async move {
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(store_error)?;
            // A missing bucket is a full one: insert it, then lock the row.
            let full = Bucket::full(capacity, now);
            let insert = tx
                .prepare_cached(
                    "INSERT INTO toolgate_buckets (key, tokens, at, full_at) VALUES ($1, $2, $3, $3)
                     ON CONFLICT (key) DO NOTHING",
                )
                .await
                .map_err(store_error)?;
            tx.execute(&insert, &[&key, &full.tokens, &micros(now)])
                .await
                .map_err(store_error)?;
            let select = tx
                .prepare_cached("SELECT tokens, at FROM toolgate_buckets WHERE key = $1 FOR UPDATE")
                .await
                .map_err(store_error)?;
            let row = tx.query_one(&select, &[&key]).await.map_err(store_error)?;
            let bucket = Bucket {
                tokens: row.get(0),
                at: time(row.get(1)),
            };
            let (after, wait) = bucket.take(capacity, period, now);
            let update = tx
                .prepare_cached(
                    "UPDATE toolgate_buckets SET tokens = $2, at = $3, full_at = $4 WHERE key = $1",
                )
                .await
                .map_err(store_error)?;
            tx.execute(
                &update,
                &[
                    &key,
                    &after.tokens,
                    &micros(after.at),
                    &micros(after.full_at(capacity, period)),
                ],
            )
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            self.sweep_if_due(micros(now));
            Ok(wait)
        })
    }
}
