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
//! | `toolgate_approvals` | `id` | the approval as JSON, with its state, approver and expiry in columns, and who may decide it (tenant, actor, approver scope, distinct approver, named approver, when asked) for listing |
//! | `toolgate_idempotency` | `key` | the digest it was claimed with, in flight (with a lease) or finished (with the outcome's JSON), and how long it is kept |
//! | `toolgate_counters` | `key` | a count and the end of its window |
//! | `toolgate_buckets` | `key` | tokens left, when they were counted, and when the bucket is full again |
//!
//! Times are microseconds since the Unix epoch, as the toolbox's clock
//! gives them (never the database's clock). What a row becomes is decided
//! by [`toolgate::store::rules`], the rules every store shares. Deciding and
//! consuming an approval, completing and releasing a key and counting are
//! each one statement, whose row lock makes concurrent calls take turns.
//! Claiming a key is one insert when the key is free, and otherwise a read
//! (a repeat of a running or finished call writes nothing and waits for no
//! lock), followed, where the rule takes the key over, by an update that
//! re-checks the rule's condition under the row's lock. Each statement
//! names the rule it implements, and the store suite's seeded model test
//! proves it equal to that rule. Taking a rate token is
//! one transaction that reads the bucket's row under its lock and writes
//! back what [`rules::take`] decides. Expired rows are deleted in batches
//! of at most 256, in a task of their own, once every 256 writes.
//!
//! **Deadlines.** Every operation answers within its deadline (5 seconds
//! unless [`PostgresOptions::deadline`] says otherwise), counted from the
//! call: the wait for a pooled connection, a new connection's handshake,
//! and the statements together. Past it the operation fails with a
//! [`StoreError::is_timeout`] error and the toolbox answers a retryable
//! `UNAVAILABLE` without running anything; the connection is closed
//! rather than returned to the pool, and the server is asked to cancel the
//! statement. The connections the store opens itself also carry the
//! deadline as the server's `statement_timeout` and
//! `idle_in_transaction_session_timeout`, a `lock_timeout`, and TCP
//! keepalives that find a dead peer in about half a minute, so that the
//! server stops waiting too. A host that builds its own pool applies the
//! same with [`PostgresOptions::configure`].
//!
//! **Durability** is the server's: with PostgreSQL's default
//! `synchronous_commit = on`, an answered claim or outcome survives a
//! crash of the server or of its machine. With `synchronous_commit = off`
//! (a setting of the server, the database or the role) a crash can lose
//! the last moments of commits, and an action that ran just before it
//! could run again; the store never changes the setting.
//!
//! **Versions.** A database whose schema is newer than this release knows
//! (a newer release migrated it, and this one was rolled back to) is
//! refused on connect, with both versions named.

#![cfg_attr(docsrs, feature(doc_cfg))]

use std::str::FromStr as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

pub use deadpool_postgres;
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use tokio::time::Instant;
use tokio_postgres::NoTls;
use tokio_postgres::error::SqlState;
use toolgate::store::rules::{self, Bucket, ClaimRule, Stage};
use toolgate::store::{
    Approval, Claim, Consumed, Decided, Decision, EffectStore, Recorded, StoreError, Withdrawn,
};
use toolgate::{BoxFuture, ToolContext};

/// The migrations, in order; `toolgate_schema.version` counts those
/// applied.
const MIGRATIONS: &[&str] = &[
    "
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
",
    // Who may decide an approval, in columns, so that listing a person's
    // pending approvals is one indexed query; rows of earlier versions
    // are filled from their JSON.
    "
    ALTER TABLE toolgate_approvals
        ADD COLUMN tenant TEXT NOT NULL DEFAULT '',
        ADD COLUMN actor TEXT NOT NULL DEFAULT '',
        ADD COLUMN approver_scope TEXT,
        ADD COLUMN distinct_approver BOOLEAN NOT NULL DEFAULT FALSE,
        ADD COLUMN approver TEXT,
        ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
    UPDATE toolgate_approvals SET
        tenant = coalesce(record::jsonb ->> 'tenant', ''),
        actor = coalesce(record::jsonb ->> 'actor', ''),
        approver_scope = record::jsonb ->> 'approver_scope',
        distinct_approver = coalesce((record::jsonb ->> 'distinct_approver')::boolean, FALSE),
        approver = record::jsonb ->> 'approver',
        created_at = coalesce((record::jsonb -> 'created_at' ->> 'secs_since_epoch')::bigint * 1000000
            + (record::jsonb -> 'created_at' ->> 'nanos_since_epoch')::bigint / 1000, 0);
    CREATE INDEX toolgate_approvals_pending ON toolgate_approvals (tenant, state, created_at);
",
];

