//! What the HTTP endpoint refuses before any tool runs, each with the
//! setting that decides it: a body that is not JSON text, a foreign
//! `Origin` or `Host`, a body past the toolbox's own limit; and the
//! protected-resource metadata naming who issues tokens.

mod common;

use std::sync::Arc;

use common::{
    AUDIENCE, INITIALIZE, ISSUER, SECRET, bearer, discover_call, hotels, post_discover, request,
    serve,
};
use serde_json::{Value, json};
use toolgate::{Limits, Toolbox};
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_mcp::{HttpConfig, JwtAuthenticator};

/// A body that is not JSON text is a `400` carrying JSON-RPC's parse
/// error (-32700) without an id, as the streamable HTTP transport says
/// for input the server cannot accept. Nothing runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_json_text_is_a_400_parse_error() {
    let toolbox = hotels();
    let url = common::start(Arc::clone(&toolbox)).await;
    let token = bearer("analyst_1");

    let malformed = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{]"#;
    let response = common::post_method(&url, &token, "tools/list", None, &malformed[..]).await;
    assert_eq!(response.status(), 400);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert!(answer.get("id").is_none_or(Value::is_null), "{answer}");

    let mut latin1 =
        discover_call(1, r#"{"hotel_id":"h_seaview1","nights":2,"note":"cafX"}"#).into_bytes();
    let at = latin1.iter().position(|&b| b == b'X').unwrap();
    latin1[at] = 0xE9;
    let mut in_meta = discover_call(1, r#"{"hotel_id":"h_seaview1","nights":2}"#).into_bytes();
    let at = in_meta
        .windows(b"protocolVersion".len())
        .position(|w| w == b"protocolVersion")
        .unwrap();
    in_meta[at] = 0xE9;
    for body in [latin1, in_meta, b"  ".to_vec()] {
        let response = post_discover(&url, &token, body).await;
        assert_eq!(response.status(), 400);
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
        assert!(answer.get("id").is_none_or(Value::is_null), "{answer}");
    }
    assert!(toolbox.state().bookings().is_empty());
}

/// A notification gate 1 refuses (here a repeated key) has no id to
/// answer by: it is a `400`, and rmcp, which keeps the last of two equal
/// keys, never parses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_notification_is_a_400_never_handed_on() {
    let url = common::start(hotels()).await;
    let token = bearer("analyst_1");
    let repeated = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let response =
        common::post_method(&url, &token, "notifications/cancelled", None, repeated).await;
    assert_eq!(response.status(), 400);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("more than once"),
        "{answer}"
    );
}

/// `initialize` with an `Origin` header, as a browser sends it.
async fn initialize_from(url: &str, origin: Option<&str>) -> reqwest::Response {
    let mut request = request(reqwest::Method::POST, url, Some(&bearer("analyst_1")));
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    request.body(INITIALIZE).send().await.unwrap()
}

/// DNS rebinding: a page of another site, its name pointed at the
/// loopback address, reaches the server with its own `Origin`. MCP's
/// transport says the server must validate it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_origin_is_refused() {
    let url = common::start(hotels()).await;
    let refused = initialize_from(&url, Some("http://rebind.example.invalid")).await;
    assert_eq!(refused.status(), 403);
    assert!(refused.headers().get("mcp-session-id").is_none());

    // The resource's own origin, a loopback page, and a client that sends
    // no Origin (not a browser) are served.
    let own = url.trim_end_matches("/mcp").to_owned();
    for origin in [Some(own.as_str()), Some("http://localhost:5173"), None] {
        let served = initialize_from(&url, origin).await;
        assert_eq!(served.status(), 200, "{origin:?}");
        assert!(served.headers().get("mcp-session-id").is_some());
    }
}

/// Configured origins replace the default ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_allowed_origins_are_those_configured() {
    let url = serve(|resource| {
        toolgate_mcp::router(
            hotels(),
            JwtAuthenticator::hs256(SECRET).unwrap().audience(AUDIENCE),
            HttpConfig::new(resource)
                .authorization_servers([ISSUER])
                .allowed_origins(["https://app.example.com"]),
        )
    })
    .await;
    let served = initialize_from(&url, Some("https://app.example.com")).await;
    assert_eq!(served.status(), 200);
    for origin in [
        "http://localhost:5173",
        "https://app.example.com:8443",
        "http://app.example.com",
    ] {
        let refused = initialize_from(&url, Some(origin)).await;
        assert_eq!(refused.status(), 403, "{origin}");
    }
}

/// The `Host` header names the server the client meant: by default a
/// loopback name only; configured, those names only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_not_allowed_is_refused() {
    let url = common::start(hotels()).await;
    let foreign = request(reqwest::Method::POST, &url, Some(&bearer("analyst_1")))
        .header("host", "rebind.example.invalid")
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);

    let url = serve(|resource| {
        toolgate_mcp::router(
            hotels(),
            JwtAuthenticator::hs256(SECRET).unwrap().audience(AUDIENCE),
            HttpConfig::new(resource)
                .authorization_servers([ISSUER])
                .allowed_hosts(["tools.example.com"]),
        )
    })
    .await;
    let named = request(reqwest::Method::POST, &url, Some(&bearer("analyst_1")))
        .header("host", "tools.example.com")
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    assert_eq!(named.status(), 200);
    let loopback = initialize_from(&url, None).await;
    assert_eq!(loopback.status(), 403);
}

/// The transport reads no more than the toolbox's own byte limit allows
/// (with room for the envelope), not a default of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_body_limit_is_the_toolbox_s() {
    let mut toolbox = Toolbox::new(Hotels::demo()).with_limits(Limits::default().max_bytes(1024));
    toolbox.register(BookHotel).unwrap();
    let toolbox = Arc::new(toolbox);
    let url = serve(|resource| {
        toolgate_mcp::router(
            Arc::clone(&toolbox),
            JwtAuthenticator::hs256(SECRET).unwrap().audience(AUDIENCE),
            HttpConfig::new(resource).authorization_servers([ISSUER]),
        )
    })
    .await;
    // Past 1 KiB of arguments and their 16 KiB envelope; well within the
    // default limit.
    let padding = "a".repeat(20 * 1024);
    let body = discover_call(
        1,
        &format!(r#"{{"hotel_id":"h_seaview1","nights":2,"note":"{padding}"}}"#),
    );
    let response = post_discover(&url, &bearer("analyst_1"), body).await;
    assert_eq!(response.status(), 413);
    assert!(toolbox.state().bookings().is_empty());
}

/// RFC 9728 metadata names the authorization server, which MCP clients
/// need to find where a token comes from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metadata_names_the_authorization_servers() {
    let url = serve(|resource| {
        toolgate_mcp::router(
            hotels(),
            JwtAuthenticator::hs256(SECRET).unwrap().audience(AUDIENCE),
            HttpConfig::new(resource)
                .authorization_servers([ISSUER, "https://backup-auth.example.com"])
                .scopes(["bookings:write"]),
        )
    })
    .await;
    let metadata = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let published: Value = reqwest::get(&metadata).await.unwrap().json().await.unwrap();
    assert_eq!(
        published,
        json!({
            "resource": url,
            "authorization_servers": [ISSUER, "https://backup-auth.example.com"],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["bookings:write"],
        })
    );
}
