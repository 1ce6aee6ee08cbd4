//! Streamable HTTP: an axum router with rmcp's service behind two layers of
//! ours, bearer authentication and the message check of the stdio
//! transport, and the OAuth protected-resource metadata MCP's
//! authorization specification asks a server to publish.

use std::marker::PhantomData;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt as _;
use rmcp::model::{ErrorData, JsonRpcError, ServerJsonRpcMessage};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use toolgate::{BoxFuture, Limits};

use crate::frame::{Checked, RawArguments, Refused, Unreadable, check};
use crate::rebinding::Allowed;
use crate::session::{Bindings, BoundSessions};
use crate::{Identity, McpServer, ServerInfo, Tools, message_limits};

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

/// How a [`router`] learns who calls: an [`Authenticator`] of bearer
/// tokens (the default; with a config that names the authorization
/// servers, [`AuthorizationServersNamed`]), or [`HostAuthenticated`], the
/// identity the host's own layer placed in the request.
///
/// There is no third way, and no way to have both by accident: the
/// router reads the caller from one source, and a request it cannot
/// identify from that source is answered `401`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is no way to authenticate the callers of this router",
    label = "the router's callers are identified by this",
    note = "pass an `Authenticator` of bearer tokens (`JwtAuthenticator`, with a config that names its authorization servers), or `HostAuthenticated` when your own layer puts the caller's `Identity` in the request's extensions"
)]
pub trait Authentication<S>: sealed::Authenticates {}

impl<A: Authenticator> sealed::Authenticates for A {
    fn source(self) -> sealed::Source {
        sealed::Source::Bearer(Box::new(self))
    }
}

impl<A: Authenticator, S: NamesAuthorizationServers> Authentication<S> for A {}

/// The caller is who the host's own axum or tower layer says it is: the
/// [`Identity`] that layer inserted into the request's extensions (from a
/// session cookie, a client certificate, a header of its own), instead of
/// a bearer token checked here.
///
/// A request without an `Identity` is answered `401` (with the challenge
/// naming the protected-resource metadata when the config names
/// authorization servers), whatever else it carries: a bearer token is
/// not read. The config need not name authorization servers, since the
/// host's layer is the authentication; if it does, the metadata is
/// published as for bearer tokens.
///
/// ```
/// use axum::extract::Request;
/// use axum::middleware::{self, Next};
/// use axum::response::Response;
/// use toolgate::Toolbox;
/// use toolgate_mcp::{HostAuthenticated, HttpConfig, Identity};
///
/// /// The host's own authentication: here a header its proxy sets after
/// /// checking the client's certificate.
/// async fn by_certificate(mut request: Request, next: Next) -> Response {
///     let subject = request
///         .headers()
///         .get("x-client-subject")
///         .and_then(|v| v.to_str().ok())
///         .map(str::to_owned);
///     if let Some(subject) = subject {
///         let identity = Identity::new(subject, "tenant_a").with_scopes(["bookings:write"]);
///         request.extensions_mut().insert(identity);
///     }
///     next.run(request).await
/// }
///
/// let app = toolgate_mcp::router(
///     Toolbox::new(()),
///     HostAuthenticated,
///     HttpConfig::new("https://tools.example.com/mcp"),
/// )
/// .layer(middleware::from_fn(by_certificate));
/// # let _ = app;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct HostAuthenticated;

impl sealed::Authenticates for HostAuthenticated {
    fn source(self) -> sealed::Source {
        sealed::Source::Host
    }
}

impl<S> Authentication<S> for HostAuthenticated {}

