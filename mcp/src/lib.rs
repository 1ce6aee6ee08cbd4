//! Serve a toolgate [`Toolbox`](toolgate::Toolbox) over MCP, with every gate intact.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use toolgate::Toolbox;
//! use toolgate_mcp::{Identity, serve_stdio};
//!
//! let toolbox = Toolbox::new(());
//! // The identity the process was started with: never the model's.
//! let identity = Identity::new("agent_7", "tenant_a").with_scopes(["bookings:write"]);
//! serve_stdio(toolbox, identity).await?;
//! # Ok(())
//! # }
//! ```
//!
//! - `tools/list` answers with the tools this caller may call
//!   ([`Toolbox::definitions_for`](toolgate::Toolbox::definitions_for)),
//!   in MCP's dialect, with annotations from each tool's effect class.
//! - `tools/call` runs every gate on the arguments exactly as the client
//!   sent them. Every outcome is a `CallToolResult` the model reads
//!   (`isError` for refusals); an unknown tool is answered as a tool this
//!   caller may not use, never with a protocol error that would say which
//!   tools exist.
//! - The transport is bounded: a message longer than the toolbox's byte
//!   limit is never held whole, and every message passes gate 1 (depth,
//!   values, string length, duplicate keys at every level) before rmcp
//!   parses it. A refused `tools/call` gets its rejection as a result
//!   (`TOO_DEEP`, `DUPLICATE_KEY`, `PAYLOAD_TOO_LARGE`), so the client is
//!   never left waiting. A message that is not JSON text (not UTF-8, or
//!   not well-formed) is answered with JSON-RPC's parse error (`-32700`,
//!   without an id; over HTTP with status `400`): its bytes are never
//!   decoded lossily, so the gates read what the client sent.
//! - A conversation, which gate 6 scopes idempotency and retry budgets by,
//!   always belongs to one principal (tenant and actor): over stdio it is
//!   the connection; over HTTP on 2025-11-25 the session, which only the
//!   principal that opened it may use; on 2026-07-28 the principal's own.
//!   A stored outcome is never replayed to another principal.
//! - A call gate 6 holds for approval asks the person at the client
//!   through elicitation when the client declared it (mid-call on
//!   2025-11-25, as `input_required` on 2026-07-28) and that person may
//!   decide it ([`rules::may_decide`](toolgate::rules::may_decide): the
//!   approver's scope held, someone other than the asker where the policy
//!   says so): accepting approves it as the session's actor and runs it
//!   once. Otherwise nobody is asked: the model reads `approval_required`
//!   with the approval's id and whom it waits for (`waits_for`), and a
//!   person who may decide approves it out of band, through the HTTP
//!   router's approvals API (`GET <endpoint>/approvals`, see
//!   [`router`]) or the host's own. The model's repeat of the call, once
//!   approved, runs it, once.
//! - Cancellation (`notifications/cancelled`) drops the body's future.
//! - A body reports how far a long call has come with
//!   [`Progress`] (`ctx.extension::<Progress>()`), when the client asked.
//! - An rmcp server of the host's own takes these tools into its
//!   `ToolRouter` ([`McpServer::tool_router`]), every gate intact.
//! - Both protocol generations that rmcp speaks are served: 2025-11-25
//!   (`initialize`) and 2026-07-28 (`server/discover`, `_meta` on every
//!   request).
//! - Every `tools/call` is a server span, as OpenTelemetry's MCP
//!   conventions name it (`tools/call {tool}`, with `mcp.method.name`,
//!   `mcp.session.id`, `mcp.protocol.version`, `jsonrpc.request.id`,
//!   `network.transport`, and `error.type` = `tool_error` for a result
//!   the model reads as an error); the toolbox's `execute_tool` spans are
//!   its children. With the `otel` feature its parent is the client's span
//!   named by `params._meta.traceparent`, read by the host's OpenTelemetry
//!   propagator; without it, or without a `traceparent`, it is a root.
//! - Each request has an id no other request has, in this process or
//!   another (`mcp-` and a part drawn at start, then a count): the audit
//!   log files the request under it, and a failure gives it to the model
//!   as its reference.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod approvals;
mod frame;
mod http;
mod jwt;
mod keys;
mod mount;
mod progress;
mod rebinding;
mod session;
mod tools;