/// The schema version this release writes and reads.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// The advisory lock taken while migrating (an arbitrary constant: the
/// bytes of "toolgate").
const MIGRATION_LOCK: i64 = 0x746f_6f6c_6761_7465;

/// Rows deleted per sweep, and writes between sweeps.
const SWEEP: u64 = 256;

/// TCP keepalive probes sent before a silent peer is given up on.
const KEEPALIVE_PROBES: u32 = 3;

/// How a [`PostgresStore`] bounds its waits: one deadline per operation,
/// and the server and socket settings that stop the work behind it.
///
/// ```
/// use std::time::Duration;
/// use toolgate_postgres::PostgresOptions;
///
/// // Answer UNAVAILABLE after two seconds, and wait for a row lock one.
/// let options = PostgresOptions::default()
///     .deadline(Duration::from_secs(2))
///     .lock_timeout(Duration::from_secs(1));
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
pub struct PostgresOptions {
    deadline: Duration,
    lock_timeout: Option<Duration>,
    keepalive: Duration,
    pool_size: usize,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions {
            deadline: Duration::from_secs(5),
            lock_timeout: None,
            keepalive: Duration::from_secs(15),
            pool_size: 16,
        }
    }
}

impl PostgresOptions {
    /// The longest an operation takes before it answers with a timeout
    /// (default 5 seconds): the wait for a pooled connection, a new
    /// connection's handshake and the statements, together. Connecting
    /// (and migrating) has the same deadline. It is also the server's
    /// `statement_timeout` and `idle_in_transaction_session_timeout` on
    /// the connections the store opens, and the pool's create and wait
    /// timeouts.
    #[must_use]
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// How long a statement waits for a lock another session holds
    /// before the server cancels it (PostgreSQL's `lock_timeout`; default:
    /// the deadline).
    #[must_use]
    pub fn lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = Some(timeout);
        self
    }

    /// How long a connection may be silent before TCP keepalive probes
    /// ask whether the server is still there (default 15 seconds; probes
    /// follow a third of that apart, three of them): a connection to a
    /// server that went away is found and closed while it sits in the
    /// pool, rather than by the next call.
    #[must_use]
    pub fn keepalive(mut self, idle: Duration) -> Self {
        self.keepalive = idle;
        self
    }

    /// How many connections the store's own pool holds (default 16).
    #[must_use]
    pub fn pool_size(mut self, size: usize) -> Self {
        self.pool_size = size;
        self
    }

    /// Applies the server and socket settings to `config`, for a host
    /// that builds its own pool (for TLS, say) and hands it to
    /// [`PostgresStore::from_pool_with`]: the server's statement, lock and
    /// idle-in-transaction timeouts (added to the connection's
    /// `options`), a connect timeout and TCP keepalives, each unless
    /// `config` sets its own.
    ///
    /// ```
    /// use std::str::FromStr as _;
    /// use toolgate_postgres::PostgresOptions;
    /// use toolgate_postgres::deadpool_postgres::tokio_postgres::Config;
    ///
    /// let mut config = Config::from_str("postgres://toolgate@db.internal/app").unwrap();
    /// PostgresOptions::default().configure(&mut config);
    /// assert!(config.get_options().unwrap().contains("statement_timeout=5000"));
    /// assert!(config.get_connect_timeout().is_some());
    /// ```
    pub fn configure(&self, config: &mut tokio_postgres::Config) {
        let ms = |d: Duration| d.as_millis().max(1);
        let deadline = ms(self.deadline);
        let lock = ms(self.lock_timeout.unwrap_or(self.deadline));
        let ours = format!(
            "-c statement_timeout={deadline} -c lock_timeout={lock} \
             -c idle_in_transaction_session_timeout={deadline}"
        );
        let options = match config.get_options() {
            Some(theirs) if !theirs.is_empty() => format!("{theirs} {ours}"),
            _ => ours,
        };
        config.options(options);
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(self.deadline);
        }
        // The library's default, two hours, unless the URL set another.
        if config.get_keepalives_idle() == Duration::from_secs(2 * 60 * 60) {
            config.keepalives_idle(self.keepalive);
        }
        if config.get_keepalives_interval().is_none() {
            config.keepalives_interval((self.keepalive / 3).max(Duration::from_secs(1)));
        }
        if config.get_keepalives_retries().is_none() {
            config.keepalives_retries(KEEPALIVE_PROBES);
        }
    }
}

