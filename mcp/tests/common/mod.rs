//! What the HTTP tests share: tokens, a server on a loopback port, raw
//! requests, and the audit log as the tests read it.

#![allow(dead_code)] // each test file uses a part

use std::sync::{Arc, Mutex, OnceLock};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use toolgate::Toolbox;
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_mcp::{HttpConfig, JwtAuthenticator};

pub const SECRET: &[u8] = b"a test secret that is long enough";
pub const ISSUER: &str = "https://auth.example.com";
/// The audience the tests' tokens are issued for and their servers accept.
/// A real server names its endpoint's URL; most servers here are started
/// on a port not known until then (`tokens.rs` names the URL itself).
pub const AUDIENCE: &str = "https://tools.example.com/mcp";

pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An hour from now.
pub fn exp() -> u64 {
    now() + 3600
}

/// `claims` signed with the tests' secret.
pub fn token(claims: Value) -> String {
    signed(Algorithm::HS256, SECRET, &claims)
}

pub fn signed(algorithm: Algorithm, secret: &[u8], claims: &Value) -> String {
    jsonwebtoken::encode(
        &Header::new(algorithm),
        claims,
        &EncodingKey::from_secret(secret).unwrap(),
    )
    .unwrap()
}

/// A token for `actor` in `tenant_a`, allowed to book.
pub fn bearer(actor: &str) -> String {
    token(json!({"sub":actor,"tenant":"tenant_a","scope":"bookings:write","aud":AUDIENCE,"exp":exp()}))
}

pub fn hotels() -> Arc<Toolbox<Hotels>> {
    let mut toolbox = Toolbox::new(Hotels::demo());
    toolbox.register(BookHotel).unwrap();
    Arc::new(toolbox)
}

/// Serves `router` on a loopback port; what it is given is the resource
/// URL it will be reached at.
pub async fn serve(router: impl FnOnce(&str) -> axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let router = router(&resource);
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    resource
}

/// Serves `toolbox` behind the tests' HS256 tokens; its `/mcp` URL.
pub async fn start(toolbox: Arc<Toolbox<Hotels>>) -> String {
    serve(|resource| {
        toolgate_mcp::router(
            toolbox,
            JwtAuthenticator::hs256(SECRET).unwrap().audience(AUDIENCE),
            HttpConfig::new(resource)
                .authorization_servers([ISSUER])
                .scopes(["bookings:write"]),
        )
    })
    .await
}

pub const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A `tools/call` of `book_hotel` in the 2026-07-28 form (`_meta` on the
/// request).
pub fn discover_call(id: u64, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"book_hotel","arguments":{arguments},{META}}}}}"#
    )
}

/// A `tools/call` of `book_hotel` in the 2025-11-25 form.
pub fn session_call(id: u64, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"book_hotel","arguments":{arguments}}}}}"#
    )
}

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

/// A request as MCP's HTTP clients send one, with the headers that say
/// what it is.
pub fn request(
    method: reqwest::Method,
    url: &str,
    bearer: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut request = reqwest::Client::new()
        .request(method, url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(bearer) = bearer {
        request = request.header("authorization", format!("Bearer {bearer}"));
    }
    request
}

/// POSTs a 2026-07-28 `tools/call` of `book_hotel`.
pub async fn post_discover(
    url: &str,
    bearer: &str,
    body: impl Into<reqwest::Body>,
) -> reqwest::Response {
    post_method(url, bearer, "tools/call", Some("book_hotel"), body).await
}

/// POSTs a 2026-07-28 request with the headers that name its method and,
/// for a call, its tool.
pub async fn post_method(
    url: &str,
    bearer: &str,
    method: &str,
    name: Option<&str>,
    body: impl Into<reqwest::Body>,
) -> reqwest::Response {
    let mut request = request(reqwest::Method::POST, url, Some(bearer))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    request.body(body).send().await.unwrap()
}

/// Opens a 2025-11-25 session as `bearer`; its id.
pub async fn open_session(url: &str, bearer: &str) -> String {
    let opened = request(reqwest::Method::POST, url, Some(bearer))
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = message(opened).await;
    let initialized = in_session(url, bearer, &session, reqwest::Method::POST)
        .body(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(initialized.status(), 202);
    session
}

/// A 2025-11-25 request in `session`, as `bearer`.
pub fn in_session(
    url: &str,
    bearer: &str,
    session: &str,
    method: reqwest::Method,
) -> reqwest::RequestBuilder {
    request(method, url, Some(bearer))
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
}

/// The JSON-RPC message in a response: JSON, or the first server-sent
/// event that carries one.
pub async fn message(response: reqwest::Response) -> Value {
    let text = response.text().await.unwrap();
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| !data.is_empty())
        .unwrap_or(&text)
        .trim();
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The result of a `tools/call`, parsed from its text.
pub async fn outcome(response: reqwest::Response) -> Value {
    let answer = message(response).await;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    serde_json::from_str(text).unwrap()
}

/// Every event sent to the `toolgate::audit` target by this test binary,
/// one line each: `message name=value ...`.
pub fn audit_log() -> Vec<String> {
    audit().lock().unwrap().clone()
}

fn audit() -> &'static Mutex<Vec<String>> {
    static LOG: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    let log = LOG.get_or_init(Mutex::default);
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        use tracing_subscriber::layer::SubscriberExt as _;
        let subscriber = tracing_subscriber::Registry::default().with(Audit);
        tracing::subscriber::set_global_default(subscriber).unwrap();
    });
    log
}

/// Starts recording the audit log (before the events to be read).
pub fn record_audit() {
    let _ = audit();
}

struct Audit;

#[derive(Default)]
struct Line(String);

impl tracing::field::Visit for Line {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write as _;
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Audit {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        if event.metadata().target() != "toolgate::audit" {
            return;
        }
        let mut line = Line::default();
        event.record(&mut line);
        if let Ok(mut log) = audit().lock() {
            log.push(line.0);
        }
    }
}