pub use http::{
    Authentication, Authenticator, AuthorizationServersNamed, HostAuthenticated, HttpConfig,
    NamesAuthorizationServers, NoAuthorizationServer, Unauthorized, router,
};
pub use jwt::{AudienceNamed, ChecksAudience, Claims, JwtAuthenticator, NoAudience};
pub use keys::{KeyRefresh, KeySet, KeySetError, KeySource};
pub use progress::Progress;
pub use tools::Tools;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, InputRequest, InputRequiredResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt as _};
use toolgate::{Limits, Outcome, ToolContext};
use tracing::Instrument as _;
use tracing::field::Empty;

use crate::frame::{RawArguments, Refused};

/// Who calls: what the host's authentication established, never what the
/// model sent. Each request gets a [`ToolContext`] built from it.
#[derive(Clone, Debug)]
pub struct Identity {
    actor: String,
    tenant: String,
    scopes: Vec<String>,
    tools: Option<Vec<String>>,
    extensions: toolgate::Extensions,
}

impl Identity {
    /// An actor in a tenant, with no scopes, allowed every registered tool.
    pub fn new(actor: impl Into<String>, tenant: impl Into<String>) -> Self {
        Identity {
            actor: actor.into(),
            tenant: tenant.into(),
            scopes: Vec::new(),
            tools: None,
            extensions: toolgate::Extensions::new(),
        }
    }

    /// Attaches a typed value the tools read with
    /// [`ToolContext::extension`]: what the authentication knows beyond
    /// actor, tenant and scopes (roles, a locale). [`JwtAuthenticator`]
    /// attaches the token's [`Claims`].
    #[must_use]
    pub fn with_extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }

    /// The scopes the actor holds.
    #[must_use]
    pub fn with_scopes<I>(mut self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Only these tools may be listed and called.
    #[must_use]
    pub fn allow_tools<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.tools = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// The context of one request in `conversation`, a conversation of
    /// this identity's ([`conversation`](Self::conversation)).
    fn context(&self, request_id: String, conversation: &str) -> ToolContext {
        let ctx = ToolContext::new(self.actor.as_str(), self.tenant.as_str(), request_id)
            .with_session(conversation)
            .with_scopes(self.scopes.iter().cloned())
            .with_extensions(&self.extensions);
        match &self.tools {
            Some(tools) => ctx.allow_tools(tools.iter().cloned()),
            None => ctx.allow_all_tools(),
        }
    }

    /// Who this is, for comparing principals.
    pub(crate) fn principal(&self) -> Principal {
        Principal {
            tenant: self.tenant.clone(),
            actor: self.actor.clone(),
        }
    }

    /// The conversation `within` (a connection, a session, or nothing more
    /// than the principal) as this identity's: gate 6 scopes idempotency
    /// and retry budgets by it, so it names the principal, and two
    /// principals never share one whatever `within` says. Each part is
    /// quoted, so no tenant or actor name can spell another's.
    fn conversation(&self, within: &str) -> String {
        let parts = [self.tenant.as_str(), self.actor.as_str(), within];
        format!(
            "mcp:{}",
            serde_json::to_string(&parts).unwrap_or_else(|_| format!("{parts:?}"))
        )
    }
}

/// A tenant and an actor in it: whom a session belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Principal {
    tenant: String,
    actor: String,
}

impl Principal {
    pub(crate) fn tenant(&self) -> &str {
        &self.tenant
    }

    pub(crate) fn actor(&self) -> &str {
        &self.actor
    }
}

