//! Streamable HTTP: an axum router with rmcp's service behind two layers of
//! ours, bearer authentication and the message check of the stdio
//! transport, and the OAuth protected-resource metadata MCP's
//! authorization specification asks a server to publish.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use toolgate::{BoxFuture, Limits};

use crate::frame::{Checked, RawArguments, Refused, check};
use crate::{Identity, McpServer, Tools, message_limits};

/// Why a bearer token was refused: for the host's log, never for the
/// client, which reads only `401` and `invalid_token`.
#[derive(Debug)]
pub struct Unauthorized(pub String);

impl core::fmt::Display for Unauthorized {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unauthorized {}

/// Turns a bearer token into the caller's [`Identity`]: actor, tenant,
/// scopes and the tools it may use. [`JwtAuthenticator`](crate::JwtAuthenticator) checks signed
/// JSON Web Tokens; implement this for sessions, API keys or token
/// introspection.
pub trait Authenticator: Send + Sync + 'static {
    /// The identity `token` proves, or why it proves none.
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, Unauthorized>>;
}

/// Where the MCP endpoint is, and who issues its tokens: what the
/// protected-resource metadata publishes.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    resource: String,
    authorization_servers: Vec<String>,
    scopes: Vec<String>,
    allowed_hosts: Option<Vec<String>>,
}

impl HttpConfig {
    /// The public URL of the MCP endpoint, for example
    /// `https://tools.example.com/mcp`; the router serves it at that URL's
    /// path. Requests must name a loopback host unless
    /// [`allowed_hosts`](Self::allowed_hosts) says otherwise.
    pub fn new(resource: impl Into<String>) -> Self {
        HttpConfig {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes: Vec::new(),
            allowed_hosts: None,
        }
    }

    /// The authorization servers that issue tokens for this resource.
    #[must_use]
    pub fn authorization_servers<I>(mut self, servers: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.authorization_servers = servers.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes the tools ask for, as published.
    #[must_use]
    pub fn scopes<I>(mut self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The `Host` headers accepted (default: loopback names only, against
    /// DNS rebinding).
    #[must_use]
    pub fn allowed_hosts<I>(mut self, hosts: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// The path part of the resource URL: where the endpoint is mounted.
    fn path(&self) -> String {
        let after_scheme = self
            .resource
            .split_once("://")
            .map_or(self.resource.as_str(), |(_, rest)| rest);
        match after_scheme.find('/') {
            Some(i) => after_scheme.get(i..).unwrap_or("/mcp").to_owned(),
            None => "/".to_owned(),
        }
    }

    /// Where the protected-resource metadata is published (RFC 9728: the
    /// well-known path, then the resource's path).
    fn metadata_path(&self) -> String {
        let path = self.path();
        match path.as_str() {
            "/" => "/.well-known/oauth-protected-resource".to_owned(),
            path => format!("/.well-known/oauth-protected-resource{path}"),
        }
    }

    fn metadata_url(&self) -> String {
        let origin = self
            .resource
            .strip_suffix(self.path().as_str())
            .unwrap_or(&self.resource);
        format!("{origin}{}", self.metadata_path())
    }
}

struct Shared {
    authenticator: Box<dyn Authenticator>,
    config: HttpConfig,
    limits: Limits,
}

/// An axum router serving `tools` (a toolbox, or several as [`Tools`])
/// over MCP's streamable HTTP at the
/// config's resource path, to callers `authenticator` identifies, with the
/// protected-resource metadata beside it.
///
/// - No `Authorization: Bearer` header, or a token the authenticator
///   refuses: `401` with a `WWW-Authenticate` challenge naming the
///   metadata. The reason goes to the audit log.
/// - A body longer than the toolbox's widest byte limit (with room for
///   the envelope): `413`, read no further.
/// - Every message passes gate 1 before rmcp parses it, as over stdio.
pub fn router(
    tools: impl Into<Tools>,
    authenticator: impl Authenticator,
    config: HttpConfig,
) -> axum::Router {
    let tools = tools.into();
    let limits = message_limits(tools.limits());
    let server = McpServer::for_http(tools);
    let mut http = StreamableHttpServerConfig::default()
        // Read only within our own limit; ours refuses first.
        .with_max_request_body_bytes(limits.bytes().saturating_add(1));
    if let Some(hosts) = &config.allowed_hosts {
        http = http.with_allowed_hosts(hosts.clone());
    }
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        http,
    );
    let path = config.path();
    let metadata_path = config.metadata_path();
    let shared = Arc::new(Shared {
        authenticator: Box::new(authenticator),
        config,
        limits,
    });
    let endpoint = axum::Router::new()
        .route_service(&path, service)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&shared),
            checked,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&shared),
            authenticated,
        ));
    axum::Router::new()
        .route(&metadata_path, axum::routing::get(metadata))
        .with_state(shared)
        .merge(endpoint)
}

/// RFC 9728 protected-resource metadata.
async fn metadata(State(shared): State<Arc<Shared>>) -> Response {
    let config = &shared.config;
    let mut body = serde_json::json!({
        "resource": config.resource,
        "bearer_methods_supported": ["header"],
    });
    if let serde_json::Value::Object(map) = &mut body {
        if !config.authorization_servers.is_empty() {
            map.insert(
                "authorization_servers".to_owned(),
                config.authorization_servers.clone().into(),
            );
        }
        if !config.scopes.is_empty() {
            map.insert("scopes_supported".to_owned(), config.scopes.clone().into());
        }
    }
    axum::Json(body).into_response()
}

/// `401` with the challenge MCP clients follow to the metadata.
fn challenge(shared: &Shared, invalid: bool) -> Response {
    let error = if invalid {
        r#"error="invalid_token", "#
    } else {
        ""
    };
    let value = format!(
        r#"Bearer {error}resource_metadata="{}""#,
        shared.config.metadata_url()
    );
    let mut response = StatusCode::UNAUTHORIZED.into_response();
    if let Ok(value) = HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

async fn authenticated(
    State(shared): State<Arc<Shared>>,
    mut request: Request,
    next: Next,
) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim().to_owned());
    let Some(token) = token else {
        return challenge(&shared, false);
    };
    match shared.authenticator.authenticate(&token).await {
        Ok(identity) => {
            request.extensions_mut().insert(identity);
            next.run(request).await
        }
        Err(reason) => {
            crate::audit_unauthorized(&reason);
            challenge(&shared, true)
        }
    }
}

async fn checked(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    if parts.method != axum::http::Method::POST {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let limited = http_body_util::Limited::new(body, shared.limits.bytes());
    let bytes = match limited.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return StatusCode::PAYLOAD_TOO_LARGE.into_response(),
    };
    let text = String::from_utf8_lossy(&bytes);
    let body = match check(&text, true, &shared.limits, &mut None) {
        Checked::Pass { arguments } => {
            if let Some(arguments) = arguments {
                parts.extensions.insert(RawArguments(arguments));
            }
            Body::from(bytes)
        }
        Checked::Refuse {
            substitute,
            rejection,
        } => {
            parts.extensions.insert(Refused(rejection));
            Body::from(substitute)
        }
        Checked::Drop => Body::from(bytes),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    next.run(Request::from_parts(parts, body)).await
}
