//! The toolgate demo: the four seed tools (`book_hotel`,
//! `schedule_export`, `issue_refund`, `refund_invoice`) served over MCP,
//! gate 6 keeping its records in an embedded SQLite file.
//!
//! ```text
//! cargo run -p toolgate-demo                      # a scripted session, printed as a transcript
//! cargo run -p toolgate-demo -- --stdio           # serve over stdio, for an MCP client to start
//! cargo run -p toolgate-demo -- --http 127.0.0.1:8080   # serve over streamable HTTP
//! ```
//!
//! `--store PATH` keeps gate 6's records in that file across runs; by
//! default each run starts on a new file in the temporary directory.
//!
//! `--otlp URL` sends every span to an OpenTelemetry collector over
//! OTLP/HTTP (`http://127.0.0.1:4318`): each `tools/call`, the toolbox's
//! `execute_tool` span beneath it, and the audit events as their events.
//!
//! `--actor NAME` names the caller, an actor of `tenant_a` with every demo
//! scope (default `analyst_1`): the one the stdio server serves; over HTTP,
//! given more than once, the callers a token is printed for, one a line,
//! in that order. Two servers on one `--store`, or one HTTP server and
//! two tokens, show two callers of one tenant each getting their own
//! outcomes.
//!
//! `--approver NAME` (HTTP) adds a person of `tenant_a` who may also
//! approve refunds (`refunds:approve`); their tokens follow the actors'.
//! The HTTP server serves a page of the approvals waiting for whoever
//! opens it, with approve and deny buttons, at `/approvals#token=TOKEN`,
//! on the approvals API beside the MCP endpoint (`/mcp/approvals`).

mod audit;
mod script;
mod traces;

use std::path::PathBuf;
use std::sync::Arc;

use toolgate::Toolbox;
use toolgate_examples::export::{Accounts, ScheduleExport};
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_examples::invoice::{Billing, RefundInvoice};
use toolgate_examples::refund::{IssueRefund, Shop};
use toolgate_mcp::{HttpConfig, Identity, JwtAuthenticator, Tools};
use toolgate_sqlite::SqliteStore;

type Error = Box<dyn std::error::Error + Send + Sync>;

const USAGE: &str = "usage: toolgate-demo [--stdio | --http ADDR] [--store PATH] [--actor NAME]... [--approver NAME]... [--cedar] [--otlp URL]";

/// What to run.
enum Mode {
    Script,
    Stdio,
    Http(String),
}

struct Args {
    mode: Mode,
    store: Option<PathBuf>,
    /// The callers, in `tenant_a`; none given is `analyst_1`.
    actors: Vec<String>,
    /// People of `tenant_a` who may also approve refunds (HTTP).
    approvers: Vec<String>,
    /// Gate 5 by the seeds' Cedar policies instead of the Rust ones.
    cedar: bool,
    /// The OTLP/HTTP endpoint of a collector to send spans to.
    otlp: Option<String>,
}

fn args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        mode: Mode::Script,
        store: None,
        actors: Vec::new(),
        approvers: Vec::new(),
        cedar: false,
        otlp: None,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => parsed.mode = Mode::Stdio,
            "--http" => parsed.mode = Mode::Http(args.next().ok_or(USAGE)?),
            "--store" => parsed.store = Some(args.next().ok_or(USAGE)?.into()),
            "--actor" => parsed.actors.push(args.next().ok_or(USAGE)?),
            "--approver" => parsed.approvers.push(args.next().ok_or(USAGE)?),
            "--cedar" => parsed.cedar = true,
            "--otlp" => parsed.otlp = Some(args.next().ok_or(USAGE)?),
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if parsed.actors.is_empty() {
        parsed.actors.push(ANALYST.to_owned());
    }
    Ok(parsed)
}

/// The caller unless `--actor` names another.
const ANALYST: &str = "analyst_1";

/// The caller of the scripted session, and of the stdio server unless
/// `--actor` names another: an agent acting for `analyst_1` in
/// `tenant_a`, allowed every demo tool.
pub fn agent() -> Identity {
    caller(ANALYST)
}