/// How the server names itself to clients: `serverInfo` (name, version,
/// title) and `instructions`, in its answer to `initialize` (2025-11-25)
/// and to `server/discover` (2026-07-28). Clients show the name and title
/// to people; many pass the instructions to the model, as guidance on
/// when to use these tools. Without one, a server is `toolgate` at this
/// crate's version, with no instructions.
///
/// ```
/// use toolgate::Toolbox;
/// use toolgate_mcp::{Identity, McpServer, ServerInfo};
///
/// let info = ServerInfo::new("bookings", "2.3.0")
///     .title("Bookings")
///     .instructions("Book hotels for the signed-in traveller; refunds need a person's approval.");
/// let server = McpServer::new(Toolbox::new(()), Identity::new("agent_7", "tenant_a")).with_info(info);
/// # let _ = server;
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerInfo {
    name: String,
    version: String,
    title: Option<String>,
    instructions: Option<String>,
}

impl ServerInfo {
    /// A server called `name` (a short identifier: `bookings`) at
    /// `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ServerInfo {
            name: name.into(),
            version: version.into(),
            title: None,
            instructions: None,
        }
    }

    /// The name people read (`Bookings`), where the client shows one.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// How to use this server's tools, for the client and its model.
    /// They are guidance, never authority: every gate still decides.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// rmcp's form: the server's configuration, with `capabilities`.
    fn config(&self, capabilities: ServerCapabilities) -> ServerConfig {
        let mut implementation = Implementation::new(self.name.as_str(), self.version.as_str());
        implementation.title.clone_from(&self.title);
        let config = ServerConfig::new(capabilities).with_server_info(implementation);
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.as_str()),
            None => config,
        }
    }
}

impl Default for ServerInfo {
    /// `toolgate` at this crate's version, with no instructions.
    fn default() -> Self {
        ServerInfo::new("toolgate", env!("CARGO_PKG_VERSION"))
    }
}

/// Why serving stopped before the client went away.
#[derive(Debug)]
pub struct ServeError(Box<dyn std::error::Error + Send + Sync>);

impl core::fmt::Display for ServeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "serving MCP: {}", self.0)
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

/// A toolbox as an MCP server: rmcp's [`ServerHandler`], for transports
/// of your own. [`serve_stdio`] is this over standard input and output,
/// [`router`] over streamable HTTP.
#[derive(Clone)]
pub struct McpServer {
    tools: Tools,
    /// The identity of every request, or `None` where each request brings
    /// its own (HTTP, from its bearer token).
    identity: Option<Identity>,
    /// This connection, where one connection is one conversation (stdio).
    connection: Option<String>,
    /// How the server names itself.
    info: Arc<ServerInfo>,
}

