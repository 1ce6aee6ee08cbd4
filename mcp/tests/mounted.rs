//! Toolgate's tools mounted in an rmcp server of the host's own (its own
//! `ToolRouter`, its own tool beside them, rmcp's streamable HTTP service,
//! the host's own authentication layer), called by the Python MCP SDK on
//! both protocol generations: the caller the host's layer identified
//! reaches the tool body, a caller it did not is refused, a body's
//! progress reaches the client as `notifications/progress`, and the
//! model cannot name the caller in the arguments.
//!
//! The test needs a Python with the `mcp` package, so it is ignored
//! unless asked for (`--ignored`, as CI does); the interpreter is
//! `TOOLGATE_PYTHON` (CI sets it to a virtual environment with
//! `mcp==2.3.0`), else `python3`.

use std::process::Command;
use std::sync::Arc;

use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler};
use toolgate::{ToolContext, ToolError, Toolbox};
use toolgate_mcp::{Identity, McpServer, Progress};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Survey {
    actor: String,
    tenant: String,
    rooms: u8,
}

/// Survey the caller's rooms, one at a time.
#[toolgate::tool(effect = read)]
async fn survey_rooms(
    ctx: &ToolContext,
    #[garde(range(min = 1, max = 10))] rooms: u8,
) -> Result<Survey, ToolError> {
    for done in 1..=rooms {
        if let Some(progress) = ctx.extension::<Progress>() {
            progress
                .report(f64::from(done), Some(f64::from(rooms)), Some("surveying"))
                .await;
        }
    }
    Ok(Survey {
        actor: ctx.actor().to_owned(),
        tenant: ctx.tenant().to_owned(),
        rooms,
    })
}

/// The host's own rmcp server: a tool of its own, and toolgate's.
#[derive(Clone)]
struct Host {
    tools: ToolRouter<Host>,
    gated: McpServer,
}

impl Host {
    fn new(gated: McpServer) -> Self {
        let schema = serde_json::json!({"type":"object","properties":{}});
        let serde_json::Value::Object(schema) = schema else {
            unreachable!()
        };
        let own = ToolRouter::new().with_route(ToolRoute::new_dyn(
            Tool::new("host_version", "The host's version.", schema),
            |_: ToolCallContext<'_, Host>| {
                Box::pin(async {
                    Ok(CallToolResult::success(vec![ContentBlock::text("host 1.0")]).into())
                })
            },
        ));
        Host {
            tools: own + gated.tool_router(),
            gated,
        }
    }
}

impl ServerHandler for Host {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools: Vec<Tool> = self
            .tools
            .list_all()
            .into_iter()
            .filter(|tool| !self.gated.serves(&tool.name))
            .collect();
        tools.extend(self.gated.tools_for(&context)?);
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tools
            .call(ToolCallContext::new(self, request, context))
            .await
    }
}

/// The host's authentication: an API key of its own, in its own header.
async fn by_api_key(mut request: Request, next: Next) -> Response {
    let known = request
        .headers()
        .get("x-api-key")
        .is_some_and(|key| key == "key-of-analyst-1");
    if known {
        request
            .extensions_mut()
            .insert(Identity::new("analyst_1", "tenant_c"));
    }
    next.run(request).await
}

async fn start() -> String {
    let mut toolbox = Toolbox::new(());
    toolbox.register(SurveyRooms).unwrap();
    let gated = McpServer::per_request(Arc::new(toolbox));
    let service = StreamableHttpService::new(
        move || Ok(Host::new(gated.clone())),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new()
        .route_service("/mcp", service)
        .layer(middleware::from_fn(by_api_key));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

const VAR: &str = "TOOLGATE_PYTHON";

fn python() -> String {
    std::env::var(VAR)
        .ok()
        .filter(|python| !python.is_empty())
        .unwrap_or_else(|| "python3".to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Python MCP SDK: set TOOLGATE_PYTHON"]
async fn the_python_sdk_calls_toolgate_tools_mounted_in_a_host_s_rmcp_server() {
    let python = python();
    let url = start().await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/mounted.py");
    let output = tokio::task::spawn_blocking(move || {
        Command::new(&python)
            .arg(script)
            .arg(url)
            .output()
            .unwrap_or_else(|e| panic!("{VAR}={python} does not run: {e}"))
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for mode in ["2025-11-25", "2026-07-28"] {
        for check in [
            "the host's layer's caller reaches the body",
            "progress reaches the client",
            "a caller the host's layer did not identify is refused",
            "the model cannot name the caller",
            "the host's own tool answers",
        ] {
            assert!(
                stdout.contains(&format!("ok   {mode}: {check}")),
                "{stdout}"
            );
        }
    }
}
