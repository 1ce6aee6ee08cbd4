//! The PostgreSQL store passes the suite every store passes (conformance,
//! 1,000-call races, every approval attack, a restart); two OS processes
//! on one database run a call once between them; a process killed inside
//! a body leaves a record whose lease runs out; replicas starting together
//! migrate once; and a database that drops away mid-call loses no
//! outcome and runs nothing unrecorded.
//!
//! These tests need a server: set `TOOLGATE_POSTGRES_URL` to a database
//! they may create tables in, for example
//! `TOOLGATE_POSTGRES_URL=postgres://postgres:secret@127.0.0.1/toolgate_test`.
//! The tests that need it are ignored unless asked for, and say so with
//! their reason: `cargo test -p toolgate-postgres --test store -- --ignored
//! --skip second_process --skip doomed_process` runs them (the two it
//! skips are the other processes of the two-process tests). CI sets the
//! variable and runs them so.

use std::str::FromStr as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolgate::{Code, ToolContext, ToolError, Toolbox, tool};
use toolgate_postgres::deadpool_postgres::{self, Manager, ManagerConfig, Pool, RecyclingMethod};
use toolgate_postgres::{PostgresOptions, PostgresStore};
use toolgate_store_suite::{self as suite, Store};

const URL: &str = "TOOLGATE_POSTGRES_URL";

/// The database URL. A test that needs one is ignored, with that reason,
/// unless asked for (`cargo test -- --ignored`); asked for without one, it
/// fails, saying how to run it.
fn url() -> String {
    match std::env::var(URL) {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "no PostgreSQL: set {URL}=postgres://user:password@host/database to run this test"
        ),
    }
}