/// An id no other connection of this process has, nor (by its process id
/// and start time) another process's.
fn connection_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "connection-{}-{nanos}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A request id no other request has: `mcp-`, a part drawn once per
/// process, and this process's count. The JSON-RPC id alone (`7`) recurs
/// in every session, so a failure's reference would name many requests.
fn request_id() -> String {
    static PROCESS: OnceLock<String> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let process = PROCESS.get_or_init(|| {
        use std::hash::BuildHasher as _;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        // std's hasher keys are drawn from the system's random source once
        // per process: two processes started together still differ.
        let drawn =
            std::collections::hash_map::RandomState::new().hash_one((std::process::id(), nanos));
        format!("{:012x}", drawn & 0xffff_ffff_ffff)
    });
    format!("mcp-{process}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

impl McpServer {
    /// Serves `tools` (a toolbox, or several as [`Tools`]) to `identity`,
    /// the one caller of this connection.
    pub fn new(tools: impl Into<Tools>, identity: Identity) -> Self {
        McpServer {
            tools: tools.into(),
            identity: Some(identity),
            connection: Some(connection_id()),
            info: Arc::default(),
        }
    }

    /// Names the server to its clients ([`ServerInfo`]).
    #[must_use]
    pub fn with_info(mut self, info: ServerInfo) -> Self {
        self.info = Arc::new(info);
        self
    }

    /// Serves `tools` to whoever each request's HTTP extensions name: the
    /// [`Identity`] a layer put there (the host's own, or toolgate's
    /// bearer authentication in [`router`]). A request without one is
    /// refused. For an rmcp server of the host's own, with rmcp's
    /// streamable HTTP service, and [`tool_router`](Self::tool_router).
    pub fn per_request(tools: impl Into<Tools>) -> Self {
        McpServer::for_http(tools.into(), ServerInfo::default())
    }

    /// Serves `tools` to whoever each HTTP request's token identifies.
    fn for_http(tools: Tools, info: ServerInfo) -> Self {
        McpServer {
            tools,
            identity: None,
            connection: None,
            info: Arc::new(info),
        }
    }

    /// The context of one request: the server's identity, or the one its
    /// HTTP request was authenticated as. `None` if nobody is identified.
    ///
    /// The conversation is always that principal's: over stdio, this
    /// connection; over HTTP on 2025-11-25, the `Mcp-Session-Id` (bound to
    /// the principal that opened it, see `session`); on 2026-07-28, which
    /// has no sessions, the principal's own, whichever server of several
    /// sharing one effect store answers.
    fn context(&self, request: &RequestContext<RoleServer>) -> Option<ToolContext> {
        let parts = request.extensions.get::<axum::http::request::Parts>();
        let identity = match (&self.identity, parts) {
            (Some(identity), _) => identity,
            (None, Some(parts)) => parts.extensions.get::<Identity>()?,
            (None, None) => return None,
        };
        // Only the generation that has sessions names one; a 2026-07-28
        // request carrying the header is not in a session.
        let has_sessions = request
            .protocol_version()
            .is_some_and(|version| version.has_initialize());
        let session = parts
            .filter(|_| has_sessions)
            .and_then(|p| p.headers.get(http::SESSION_HEADER))
            .and_then(|v| v.to_str().ok());
        let within = match (&self.connection, session) {
            (Some(connection), _) => format!("stdio {connection}"),
            (None, Some(session)) => format!("http session {session}"),
            (None, None) => "http".to_owned(),
        };
        let conversation = identity.conversation(&within);
        let ctx = identity.context(request_id(), &conversation);
        // The client asked to hear how the call goes: the body may tell it.
        Some(match request.meta.get_progress_token() {
            Some(token) => ctx.with_extension(Progress::new(request.peer.clone(), token)),
            None => ctx,
        })
    }

    /// The server span of a `tools/call`: `tools/call {tool}` for a tool
    /// served here, `tools/call` for a name no tool has (which the span
    /// records, escaped, but is not named by). A root unless the client
    /// named its span in `_meta` (feature `otel`).
    fn call_span(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> tracing::Span {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let session = parts
            .filter(|_| {
                context
                    .protocol_version()
                    .is_some_and(|version| version.has_initialize())
            })
            .and_then(|p| p.headers.get(http::SESSION_HEADER))
            .and_then(|v| v.to_str().ok());
        let served = self.tools.serves(&request.name);
        let span = tracing::info_span!(
            target: "toolgate_mcp",
            parent: None,
            "tools/call",
            otel.name = if served {
                format!("tools/call {}", request.name)
            } else {
                "tools/call".to_owned()
            },
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = "tools/call",
            mcp.session.id = session.map(|s| bounded(s, 128)),
            mcp.protocol.version = context.protocol_version().map(|v| v.to_string()),
            jsonrpc.request.id = bounded(&context.id.to_string(), 128),
            network.transport = if self.connection.is_some() { "pipe" } else { "tcp" },
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = bounded(&request.name, 64),
            error.type = Empty,
            rpc.response.status_code = Empty,
            toolgate.request.id = Empty,
        );
        #[cfg(feature = "otel")]
        otel::adopt(&span, &context.meta);
        span
    }
}

/// Text from the client as a span field: cut at `max` characters, with
/// control and unprintable characters escaped.
fn bounded(text: &str, max: usize) -> String {
    let cut: String = text.chars().take(max).collect();
    cut.escape_debug().to_string()
}

/// Trace context from the client's `_meta`.
#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::propagation::Extractor;
    use opentelemetry::trace::TraceContextExt as _;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    /// A request's `_meta`, as OpenTelemetry's propagators read a carrier:
    /// the keys are unprefixed (`traceparent`, `tracestate`, `baggage`).
    struct Meta<'a>(&'a serde_json::Map<String, serde_json::Value>);

    impl Extractor for Meta<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0.get(key).and_then(serde_json::Value::as_str)
        }

        fn keys(&self) -> Vec<&str> {
            self.0.keys().map(String::as_str).collect()
        }
    }

    /// Makes the client's span, named by `meta`, the parent of `span`,
    /// through the propagator the host installed
    /// (`opentelemetry::global::set_text_map_propagator`).
    pub(crate) fn adopt(span: &tracing::Span, meta: &rmcp::model::RequestMetaObject) {
        // From an empty context: `extract` alone would fall back to the
        // ambient one (rmcp's span of the whole connection) when `_meta`
        // names no span, and every call of a session would be one trace.
        let parent = opentelemetry::global::get_text_map_propagator(|p| {
            p.extract_with_context(&opentelemetry::Context::new(), &Meta(&meta.0.0))
        });
        if parent.span().span_context().is_valid() {
            // Refused only where no OpenTelemetry layer takes the span.
            let _ = span.set_parent(parent);
        }
    }
}

