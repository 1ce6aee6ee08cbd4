//! A toolbox served over streamable HTTP: rmcp's own client on both
//! protocol generations with a bearer token, requests written by hand
//! that no typed client sends (a repeated key, a header that disagrees
//! with the body, a body too large), and the authorization answers
//! (`401` with its challenge, the protected-resource metadata).

use std::sync::Arc;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::ClientLifecycleMode;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use toolgate::Toolbox;
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_mcp::{HttpConfig, JwtAuthenticator};

const SECRET: &[u8] = b"a test secret that is long enough";

/// The audience the tests' tokens are issued for and their servers
/// accept (a real server names its endpoint's URL).
const AUDIENCE: &str = "https://tools.example.com/mcp";

/// `claims`, issued for `AUDIENCE`, signed with the tests' secret.
fn token(mut claims: Value) -> String {
    claims["aud"] = json!(AUDIENCE);
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(SECRET).unwrap(),
    )
    .unwrap()
}

fn exp() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600
}

fn traveller() -> String {
    token(json!({"sub":"traveller_7","tenant":"tenant_a","scope":"bookings:write","exp":exp()}))
}

/// Serves a hotel toolbox on a loopback port; its `/mcp` URL.
async fn start(toolbox: Arc<Toolbox<Hotels>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let router = toolgate_mcp::router(
        toolbox,
        JwtAuthenticator::hs256(SECRET).unwrap().audience(AUDIENCE),
        HttpConfig::new(&resource)
            .authorization_servers(["https://auth.example.com"])
            .scopes(["bookings:write"]),
    );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    resource
}

fn toolbox() -> Arc<Toolbox<Hotels>> {
    let mut toolbox = Toolbox::new(Hotels::demo());
    toolbox.register(BookHotel).unwrap();
    Arc::new(toolbox)
}