/// Gate 6's state in a PostgreSQL database.
#[derive(Clone)]
pub struct PostgresStore {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
    deadline: Duration,
    writes: AtomicU64,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("pool", &self.inner.pool.status())
            .field("deadline", &self.inner.deadline)
            .finish_non_exhaustive()
    }
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

fn stage(text: &str) -> Result<Stage, StoreError> {
    Stage::parse(text)
        .ok_or_else(|| StoreError::message(format!("an approval has the unknown state {text:?}")))
}

fn json_error(error: serde_json::Error) -> StoreError {
    StoreError::context("a record is not valid JSON", error)
}

/// An operation on one pooled connection, within its deadline.
struct Session {
    op: &'static str,
    client: Object,
    deadline: Instant,
    limit: Duration,
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/db`,
    /// or the key-value form) with the default [`PostgresOptions`], and
    /// brings its tables up to date.
    ///
    /// For TLS, build a pool yourself and use
    /// [`PostgresStore::from_pool_with`].
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::connect_with(url, PostgresOptions::default()).await
    }

    /// [`connect`](Self::connect), with `options`.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolgate::StoreError> {
    /// use std::time::Duration;
    /// use toolgate_postgres::{PostgresOptions, PostgresStore};
    ///
    /// let options = PostgresOptions::default().deadline(Duration::from_secs(2));
    /// let store = PostgresStore::connect_with("postgres://toolgate:secret@db.internal/app", options).await?;
    /// # let _ = store;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect_with(
        url: &str,
        options: PostgresOptions,
    ) -> Result<PostgresStore, StoreError> {
        let mut config = tokio_postgres::Config::from_str(url)
            .map_err(|e| StoreError::context("the database URL is not valid", e))?;
        options.configure(&mut config);
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(options.pool_size)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(options.deadline))
            .create_timeout(Some(options.deadline))
            .recycle_timeout(Some(options.deadline))
            .build()
            .map_err(|e| StoreError::context("the connection pool could not be built", e))?;
        PostgresStore::from_pool_with(pool, options).await
    }

    /// A store on a pool the host built, with the default
    /// [`PostgresOptions`], after bringing the tables up to date.
    pub async fn from_pool(pool: Pool) -> Result<PostgresStore, StoreError> {
        PostgresStore::from_pool_with(pool, PostgresOptions::default()).await
    }

    /// A store on a pool the host built, after bringing the tables up to
    /// date. Each operation is bounded by `options`' deadline; the server
    /// and socket settings are the pool's own (see
    /// [`PostgresOptions::configure`]).
    ///
    /// Refuses a database whose schema is newer than this release's
    /// ([`SCHEMA_VERSION`]), naming both versions.
    pub async fn from_pool_with(
        pool: Pool,
        options: PostgresOptions,
    ) -> Result<PostgresStore, StoreError> {
        let store = PostgresStore {
            inner: Arc::new(Inner {
                pool,
                deadline: options.deadline,
                writes: AtomicU64::new(0),
            }),
        };
        let mut session = store.session("connect").await?;
        let migrated = tokio::time::timeout_at(session.deadline, async {
            let tx = session.client.transaction().await.map_err(sql("connect"))?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
                .await
                .map_err(sql("connect"))?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS toolgate_schema (version INTEGER NOT NULL);
                 INSERT INTO toolgate_schema (version)
                     SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM toolgate_schema);",
            )
            .await
            .map_err(sql("connect"))?;
            let applied: i32 = tx
                .query_one("SELECT max(version) FROM toolgate_schema", &[])
                .await
                .map_err(sql("connect"))?
                .get(0);
            let applied = refuse_unknown(applied)?;
            for (i, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
                tx.batch_execute(migration).await.map_err(sql("connect"))?;
                let version = i32::try_from(i + 1).unwrap_or(i32::MAX);
                tx.execute("UPDATE toolgate_schema SET version = $1", &[&version])
                    .await
                    .map_err(sql("connect"))?;
            }
            tx.commit().await.map_err(sql("connect"))
        })
        .await;
        session.end(migrated)?;
        Ok(store)
    }

    /// A pooled connection for `op`, within the deadline counted from now.
    async fn session(&self, op: &'static str) -> Result<Session, StoreError> {
        let limit = self.inner.deadline;
        let deadline = Instant::now() + limit;
        match tokio::time::timeout_at(deadline, self.inner.pool.get()).await {
            Ok(Ok(client)) => Ok(Session {
                op,
                client,
                deadline,
                limit,
            }),
            // The pool's own wait or create timeout, where the host set
            // one shorter than the deadline (or ours, at the same instant).
            Ok(Err(error @ deadpool_postgres::PoolError::Timeout(_))) => {
                Err(StoreError::timed_out(format!(
                    "{op} did not finish within {} ms: no connection to the database",
                    limit.as_millis()
                ))
                .caused_by(error))
            }
            Ok(Err(error)) => Err(StoreError::context(
                format!("{op} found no connection to the database"),
                error,
            )),
            Err(_) => Err(StoreError::timed_out(format!(
                "{op} did not finish within {} ms: no connection to the database",
                limit.as_millis()
            ))),
        }
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
        let session = self.session("sweep").await?;
        let swept = tokio::time::timeout_at(session.deadline, async {
            let mut deleted = 0;
            // The instant after which each table's rows are gone
            // (`rules::gone`).
            for (table, column) in [
                ("toolgate_approvals", "keep_until"),
                ("toolgate_idempotency", "keep_until"),
                ("toolgate_counters", "until"),
                ("toolgate_buckets", "full_at"),
            ] {
                // SKIP LOCKED: rows a call holds are left for the next sweep.
                deleted += session
                    .client
                    .execute(
                        &format!(
                            "DELETE FROM {table} WHERE ctid = ANY (ARRAY(
                                 SELECT ctid FROM {table} WHERE {column} <= $1
                                 LIMIT {SWEEP} FOR UPDATE SKIP LOCKED))"
                        ),
                        &[&now],
                    )
                    .await
                    .map_err(sql("sweep"))?;
            }
            Ok(deleted)
        })
        .await;
        session.end(swept)
    }
}

impl Session {
    /// The answer of an operation that ran within the deadline, or a
    /// timeout. A connection whose statement did not answer in time is
    /// never used again: it is closed, and the server asked to cancel
    /// what it runs.
    fn end<T>(
        self,
        within: Result<Result<T, StoreError>, tokio::time::error::Elapsed>,
    ) -> Result<T, StoreError> {
        match within {
            Ok(answer) => answer,
            Err(_) => {
                let cancel = self.client.cancel_token();
                drop(Object::take(self.client));
                let limit = self.limit;
                tokio::spawn(async move {
                    // A server that does not answer this either is gone or
                    // frozen; its own timeouts end the statement.
                    let _ = tokio::time::timeout(limit, cancel.cancel_query(NoTls)).await;
                });
                Err(StoreError::timed_out(format!(
                    "{} did not finish within {} ms: the database did not answer",
                    self.op,
                    self.limit.as_millis()
                )))
            }
        }
    }
}

/// A statement's failure in `op`: a timeout if the server cancelled it
/// for waiting on a lock or running past `statement_timeout`.
fn sql(op: &'static str) -> impl Fn(tokio_postgres::Error) -> StoreError {
    move |error| match error.code() {
        Some(code)
            if *code == SqlState::LOCK_NOT_AVAILABLE || *code == SqlState::QUERY_CANCELED =>
        {
            StoreError::timed_out(format!(
                "{op} did not finish: the server cancelled it after waiting"
            ))
            .caused_by(error)
        }
        _ => StoreError::context(format!("{op} failed"), error),
    }
}

/// The migrations already applied, unless the schema is newer than this
/// release knows.
fn refuse_unknown(applied: i32) -> Result<usize, StoreError> {
    match usize::try_from(applied) {
        Ok(applied) if applied <= SCHEMA_VERSION => Ok(applied),
        _ => Err(StoreError::message(format!(
            "the database holds toolgate schema version {applied}, newer than this release's \
             version {SCHEMA_VERSION}: a newer release migrated it; run that release, or restore \
             the database from before the upgrade"
        ))),
    }
}

impl EffectStore for PostgresStore {
    fn create_approval(&self, record: Approval) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(&record)
                .map_err(|e| StoreError::context("an approval is not valid JSON", e))?;
            let expires = micros(record.expires_at);
            let keep = micros(rules::approval_kept_until(record.expires_at));
            let created = micros(record.created_at);
            let session = self.session("create_approval").await?;
            let created = tokio::time::timeout_at(session.deadline, async {
                // `rules::create`: a taken id inserts nothing, and is refused.
                let statement = session
                    .client
                    .prepare_cached(
                        "INSERT INTO toolgate_approvals (id, state, decided_by, expires_at, keep_until, record,
                             tenant, actor, approver_scope, distinct_approver, approver, created_at)
                         VALUES ($1, 'pending', NULL, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                         ON CONFLICT (id) DO NOTHING",
                    )
                    .await
                    .map_err(sql("create_approval"))?;
                let inserted = session
                    .client
                    .execute(
                        &statement,
                        &[
                            &record.id,
                            &expires,
                            &keep,
                            &json,
                            &record.tenant,
                            &record.actor,
                            &record.approver_scope,
                            &record.distinct_approver,
                            &record.approver,
                            &created,
                        ],
                    )
                    .await
                    .map_err(sql("create_approval"))?;
                rules::create(&record.id, inserted == 0)
            })
            .await;
            session.end(created)?;
            self.sweep_if_due(micros(record.created_at));
            Ok(())
        })
    }

    fn approval<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Approval>, StoreError>> {
        Box::pin(async move {
            let session = self.session("approval").await?;
            let found = tokio::time::timeout_at(session.deadline, async {
                let statement = session
                    .client
                    .prepare_cached(
                        "SELECT record, state, decided_by FROM toolgate_approvals WHERE id = $1",
                    )
                    .await
                    .map_err(sql("approval"))?;
                let Some(row) = session
                    .client
                    .query_opt(&statement, &[&id])
                    .await
                    .map_err(sql("approval"))?
                else {
                    return Ok(None);
                };
                let json: &str = row.get(0);
                let mut approval: Approval = serde_json::from_str(json).map_err(json_error)?;
                approval.state = stage(row.get(1))?.with_approver(row.get(2));
                Ok(Some(approval))
            })
            .await;
            session.end(found)
        })
    }

    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Decided, StoreError>> {
        Box::pin(async move {
            let (to, by) = match decision {
                Decision::Approve(by) => (Stage::Approved, by),
                Decision::Deny(by) => (Stage::Denied, by),
            };
            let now = exact(now);
            let at = micros(now);
            let session = self.session("decide").await?;
            let decided = tokio::time::timeout_at(session.deadline, async {
                // `rules::decide`, in one statement: the update's condition
                // is the rule's `Done`, and it takes the row's lock, so of
                // two deciders the second sees the first's decision and
                // changes nothing. The join reads the row as it was before,
                // for the rule to say why nothing changed.
                let statement = session
                    .client
                    .prepare_cached(
                        "WITH decided AS (
                             UPDATE toolgate_approvals SET state = $2, decided_by = $3
                             WHERE id = $1 AND state = 'pending' AND expires_at > $4
                             RETURNING 1)
                         SELECT EXISTS (SELECT 1 FROM decided), a.state, a.expires_at
                         FROM (SELECT 1) AS one LEFT JOIN toolgate_approvals a ON a.id = $1",
                    )
                    .await
                    .map_err(sql("decide"))?;
                let row = session
                    .client
                    .query_one(&statement, &[&id, &to.as_str(), &by, &at])
                    .await
                    .map_err(sql("decide"))?;
                if row.get::<_, bool>(0) {
                    return Ok(Decided::Done);
                }
                let before: Option<&str> = row.get(1);
                let found = match before {
                    Some(state) => Some((stage(state)?, time(row.get(2)))),
                    None => None,
                };
                Ok(match rules::decide(found, now) {
                    // Pending and live before, yet not updated: another
                    // decision took the row first.
                    Decided::Done => Decided::AlreadyDecided,
                    other => other,
                })
            })
            .await;
            session.end(decided)
        })
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Consumed, StoreError>> {
        Box::pin(async move {
            let now = exact(now);
            let at = micros(now);
            let session = self.session("consume").await?;
            let consumed = tokio::time::timeout_at(session.deadline, async {
                // `rules::consume`, in one statement: the update's
                // condition is the rule's `Done`; the join reads the row as
                // it was before, for the rule to say why nothing changed.
                let statement = session
                    .client
                    .prepare_cached(
                        "WITH used AS (
                             UPDATE toolgate_approvals SET state = 'used'
                             WHERE id = $1 AND state = 'approved' AND expires_at > $2
                             RETURNING 1)
                         SELECT EXISTS (SELECT 1 FROM used), a.state, a.expires_at
                         FROM (SELECT 1) AS one LEFT JOIN toolgate_approvals a ON a.id = $1",
                    )
                    .await
                    .map_err(sql("consume"))?;
                let row = session
                    .client
                    .query_one(&statement, &[&id, &at])
                    .await
                    .map_err(sql("consume"))?;
                if row.get::<_, bool>(0) {
                    return Ok(Consumed::Done);
                }
                let before: Option<&str> = row.get(1);
                let found = match before {
                    Some(state) => Some((stage(state)?, time(row.get(2)))),
                    None => None,
                };
                Ok(match rules::consume(found, now) {
                    // Approved and live before, yet not updated: another
                    // consume used it first.
                    Consumed::Done => Consumed::Used,
                    other => other,
                })
            })
            .await;
            session.end(consumed)
        })
    }

    fn pending_approvals<'a>(
        &'a self,
        approver: &'a ToolContext,
        now: SystemTime,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Approval>, StoreError>> {
        Box::pin(async move {
            let at = micros(exact(now));
            let scopes: Vec<&str> = approver.scopes().collect();
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let session = self.session("pending_approvals").await?;
            let listed = tokio::time::timeout_at(session.deadline, async {
                // `rules::listed` as the query's condition, in
                // `rules::listing_order` (ids compared as bytes, as Rust
                // compares them, whatever the database's collation).
                let statement = session
                    .client
                    .prepare_cached(
                        "SELECT record, state, decided_by FROM toolgate_approvals
                         WHERE tenant = $1 AND state = 'pending' AND expires_at > $2
                           AND (approver_scope IS NULL OR approver_scope = ANY ($3))
                           AND NOT (distinct_approver AND actor = $4)
                           AND (approver IS NULL OR approver = $4)
                         ORDER BY created_at, id COLLATE \"C\" LIMIT $5",
                    )
                    .await
                    .map_err(sql("pending_approvals"))?;
                let rows = session
                    .client
                    .query(
                        &statement,
                        &[&approver.tenant(), &at, &scopes, &approver.actor(), &limit],
                    )
                    .await
                    .map_err(sql("pending_approvals"))?;
                let mut listed = Vec::with_capacity(rows.len());
                for row in rows {
                    let json: &str = row.get(0);
                    let mut approval: Approval = serde_json::from_str(json).map_err(json_error)?;
                    approval.state = stage(row.get(1))?.with_approver(row.get(2));
                    listed.push(approval);
                }
                Ok(listed)
            })
            .await;
            session.end(listed)
        })
    }

    fn withdraw<'a>(
        &'a self,
        id: &'a str,
        by: String,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Withdrawn, StoreError>> {
        Box::pin(async move {
            let now = exact(now);
            let at = micros(now);
            let session = self.session("withdraw").await?;
            let withdrawn = tokio::time::timeout_at(session.deadline, async {
                // `rules::withdraw`, in one statement: the update's
                // condition is the rule's `Done`, under the row's lock;
                // the join reads the row as it was before, for the rule to
                // say why nothing changed.
                let statement = session
                    .client
                    .prepare_cached(
                        "WITH withdrawn AS (
                             UPDATE toolgate_approvals SET state = 'withdrawn', decided_by = $2
                             WHERE id = $1 AND state IN ('pending', 'approved') AND expires_at > $3
                             RETURNING 1)
                         SELECT EXISTS (SELECT 1 FROM withdrawn), a.state, a.expires_at
                         FROM (SELECT 1) AS one LEFT JOIN toolgate_approvals a ON a.id = $1",
                    )
                    .await
                    .map_err(sql("withdraw"))?;
                let row = session
                    .client
                    .query_one(&statement, &[&id, &by, &at])
                    .await
                    .map_err(sql("withdraw"))?;
                if row.get::<_, bool>(0) {
                    return Ok(Withdrawn::Done);
                }
                let before: Option<&str> = row.get(1);
                let found = match before {
                    Some(state) => Some((stage(state)?, time(row.get(2)))),
                    None => None,
                };
                if rules::withdraw(found, now) != Withdrawn::Done {
                    return Ok(rules::withdraw(found, now));
                }
                // Withdrawable before, yet not updated: a consume, a
                // denial or another withdraw took the row first, and left
                // it in a state that never changes again. Read it.
                let statement = session
                    .client
                    .prepare_cached(
                        "SELECT state, expires_at FROM toolgate_approvals WHERE id = $1",
                    )
                    .await
                    .map_err(sql("withdraw"))?;
                let now_found = match session
                    .client
                    .query_opt(&statement, &[&id])
                    .await
                    .map_err(sql("withdraw"))?
                {
                    Some(row) => Some((stage(row.get(0))?, time(row.get(1)))),
                    None => None,
                };
                Ok(match rules::withdraw(now_found, now) {
                    Withdrawn::Done => Withdrawn::Closed,
                    other => other,
                })
            })
            .await;
            session.end(withdrawn)
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
            let now = exact(now);
            let at = micros(now);
            let hold = rules::hold(now, lease, retain);
            let (lease_until, kept_until) = (micros(hold.lease_until), micros(hold.kept_until));
            let session = self.session("claim").await?;
            let claimed = tokio::time::timeout_at(session.deadline, async {
                // `rules::claim`. A key nobody holds is taken by the insert
                // alone. A key that is held is read, not written: a repeat
                // of a call that runs or ran (the common case under a
                // burst of identical calls) neither waits for the row's
                // lock nor commits anything. Where the rule says `Take`,
                // the update takes it only if the row still satisfies the
                // rule's condition under its lock; a call that loses that
                // race reads the row again. (The `won` column is written and
                // no longer read: the insert's own answer says who won.)
                let insert = session
                    .client
                    .prepare_cached(
                        "WITH taken AS (
                             INSERT INTO toolgate_idempotency
                                 (key, digest, finished, lease_until, keep_until, outcome, won)
                             VALUES ($1, $2, FALSE, $3, $4, NULL, TRUE)
                             ON CONFLICT (key) DO NOTHING
                             RETURNING 1)
                         SELECT EXISTS (SELECT 1 FROM taken), r.digest, r.finished,
                             r.lease_until, r.keep_until, r.outcome
                         FROM (SELECT 1) AS one LEFT JOIN toolgate_idempotency r ON r.key = $1",
                    )
                    .await
                    .map_err(sql("claim"))?;
                let take = session
                    .client
                    .prepare_cached(
                        "UPDATE toolgate_idempotency SET digest = $2, finished = FALSE,
                             lease_until = $4, keep_until = $5, outcome = NULL
                         WHERE key = $1 AND (keep_until <= $3
                             OR (digest = $2 AND NOT finished AND lease_until <= $3))
                         RETURNING 1",
                    )
                    .await
                    .map_err(sql("claim"))?;
                loop {
                    let row = session
                        .client
                        .query_one(&insert, &[&key, &digest, &lease_until, &kept_until])
                        .await
                        .map_err(sql("claim"))?;
                    if row.get::<_, bool>(0) {
                        return Ok(Claim::Claimed);
                    }
                    // The insert met a row this statement's snapshot does
                    // not show: one committed while it waited. Read again.
                    let Some(held) = row.get::<_, Option<&str>>(1) else {
                        continue;
                    };
                    let held = rules::Held {
                        digest: held,
                        finished: row.get(2),
                        lease_until: time(row.get(3)),
                        kept_until: time(row.get(4)),
                    };
                    match rules::claim(Some(held), digest, now, lease, retain) {
                        ClaimRule::Conflict => return Ok(Claim::Conflict),
                        ClaimRule::InFlight => return Ok(Claim::InFlight),
                        ClaimRule::Finished => {
                            let outcome: Option<String> = row.get(5);
                            let outcome = outcome.unwrap_or_else(|| "null".to_owned());
                            return Ok(Claim::Finished(
                                Recorded::from_json(outcome).map_err(json_error)?,
                            ));
                        }
                        ClaimRule::Take(_) => {
                            let taken = session
                                .client
                                .execute(&take, &[&key, &digest, &at, &lease_until, &kept_until])
                                .await
                                .map_err(sql("claim"))?;
                            if taken == 1 {
                                return Ok(Claim::Claimed);
                            }
                        }
                    }
                }
            })
            .await;
            let claimed = session.end(claimed)?;
            self.sweep_if_due(at);
            Ok(claimed)
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a str,
        outcome: Recorded,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = outcome.as_json();
            let session = self.session("complete").await?;
            let completed = tokio::time::timeout_at(session.deadline, async {
                // `rules::complete`: only a record in flight takes an outcome.
                let statement = session
                    .client
                    .prepare_cached(
                        "UPDATE toolgate_idempotency SET finished = TRUE, outcome = $2
                         WHERE key = $1 AND NOT finished",
                    )
                    .await
                    .map_err(sql("complete"))?;
                session
                    .client
                    .execute(&statement, &[&key, &json])
                    .await
                    .map_err(sql("complete"))?;
                Ok(())
            })
            .await;
            session.end(completed)
        })
    }

    fn release<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let session = self.session("release").await?;
            let released = tokio::time::timeout_at(session.deadline, async {
                // `rules::release`: only a record without an outcome goes.
                let statement = session
                    .client
                    .prepare_cached(
                        "DELETE FROM toolgate_idempotency WHERE key = $1 AND NOT finished",
                    )
                    .await
                    .map_err(sql("release"))?;
                session
                    .client
                    .execute(&statement, &[&key])
                    .await
                    .map_err(sql("release"))?;
                Ok(())
            })
            .await;
            session.end(released)
        })
    }

    fn count<'a>(
        &'a self,
        key: &'a str,
        now: SystemTime,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StoreError>> {
        Box::pin(async move {
            let now = exact(now);
            let at = micros(now);
            let until = micros(rules::count(None, now, window).until);
            let session = self.session("count").await?;
            let counted = tokio::time::timeout_at(session.deadline, async {
                // `rules::count`, in one statement: a new counter, a
                // counter whose window ended starting over, or one more,
                // stopping at u32::MAX.
                let statement = session
                    .client
                    .prepare_cached(
                        "INSERT INTO toolgate_counters AS c (key, value, until) VALUES ($1, 1, $3)
                         ON CONFLICT (key) DO UPDATE SET
                             value = CASE WHEN c.until <= $2 THEN 1
                                 ELSE LEAST(c.value + 1, 4294967295) END,
                             until = CASE WHEN c.until <= $2 THEN $3 ELSE c.until END
                         RETURNING value",
                    )
                    .await
                    .map_err(sql("count"))?;
                let row = session
                    .client
                    .query_one(&statement, &[&key, &at, &until])
                    .await
                    .map_err(sql("count"))?;
                let value: i64 = row.get(0);
                Ok(u32::try_from(value.max(0)).unwrap_or(u32::MAX))
            })
            .await;
            let counted = session.end(counted)?;
            self.sweep_if_due(at);
            Ok(counted)
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
            let now = exact(now);
            let mut session = self.session("take").await?;
            let taken = tokio::time::timeout_at(session.deadline, async {
                let tx = session.client.transaction().await.map_err(sql("take"))?;
                // The row locked (inserted first if missing, as a bucket
                // full again, which `rules::take` reads as none), read,
                // and written back as the rule decides.
                let insert = tx
                    .prepare_cached(
                        "INSERT INTO toolgate_buckets (key, tokens, at, full_at) VALUES ($1, 0, $2, $2)
                         ON CONFLICT (key) DO NOTHING",
                    )
                    .await
                    .map_err(sql("take"))?;
                tx.execute(&insert, &[&key, &micros(now)])
                    .await
                    .map_err(sql("take"))?;
                let select = tx
                    .prepare_cached(
                        "SELECT tokens, at, full_at FROM toolgate_buckets WHERE key = $1 FOR UPDATE",
                    )
                    .await
                    .map_err(sql("take"))?;
                let row = tx.query_one(&select, &[&key]).await.map_err(sql("take"))?;
                let held = Bucket {
                    tokens: row.get(0),
                    at: time(row.get(1)),
                };
                let ((after, full_at), wait) =
                    rules::take(Some((held, time(row.get(2)))), capacity, period, now);
                let update = tx
                    .prepare_cached(
                        "UPDATE toolgate_buckets SET tokens = $2, at = $3, full_at = $4 WHERE key = $1",
                    )
                    .await
                    .map_err(sql("take"))?;
                tx.execute(
                    &update,
                    &[&key, &after.tokens, &micros(after.at), &micros(full_at)],
                )
                .await
                .map_err(sql("take"))?;
                tx.commit().await.map_err(sql("take"))?;
                Ok(wait)
            })
            .await;
            let taken = session.end(taken)?;
            self.sweep_if_due(micros(now));
            Ok(taken)
        })
    }
}
