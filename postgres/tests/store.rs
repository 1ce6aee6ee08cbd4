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
//! Without it, each test says on standard error that it was skipped, and
//! passes. CI sets it, and there they run.

use std::io::Write as _;
use std::str::FromStr as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use toolgate::{Code, ToolContext, ToolError, Toolbox, tool};
use toolgate_postgres::PostgresStore;
use toolgate_postgres::deadpool_postgres::{self, Manager, ManagerConfig, Pool, RecyclingMethod};
use toolgate_store_suite::{self as suite, Store};

const URL: &str = "TOOLGATE_POSTGRES_URL";

/// The database URL, or `None` after saying, past the test harness's
/// output capture, that the test was skipped and how to run it.
fn url(test: &str) -> Option<String> {
    match std::env::var(URL) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: no PostgreSQL. Set {URL}=postgres://user:password@host/database to run it."
            );
            None
        }
    }
}

async fn open(url: &str) -> Store {
    Arc::new(
        PostgresStore::connect(url)
            .await
            .unwrap_or_else(|e| panic!("{URL} is set, but the store did not open: {e}")),
    )
}

#[test]
fn the_postgres_store_passes_the_store_suite() {
    let Some(url) = url("the_postgres_store_passes_the_store_suite") else {
        return;
    };
    suite::runtime().block_on(suite::assert_suite(|| open(&url)));
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
fn two_processes_on_one_database_run_a_call_once() {
    let Some(url) = url("two_processes_on_one_database_run_a_call_once") else {
        return;
    };
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
fn a_process_killed_in_a_body_leaves_a_lease_that_runs_out() {
    let Some(url) = url("a_process_killed_in_a_body_leaves_a_lease_that_runs_out") else {
        return;
    };
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
fn replicas_starting_together_migrate_once() {
    let Some(url) = url("replicas_starting_together_migrate_once") else {
        return;
    };
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
        assert_eq!((version, rows), (1, 1));
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
fn a_database_lost_mid_call_loses_no_outcome_and_runs_nothing_unrecorded() {
    let Some(url) = url("a_database_lost_mid_call_loses_no_outcome_and_runs_nothing_unrecorded")
    else {
        return;
    };
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
fn expired_rows_are_swept_in_batches_of_256() {
    let Some(url) = url("expired_rows_are_swept_in_batches_of_256") else {
        return;
    };
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
fn a_toolbox_on_a_clock_ahead_sweeps_no_live_row() {
    let Some(url) = url("a_toolbox_on_a_clock_ahead_sweeps_no_live_row") else {
        return;
    };
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
}

impl Scratch {
    async fn new(url: &str, what: &str) -> (PostgresStore, Scratch) {
        let schema = suite::fresh(what).replace('-', "_");
        let (admin, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        admin
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .await
            .unwrap();
        let mut config = tokio_postgres::Config::from_str(url).unwrap();
        config.options(format!("-c search_path={schema}"));
        let store = PostgresStore::from_pool(pool(config, 4)).await.unwrap();
        (store, Scratch { admin, schema })
    }

    async fn drop(self) {
        self.admin
            .batch_execute(&format!("DROP SCHEMA {} CASCADE", self.schema))
            .await
            .unwrap();
    }
}

#[test]
fn two_processes_on_one_database_resume_an_approval_once() {
    let Some(url) = url("two_processes_on_one_database_resume_an_approval_once") else {
        return;
    };
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