/// Where the MCP endpoint is, who issues its tokens, and whom it answers:
/// what the protected-resource metadata publishes, and the `Host` and
/// `Origin` headers it accepts.
///
/// A router is built only from a config that names the authorization
/// servers: MCP clients follow the `401` to the metadata and from there to
/// the server that issues tokens, and metadata without one leaves them
/// nowhere to go (the state `S` records whether it was named).
///
/// ```
/// use toolgate_mcp::HttpConfig;
///
/// let config = HttpConfig::new("https://tools.example.com/mcp")
///     .authorization_servers(["https://auth.example.com"])
///     .allowed_hosts(["tools.example.com"])
///     .allowed_origins(["https://app.example.com"]);
/// # let _ = config;
/// ```
///
/// Without them it is no config a router takes:
///
/// ```compile_fail
/// # use toolgate::Toolbox;
/// # use toolgate_mcp::{HttpConfig, JwtAuthenticator};
/// # fn no_issuer(tokens: JwtAuthenticator) {
/// let config = HttpConfig::new("https://tools.example.com/mcp");
/// let app = toolgate_mcp::router(Toolbox::new(()), tokens, config);
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct HttpConfig<S = AuthorizationServersNamed> {
    resource: String,
    authorization_servers: Vec<String>,
    scopes: Vec<String>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    info: ServerInfo,
    state: PhantomData<S>,
}

/// The state of an [`HttpConfig`] that names no authorization server yet.
#[derive(Clone, Copy, Debug)]
pub enum NoAuthorizationServer {}

/// The state of an [`HttpConfig`] that names its authorization servers.
#[derive(Clone, Copy, Debug)]
pub enum AuthorizationServersNamed {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::AuthorizationServersNamed {}

    /// Where a router reads its callers from: public in a private module,
    /// so that no other crate can name it or add a way.
    pub trait Authenticates: Send + Sync + 'static {
        fn source(self) -> Source;
    }

    pub enum Source {
        Bearer(Box<dyn super::Authenticator>),
        Host,
    }
}

/// The states of an [`HttpConfig`] a router is built from: those that
/// name an authorization server.
#[diagnostic::on_unimplemented(
    message = "this `HttpConfig` names no authorization server",
    label = "MCP clients that get a `401` look for the authorization server in the metadata built from this",
    note = "name the issuer of your tokens: `HttpConfig::new(resource).authorization_servers([\"https://auth.example.com\"])`"
)]
pub trait NamesAuthorizationServers: sealed::Sealed {}

impl NamesAuthorizationServers for AuthorizationServersNamed {}

impl HttpConfig<NoAuthorizationServer> {
    /// The public URL of the MCP endpoint, for example
    /// `https://tools.example.com/mcp`; the router serves it at that URL's
    /// path. Requests must name a loopback host unless
    /// [`allowed_hosts`](Self::allowed_hosts) says otherwise, and a
    /// browser's must come from this URL's origin or a loopback one unless
    /// [`allowed_origins`](Self::allowed_origins) says otherwise. Name the
    /// [`authorization_servers`](Self::authorization_servers) next.
    pub fn new(resource: impl Into<String>) -> Self {
        HttpConfig {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes: Vec::new(),
            allowed_hosts: None,
            allowed_origins: None,
            info: ServerInfo::default(),
            state: PhantomData,
        }
    }
}