/// `actor` in `tenant_a`, allowed every demo tool.
fn caller(actor: &str) -> Identity {
    Identity::new(actor, "tenant_a").with_scopes(SCOPES)
}

/// The scope `issue_refund` asks of the person who approves a refund.
const APPROVER_SCOPE: &str = "refunds:approve";

/// The scopes the demo's tools ask for.
const SCOPES: [&str; 4] = [
    "bookings:write",
    "exports:write",
    "refunds:write",
    "billing:refund",
];

/// The four toolboxes, one per application state, on one effect store.
pub struct Demo {
    pub hotels: Arc<Toolbox<Hotels>>,
    pub accounts: Arc<Toolbox<Accounts>>,
    pub shop: Arc<Toolbox<Shop>>,
    pub billing: Arc<Toolbox<Billing>>,
}

impl Demo {
    fn new(store: &SqliteStore, cedar: bool) -> Result<Demo, Error> {
        let (accounts, shop, billing) = states(cedar)?;
        let mut hotels = Toolbox::new(Hotels::demo()).with_effect_store(store.clone());
        hotels.register(BookHotel)?;
        let mut accounts = Toolbox::new(accounts).with_effect_store(store.clone());
        accounts.register(ScheduleExport)?;
        let mut shop = Toolbox::new(shop).with_effect_store(store.clone());
        shop.register(IssueRefund)?;
        let mut billing = Toolbox::new(billing).with_effect_store(store.clone());
        billing.register(RefundInvoice)?;
        Ok(Demo {
            hotels: Arc::new(hotels),
            accounts: Arc::new(accounts),
            shop: Arc::new(shop),
            billing: Arc::new(billing),
        })
    }

    /// Every tool, as one MCP server serves them.
    pub fn tools(&self) -> Tools {
        Tools::new()
            .with(Arc::clone(&self.hotels))
            .with(Arc::clone(&self.accounts))
            .with(Arc::clone(&self.shop))
            .with(Arc::clone(&self.billing))
    }
}

/// The states whose resources a policy decides on: by the Rust policies,
/// or (`--cedar`) by the seeds' Cedar policies, one line each.
#[cfg(feature = "cedar")]
fn states(cedar: bool) -> Result<(Accounts, Shop, Billing), Error> {
    if !cedar {
        return Ok((Accounts::demo(), Shop::demo(), Billing::demo()));
    }
    let policies = Arc::new(toolgate_examples::policies::seeds()?);
    Ok((
        Accounts::demo().with_policies(Arc::clone(&policies)),
        Shop::demo().with_policies(Arc::clone(&policies)),
        Billing::demo().with_policies(policies),
    ))
}

#[cfg(not(feature = "cedar"))]
fn states(cedar: bool) -> Result<(Accounts, Shop, Billing), Error> {
    if cedar {
        return Err("Cedar policies need the `cedar` feature: cargo run -p toolgate-demo --features cedar -- --cedar".into());
    }
    Ok((Accounts::demo(), Shop::demo(), Billing::demo()))
}

/// The store's file, and whether it is a scratch file to delete at the end.
fn store_path(given: Option<PathBuf>) -> (PathBuf, bool) {
    match given {
        Some(path) => (path, false),
        None => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let name = format!("toolgate-demo-{}-{nanos}.db", std::process::id());
            (std::env::temp_dir().join(name), true)
        }
    }
}

