//! One rule for results, rmcp's `Json<T>`'s: a completed call's result is
//! `structuredContent`, whatever its JSON type, with the same value as
//! the text block; a client on a version before 2026-07-28, where
//! structured content must be an object, gets a non-object result in the
//! text block only. Shown by calling the same results from toolgate's
//! server and from an rmcp server whose tools return `Json<T>`, on both
//! protocol generations: the client reads the same thing from both.

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::{IntoCallToolResult as _, ToolCallContext};
use rmcp::handler::server::wrapper::Json;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{ClientLifecycleMode, RequestContext, RunningService};
use rmcp::{RoleClient, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value, json};
use toolgate::{ToolError, Toolbox};
use toolgate_mcp::{Identity, McpServer};

#[derive(Clone, serde::Serialize, schemars::JsonSchema)]
struct Reservation {
    hotel: String,
    nights: u8,
}

fn stay_value() -> Reservation {
    Reservation {
        hotel: "h_seaview1".to_owned(),
        nights: 2,
    }
}

/// The names of the hotels.
#[toolgate::tool(effect = read)]
fn names() -> Result<Vec<String>, ToolError> {
    Ok(vec!["Seaview".to_owned(), "Harbour \"Inn\"".to_owned()])
}

/// How many hotels there are.
#[toolgate::tool(effect = read)]
fn count() -> Result<u32, ToolError> {
    Ok(7)
}

/// The caller's stay.
#[toolgate::tool(effect = read)]
fn stay() -> Result<Reservation, ToolError> {
    Ok(stay_value())
}

/// The same tools, answered by rmcp's own `Json<T>`.
struct Reference {
    tools: ToolRouter<Reference>,
}

fn route<T, F>(name: &'static str, value: F) -> ToolRoute<Reference>
where
    T: serde::Serialize + schemars::JsonSchema + 'static,
    F: Fn() -> T + Send + Sync + 'static,
{
    let Value::Object(schema) = json!({"type":"object","properties":{}}) else {
        unreachable!()
    };
    ToolRoute::new_dyn(
        Tool::new(name, name, schema),
        move |_: ToolCallContext<'_, Reference>| {
            let result = Json(value()).into_call_tool_result();
            Box::pin(async move { result })
        },
    )
}

impl ServerHandler for Reference {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
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

fn lifecycle(version: &ProtocolVersion) -> ClientLifecycleMode {
    if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    }
}

async fn toolgate_client(version: &ProtocolVersion) -> RunningService<RoleClient, ()> {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Names).unwrap();
    toolbox.register(Count).unwrap();
    toolbox.register(Stay).unwrap();
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    let server = McpServer::new(toolbox, Identity::new("traveller_7", "tenant_a"));
    tokio::spawn(server.run(read, write));
    rmcp::serve_client_with_lifecycle((), tokio::io::split(client), lifecycle(version))
        .await
        .unwrap()
}

async fn reference_client(version: &ProtocolVersion) -> RunningService<RoleClient, ()> {
    let tools = ToolRouter::new()
        .with_route(route("names", || {
            vec!["Seaview".to_owned(), "Harbour \"Inn\"".to_owned()]
        }))
        .with_route(route("count", || 7u32))
        .with_route(route("stay", stay_value));
    let (client, server) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = Reference { tools }
            .serve(tokio::io::split(server))
            .await
            .unwrap();
        let _ = running.waiting().await;
    });
    rmcp::serve_client_with_lifecycle((), tokio::io::split(client), lifecycle(version))
        .await
        .unwrap()
}

/// What a client reads of a result.
fn read(result: &CallToolResult) -> Value {
    json!({
        "content": result.content,
        "structuredContent": result.structured_content,
        "isError": result.is_error,
    })
}

async fn results_read_as_json_t_results_read(version: ProtocolVersion) {
    let ours = toolgate_client(&version).await;
    let reference = reference_client(&version).await;
    for name in ["names", "count", "stay"] {
        let call = CallToolRequestParams::new(name);
        let got = ours.call_tool(call.clone()).await.unwrap();
        let expected = reference.call_tool(call).await.unwrap();
        assert_eq!(read(&got), read(&expected), "{name} on {version}");
    }
    // And what that is, spelled out.
    let names = ours
        .call_tool(CallToolRequestParams::new("names"))
        .await
        .unwrap();
    let text = names.content[0].as_text().unwrap().text.clone();
    assert_eq!(text, r#"["Seaview","Harbour \"Inn\""]"#);
    let structured = names.structured_content.clone();
    if version.has_initialize() {
        // Before 2026-07-28 structured content is an object or nothing.
        assert_eq!(structured, None);
    } else {
        assert_eq!(structured, Some(json!(["Seaview", "Harbour \"Inn\""])));
    }
    let stay = ours
        .call_tool(CallToolRequestParams::new("stay"))
        .await
        .unwrap();
    assert_eq!(
        stay.structured_content,
        Some(json!({"hotel":"h_seaview1","nights":2}))
    );
    assert_eq!(
        stay.content[0].as_text().unwrap().text,
        r#"{"hotel":"h_seaview1","nights":2}"#
    );
    ours.cancel().await.unwrap();
    reference.cancel().await.unwrap();
}

#[tokio::test]
async fn results_read_as_rmcp_json_results_read_with_initialize() {
    results_read_as_json_t_results_read(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test]
async fn results_read_as_rmcp_json_results_read_with_discover() {
    results_read_as_json_t_results_read(ProtocolVersion::V_2026_07_28).await;
}
