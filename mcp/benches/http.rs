//! End to end over streamable HTTP on loopback: 16 concurrent clients,
//! then one client alone, calling one read tool, written once as a plain rmcp `#[tool]` and once
//! as a toolgate `#[tool]` served by `toolgate_mcp::router`, in the same
//! process and build. Rounds alternate between the two servers so that
//! the machine's drift falls on both.
//!
//! `cargo bench -p toolgate-mcp --bench http` prints calls per second and
//! p50/p99 latency for each, and their ratios, for all rounds pooled and
//! round by round (each round of one server against the round next to it
//! of the other, the median and the extremes of the differences); `ROUNDS`
//! in the environment sets the rounds per server (6). Each call is one POST on
//! the 2026-07-28 protocol (no session), as the Python SDK makes it, with
//! one bearer token checked by the same authenticator in front of both.
//!
//! `cargo bench -p toolgate-mcp --bench http -- probe <rmcp|toolgate> <n>`
//! instead makes `n` calls one after another through each server's axum
//! router itself, with no sockets and no client, on one thread: under
//! callgrind, the difference between two `n` is one call's instructions
//! on the server side alone. `-- load <rmcp|toolgate> [clients]` runs
//! one server's rounds alone (16 clients unless given), for `perf stat`
//! or `perf record` of one server at a time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use toolgate::{BoxFuture, ToolError, Toolbox};
use toolgate_mcp::{Authenticator, HttpConfig, Identity, Unauthorized};

/// Clients calling at once: the load, then one client alone (each call's
/// latency with nothing queued before it).
const LOADS: [usize; 2] = [16, 1];
/// Calls per client per round.
const CALLS: usize = 250;
/// Rounds per server, alternating, unless `ROUNDS` says.
const ROUNDS: usize = 6;