impl<S> HttpConfig<S> {
    /// The authorization servers that issue tokens for this resource (the
    /// issuers your [`Authenticator`] accepts), each by its issuer URL,
    /// as RFC 8414 names it: `https://auth.example.com`.
    #[must_use]
    pub fn authorization_servers<I>(self, servers: I) -> HttpConfig<AuthorizationServersNamed>
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        HttpConfig {
            resource: self.resource,
            authorization_servers: servers.into_iter().map(Into::into).collect(),
            scopes: self.scopes,
            allowed_hosts: self.allowed_hosts,
            allowed_origins: self.allowed_origins,
            info: self.info,
            state: PhantomData,
        }
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
    /// DNS rebinding): `tools.example.com`, or with a port,
    /// `tools.example.com:8443`. Others are answered `403`, before
    /// authentication. An empty list accepts any host (a request must
    /// still name one): for a server behind a proxy that checks it.
    #[must_use]
    pub fn allowed_hosts<I>(mut self, hosts: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// The browser origins whose requests are served, instead of the
    /// default: the resource's own origin, and pages on a loopback
    /// address (`http://localhost:*`, `127.0.0.1`, `[::1]`, either
    /// scheme, any port). Each is `scheme://host`, with `:port` for that
    /// port only, `:*` for any, or neither for the scheme's default port.
    /// A request with any other `Origin` is answered `403`, as MCP's
    /// transport requires against DNS rebinding; one without (a client
    /// that is not a browser) is served. An empty list refuses every
    /// request that carries an `Origin`.
    #[must_use]
    pub fn allowed_origins<I>(mut self, origins: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.allowed_origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// How the server names itself to clients ([`ServerInfo`]); `toolgate`
    /// without it.
    #[must_use]
    pub fn server_info(mut self, info: ServerInfo) -> Self {
        self.info = info;
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

    /// The origins served: those configured, or the resource's own and the
    /// loopback ones.
    fn origins(&self) -> Vec<String> {
        if let Some(origins) = &self.allowed_origins {
            return origins.clone();
        }
        let mut origins: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
            .into_iter()
            .flat_map(|host| ["http", "https"].map(|scheme| format!("{scheme}://{host}:*")))
            .collect();
        origins.extend(origin_of(&self.resource));
        origins
    }
}

/// `scheme://host:port` of a URL, the port spelled out.
fn origin_of(url: &str) -> Option<String> {
    let uri = axum::http::Uri::try_from(url).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    let port = authority.port_u16().or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    })?;
    Some(format!("{scheme}://{}:{port}", authority.host()))
}

/// Whether `url` is an absolute `http` or `https` URL with a host.
fn is_absolute_url(url: &str) -> bool {
    axum::http::Uri::try_from(url).is_ok_and(|uri| {
        matches!(uri.scheme_str(), Some("https" | "http"))
            && uri.authority().is_some_and(|a| !a.host().is_empty())
    })
}

struct Shared {
    source: sealed::Source,
    allowed: Allowed,
    config: HttpConfig,
    limits: Limits,
    sessions: Bindings,
}

/// The header a 2025-11-25 client presents its session in.
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// An axum router serving `tools` (a toolbox, or several as [`Tools`])
/// over MCP's streamable HTTP at the
/// config's resource path, to callers `authentication` identifies (an
/// [`Authenticator`] of bearer tokens, or [`HostAuthenticated`]), with the
/// protected-resource metadata beside it.
///
/// - A `Host` or `Origin` the config does not allow, at the endpoint or
///   the approvals API: `403` (a request that names no host, or one that
///   is not a host: `400`), before anything else is read, and logged to
///   the audit log.
/// - No `Authorization: Bearer` header, or a token the authenticator
///   refuses: `401` with a `WWW-Authenticate` challenge naming the
///   metadata. The reason goes to the audit log. With
///   [`HostAuthenticated`], no [`Identity`] in the request's extensions:
///   the same.
/// - A 2025-11-25 session presented with a token of another principal
///   than the one that opened it: `404`, as for a session that does not
///   exist; the refusal goes to the audit log. Outcomes are replayed only
///   within one principal's conversation, on either protocol generation.
/// - A body longer than the toolbox's widest byte limit (with room for
///   the envelope): `413`, read no further.
/// - A body that is not JSON text (not UTF-8, or not well-formed): `400`
///   with JSON-RPC's parse error.
/// - Every message passes gate 1 before rmcp parses it, as over stdio.
/// - Beside the endpoint, under the same authentication, the approvals
///   API: `GET <endpoint>/approvals` lists what the caller may decide,
///   `POST <endpoint>/approvals/{id}/approve` (`deny`, `withdraw`)
///   decides or withdraws (JSON; the crate's README lists the answers). A
///   decision the caller may not make is one flat `404 NOT_PERMITTED`,
///   whether or not the approval exists; the reason goes to the audit log.
///
/// # Panics
///
/// If the config names an authorization server that is not an absolute
/// `https://` (or `http://`) URL, or, for bearer tokens, an empty list of
/// them: the metadata would send clients nowhere.
pub fn router<S, A: Authentication<S>>(
    tools: impl Into<Tools>,
    authentication: A,
    config: HttpConfig<S>,
) -> axum::Router {
    let source = authentication.source();
    // Bearer tokens are issued by an authorization server the metadata
    // must name; a host's own layer needs none.
    assert!(
        matches!(source, sealed::Source::Host) || !config.authorization_servers.is_empty(),
        "the HttpConfig for {} names no authorization server: MCP clients find the issuer of tokens in the metadata",
        config.resource
    );
    for server in &config.authorization_servers {
        assert!(
            is_absolute_url(server),
            "the authorization server {server:?} is not an absolute https:// URL"
        );
    }
    let config = HttpConfig {
        resource: config.resource,
        authorization_servers: config.authorization_servers,
        scopes: config.scopes,
        allowed_hosts: config.allowed_hosts,
        allowed_origins: config.allowed_origins,
        info: config.info,
        state: PhantomData,
    };
    let tools = tools.into();
    let limits = message_limits(tools.limits());
    let approvals = crate::approvals::routes(&config.path(), tools.clone());
    let server = McpServer::for_http(tools, config.info.clone());
    let http = StreamableHttpServerConfig::default()
        // Read only within our own limit; ours refuses first.
        .with_max_request_body_bytes(limits.bytes().saturating_add(1))
        // Checked in front, by `admitted`, from lists read once.
        .disable_allowed_hosts()
        .disable_allowed_origins();
    let allowed = Allowed::new(config.allowed_hosts.as_deref(), &config.origins());
    let (sessions, bindings) = BoundSessions::new();
    let service = StreamableHttpService::new(move || Ok(server.clone()), Arc::new(sessions), http);
    let path = config.path();
    let metadata_path = config.metadata_path();
    let shared = Arc::new(Shared {
        source,
        allowed,
        config,
        limits,
        sessions: bindings,
    });
    let endpoint = axum::Router::new().route_service(&path, service).layer(
        axum::middleware::from_fn_with_state(Arc::clone(&shared), endpoint_admitted),
    );
    // The approvals API, behind the same checks of host, origin and
    // caller: a person's decision is the last thing a foreign page may
    // post.
    let approvals = approvals.layer(axum::middleware::from_fn_with_state(
        Arc::clone(&shared),
        approvals_admitted,
    ));
    let published = !shared.config.authorization_servers.is_empty();
    let metadata_routes = if published {
        axum::Router::new().route(&metadata_path, axum::routing::get(metadata))
    } else {
        axum::Router::new()
    };
    metadata_routes
        .with_state(shared)
        .merge(endpoint)
        .merge(approvals)
}

/// RFC 9728 protected-resource metadata.
async fn metadata(State(shared): State<Arc<Shared>>) -> Response {
    let config = &shared.config;
    let mut body = serde_json::json!({
        "resource": config.resource,
        "bearer_methods_supported": ["header"],
    });
    if let serde_json::Value::Object(map) = &mut body {
        // RFC 9728 makes it optional; MCP's authorization requires it.
        map.insert(
            "authorization_servers".to_owned(),
            config.authorization_servers.clone().into(),
        );
        if !config.scopes.is_empty() {
            map.insert("scopes_supported".to_owned(), config.scopes.clone().into());
        }
    }
    axum::Json(body).into_response()
}

/// `401` with the challenge MCP clients follow to the metadata (plain,
/// where no metadata is published).
fn challenge(shared: &Shared, invalid: bool) -> Response {
    if shared.config.authorization_servers.is_empty() {
        return StatusCode::UNAUTHORIZED.into_response();
    }
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

/// The endpoint's one layer: [`admitted`], then every POST body through
/// gate 1 ([`checked`]).
async fn endpoint_admitted(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let request = match admitted(&shared, request).await {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    match checked(&shared, request).await {
        Ok(request) => next.run(request).await,
        Err(refused) => refused,
    }
}

/// The approvals API's one layer: [`admitted`].
async fn approvals_admitted(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    match admitted(&shared, request).await {
        Ok(request) => next.run(request).await,
        Err(refused) => refused,
    }
}

/// A request for an allowed host, from no browser page or an allowed
/// one's, by a caller identified: with the caller's [`Identity`] in its
/// extensions. Anything else goes no further: a host or origin not allowed
/// is refused before authentication, and a session of another principal
/// as one that does not exist.
async fn admitted(shared: &Shared, mut request: Request) -> Result<Request, Response> {
    if let Some(refused) = shared.allowed.refuse(request.uri(), request.headers()) {
        return Err(refused);
    }
    let identity = match &shared.source {
        // Whatever the host's layer inserted, and nothing else.
        sealed::Source::Host => match request.extensions().get::<Identity>() {
            Some(identity) => identity.clone(),
            None => {
                crate::audit_unauthorized(&Unauthorized(
                    "no identity from the host's authentication layer".to_owned(),
                ));
                return Err(challenge(shared, false));
            }
        },
        sealed::Source::Bearer(authenticator) => {
            let token = request
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split_once(' '))
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map(|(_, token)| token.trim());
            let Some(token) = token else {
                return Err(challenge(shared, false));
            };
            match authenticator.authenticate(token).await {
                Ok(identity) => identity,
                Err(reason) => {
                    crate::audit_unauthorized(&reason);
                    return Err(challenge(shared, true));
                }
            }
        }
    };
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok());
    if let Some(refused) = session.and_then(|s| shared.sessions.refuse(s, &identity)) {
        return Err(refused);
    }
    // The token's identity replaces any a layer of the host's inserted.
    request.extensions_mut().insert(identity);
    Ok(request)
}

/// A POST's body read within the limit and through gate 1: passed on as
/// sent, or replaced by what rmcp answers as a refusal, or answered here.
async fn checked(shared: &Shared, request: Request) -> Result<Request, Response> {
    let (mut parts, body) = request.into_parts();
    if parts.method != axum::http::Method::POST {
        return Ok(Request::from_parts(parts, body));
    }
    let limited = http_body_util::Limited::new(body, shared.limits.bytes());
    let bytes = match limited.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return Err(StatusCode::PAYLOAD_TOO_LARGE.into_response()),
    };
    let body = match check(&bytes, true, &shared.limits, &mut None) {
        Checked::Pass { arguments } => {
            if let Some(arguments) = arguments {
                parts.extensions.insert(RawArguments(arguments));
            }
            Body::from(bytes)
        }
        Checked::Refuse {
            substitute: Some(substitute),
            rejection,
        } => {
            parts.extensions.insert(Refused(rejection));
            Body::from(substitute)
        }
        // The transport's words for input it cannot accept: an error
        // status, with a JSON-RPC error that names no request. Never the
        // refused bytes to rmcp, which would parse what gate 1 refused.
        Checked::Refuse {
            substitute: None,
            rejection,
        } => {
            let error = ErrorData::invalid_request(rejection.safe_message().to_owned(), None);
            return Err(unaccepted(&ServerJsonRpcMessage::Error(JsonRpcError::new(
                None, error,
            ))));
        }
        Checked::Unreadable(error) => return Err(unaccepted(&error.answer())),
        Checked::Drop => return Err(unaccepted(&Unreadable::EMPTY.answer())),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Ok(Request::from_parts(parts, body))
}

/// `400` with `answer`, a JSON-RPC error: what the streamable HTTP
/// transport answers to input the server cannot accept.
fn unaccepted(answer: &ServerJsonRpcMessage) -> Response {
    let body = serde_json::to_string(answer).unwrap_or_default();
    let mut response = (StatusCode::BAD_REQUEST, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
