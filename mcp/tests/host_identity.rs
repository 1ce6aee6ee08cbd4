//! The host's own authentication: an axum layer of the host's that puts
//! the caller's `Identity` in the request's extensions (here from a
//! session cookie). That identity reaches the tool body; a request the
//! layer did not identify is `401` and nothing runs, whatever else it
//! carries.

mod common;

use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use common::{META, bearer, message, request, serve};
use serde_json::{Value, json};
use toolgate::{ToolContext, ToolError, Toolbox};
use toolgate_mcp::{HostAuthenticated, HttpConfig, Identity};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Caller {
    actor: String,
    tenant: String,
}

/// Say who is calling, as the server knows it.
#[toolgate::tool(effect = read)]
fn whoami(ctx: &ToolContext) -> Result<Caller, ToolError> {
    Ok(Caller {
        actor: ctx.actor().to_owned(),
        tenant: ctx.tenant().to_owned(),
    })
}

/// The host's layer: a session cookie it issued names the caller.
async fn by_session_cookie(mut request: Request, next: Next) -> Response {
    let actor = request
        .headers()
        .get("cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("session="))
        .map(str::to_owned);
    if let Some(actor) = actor {
        request
            .extensions_mut()
            .insert(Identity::new(actor, "tenant_b"));
    }
    next.run(request).await
}

fn call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"whoami","arguments":{{}},{META}}}}}"#
    )
}

async fn post(
    url: &str,
    cookie: Option<&str>,
    bearer: Option<&str>,
    body: String,
) -> reqwest::Response {
    let mut request = request(reqwest::Method::POST, url, bearer)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "whoami");
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    request.body(body).send().await.unwrap()
}

/// The router behind the host's layer, with a config that names no
/// authorization server: the host's layer is the authentication.
async fn start() -> String {
    serve(|resource| {
        let mut toolbox = Toolbox::new(());
        toolbox.register(Whoami).unwrap();
        toolgate_mcp::router(toolbox, HostAuthenticated, HttpConfig::new(resource))
            .layer(middleware::from_fn(by_session_cookie))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_layer_s_identity_reaches_the_tool_body() {
    let url = start().await;
    let answer = message(post(&url, Some("session=analyst_1"), None, call(1)).await).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"actor":"analyst_1","tenant":"tenant_b"}),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_the_host_layer_did_not_identify_is_refused() {
    let url = start().await;
    // No cookie: the layer identified no one.
    let anonymous = post(&url, None, None, call(1)).await;
    assert_eq!(anonymous.status(), 401);
    // A bearer token, even one a bearer server would accept, is not read
    // when the host's layer authenticates.
    let token = bearer("analyst_1");
    let with_token = post(&url, None, Some(&token), call(2)).await;
    assert_eq!(with_token.status(), 401);
    // No metadata is published: nothing issues tokens here.
    let metadata = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    assert_ne!(reqwest::get(&metadata).await.unwrap().status(), 200);
}

/// A host whose layer checks tokens of an authorization server it names:
/// the metadata is published, and the `401` points to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_challenge_names_the_metadata_when_the_config_names_an_issuer() {
    let url = serve(|resource| {
        let mut toolbox = Toolbox::new(());
        toolbox.register(Whoami).unwrap();
        let config = HttpConfig::new(resource).authorization_servers([common::ISSUER]);
        toolgate_mcp::router(toolbox, HostAuthenticated, config)
            .layer(middleware::from_fn(by_session_cookie))
    })
    .await;
    let anonymous = post(&url, None, None, call(1)).await;
    assert_eq!(anonymous.status(), 401);
    let challenge = anonymous.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains("resource_metadata="), "{challenge}");
    let identified: Value =
        message(post(&url, Some("session=analyst_2"), None, call(2)).await).await;
    assert_eq!(
        identified["result"]["structuredContent"]["actor"], "analyst_2",
        "{identified}"
    );
}