async fn the_client_lists_and_calls(version: ProtocolVersion) {
    let toolbox = toolbox();
    let url = start(Arc::clone(&toolbox)).await;
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(traveller()),
    );
    let lifecycle = if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        }
    };
    let client = rmcp::serve_client_with_lifecycle((), transport, lifecycle)
        .await
        .unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(
        tools.iter().map(|t| t.name.to_string()).collect::<Vec<_>>(),
        ["book_hotel"]
    );
    let args = json!({"hotel_id":"h_seaview1","nights":2});
    let done = client
        .call_tool(
            CallToolRequestParams::new("book_hotel")
                .with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    assert_eq!(done.structured_content.unwrap()["guest"], "traveller_7");
    let refused = client
        .call_tool(
            CallToolRequestParams::new("book_hotel")
                .with_arguments(json!({"nights":2}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    let unknown = client
        .call_tool(CallToolRequestParams::new("drop_tables"))
        .await
        .unwrap();
    assert_eq!(unknown.is_error, Some(true));
    assert_eq!(toolbox.state().bookings().len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_lists_and_calls_over_http_with_initialize() {
    the_client_lists_and_calls(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_lists_and_calls_over_http_with_discover() {
    the_client_lists_and_calls(ProtocolVersion::V_2026_07_28).await;
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// POSTs `body` as a 2026-07-28 request, with `name` as its `Mcp-Name`.
async fn post(url: &str, bearer: Option<&str>, name: &str, body: String) -> reqwest::Response {
    try_post(url, bearer, name, body).await.unwrap()
}

/// Whether `error` is the server closing the connection while the request
/// body was still being written.
fn closed_while_writing(error: &reqwest::Error) -> bool {
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(error) = source {
        if let Some(io) = error.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            )
        {
            return true;
        }
        source = error.source();
    }
    false
}

/// [`post`], the error kept.
async fn try_post(
    url: &str,
    bearer: Option<&str>,
    name: &str,
    body: String,
) -> Result<reqwest::Response, reqwest::Error> {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(body);
    if let Some(bearer) = bearer {
        request = request.header("authorization", format!("Bearer {bearer}"));
    }
    request.send().await
}

fn call(id: u64, name: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments},{META}}}}}"#
    )
}

/// The JSON-RPC message in a response, JSON or a server-sent event.
async fn message(response: reqwest::Response) -> Value {
    let text = response.text().await.unwrap();
    let json = text
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .unwrap_or(&text)
        .trim();
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"))
}

async fn rejection(response: reqwest::Response) -> Value {
    let answer = message(response).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    serde_json::from_str(answer["result"]["content"][0]["text"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_are_answered_over_http() {
    let toolbox = toolbox();
    let url = start(Arc::clone(&toolbox)).await;
    let bearer = traveller();
    let bearer = Some(bearer.as_str());

    let response = post(
        &url,
        bearer,
        "book_hotel",
        call(
            1,
            "book_hotel",
            r#"{"hotel_id":"h_seaview1","nights":1,"nights":30}"#,
        ),
    )
    .await;
    assert_eq!(rejection(response).await["code"], "DUPLICATE_KEY");

    let deep = format!("{{\"hotel_id\":{}1{}}}", "[".repeat(3000), "]".repeat(3000));
    let response = post(&url, bearer, "book_hotel", call(2, "book_hotel", &deep)).await;
    assert_eq!(rejection(response).await["code"], "TOO_DEEP");

    // The server answers 413 once it has read its limit, and reads no
    // further: a client still writing the rest may find the connection
    // closed before it reads the answer. Either way nothing past the limit
    // was read, and the requests below show the server still answering.
    let huge = format!("{{\"hotel_id\":\"{}\"}}", "a".repeat(2 << 20));
    match try_post(&url, bearer, "book_hotel", call(3, "book_hotel", &huge)).await {
        Ok(response) => assert_eq!(response.status(), 413),
        Err(error) => assert!(closed_while_writing(&error), "{error:?}"),
    }

    // The header names another tool than the body: refused, nothing runs.
    let response = post(
        &url,
        bearer,
        "cancel_booking",
        call(4, "book_hotel", r#"{"hotel_id":"h_seaview1","nights":2}"#),
    )
    .await;
    assert_eq!(response.status(), 400);
    assert_eq!(toolbox.state().bookings().len(), 0);

    let response = post(
        &url,
        bearer,
        "book_hotel",
        call(5, "book_hotel", r#"{"hotel_id":"h_seaview1","nights":2}"#),
    )
    .await;
    let answer = message(response).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(toolbox.state().bookings().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_or_a_bad_one_is_a_401_with_a_challenge() {
    let toolbox = toolbox();
    let url = start(Arc::clone(&toolbox)).await;
    let body = || call(1, "book_hotel", r#"{"hotel_id":"h_seaview1","nights":2}"#);
    let metadata = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");

    let missing = post(&url, None, "book_hotel", body()).await;
    assert_eq!(missing.status(), 401);
    let challenge = missing.headers()["www-authenticate"].to_str().unwrap();
    assert_eq!(
        challenge,
        format!(r#"Bearer resource_metadata="{metadata}""#)
    );

    let expired =
        token(json!({"sub":"traveller_7","tenant":"tenant_a","scope":"bookings:write","exp":1}));
    let forged = {
        let mut parts: Vec<String> = traveller().split('.').map(str::to_owned).collect();
        parts[2] = "c2lnbmF0dXJl".to_owned();
        parts.join(".")
    };
    let tenantless = token(json!({"sub":"traveller_7","scope":"bookings:write","exp":exp()}));
    let other_key = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &json!({"sub":"traveller_7","tenant":"tenant_a","aud":AUDIENCE,"exp":exp()}),
        &EncodingKey::from_secret(b"another secret entirely, not ours").unwrap(),
    )
    .unwrap();
    for bad in [
        expired,
        forged,
        tenantless,
        other_key,
        "not-a-jwt".to_owned(),
    ] {
        let response = post(&url, Some(&bad), "book_hotel", body()).await;
        assert_eq!(response.status(), 401, "{bad}");
        let challenge = response.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.starts_with(r#"Bearer error="invalid_token""#),
            "{challenge}"
        );
    }
    assert_eq!(toolbox.state().bookings().len(), 0);

    // The metadata the challenge names.
    let published: Value = reqwest::get(&metadata).await.unwrap().json().await.unwrap();
    assert_eq!(published["resource"], url);
    assert_eq!(
        published["authorization_servers"],
        json!(["https://auth.example.com"])
    );
    assert_eq!(published["bearer_methods_supported"], json!(["header"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_decides_who_calls_and_what_is_listed() {
    let toolbox = toolbox();
    let url = start(Arc::clone(&toolbox)).await;
    let reader =
        token(json!({"sub":"guest","tenant":"tenant_a","scope":"bookings:read","exp":exp()}));
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header(reader),
    );
    let client = rmcp::serve_client((), transport).await.unwrap();
    assert!(client.list_all_tools().await.unwrap().is_empty());
    client.cancel().await.unwrap();

    // RS256, and an allow-list in the token.
    let private = include_bytes!("keys/rs256-private.pem");
    let public = include_bytes!("keys/rs256-public.pem");
    let auth = JwtAuthenticator::rs256_pem(public)
        .unwrap()
        .audience(AUDIENCE);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let config = HttpConfig::new(&resource).authorization_servers(["https://auth.example.com"]);
    let router = toolgate_mcp::router(Arc::clone(&toolbox), auth, config);
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let signed = |tools: Value| {
        jsonwebtoken::encode(
            &Header::new(Algorithm::RS256),
            &json!({"sub":"traveller_7","tenant":"tenant_a","scope":"bookings:write","tools":tools,"aud":AUDIENCE,"exp":exp()}),
            &EncodingKey::from_rsa_pem(private).unwrap(),
        )
        .unwrap()
    };
    for (tools, listed) in [(json!(["book_hotel"]), 1), (json!(["search"]), 0)] {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(resource.clone())
                .auth_header(signed(tools)),
        );
        let client = rmcp::serve_client((), transport).await.unwrap();
        assert_eq!(client.list_all_tools().await.unwrap().len(), listed);
        client.cancel().await.unwrap();
    }
}

/// Say the caller's locale, as its token states it.
#[toolgate::tool(effect = read)]
fn my_locale(ctx: &toolgate::ToolContext) -> Result<String, toolgate::ToolError> {
    let claims = ctx.extension::<toolgate_mcp::Claims>();
    Ok(claims
        .and_then(|claims| claims.get("locale"))
        .and_then(Value::as_str)
        .unwrap_or("none")
        .to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_reads_the_verified_token_s_claims() {
    let mut toolbox = Toolbox::new(Hotels::demo());
    toolbox.register(MyLocale).unwrap();
    let url = start(Arc::new(toolbox)).await;
    let bearer =
        token(json!({"sub":"traveller_7","tenant":"tenant_a","locale":"de-CH","exp":exp()}));
    let response = post(&url, Some(&bearer), "my_locale", call(1, "my_locale", "{}")).await;
    let answer = message(response).await;
    // A string result: the text is the string as JSON.
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, r#""de-CH""#, "{answer}");
    assert_eq!(answer["result"]["structuredContent"], "de-CH", "{answer}");
}
