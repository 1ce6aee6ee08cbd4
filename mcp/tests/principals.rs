//! Two principals of one tenant, over MCP: each gets the outcome of its
//! own call, never the other's, on both transports and both protocol
//! generations; a session opened by one is refused to the other as if
//! it did not exist, and the refusal is in the audit log.

mod common;

use std::sync::Arc;

use common::{
    bearer, discover_call, hotels, in_session, message, open_session, outcome, post_discover,
    session_call,
};
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::ClientLifecycleMode;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use toolgate_mcp::Identity;

const STAY: &str = r#"{"hotel_id":"h_seaview1","nights":2}"#;

fn stay() -> CallToolRequestParams {
    let args: Value = serde_json::from_str(STAY).unwrap();
    CallToolRequestParams::new("book_hotel").with_arguments(args.as_object().unwrap().clone())
}

fn lifecycle(version: &ProtocolVersion) -> ClientLifecycleMode {
    if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    }
}

/// rmcp's client over HTTP as `actor`: books the same stay twice; the
/// guest of each booking it reads.
async fn books_twice_over_http(url: &str, actor: &str, version: &ProtocolVersion) -> [Value; 2] {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(bearer(actor)),
    );
    let client = rmcp::serve_client_with_lifecycle((), transport, lifecycle(version))
        .await
        .unwrap();
    let mut guests = [Value::Null, Value::Null];
    for guest in &mut guests {
        let done = client.call_tool(stay()).await.unwrap();
        assert_eq!(done.is_error, Some(false), "{done:?}");
        *guest = done.structured_content.unwrap()["guest"].clone();
    }
    client.cancel().await.unwrap();
    guests
}

async fn each_principal_gets_its_own_outcome_over_http(version: ProtocolVersion) {
    let toolbox = hotels();
    let url = common::start(Arc::clone(&toolbox)).await;
    // The model repeats itself: one booking, replayed to its caller.
    let first = books_twice_over_http(&url, "analyst_1", &version).await;
    assert_eq!(first, [json!("analyst_1"), json!("analyst_1")]);
    assert_eq!(toolbox.state().bookings().len(), 1);
    // The same call by another caller of the tenant runs for that caller.
    let second = books_twice_over_http(&url, "analyst_2", &version).await;
    assert_eq!(second, [json!("analyst_2"), json!("analyst_2")]);
    let guests: Vec<String> = toolbox
        .state()
        .bookings()
        .into_iter()
        .map(|b| b.guest)
        .collect();
    assert_eq!(guests, ["analyst_1", "analyst_2"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_principal_gets_its_own_outcome_over_http_with_initialize() {
    each_principal_gets_its_own_outcome_over_http(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_principal_gets_its_own_outcome_over_http_with_discover() {
    each_principal_gets_its_own_outcome_over_http(ProtocolVersion::V_2026_07_28).await;
}

/// The request written by hand, as another client of the same server
/// would send it: no client-side state in the way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_call_never_replays_another_principal_s_outcome() {
    let toolbox = hotels();
    let url = common::start(Arc::clone(&toolbox)).await;
    let first =
        outcome(post_discover(&url, &bearer("analyst_1"), discover_call(1, STAY)).await).await;
    assert_eq!(first["guest"], "analyst_1", "{first}");
    let second =
        outcome(post_discover(&url, &bearer("analyst_2"), discover_call(1, STAY)).await).await;
    assert_eq!(second["guest"], "analyst_2", "{second}");
    assert_eq!(toolbox.state().bookings().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_presented_by_another_principal_is_refused_as_unknown() {
    common::record_audit();
    let toolbox = hotels();
    let url = common::start(Arc::clone(&toolbox)).await;
    let owner = bearer("analyst_1");
    let thief = bearer("analyst_2");
    let session = open_session(&url, &owner).await;
    let booked = in_session(&url, &owner, &session, reqwest::Method::POST)
        .body(session_call(1, STAY))
        .send()
        .await
        .unwrap();
    assert_eq!(outcome(booked).await["guest"], "analyst_1");

    // What a session no one opened gets.
    let unknown = in_session(&url, &thief, "no-such-session", reqwest::Method::POST)
        .body(session_call(2, STAY))
        .send()
        .await
        .unwrap();
    let unknown = (unknown.status(), unknown.text().await.unwrap());
    assert_eq!(unknown.0, 404);

    // The owner's session, with the other principal's token: the same, to
    // the byte, whatever the request.
    let stolen = in_session(&url, &thief, &session, reqwest::Method::POST)
        .body(session_call(2, STAY))
        .send()
        .await
        .unwrap();
    assert_eq!((stolen.status(), stolen.text().await.unwrap()), unknown);
    let listen = in_session(&url, &thief, &session, reqwest::Method::GET)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(listen.status(), 404);
    let close = in_session(&url, &thief, &session, reqwest::Method::DELETE)
        .send()
        .await
        .unwrap();
    assert_eq!(close.status(), 404);

    // Nothing ran for the thief, and the owner's session still serves its
    // owner.
    assert_eq!(toolbox.state().bookings().len(), 1);
    let again = in_session(&url, &owner, &session, reqwest::Method::POST)
        .body(session_call(3, STAY))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    assert_eq!(outcome(again).await["guest"], "analyst_1");
    assert_eq!(toolbox.state().bookings().len(), 1);

    // Each refusal is in the audit log, with who presented the session and
    // without the token that proved it. (The owner's calls name the
    // session too, as the conversation they belong to.)
    let refusals: Vec<String> = common::audit_log()
        .into_iter()
        .filter(|line| line.contains(&session) && line.contains("session refused"))
        .collect();
    assert_eq!(refusals.len(), 3, "{refusals:?}");
    for line in &refusals {
        assert!(line.contains("analyst_2"), "{line}");
        let signature = thief.rsplit('.').next().unwrap();
        assert!(!line.contains(signature), "{line}");
    }
    let _ = message;
}

/// stdio: one identity per connection; two connections with different
/// identities on one toolbox (one effect store) never replay each other.
async fn each_stdio_connection_gets_its_own_outcome(version: ProtocolVersion) {
    let toolbox = hotels();
    let mut guests = Vec::new();
    for actor in ["analyst_1", "analyst_2", "analyst_1"] {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let identity = Identity::new(actor, "tenant_a").with_scopes(["bookings:write"]);
        let toolbox = Arc::clone(&toolbox);
        tokio::spawn(async move { toolgate_mcp::serve(toolbox, identity, read, write).await });
        let client =
            rmcp::serve_client_with_lifecycle((), tokio::io::split(client), lifecycle(&version))
                .await
                .unwrap();
        let done = client.call_tool(stay()).await.unwrap();
        assert_eq!(done.is_error, Some(false), "{done:?}");
        guests.push(done.structured_content.unwrap()["guest"].clone());
        client.cancel().await.unwrap();
    }
    assert_eq!(
        guests,
        [json!("analyst_1"), json!("analyst_2"), json!("analyst_1")]
    );
    assert_eq!(toolbox.state().bookings().len(), 3);
}

#[tokio::test]
async fn each_stdio_connection_gets_its_own_outcome_with_initialize() {
    each_stdio_connection_gets_its_own_outcome(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test]
async fn each_stdio_connection_gets_its_own_outcome_with_discover() {
    each_stdio_connection_gets_its_own_outcome(ProtocolVersion::V_2026_07_28).await;
}
