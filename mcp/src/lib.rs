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

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientNotification, ClientRequest,
    ErrorData, Implementation, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, ServerResult, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{RoleServer, ServerHandler, ServiceExt as _};
use toolgate::{Limits, Outcome, ToolContext, Toolbox};

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
/// of your own. [`serve_stdio`] is this over standard input and output.
pub struct McpServer<S> {
    toolbox: Arc<Toolbox<S>>,
    identity: Identity,
    /// Scopes idempotency: one connection is one conversation.
    session: String,
}

impl<S> Clone for McpServer<S> {
    fn clone(&self) -> Self {
        McpServer {
            toolbox: Arc::clone(&self.toolbox),
            identity: self.identity.clone(),
            session: self.session.clone(),
        }
    }
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

impl<S: Send + Sync + 'static> McpServer<S> {
    /// Serves `toolbox` to `identity`.
    pub fn new(toolbox: impl Into<Arc<Toolbox<S>>>, identity: Identity) -> Self {
        McpServer {
            toolbox: toolbox.into(),
            identity,
            session: session_id(),
        }
    }

    fn context(&self, id: &rmcp::model::RequestId) -> ToolContext {
        self.identity.context(format!("mcp-{id}"), &self.session)
    }
}

/// A JSON value in rmcp's typed form. Our JSON is MCP's, so a failure is a
/// bug, answered as an internal error.
fn typed<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

impl<S: Send + Sync + 'static> ServerHandler for McpServer<S> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("toolgate", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let ctx = self.context(&context.id);
        let tools = self
            .toolbox
            .definitions_for(&ctx)
            .map(|def| typed::<Tool>(toolgate::providers::mcp::tool(def)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let outcome = match context.extensions.get::<Refused>() {
            Some(Refused(rejection)) => Outcome::Rejected(rejection.clone()),
            None => {
                let ctx = self.context(&context.id);
                // The bytes the client sent; a transport that did not keep
                // them gets the arguments re-serialized, duplicates gone.
                let raw: Arc<str> = match context.extensions.get::<RawArguments>() {
                    Some(RawArguments(raw)) => Arc::clone(raw),
                    None => serde_json::to_string(&request.arguments.unwrap_or_default())
                        .unwrap_or_else(|_| "{}".to_owned())
                        .into(),
                };
                tokio::select! {
                    outcome = self.toolbox.call(&ctx, &request.name, &*raw) => outcome,
                    () = context.ct.cancelled() => {
                        return Err(ErrorData::internal_error("cancelled", None));
                    }
                }
            }
        };
        let result: CallToolResult = typed(toolgate::providers::mcp::call_tool_result(&outcome))?;
        Ok(result.into())
    }
}

/// Answers the requests the transport refused before rmcp parsed them,
/// and hands every other one to the server.
struct Guarded<S>(McpServer<S>);

impl<S: Send + Sync + 'static> rmcp::Service<RoleServer> for Guarded<S> {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        if let (Some(Refused(rejection)), false) = (
            context.extensions.get::<Refused>(),
            matches!(request, ClientRequest::CallToolRequest(_)),
        ) {
            return Err(ErrorData::invalid_request(
                rejection.safe_message().to_owned(),
                None,
            ));
        }
        rmcp::Service::handle_request(&self.0, request, context).await
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        rmcp::Service::handle_notification(&self.0, notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerHandler::get_info(&self.0)
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        ServerHandler::supported_protocol_versions(&self.0)
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
pub async fn serve<S, R, W>(
    toolbox: impl Into<Arc<Toolbox<S>>>,
    identity: Identity,
    reader: R,
    writer: W,
) -> Result<(), ServeError>
where
    S: Send + Sync + 'static,
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let toolbox = toolbox.into();
    let limits = message_limits(toolbox.limits());
    let server = Guarded(McpServer::new(toolbox, identity));
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

/// Serves `toolbox` over standard input and output as `identity`, the
/// identity the process was started with, until the client closes stdin.
pub async fn serve_stdio<S: Send + Sync + 'static>(
    toolbox: impl Into<Arc<Toolbox<S>>>,
    identity: Identity,
) -> Result<(), ServeError> {
    serve(toolbox, identity, tokio::io::stdin(), tokio::io::stdout()).await
}
