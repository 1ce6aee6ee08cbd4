//! Toolgate's tools in an rmcp server of the host's own: one
//! [`ToolRoute`] per tool, for the host's [`ToolRouter`], each call
//! running every gate exactly as [`McpServer`] serves it.

use rmcp::RoleServer;
use rmcp::ServerHandler as _;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::RequestContext;

use crate::{McpServer, typed};

impl McpServer {
    /// The tools served here as routes of rmcp's [`ToolRouter`], to add
    /// to the router of an rmcp server the host already has (`+`, or
    /// [`ToolRouter::merge`]).
    ///
    /// Every call through a route is the call [`McpServer`] serves: the
    /// caller is this server's identity ([`McpServer::new`], for a server
    /// of one caller such as stdio) or the [`Identity`](crate::Identity)
    /// the request's HTTP extensions carry
    /// ([`McpServer::per_request`]: put there by the host's own layer, or
    /// by toolgate's bearer authentication), never anything the client
    /// sent; a request without one is refused `NOT_PERMITTED`. Gates 0
    /// to 6 run as ever, approvals ask through elicitation, and a body can
    /// report [`Progress`](crate::Progress).
    ///
    /// rmcp's transports parse each message before the route sees it, so
    /// a route receives the arguments rmcp parsed (a repeated key is kept
    /// last, as rmcp keeps it), and gate 1 reads them re-serialized;
    /// [`McpServer::run`] and [`router`](crate::router) read the bytes the
    /// client sent. rmcp lists every route to every caller: have the
    /// host's `list_tools` add [`tools_for`](Self::tools_for) instead of
    /// the routes' own list, and each caller sees only the tools it may
    /// call.
    ///
    /// ```
    /// use rmcp::ServerHandler;
    /// use rmcp::handler::server::router::tool::ToolRouter;
    /// use rmcp::handler::server::tool::ToolCallContext;
    /// use rmcp::model::{CallToolRequestParams, CallToolResponse, ErrorData, ListToolsResult,
    ///     PaginatedRequestParams, ServerCapabilities, ServerConfig};
    /// use rmcp::service::RequestContext;
    /// use rmcp::RoleServer;
    /// use toolgate::Toolbox;
    /// use toolgate_mcp::McpServer;
    ///
    /// /// The host's server, with tools of its own beside toolgate's.
    /// #[derive(Clone)]
    /// struct Host {
    ///     tools: ToolRouter<Host>,
    ///     gated: McpServer,
    /// }
    ///
    /// impl Host {
    ///     fn new(toolbox: Toolbox<()>) -> Self {
    ///         let gated = McpServer::per_request(toolbox);
    ///         let own: ToolRouter<Host> = ToolRouter::new(); // the host's own routes
    ///         Host { tools: own + gated.tool_router(), gated }
    ///     }
    /// }
    ///
    /// impl ServerHandler for Host {
    ///     fn get_info(&self) -> ServerConfig {
    ///         ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    ///     }
    ///
    ///     async fn list_tools(
    ///         &self,
    ///         _: Option<PaginatedRequestParams>,
    ///         context: RequestContext<RoleServer>,
    ///     ) -> Result<ListToolsResult, ErrorData> {
    ///         // The host's own tools, and those of toolgate's this caller may call.
    ///         let mut tools: Vec<_> = self
    ///             .tools
    ///             .list_all()
    ///             .into_iter()
    ///             .filter(|tool| !self.gated.serves(&tool.name))
    ///             .collect();
    ///         tools.extend(self.gated.tools_for(&context)?);
    ///         Ok(ListToolsResult::with_all_items(tools))
    ///     }
    ///
    ///     async fn call_tool(
    ///         &self,
    ///         request: CallToolRequestParams,
    ///         context: RequestContext<RoleServer>,
    ///     ) -> Result<CallToolResponse, ErrorData> {
    ///         self.tools.call(ToolCallContext::new(self, request, context)).await
    ///     }
    /// }
    /// # let _ = Host::new(Toolbox::new(()));
    /// ```
    pub fn tool_router<S: Send + Sync + 'static>(&self) -> ToolRouter<S> {
        let mut router = ToolRouter::new();
        for def in self.tools.definitions() {
            let Ok(tool) = typed::<Tool>(toolgate::providers::mcp::tool(def)) else {
                continue;
            };
            let server = self.clone();
            router.add_route(ToolRoute::new_dyn(
                tool,
                move |call: ToolCallContext<'_, S>| {
                    let server = server.clone();
                    let mut request = CallToolRequestParams::new(call.name);
                    request.arguments = call.arguments;
                    request.input_responses = call.input_responses;
                    request.request_state = call.request_state;
                    let context = call.request_context;
                    Box::pin(async move { server.call_tool(request, context).await })
                },
            ));
        }
        router
    }

    /// The tools the caller of `context` may call, in rmcp's form: what
    /// `tools/list` answers here, for the `list_tools` of a host's server
    /// that mounts [`tool_router`](Self::tool_router). None when the
    /// request names no caller.
    pub fn tools_for(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Vec<Tool>, rmcp::model::ErrorData> {
        let Some(ctx) = self.context(context) else {
            return Ok(Vec::new());
        };
        self.tools
            .definitions_for(&ctx)
            .into_iter()
            .map(|def| typed::<Tool>(toolgate::providers::mcp::tool(def)))
            .collect()
    }

    /// Whether a tool of this server is called `name`.
    pub fn serves(&self, name: &str) -> bool {
        self.tools.serves(name)
    }
}
