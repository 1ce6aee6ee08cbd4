//! Serve a toolgate [`Toolbox`] over MCP, with every gate intact.
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
//!   ([`Toolbox::definitions_for`]), in MCP's dialect, with annotations
//!   from each tool's effect class.
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
//!   never left waiting.
//! - Cancellation (`notifications/cancelled`) drops the body's future.
//! - Both protocol generations that rmcp speaks are served: 2025-11-25
//!   (`initialize`) and 2026-07-28 (`server/discover`, `_meta` on every
//!   request).

mod frame;
mod http;
mod jwt;
mod tools;

pub use http::{Authenticator, HttpConfig, Unauthorized, router};
pub use jwt::JwtAuthenticator;
pub use tools::Tools;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt as _};
use toolgate::{Limits, Outcome, ToolContext};

use crate::frame::{RawArguments, Refused};

/// Who calls: what the host's authentication established, never what the
/// model sent. Each request gets a [`ToolContext`] built from it.
#[derive(Clone, Debug)]
pub struct Identity {
    actor: String,
    tenant: String,
    scopes: Vec<String>,
    tools: Option<Vec<String>>,
}

impl Identity {
    /// An actor in a tenant, with no scopes, allowed every registered tool.
    pub fn new(actor: impl Into<String>, tenant: impl Into<String>) -> Self {
        Identity {
            actor: actor.into(),
            tenant: tenant.into(),
            scopes: Vec::new(),
            tools: None,
        }
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

    /// The context of one request.
    fn context(&self, request_id: String, session: &str) -> ToolContext {
        let ctx = ToolContext::new(self.actor.as_str(), self.tenant.as_str(), request_id)
            .with_session(session)
            .with_scopes(self.scopes.iter().cloned());
        match &self.tools {
            Some(tools) => ctx.allow_tools(tools.iter().cloned()),
            None => ctx.allow_all_tools(),
        }
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
    /// Scopes idempotency: one connection is one conversation.
    session: String,
}

/// A session id no other connection of this process has.
fn session_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "mcp-{}-{nanos}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl McpServer {
    /// Serves `tools` (a toolbox, or several as [`Tools`]) to `identity`.
    pub fn new(tools: impl Into<Tools>, identity: Identity) -> Self {
        McpServer {
            tools: tools.into(),
            identity: Some(identity),
            session: session_id(),
        }
    }

    /// Serves `tools` to whoever each HTTP request's token identifies.
    fn for_http(tools: Tools) -> Self {
        McpServer {
            tools,
            identity: None,
            session: session_id(),
        }
    }

    /// The context of one request: the server's identity, or the one its
    /// HTTP request was authenticated as; the HTTP session (or else this
    /// connection) as the conversation. `None` if nobody is identified.
    fn context(&self, request: &RequestContext<RoleServer>) -> Option<ToolContext> {
        let parts = request.extensions.get::<axum::http::request::Parts>();
        let identity = match (&self.identity, parts) {
            (Some(identity), _) => identity.clone(),
            (None, Some(parts)) => parts.extensions.get::<Identity>()?.clone(),
            (None, None) => return None,
        };
        let session = parts
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok())
            .map_or_else(|| self.session.clone(), |s| format!("mcp-http-{s}"));
        Some(identity.context(format!("mcp-{}", request.id), &session))
    }
}

impl McpServer {
    /// Asks the person at the client to approve a call, through MCP
    /// elicitation, when the client can be asked (it declared elicitation,
    /// and the protocol lets the server ask mid-call): accepting approves
    /// the call as the session's actor and runs it; declining denies it.
    /// Otherwise, or if the actor may not approve it, or the person closes
    /// the question, the call stays held: the model reads
    /// `approval_required`, and the host approves out of band.
    async fn ask(
        &self,
        context: &RequestContext<RoleServer>,
        ctx: &ToolContext,
        tool: &str,
        approval: toolgate::Approval,
    ) -> Outcome {
        use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
        let can_ask = context
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some())
            && context
                .protocol_version()
                .is_none_or(|v| v.has_initialize());
        let held = || Outcome::ApprovalRequired(Box::new(approval.clone()));
        if !can_ask {
            return held();
        }
        let Ok(schema) = ElicitationSchema::builder().build() else {
            return held();
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: preview(&approval),
            requested_schema: schema,
        };
        let answer = tokio::select! {
            answer = context.peer.create_elicitation(params) => answer,
            () = context.ct.cancelled() => return held(),
        };
        let approve = match answer.map(|a| a.action) {
            Ok(ElicitationAction::Accept) => true,
            Ok(ElicitationAction::Decline) => false,
            _ => return held(),
        };
        if self
            .tools
            .decide(tool, ctx, &approval.id, approve)
            .await
            .is_err()
        {
            return held();
        }
        self.tools.resume(tool, ctx, &approval.id).await
    }
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
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("toolgate", env!("CARGO_PKG_VERSION")))
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
        let outcome = match (attached::<Refused>(&context), self.context(&context)) {
            (Some(Refused(rejection)), _) => Outcome::Rejected(rejection),
            (None, None) => Outcome::Rejected(toolgate::Rejection::not_permitted()),
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
                    Outcome::ApprovalRequired(approval) => {
                        self.ask(&context, &ctx, &request.name, *approval).await
                    }
                    outcome => outcome,
                }
            }
        };
        let mut result: CallToolResult =
            typed(toolgate::providers::mcp::call_tool_result(&outcome))?;
        // 2026-07-28 requires it; rmcp clears it for older peers.
        result.result_type = Some(rmcp::model::ResultType::COMPLETE);
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
/// closes its end.
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
    let tools = tools.into();
    let limits = message_limits(tools.limits());
    let server = McpServer::new(tools, identity);
    let running = server
        .serve(frame::transport(reader, writer, limits))
        .await
        .map_err(|e| ServeError(Box::new(e)))?;
    running
        .waiting()
        .await
        .map_err(|e| ServeError(Box::new(e)))?;
    Ok(())
}

/// Serves `tools` (a toolbox, or several as [`Tools`]) over standard input
/// and output as `identity`, the identity the process was started with,
/// until the client closes stdin.
pub async fn serve_stdio(tools: impl Into<Tools>, identity: Identity) -> Result<(), ServeError> {
    serve(tools, identity, tokio::io::stdin(), tokio::io::stdout()).await
}