/// The nightly rates both servers quote from.
struct Catalogue(std::collections::HashMap<&'static str, u64>);

impl Catalogue {
    fn demo() -> Catalogue {
        Catalogue(
            [
                ("h_seaview1", 12_000),
                ("h_alpine22", 18_500),
                ("h_central3", 9_900),
            ]
            .into_iter()
            .collect(),
        )
    }
}

/// What both tools return.
#[derive(Serialize, schemars::JsonSchema)]
struct Quote {
    hotel_id: String,
    nights: u8,
    total_cents: u64,
}

// The toolgate tool: arguments closed and checked by its gates.

/// Quote a stay: the nightly rate times the nights.
#[toolgate::tool(effect = read)]
async fn quote_stay(
    catalogue: &Catalogue,
    /// The hotel's id.
    #[garde(pattern(r"^h_[a-z0-9]{8}$"))]
    hotel_id: String,
    /// How many nights.
    #[garde(range(min = 1, max = 30))]
    nights: u8,
) -> Result<Quote, ToolError> {
    let Some(rate) = catalogue.0.get(hotel_id.as_str()) else {
        return Err(ToolError::internal("no such hotel"));
    };
    Ok(Quote {
        total_cents: rate * u64::from(nights),
        hotel_id,
        nights,
    })
}

/// Every bearer token `bench` is the caller; any other is refused.
struct StaticToken;

impl Authenticator for StaticToken {
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, Unauthorized>> {
        Box::pin(async move {
            if token == "bench" {
                Ok(Identity::new("bench_1", "tenant_a"))
            } else {
                Err(Unauthorized("not the bench token".into()))
            }
        })
    }
}

// The plain rmcp tool: what an rmcp user writes, with the same checks
// by hand.

#[derive(Deserialize, schemars::JsonSchema)]
struct QuoteArgs {
    /// The hotel's id.
    hotel_id: String,
    /// How many nights.
    nights: u8,
}

#[derive(Clone)]
struct Plain {
    catalogue: Arc<Catalogue>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Plain {
    fn new() -> Plain {
        Plain {
            catalogue: Arc::new(Catalogue::demo()),
            tool_router: Self::tool_router(),
        }
    }

    /// Quote a stay: the nightly rate times the nights.
    #[tool(description = "Quote a stay: the nightly rate times the nights.")]
    async fn quote_stay(
        &self,
        Parameters(args): Parameters<QuoteArgs>,
    ) -> Result<Json<Quote>, ErrorData> {
        static HOTEL_ID: std::sync::LazyLock<regex::Regex> =
            std::sync::LazyLock::new(|| regex::Regex::new(r"^h_[a-z0-9]{8}$").expect("a pattern"));
        if !HOTEL_ID.is_match(&args.hotel_id) {
            return Err(ErrorData::invalid_params(
                "hotel_id must match ^h_[a-z0-9]{8}$",
                None,
            ));
        }
        if !(1..=30).contains(&args.nights) {
            return Err(ErrorData::invalid_params(
                "nights must be between 1 and 30",
                None,
            ));
        }
        let Some(rate) = self.catalogue.0.get(args.hotel_id.as_str()) else {
            return Err(ErrorData::invalid_params("no such hotel", None));
        };
        Ok(Json(Quote {
            total_cents: rate * u64::from(args.nights),
            hotel_id: args.hotel_id,
            nights: args.nights,
        }))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Plain {}

async fn serve(app: axum::Router) -> String {
    use axum::serve::ListenerExt as _;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("an address");
    // Small answers go out at once, on both servers alike.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/mcp")
}

fn plain() -> axum::Router {
    let service = StreamableHttpService::new(
        || Ok(Plain::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    axum::Router::new()
        .route_service("/mcp", service)
        .layer(axum::middleware::from_fn(bearer))
}

/// The same authentication in front of rmcp as toolgate's router runs:
/// the bearer token read from the header and handed to the same
/// [`Authenticator`], the identity put in the request's extensions, and
/// `401` without one. The ratio is then the boundary's cost alone.
async fn bearer(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let token = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_owned);
    let Some(token) = token else {
        return axum::http::StatusCode::UNAUTHORIZED.into_response();
    };
    match StaticToken.authenticate(&token).await {
        Ok(identity) => {
            request.extensions_mut().insert(identity);
            next.run(request).await
        }
        Err(_) => axum::http::StatusCode::UNAUTHORIZED.into_response(),
    }
}

fn gated() -> axum::Router {
    let mut toolbox = Toolbox::new(Catalogue::demo());
    toolbox.register(QuoteStay).expect("quote_stay registers");
    toolgate_mcp::router(
        toolbox,
        StaticToken,
        HttpConfig::new("http://127.0.0.1/mcp").authorization_servers(["https://auth.example.com"]),
    )
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quote_stay","arguments":{"hotel_id":"h_seaview1","nights":3},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// The headers of every call, as the Python SDK sends them.
const HEADERS: [(&str, &str); 6] = [
    ("authorization", "Bearer bench"),
    ("accept", "application/json, text/event-stream"),
    ("content-type", "application/json"),
    ("mcp-protocol-version", "2026-07-28"),
    ("mcp-method", "tools/call"),
    ("mcp-name", "quote_stay"),
];

/// One call; panics unless it is the quote.
async fn call(client: &reqwest::Client, url: &str) {
    let mut request = client.post(url);
    for (name, value) in HEADERS {
        request = request.header(name, value);
    }
    let response = request.body(CALL).send().await.expect("an answer");
    assert!(response.status().is_success(), "{}", response.status());
    let body = response.text().await.expect("a body");
    assert!(body.contains(r#""total_cents":36000"#), "{body}");
}

/// One round: `clients` clients making CALLS calls each. The latencies,
/// and the round's wall time.
async fn round(url: &str, clients: usize) -> (Vec<Duration>, Duration) {
    let start = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let url = url.to_owned();
            tokio::spawn(async move {
                let client = reqwest::Client::new();
                let mut latencies = Vec::with_capacity(CALLS);
                for _ in 0..CALLS {
                    let at = Instant::now();
                    call(&client, &url).await;
                    latencies.push(at.elapsed());
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(clients * CALLS);
    for task in tasks {
        latencies.extend(task.await.expect("a client finishes"));
    }
    (latencies, start.elapsed())
}

struct Totals {
    latencies: Vec<Duration>,
    wall: Duration,
}

impl Totals {
    fn add(&mut self, (latencies, wall): (Vec<Duration>, Duration)) {
        self.latencies.extend(latencies);
        self.wall += wall;
    }

    fn rate(&self) -> f64 {
        self.latencies.len() as f64 / self.wall.as_secs_f64()
    }

    fn percentile(&mut self, p: f64) -> Duration {
        self.latencies.sort_unstable();
        let at = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        self.latencies[at]
    }
}

/// `n` calls through `app` as a tower service, one after another.
fn probe(app: axum::Router, n: usize) {
    use tower::ServiceExt as _;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        for _ in 0..n {
            let mut request = axum::http::Request::post("/mcp").header("host", "127.0.0.1");
            for (name, value) in HEADERS {
                request = request.header(name, value);
            }
            let request = request
                .body(axum::body::Body::from(CALL))
                .expect("a request");
            let response = app.clone().oneshot(request).await.expect("an answer");
            assert!(response.status().is_success(), "{}", response.status());
            let body = http_body_util::BodyExt::collect(response.into_body())
                .await
                .expect("a body")
                .to_bytes();
            let body = String::from_utf8_lossy(&body);
            assert!(body.contains(r#""total_cents":36000"#), "{body}");
        }
    });
}

/// One round's figures: calls/s, p50, p99.
fn figures(latencies: &[Duration], wall: Duration) -> (f64, Duration, Duration) {
    let mut totals = Totals {
        latencies: latencies.to_vec(),
        wall,
    };
    (
        totals.rate(),
        totals.percentile(0.50),
        totals.percentile(0.99),
    )
}

/// The median, least and greatest of `values`.
fn spread(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_unstable_by(f64::total_cmp);
    let median = values[values.len() / 2];
    (median, values[0], values[values.len() - 1])
}

/// Both servers under `clients` clients, rounds alternating (which server
/// goes first alternates too); prints the table of all rounds pooled, then
/// each pair of rounds compared: the machine's drift from one pair to the
/// next falls on both servers of a pair.
async fn measure(plain_url: &str, gated_url: &str, clients: usize, rounds: usize) {
    // Warm both up (connections, allocator, caches).
    round(plain_url, clients).await;
    round(gated_url, clients).await;
    let mut plain = Totals {
        latencies: Vec::new(),
        wall: Duration::ZERO,
    };
    let mut gated = Totals {
        latencies: Vec::new(),
        wall: Duration::ZERO,
    };
    let mut pairs = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let (a, b) = if i % 2 == 0 {
            let a = round(plain_url, clients).await;
            (a, round(gated_url, clients).await)
        } else {
            let b = round(gated_url, clients).await;
            (round(plain_url, clients).await, b)
        };
        pairs.push((figures(&a.0, a.1), figures(&b.0, b.1)));
        plain.add(a);
        gated.add(b);
    }
    println!(
        "{clients} client(s), {} calls per server in {rounds} alternating rounds",
        clients * CALLS * rounds
    );
    println!(
        "{:<10} {:>10} {:>10} {:>10}",
        "server", "calls/s", "p50", "p99"
    );
    let mut rows = Vec::new();
    for (name, totals) in [("rmcp", &mut plain), ("toolgate", &mut gated)] {
        let row = (
            totals.rate(),
            totals.percentile(0.50),
            totals.percentile(0.99),
        );
        println!(
            "{name:<10} {:>10.0} {:>10.3?} {:>10.3?}",
            row.0, row.1, row.2
        );
        rows.push(row);
    }
    let micros = |a: Duration, b: Duration| (a.as_secs_f64() - b.as_secs_f64()) * 1e6;
    println!(
        "toolgate/rmcp: calls/s {:.2}x; p50 {:+.0} us, p99 {:+.0} us",
        rows[1].0 / rows[0].0,
        micros(rows[1].1, rows[0].1),
        micros(rows[1].2, rows[0].2),
    );
    let rate = spread(pairs.iter().map(|(a, b)| b.0 / a.0).collect());
    let p50 = spread(pairs.iter().map(|(a, b)| micros(b.1, a.1)).collect());
    let p99 = spread(pairs.iter().map(|(a, b)| micros(b.2, a.2)).collect());
    println!(
        "round by round, median (least to greatest): calls/s {:.2}x ({:.2} to {:.2}); \
         p50 {:+.0} us ({:+.0} to {:+.0}); p99 {:+.0} us ({:+.0} to {:+.0})\n",
        rate.0, rate.1, rate.2, p50.0, p50.1, p50.2, p99.0, p99.1, p99.2,
    );
}

/// Rounds per server: `ROUNDS` from the environment, or [`ROUNDS`].
fn rounds() -> usize {
    std::env::var("ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(ROUNDS)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "probe") {
        let n = args
            .get(at + 2)
            .and_then(|n| n.parse().ok())
            .expect("probe <rmcp|toolgate> <n>");
        match args.get(at + 1).map(String::as_str) {
            Some("rmcp") => probe(plain(), n),
            Some("toolgate") => probe(gated(), n),
            _ => panic!("probe <rmcp|toolgate> <n>"),
        }
        return;
    }
    if let Some(at) = args.iter().position(|a| a == "load") {
        let app = match args.get(at + 1).map(String::as_str) {
            Some("rmcp") => plain(),
            Some("toolgate") => gated(),
            _ => panic!("load <rmcp|toolgate> [clients]"),
        };
        let clients = args
            .get(at + 2)
            .and_then(|n| n.parse().ok())
            .unwrap_or(LOADS[0]);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let url = serve(app).await;
            for _ in 0..rounds() {
                round(&url, clients).await;
            }
        });
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let plain_url = serve(plain()).await;
        let gated_url = serve(gated()).await;
        let rounds = rounds();
        for clients in LOADS {
            measure(&plain_url, &gated_url, clients, rounds).await;
        }
    });
}