fn remove_scratch(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.to_path_buf().into_os_string();
        file.push(suffix);
        let _ = std::fs::remove_file(file);
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = match args() {
        Ok(args) => args,
        Err(usage) => {
            eprintln!("{usage}");
            return std::process::ExitCode::from(2);
        }
    };
    match run(args).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("toolgate-demo: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), Error> {
    let (path, scratch) = store_path(args.store);
    // Over stdio, standard output is the protocol's: the audit log goes to
    // standard error there, and for the HTTP server too.
    let to_stdout = matches!(args.mode, Mode::Script);
    let exporting = audit::install(to_stdout, args.otlp.as_deref())?;
    let store = SqliteStore::open(&path).await?;
    let demo = Demo::new(&store, args.cedar)?;
    let served = async {
        match args.mode {
            Mode::Script => script::run(&demo, &path).await,
            Mode::Stdio => {
                let actor = args.actors.first().map_or(ANALYST, String::as_str);
                toolgate_mcp::serve_stdio(demo.tools(), caller(actor))
                    .await
                    .map_err(Error::from)
            }
            Mode::Http(addr) => http(&demo, &addr, &args.actors, &args.approvers).await,
        }
    };
    // Asked to stop, the demo stops serving and still removes its scratch
    // store.
    let result = tokio::select! {
        result = served => result,
        () = stop_asked() => Ok(()),
    };
    if scratch {
        remove_scratch(&path);
    }
    if let Some(exporting) = exporting {
        exporting.finish().await;
    }
    result
}

/// Ends when the process is asked to stop: Ctrl-C, or `SIGTERM` on Unix
/// (what a process manager or an MCP host sends). Never, where neither
/// can be listened for.
async fn stop_asked() {
    #[cfg(unix)]
    if let Ok(mut terminate) =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
        return;
    }
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Serves over streamable HTTP, behind bearer tokens signed with a secret
/// made for this run; prints a token for each of `actors`, then for each
/// of `approvers`, one a line. The approvals page is beside it.
///
/// The demo issues its tokens itself: its own origin is the issuer the
/// protected-resource metadata names and the tokens carry, and there is
/// no OAuth flow to follow (a client is given a printed token).
async fn http(
    demo: &Demo,
    addr: &str,
    actors: &[String],
    approvers: &[String],
) -> Result<(), Error> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let issuer = format!("http://{local}");
    let resource = format!("{issuer}/mcp");
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| format!("no random secret: {e}"))?;
    let people = actors
        .iter()
        .map(|actor| (actor, false))
        .chain(approvers.iter().map(|approver| (approver, true)));
    let tokens = people
        .map(|(actor, approves)| {
            let scopes = SCOPES
                .iter()
                .copied()
                .chain(approves.then_some(APPROVER_SCOPE));
            let scopes: Vec<&str> = scopes.collect();
            token(&secret, &issuer, &resource, actor, "tenant_a", &scopes)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let authenticator = JwtAuthenticator::hs256(&secret)?
        .issuer(&issuer)
        .audience(&resource);
    let config = HttpConfig::new(resource.as_str())
        .authorization_servers([issuer.as_str()])
        .scopes(SCOPES);
    let app = toolgate_mcp::router(demo.tools(), authenticator, config)
        .route("/approvals", axum::routing::get(approvals_page));
    eprintln!("toolgate demo: MCP over streamable HTTP at {resource}");
    eprintln!("approvals waiting for a person: {issuer}/approvals#token=TOKEN");
    let everyone: Vec<&str> = actors.iter().chain(approvers).map(String::as_str).collect();
    eprintln!(
        "a bearer token for each of {} in tenant_a, valid for 12 hours, one a line:",
        everyone.join(", ")
    );
    // Standard output holds only the tokens: scripts read them from it.
    for token in tokens {
        println!("{token}");
    }
    axum::serve(listener, app).await?;
    Ok(())
}

/// The approvals page: plain HTML and a little script, which calls the
/// approvals API with the token the page was given.
async fn approvals_page() -> axum::response::Html<&'static str> {
    axum::response::Html(include_str!("approvals.html"))
}

/// A token from `issuer` for `actor` in `tenant` with `scopes`, for the
/// MCP endpoint `audience`, for 12 hours.
fn token(
    secret: &[u8],
    issuer: &str,
    audience: &str,
    actor: &str,
    tenant: &str,
    scopes: &[&str],
) -> Result<String, Error> {
    let now = std::time::SystemTime::now().duration_since(std::time::SystemTime::UNIX_EPOCH)?;
    let claims = serde_json::json!({
        "sub": actor,
        "tenant": tenant,
        "iss": issuer,
        "aud": audience,
        "scope": scopes.join(" "),
        "exp": now.as_secs() + 12 * 3600,
    });
    let key = jsonwebtoken::EncodingKey::from_secret(secret)?;
    Ok(jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &claims,
        &key,
    )?)
}