/// What became of a call held for approval.
enum Asked {
    /// The person answered (or could not be asked): the outcome.
    Answered(Outcome),
    /// 2026-07-28: the question goes back to the client, which asks the
    /// person and calls again with the answer.
    Later(InputRequiredResult),
}

/// The key of the one question in an `InputRequiredResult`.
const QUESTION: &str = "approval";

impl McpServer {
    /// Asks the person at the client to approve a call, through MCP
    /// elicitation, when the client declared it can be asked: on
    /// 2025-11-25 the server asks mid-call; on 2026-07-28 it answers with
    /// the question (`input_required`) and the approval's id as the
    /// request state, and the client calls again with the person's answer
    /// ([`answered`](Self::answered)). Accepting approves the call as the
    /// session's actor and runs it; declining denies it. A client that
    /// cannot be asked, an actor who may not approve, or a question left
    /// unanswered: the call stays held, the model reads
    /// `approval_required`, and the host approves out of band.
    async fn ask(
        &self,
        context: &RequestContext<RoleServer>,
        ctx: &ToolContext,
        tool: &str,
        approval: toolgate::Approval,
    ) -> Asked {
        use rmcp::model::ElicitationAction;
        let held = || Asked::Answered(Outcome::ApprovalRequired(Box::new(approval.clone())));
        // Ask only a person whose accept counts: one the approval's rules
        // let decide. Anyone else (without the approver's scope, or the
        // asker where another must approve) would click Accept and see
        // nothing happen; they read the approval's id and whom it waits
        // for (`waits_for`), and the call waits for that person, out of
        // band (the HTTP router's approvals API, or the host's own).
        if toolgate::rules::may_decide(&approval, ctx).is_err() {
            return held();
        }
        let can_ask = context
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some());
        let Some(params) = can_ask.then(|| question(&approval)).flatten() else {
            return held();
        };
        if context
            .protocol_version()
            .is_some_and(|v| !v.has_initialize())
        {
            let request = InputRequest::Elicitation(rmcp::model::ElicitRequest::new(params));
            let requests = std::collections::BTreeMap::from([(QUESTION.to_owned(), request)]);
            return Asked::Later(InputRequiredResult::new(Some(requests), Some(approval.id)));
        }
        let answer = tokio::select! {
            answer = context.peer.create_elicitation(params) => answer,
            () = context.ct.cancelled() => return held(),
        };
        let approve = match answer.map(|a| a.action) {
            Ok(ElicitationAction::Accept) => true,
            Ok(ElicitationAction::Decline) => false,
            _ => return held(),
        };
        match self.decide(ctx, tool, &approval, approve).await {
            Some(outcome) => Asked::Answered(outcome),
            None => held(),
        }
    }

    /// 2026-07-28: the client calls again with the person's answer and
    /// the request state it was given, which it could have changed: the
    /// state names an approval, which must be one of this tool's in the
    /// caller's tenant, asked for by the caller. What runs is the call
    /// that was approved, whatever arguments the retry carries.
    async fn answered(&self, ctx: &ToolContext, request: &CallToolRequestParams) -> Outcome {
        use rmcp::model::{ElicitResult, ElicitationAction};
        let id = request.request_state.as_deref().unwrap_or_default();
        let approval = match self.tools.approval(&request.name, ctx, id).await {
            Some(approval) if approval.tool == request.name && approval.actor == ctx.actor() => {
                approval
            }
            _ => {
                audit_refused_state(ctx, &request.name);
                return Outcome::Rejected(toolgate::Rejection::not_permitted());
            }
        };
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(QUESTION))
            .and_then(|answer| serde_json::from_value::<ElicitResult>(answer.clone()).ok());
        let approve = match answer.map(|a| a.action) {
            Some(ElicitationAction::Accept) => true,
            Some(ElicitationAction::Decline) => false,
            _ => return Outcome::ApprovalRequired(Box::new(approval)),
        };
        match self.decide(ctx, &request.name, &approval, approve).await {
            Some(outcome) => outcome,
            None => Outcome::ApprovalRequired(Box::new(approval)),
        }
    }

    /// Records the person's answer as the session's actor and resumes the
    /// call; `None` if the actor may not decide it while it is pending.
    /// An approval decided already (a client sending its answer twice)
    /// resumes as it stands: a used one replays, a denied one is refused.
    async fn decide(
        &self,
        ctx: &ToolContext,
        tool: &str,
        approval: &toolgate::Approval,
        approve: bool,
    ) -> Option<Outcome> {
        let decided = self.tools.decide(tool, ctx, &approval.id, approve).await;
        if decided.is_err() && approval.state == toolgate::ApprovalState::Pending {
            return None;
        }
        Some(self.tools.resume(tool, ctx, &approval.id).await)
    }
}