/// The store the suite and the races run on. Their question is
/// exactly-once, not deadlines (tests of their own hold those): a
/// thousand racing calls on a loaded machine may wait for a connection
/// past the default deadline, and a claim answered too late leaves its
/// key in flight, so the deadline here is a minute.
async fn open(url: &str) -> Store {
    let options = PostgresOptions::default().deadline(Duration::from_secs(60));
    Arc::new(
        PostgresStore::connect_with(url, options)
            .await
            .unwrap_or_else(|e| panic!("{URL} is set, but the store did not open: {e}")),
    )
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn the_postgres_store_passes_the_store_suite() {
    let url = url();
    suite::runtime().block_on(suite::assert_suite(|| open(&url)));
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn the_postgres_store_follows_the_rules() {
    let url = url();
    suite::runtime().block_on(async {
        let store = PostgresStore::connect(&url).await.unwrap();
        suite::model::assert_follows_the_rules(&store).await;
    });
}

/// Run as the second process of the tests below, never on its own.
#[test]
#[ignore = "the second process of the two-process tests"]
fn second_process() {
    if let Ok(url) = std::env::var(URL) {
        suite::runtime().block_on(suite::second_half(async { open(&url).await }));
    }
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn two_processes_on_one_database_run_a_call_once() {
    let url = url();
    let rt = suite::runtime();
    let store = rt.block_on(open(&url));
    let session = suite::fresh("processes");
    let child = suite::spawn_second_process("second_process", &session, &[]);
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
    if let (Ok(url), Ok(session)) = (std::env::var(URL), std::env::var(suite::SESSION_VAR)) {
        let rt = suite::runtime();
        rt.block_on(async { suite::doomed_booking(open(&url).await, &session).await });
    }
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn a_process_killed_in_a_body_leaves_a_lease_that_runs_out() {
    let url = url();
    let rt = suite::runtime();
    let store = rt.block_on(open(&url));
    let session = suite::fresh("killed");
    let child = suite::spawn_second_process("doomed_process", &session, &[]);
    rt.block_on(suite::take_over_after_a_kill(child, store, &session));
}

/// A pool on `config`, as a host that needs TLS or its own limits builds.
fn pool(config: tokio_postgres::Config, size: usize) -> Pool {
    let manager = Manager::from_config(
        config,
        tokio_postgres::NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(size)
        .runtime(deadpool_postgres::Runtime::Tokio1)
        .build()
        .unwrap()
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn replicas_starting_together_migrate_once() {
    let url = url();
    let rt = suite::runtime();
    rt.block_on(async {
        // A schema of its own, so that the tables are created here.
        let schema = suite::fresh("migrate").replace('-', "_");
        let (admin, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        admin
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .await
            .unwrap();
        let mut config = tokio_postgres::Config::from_str(&url).unwrap();
        config.options(format!("-c search_path={schema}"));
        let starts: Vec<_> = (0..8)
            .map(|_| {
                let pool = pool(config.clone(), 2);
                tokio::spawn(PostgresStore::from_pool(pool))
            })
            .collect();
        for start in starts {
            start.await.unwrap().unwrap();
        }
        let version: i32 = admin
            .query_one(
                &format!("SELECT version FROM {schema}.toolgate_schema"),
                &[],
            )
            .await
            .unwrap()
            .get(0);
        let rows: i64 = admin
            .query_one(
                &format!("SELECT count(*) FROM {schema}.toolgate_schema"),
                &[],
            )
            .await
            .unwrap()
            .get(0);
        let latest = i32::try_from(toolgate_postgres::SCHEMA_VERSION).unwrap();
        assert_eq!((version, rows), (latest, 1));
        admin
            .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
            .await
            .unwrap();
    });
}

/// A TCP relay between the store and PostgreSQL that a test can cut: every
/// open connection dropped, every new one closed at once.
#[derive(Clone)]
struct Relay {
    port: u16,
    down: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl Relay {
    async fn start(target: (String, u16)) -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay = Relay {
            port: listener.local_addr().unwrap().port(),
            down: Arc::default(),
            open: Arc::default(),
        };
        let this = relay.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if this.down.load(Ordering::SeqCst) {
                    continue; // dropped: the client reads end of stream
                }
                let target = target.clone();
                let task = tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                this.open.lock().unwrap().push(task.abort_handle());
            }
        });
        relay
    }

    fn cut(&self) {
        self.down.store(true, Ordering::SeqCst);
        for task in self.open.lock().unwrap().drain(..) {
            task.abort();
        }
    }

    fn restore(&self) {
        self.down.store(false, Ordering::SeqCst);
    }
}

/// The application of the fault test: a ledger, and the relay its body
/// cuts.
struct Payments {
    relay: Relay,
    paid: AtomicUsize,
    cut_in_body: AtomicBool,
}

/// Pay an invoice.
#[tool(effect = write)]
fn pay_invoice(
    payments: &Payments,
    #[garde(pattern(r"^inv_[0-9]{1,8}$"))] invoice: String,
) -> Result<String, ToolError> {
    payments.paid.fetch_add(1, Ordering::SeqCst);
    if payments.cut_in_body.swap(false, Ordering::SeqCst) {
        payments.relay.cut();
    }
    Ok(invoice)
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn a_database_lost_mid_call_loses_no_outcome_and_runs_nothing_unrecorded() {
    let url = url();
    let rt = suite::runtime();
    rt.block_on(async {
        let direct = tokio_postgres::Config::from_str(&url).unwrap();
        let host = match direct.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
            _ => "127.0.0.1".to_owned(),
        };
        let port = direct.get_ports().first().copied().unwrap_or(5432);
        let relay = Relay::start((host, port)).await;
        // The same database, reached through the relay (`host` and `port`
        // add to a configuration's lists, so start from an empty one).
        let mut relayed = tokio_postgres::Config::new();
        relayed.host("127.0.0.1").port(relay.port);
        if let Some(user) = direct.get_user() {
            relayed.user(user);
        }
        if let Some(password) = direct.get_password() {
            relayed.password(password);
        }
        if let Some(dbname) = direct.get_dbname() {
            relayed.dbname(dbname);
        }
        let store = PostgresStore::from_pool(pool(relayed, 4)).await.unwrap();
        let mut toolbox = Toolbox::new(Payments {
            relay: relay.clone(),
            paid: AtomicUsize::new(0),
            cut_in_body: AtomicBool::new(true),
        })
        .with_effect_store(store);
        toolbox.register(PayInvoice).unwrap();
        let ctx = ToolContext::new("clerk", "tenant_a", "req")
            .with_session(suite::fresh("lost"))
            .allow_all_tools();

        // The database goes away while the body runs: the payment stands.
        let first = toolbox
            .call(&ctx, "pay_invoice", r#"{"invoice":"inv_1"}"#)
            .await;
        assert_eq!(
            first.value(),
            Some(&serde_json::json!("inv_1")),
            "{first:?}"
        );

        // Still away: the repeat is the kept outcome, not a second payment.
        let again = toolbox
            .call(&ctx, "pay_invoice", r#"{"invoice":"inv_1"}"#)
            .await;
        assert!(again.is_replay(), "{again:?}");

        // A new call cannot be recorded: nothing runs, the model may retry,
        // and it reads nothing of the database.
        let refused = toolbox
            .call(&ctx, "pay_invoice", r#"{"invoice":"inv_2"}"#)
            .await;
        assert_eq!(
            refused.rejection().map(|r| r.code()),
            Some(Code::Unavailable),
            "{refused:?}"
        );
        assert!(refused.rejection().unwrap().is_retryable());
        let text = refused.to_json().to_string();
        for internal in ["postgres", "connection", "error", "127.0.0.1"] {
            assert!(!text.to_lowercase().contains(internal), "{text}");
        }
        assert_eq!(toolbox.state().paid.load(Ordering::SeqCst), 1);

        // Back: the next call records the kept outcome, so another server
        // on the same database replays the first payment.
        relay.restore();
        let second = toolbox
            .call(&ctx, "pay_invoice", r#"{"invoice":"inv_2"}"#)
            .await;
        assert_eq!(
            second.value(),
            Some(&serde_json::json!("inv_2")),
            "{second:?}"
        );
        let mut elsewhere = Toolbox::new(Payments {
            relay: relay.clone(),
            paid: AtomicUsize::new(0),
            cut_in_body: AtomicBool::new(false),
        })
        .with_effect_store(PostgresStore::connect(&url).await.unwrap());
        elsewhere.register(PayInvoice).unwrap();
        let replayed = elsewhere
            .call(&ctx, "pay_invoice", r#"{"invoice":"inv_1"}"#)
            .await;
        assert!(replayed.is_replay(), "{replayed:?}");
        assert_eq!(replayed.value(), first.value());
        assert_eq!(elsewhere.state().paid.load(Ordering::SeqCst), 0);
    });
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn expired_rows_are_swept_in_batches_of_256() {
    let url = url();
    suite::runtime().block_on(async {
        let (store, scratch) = Scratch::new(&url, "sweep").await;
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
        scratch.drop().await;
    });
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn a_toolbox_on_a_clock_ahead_sweeps_no_live_row() {
    let url = url();
    suite::runtime().block_on(async {
        let (store, scratch) = Scratch::new(&url, "ahead").await;
        suite::assert_sweeps_spare_live_rows(&store).await;
        scratch.drop().await;
    });
}

/// A schema of its own, so that only one test's rows are there.
struct Scratch {
    admin: tokio_postgres::Client,
    schema: String,
    url: String,
}

impl Scratch {
    async fn new(url: &str, what: &str) -> (PostgresStore, Scratch) {
        let scratch = Scratch::empty(url, what).await;
        let store = scratch.store(PostgresOptions::default(), 4).await.unwrap();
        (store, scratch)
    }

    /// A schema of its own, with no tables yet.
    async fn empty(url: &str, what: &str) -> Scratch {
        let schema = suite::fresh(what).replace('-', "_");
        let (admin, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        admin
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .await
            .unwrap();
        Scratch {
            admin,
            schema,
            url: url.to_owned(),
        }
    }

    /// A store on the schema, on a pool of `size` built as a host builds
    /// one, with `options`' settings applied.
    async fn store(
        &self,
        options: PostgresOptions,
        size: usize,
    ) -> Result<PostgresStore, toolgate::StoreError> {
        let mut config = tokio_postgres::Config::from_str(&self.url).unwrap();
        config.options(format!("-c search_path={}", self.schema));
        options.configure(&mut config);
        PostgresStore::from_pool_with(pool(config, size), options).await
    }

    async fn drop(self) {
        self.admin
            .batch_execute(&format!("DROP SCHEMA {} CASCADE", self.schema))
            .await
            .unwrap();
    }
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn two_processes_on_one_database_resume_an_approval_once() {
    let url = url();
    let rt = suite::runtime();
    let store = rt.block_on(open(&url));
    let session = suite::fresh("resumes");
    let id = rt.block_on(suite::an_approved_refund(Arc::clone(&store), &session));
    let child = suite::spawn_second_process(
        "second_process",
        &session,
        &[(suite::APPROVAL_VAR, std::ffi::OsStr::new(&id))],
    );
    let here = rt.block_on(suite::half_of_the_resumes(store, &session, &id));
    let there = suite::effects_of(child);
    assert_eq!(
        here + there,
        1,
        "{here} refunds here, {there} in the other process"
    );
}

/// How long the tests below wait for an answer before they call it a hang:
/// far past every deadline they set.
const HANG: Duration = Duration::from_secs(10);

fn short() -> PostgresOptions {
    PostgresOptions::default().deadline(Duration::from_secs(1))
}

/// Every cause in `error`'s chain, `: ` between them.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(cause) = next {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        next = cause.source();
    }
    text
}

/// A server that accepts connections and never says a word.
async fn silent_server() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    port
}

#[test]
fn connecting_to_a_server_that_never_answers_fails_within_the_deadline() {
    // No PostgreSQL needed: the server is the test's own.
    suite::runtime().block_on(async {
        let port = silent_server().await;
        // `connect_timeout` bounds the TCP connect only, which succeeds.
        let url = format!("postgres://toolgate:secret@127.0.0.1:{port}/app?connect_timeout=1");
        let connected = tokio::time::timeout(HANG, PostgresStore::connect_with(&url, short()))
            .await
            .expect("connect answered within its deadline");
        let error = connected.expect_err("nothing answered");
        assert!(error.is_timeout(), "{}", chain(&error));
        // With the default deadline (5 seconds), too.
        let connected = tokio::time::timeout(3 * HANG, PostgresStore::connect(&url))
            .await
            .expect("connect answered within the default deadline");
        assert!(connected.expect_err("nothing answered").is_timeout());
    });
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn calls_waiting_for_another_sessions_lock_answer_within_their_deadline() {
    let url = url();
    suite::runtime().block_on(async {
        let scratch = Scratch::empty(&url, "locked").await;
        // One connection: the calls queue for it, too.
        let store = scratch.store(short(), 1).await.unwrap();
        let locker = scratch.locker().await;
        let now = std::time::SystemTime::now();
        let minute = Duration::from_secs(60);
        let calls: Vec<_> = (0..4)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    toolgate::EffectStore::claim(&store, &format!("k{i}"), "d", now, minute, minute)
                        .await
                })
            })
            .collect();
        for call in calls {
            let answer = tokio::time::timeout(HANG, call)
                .await
                .expect("a claim answered within its deadline")
                .unwrap();
            let error = answer.expect_err("the table is locked");
            assert!(error.is_timeout(), "{}", chain(&error));
        }
        // Through a toolbox: UNAVAILABLE, and the body does not run.
        let toolbox = suite::hotels(Arc::new(store.clone()));
        let ctx = ToolContext::new("traveller_7", "tenant_a", "req")
            .with_session(suite::fresh("locked"))
            .with_scopes(["bookings:write"])
            .allow_tools(["book_hotel"]);
        let outcome = tokio::time::timeout(HANG, toolbox.call(&ctx, "book_hotel", suite::BOOKING))
            .await
            .expect("the call answered");
        assert_eq!(
            outcome.rejection().map(|r| r.code()),
            Some(Code::Unavailable),
            "{outcome:?}"
        );
        assert!(toolbox.state().bookings().is_empty());

        // With a lock timeout shorter than the deadline, the server
        // cancels the wait, and says why.
        let patient = scratch
            .store(
                short()
                    .deadline(HANG)
                    .lock_timeout(Duration::from_millis(100)),
                1,
            )
            .await
            .unwrap();
        let error = toolgate::EffectStore::claim(&patient, "k", "d", now, minute, minute)
            .await
            .expect_err("the table is locked");
        assert!(error.is_timeout(), "{}", chain(&error));
        assert!(chain(&error).contains("lock timeout"), "{}", chain(&error));

        // The lock gone, the store works again.
        locker.batch_execute("ROLLBACK").await.unwrap();
        let outcome = toolbox.call(&ctx, "book_hotel", suite::BOOKING).await;
        assert!(matches!(outcome, toolgate::Outcome::Done(_)), "{outcome:?}");
        scratch.drop().await;
    });
}

impl Scratch {
    /// Another session, holding an exclusive lock on the idempotency table
    /// in a transaction until it rolls back.
    async fn locker(&self) -> tokio_postgres::Client {
        let (locker, connection) = tokio_postgres::connect(&self.url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        locker
            .batch_execute(&format!(
                "BEGIN; LOCK TABLE {}.toolgate_idempotency IN ACCESS EXCLUSIVE MODE;",
                self.schema
            ))
            .await
            .unwrap();
        locker
    }
}

/// A TCP proxy to PostgreSQL that a test can freeze, as a server whose
/// every process stopped (or a network partition) looks: connections stay
/// open and are accepted, and not a byte moves either way until it thaws.
#[derive(Clone)]
struct Freezer {
    port: u16,
    frozen: Arc<tokio::sync::watch::Sender<bool>>,
}

impl Freezer {
    async fn start(target: (String, u16)) -> Freezer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let freezer = Freezer {
            port: listener.local_addr().unwrap().port(),
            frozen: Arc::new(tokio::sync::watch::channel(false).0),
        };
        let frozen = Arc::clone(&freezer.frozen);
        tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let target = target.clone();
                let mut thawed = frozen.subscribe();
                tokio::spawn(async move {
                    let _ = thawed.wait_for(|frozen| !frozen).await;
                    let Ok(outbound) = tokio::net::TcpStream::connect(target).await else {
                        return;
                    };
                    let (from_client, to_client) = inbound.into_split();
                    let (from_server, to_server) = outbound.into_split();
                    tokio::spawn(pump(from_client, to_server, thawed.clone()));
                    tokio::spawn(pump(from_server, to_client, thawed));
                });
            }
        });
        freezer
    }

    fn freeze(&self) {
        self.frozen.send_replace(true);
    }

    fn thaw(&self) {
        self.frozen.send_replace(false);
    }
}

/// Copies `from` to `to`, holding each read while the proxy is frozen.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut thawed: tokio::sync::watch::Receiver<bool>,
) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut buffer = vec![0; 16 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if thawed.wait_for(|frozen| !frozen).await.is_err() {
            break;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn calls_to_a_frozen_server_answer_within_their_deadline() {
    let url = url();
    suite::runtime().block_on(async {
        let direct = tokio_postgres::Config::from_str(&url).unwrap();
        let host = match direct.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
            _ => "127.0.0.1".to_owned(),
        };
        let port = direct.get_ports().first().copied().unwrap_or(5432);
        let freezer = Freezer::start((host, port)).await;
        let mut frozen = tokio_postgres::Config::new();
        frozen.host("127.0.0.1").port(freezer.port);
        if let Some(user) = direct.get_user() {
            frozen.user(user);
        }
        if let Some(password) = direct.get_password() {
            frozen.password(password);
        }
        if let Some(dbname) = direct.get_dbname() {
            frozen.dbname(dbname);
        }
        short().configure(&mut frozen);
        let store = PostgresStore::from_pool_with(pool(frozen, 2), short())
            .await
            .unwrap();
        let toolbox = suite::hotels(Arc::new(store.clone()));
        let ctx = ToolContext::new("traveller_7", "tenant_a", "req")
            .with_session(suite::fresh("frozen"))
            .with_scopes(["bookings:write"])
            .allow_tools(["book_hotel"]);
        let now = std::time::SystemTime::now();
        let minute = Duration::from_secs(60);

        freezer.freeze();
        // More calls than connections: some wait for the pool, some for a
        // connection that is mid-statement, some for a new connection's
        // handshake. Each answers at its deadline.
        let calls: Vec<_> = (0..4)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    toolgate::EffectStore::claim(&store, &format!("k{i}"), "d", now, minute, minute)
                        .await
                })
            })
            .collect();
        for call in calls {
            let answer = tokio::time::timeout(HANG, call)
                .await
                .expect("a claim answered within its deadline")
                .unwrap();
            let error = answer.expect_err("the server is frozen");
            assert!(error.is_timeout(), "{}", chain(&error));
        }
        let outcome = tokio::time::timeout(HANG, toolbox.call(&ctx, "book_hotel", suite::BOOKING))
            .await
            .expect("the call answered");
        assert_eq!(
            outcome.rejection().map(|r| r.code()),
            Some(Code::Unavailable),
            "{outcome:?}"
        );
        assert!(toolbox.state().bookings().is_empty());

        // Thawed: new connections, and the store works again.
        freezer.thaw();
        let outcome = toolbox.call(&ctx, "book_hotel", suite::BOOKING).await;
        assert!(matches!(outcome, toolgate::Outcome::Done(_)), "{outcome:?}");
    });
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn a_schema_newer_than_this_release_is_refused_naming_both_versions() {
    let url = url();
    suite::runtime().block_on(async {
        let scratch = Scratch::empty(&url, "newer").await;
        scratch.store(PostgresOptions::default(), 1).await.unwrap();
        let newer = toolgate_postgres::SCHEMA_VERSION + 1;
        scratch
            .admin
            .batch_execute(&format!(
                "UPDATE {}.toolgate_schema SET version = {newer}",
                scratch.schema
            ))
            .await
            .unwrap();
        let error = scratch
            .store(PostgresOptions::default(), 1)
            .await
            .expect_err("a newer schema is refused");
        let text = error.to_string();
        assert!(text.contains(&format!("version {newer}")), "{text}");
        assert!(
            text.contains(&format!("version {}", toolgate_postgres::SCHEMA_VERSION)),
            "{text}"
        );
        scratch.drop().await;
    });
}

#[test]
#[ignore = "needs PostgreSQL: set TOOLGATE_POSTGRES_URL"]
fn a_counter_stops_at_its_largest_value() {
    let url = url();
    suite::runtime().block_on(async {
        let (store, scratch) = Scratch::new(&url, "counter").await;
        let now = std::time::SystemTime::now();
        let hour = Duration::from_secs(3600);
        toolgate::EffectStore::count(&store, "full", now, hour)
            .await
            .unwrap();
        scratch
            .admin
            .batch_execute(&format!(
                "UPDATE {}.toolgate_counters SET value = {} WHERE key = 'full'",
                scratch.schema,
                u32::MAX
            ))
            .await
            .unwrap();
        for _ in 0..2 {
            let counted = toolgate::EffectStore::count(&store, "full", now, hour).await;
            assert_eq!(counted.unwrap(), u32::MAX);
        }
        let kept: i64 = scratch
            .admin
            .query_one(
                &format!(
                    "SELECT value FROM {}.toolgate_counters WHERE key = 'full'",
                    scratch.schema
                ),
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(kept, i64::from(u32::MAX));
        scratch.drop().await;
    });
}

#[test]
fn options_leave_a_url_s_own_settings_alone() {
    let mut config = tokio_postgres::Config::from_str(
        "postgres://u@h/db?connect_timeout=2&keepalives_idle=60&options=-c%20work_mem%3D4MB",
    )
    .unwrap();
    short()
        .lock_timeout(Duration::from_millis(50))
        .configure(&mut config);
    assert_eq!(config.get_connect_timeout(), Some(&Duration::from_secs(2)));
    assert_eq!(config.get_keepalives_idle(), Duration::from_secs(60));
    assert_eq!(
        config.get_options(),
        Some(
            "-c work_mem=4MB -c statement_timeout=1000 -c lock_timeout=50 \
             -c idle_in_transaction_session_timeout=1000"
        )
    );
    let mut bare = tokio_postgres::Config::from_str("postgres://u@h/db").unwrap();
    short().configure(&mut bare);
    assert_eq!(bare.get_connect_timeout(), Some(&Duration::from_secs(1)));
    assert_eq!(bare.get_keepalives_idle(), Duration::from_secs(15));
    assert_eq!(bare.get_keepalives_retries(), Some(3));
}