/// The form the person is asked to accept or decline: no fields, the
/// call's preview as the message.
fn question(approval: &toolgate::Approval) -> Option<rmcp::model::ElicitRequestParams> {
    let schema = rmcp::model::ElicitationSchema::builder().build().ok()?;
    Some(rmcp::model::ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: preview(approval),
        requested_schema: schema,
    })
}

/// A request state that names no approval this caller may answer.
fn audit_refused_state(ctx: &ToolContext, tool: &str) {
    // The name is the client's: bounded and escaped.
    let tool: String = tool.chars().take(64).collect();
    tracing::warn!(
        target: "toolgate::audit",
        request_id = ctx.request_id(),
        actor = ctx.actor(),
        tenant = ctx.tenant(),
        session_id = ctx.session_id(),
        call_id = ctx.call_id(),
        tool = %tool.escape_debug(),
        gate = "effect",
        reason = "the request state names no approval of this caller's for this tool",
        "call denied"
    );
}

/// What the person is asked: the tool, the arguments as validated, and
/// each object as the server resolved it.
fn preview(approval: &toolgate::Approval) -> String {
    let mut text = format!(
        "Approve `{}` with {}?",
        approval.tool,
        serde_json::to_string(&approval.arguments).unwrap_or_default()
    );
    for seen in &approval.resources {
        let what = seen.summary.as_ref().unwrap_or(&seen.reference);
        text.push_str(&format!("\n- {}: {what}", seen.field));
    }
    text
}

/// What the transport attached to a request: in the request itself
/// (stdio), or in its HTTP parts.
fn attached<T: Clone + Send + Sync + 'static>(request: &RequestContext<RoleServer>) -> Option<T> {
    request.extensions.get::<T>().cloned().or_else(|| {
        request
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<T>().cloned())
    })
}

/// A bearer token refused, for the audit log.
fn audit_unauthorized(reason: &Unauthorized) {
    let reason = reason.to_string();
    let reason: String = reason.chars().take(200).collect();
    tracing::warn!(target: "toolgate::audit", event = "unauthorized", reason = %reason.escape_debug());
}

/// A JSON value in rmcp's typed form. Our JSON is MCP's, so a failure is a
/// bug, answered as an internal error.
fn typed<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        self.info
            .config(ServerCapabilities::builder().enable_tools().build())
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        // A refused request that was not a tool call arrives as a ping.
        match attached::<Refused>(&context) {
            Some(Refused(rejection)) => Err(ErrorData::invalid_request(
                rejection.safe_message().to_owned(),
                None,
            )),
            None => Ok(()),
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let Some(ctx) = self.context(&context) else {
            return Ok(ListToolsResult::with_all_items(Vec::new()));
        };
        let tools = self
            .tools
            .definitions_for(&ctx)
            .into_iter()
            .map(|def| typed::<Tool>(toolgate::providers::mcp::tool(def)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let span = self.call_span(&request, &context);
        // No subscriber takes the span: nothing to enter at each poll.
        let answer = if span.is_disabled() {
            self.called(request, context, &span).await
        } else {
            self.called(request, context, &span)
                .instrument(span.clone())
                .await
        };
        // A result the model reads as an error is `tool_error`; a protocol
        // error is its JSON-RPC code.
        let error = match &answer {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                Some("tool_error".to_owned())
            }
            Ok(_) => None,
            Err(error) => {
                let code = error.code.0.to_string();
                span.record("rpc.response.status_code", code.as_str());
                Some(code)
            }
        };
        if let Some(error) = error {
            span.record("error.type", error);
            span.record("otel.status_code", "error");
        }
        answer
    }
}

impl McpServer {
    /// A `tools/call`, inside its span.
    async fn called(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        span: &tracing::Span,
    ) -> Result<CallToolResponse, ErrorData> {
        let ctx = self.context(&context);
        if let Some(ctx) = &ctx {
            span.record("toolgate.request.id", ctx.request_id());
        }
        let outcome = match (attached::<Refused>(&context), ctx) {
            (Some(Refused(rejection)), _) => Outcome::Rejected(rejection),
            (None, None) => Outcome::Rejected(toolgate::Rejection::not_permitted()),
            // 2026-07-28: the retry carrying the person's answer.
            // The rare paths are boxed: every task that serves a call
            // holds this future, and is moved whole as rmcp spawns it.
            (None, Some(ctx)) if request.request_state.is_some() => {
                Box::pin(self.answered(&ctx, &request)).await
            }
            (None, Some(ctx)) => {
                // The bytes the client sent; a transport that did not keep
                // them gets the arguments re-serialized, duplicates gone.
                let raw: Arc<str> = match attached::<RawArguments>(&context) {
                    Some(RawArguments(raw)) => raw,
                    None => serde_json::to_string(&request.arguments.unwrap_or_default())
                        .unwrap_or_else(|_| "{}".to_owned())
                        .into(),
                };
                let outcome = tokio::select! {
                    outcome = self.tools.call(&ctx, &request.name, &raw) => outcome,
                    () = context.ct.cancelled() => {
                        return Err(ErrorData::internal_error("cancelled", None));
                    }
                };
                match outcome {
                    // The repeat of a call a person approved out of band
                    // since: it runs now, once (a resume checks everything
                    // the approval is bound to, and uses it once).
                    Outcome::ApprovalRequired(approval)
                        if matches!(approval.state, toolgate::ApprovalState::Approved { .. }) =>
                    {
                        Box::pin(self.tools.resume(&request.name, &ctx, &approval.id)).await
                    }
                    Outcome::ApprovalRequired(approval) => {
                        match Box::pin(self.ask(&context, &ctx, &request.name, *approval)).await {
                            Asked::Answered(outcome) => outcome,
                            Asked::Later(input) => return Ok(input.into()),
                        }
                    }
                    outcome => outcome,
                }
            }
        };
        let parts = toolgate::providers::mcp::call_tool_parts(&outcome);
        // `success` marks it complete, as 2026-07-28 requires; rmcp
        // clears that for older peers.
        let mut result = CallToolResult::success(vec![ContentBlock::text(parts.text)]);
        result.is_error = Some(parts.is_error);
        result.structured_content = parts.structured.cloned();
        Ok(result.into())
    }
}

/// The largest message the transport reads: the biggest argument document
/// the toolbox accepts, with room for the envelope around it.
fn message_limits(arguments: Limits) -> Limits {
    Limits::default()
        .max_bytes(arguments.bytes().saturating_add(16 * 1024))
        .max_depth(arguments.depth().saturating_add(2))
        .max_nodes(arguments.nodes().saturating_add(256))
        .max_string_bytes(arguments.string_bytes().max(16 * 1024))
}

/// Serves `toolbox` to `identity` over `reader` and `writer`, newline-
/// delimited JSON-RPC as MCP's stdio transport speaks it, until the client
/// closes its end. [`McpServer::run`] is the same for a server named with
/// [`McpServer::with_info`].
pub async fn serve<R, W>(
    tools: impl Into<Tools>,
    identity: Identity,
    reader: R,
    writer: W,
) -> Result<(), ServeError>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    McpServer::new(tools, identity).run(reader, writer).await
}

/// Serves `tools` (a toolbox, or several as [`Tools`]) over standard input
/// and output as `identity`, the identity the process was started with,
/// until the client closes stdin. [`McpServer::run_stdio`] is the same for
/// a server named with [`McpServer::with_info`].
pub async fn serve_stdio(tools: impl Into<Tools>, identity: Identity) -> Result<(), ServeError> {
    serve(tools, identity, tokio::io::stdin(), tokio::io::stdout()).await
}

impl McpServer {
    /// Serves over `reader` and `writer`, newline-delimited JSON-RPC as
    /// MCP's stdio transport speaks it, every message bounded and checked
    /// before rmcp parses it, until the client closes its end.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolgate_mcp::ServeError> {
    /// use toolgate::Toolbox;
    /// use toolgate_mcp::{Identity, McpServer, ServerInfo};
    ///
    /// McpServer::new(Toolbox::new(()), Identity::new("agent_7", "tenant_a"))
    ///     .with_info(ServerInfo::new("bookings", "2.3.0").title("Bookings"))
    ///     .run(tokio::io::stdin(), tokio::io::stdout())
    ///     .await
    /// # }
    /// ```
    pub async fn run<R, W>(self, reader: R, writer: W) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let limits = message_limits(self.tools.limits());
        let running = self
            .serve(frame::Stdio::new(reader, writer, limits))
            .await
            .map_err(|e| ServeError(Box::new(e)))?;
        running
            .waiting()
            .await
            .map_err(|e| ServeError(Box::new(e)))?;
        Ok(())
    }

    /// [`run`](Self::run) over standard input and output.
    pub async fn run_stdio(self) -> Result<(), ServeError> {
        self.run(tokio::io::stdin(), tokio::io::stdout()).await
    }
}
