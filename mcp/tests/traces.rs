//! With the `otel` feature, a `tools/call` is a server span whose parent is
//! the client's span named in `params._meta.traceparent`, as OpenTelemetry's
//! MCP conventions propagate trace context; the toolbox's `execute_tool`
//! span is its child. Spans go through tracing-opentelemetry to the SDK's
//! in-memory exporter, as a host's would go to a collector.

mod common;

use std::sync::{Arc, OnceLock};

use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId, TracerProvider as _};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, RequestMetaObject};
use serde_json::json;
use toolgate::Toolbox;
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_mcp::Identity;
use tracing_subscriber::layer::SubscriberExt as _;

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

/// Every span this test binary ends, as an exporter to a collector would
/// send them.
fn exported() -> &'static (InMemorySpanExporter, SdkTracerProvider) {
    static INSTALLED: OnceLock<(InMemorySpanExporter, SdkTracerProvider)> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("traces-test"));
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
            .expect("no other global subscriber");
        // The host chooses how trace context is read: W3C Trace Context.
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        (exporter, provider)
    })
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes
        .iter()
        .find(|KeyValue { key: k, .. }| k.as_str() == key)
        .map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(|v| v.as_str().into_owned())
}

fn toolbox() -> Arc<Toolbox<Hotels>> {
    let mut toolbox = Toolbox::new(Hotels::demo());
    toolbox.register(BookHotel).unwrap();
    Arc::new(toolbox)
}

fn booking() -> CallToolRequestParams {
    let arguments = json!({"hotel_id":"h_seaview1","nights":2});
    CallToolRequestParams::new("book_hotel").with_arguments(arguments.as_object().unwrap().clone())
}

#[tokio::test]
async fn a_tools_call_span_continues_the_clients_trace() {
    let (exporter, provider) = exported();
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    let identity = Identity::new("traveller_7", "tenant_a").with_scopes(["bookings:write"]);
    tokio::spawn(toolgate_mcp::serve(toolbox(), identity, read, write));
    let client = ().serve(tokio::io::split(client)).await.unwrap();

    // The client's span, as its instrumentation would inject it.
    let mut traced = booking();
    let mut meta = RequestMetaObject::new();
    meta.0.0.insert(
        "traceparent".to_owned(),
        json!(format!("00-{TRACE}-{PARENT}-01")),
    );
    traced.meta = Some(meta);
    let done = client.call_tool(traced).await.unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    // Then a call that names no span of the client's, and one refused.
    client.call_tool(booking()).await.unwrap();
    let refused = client
        .call_tool(CallToolRequestParams::new("drop_tables"))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    client.cancel().await.unwrap();
    provider.force_flush().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let servers: Vec<&SpanData> = spans
        .iter()
        .filter(|s| text(s, "mcp.method.name").as_deref() == Some("tools/call"))
        .filter(|s| text(s, "network.transport").as_deref() == Some("pipe"))
        .collect();
    assert_eq!(servers.len(), 3, "{spans:#?}");
    let (traced, untraced, refused) = (servers[0], servers[1], servers[2]);

    // The server span continues the client's trace, under the client's span.
    assert_eq!(
        traced.span_context.trace_id(),
        TraceId::from_hex(TRACE).unwrap()
    );
    assert_eq!(traced.parent_span_id, SpanId::from_hex(PARENT).unwrap());
    assert!(traced.parent_span_is_remote);
    assert_eq!(traced.name, "tools/call book_hotel");
    assert_eq!(traced.span_kind, SpanKind::Server);
    assert_eq!(
        text(traced, "gen_ai.tool.name").as_deref(),
        Some("book_hotel")
    );
    assert_eq!(
        text(traced, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(text(traced, "network.transport").as_deref(), Some("pipe"));
    assert_eq!(
        text(traced, "mcp.protocol.version").as_deref(),
        Some("2025-11-25")
    );
    let jsonrpc_id = text(traced, "jsonrpc.request.id").unwrap();
    assert!(jsonrpc_id.parse::<u64>().is_ok(), "{jsonrpc_id}");
    // Over stdio there is no MCP session id.
    assert_eq!(text(traced, "mcp.session.id"), None);
    assert_eq!(traced.status, Status::Unset);
    let request_id = text(traced, "toolgate.request.id").unwrap();
    assert!(request_id.starts_with("mcp-"), "{request_id}");

    // The toolbox's span is the server span's child, in the same trace.
    let executed = spans
        .iter()
        .find(|s| s.parent_span_id == traced.span_context.span_id())
        .expect("the execute_tool span");
    assert_eq!(executed.name, "execute_tool book_hotel");
    assert_eq!(executed.span_kind, SpanKind::Internal);
    assert_eq!(
        executed.span_context.trace_id(),
        traced.span_context.trace_id()
    );
    assert_eq!(text(executed, "toolgate.outcome").as_deref(), Some("done"));
    assert_eq!(text(executed, "gen_ai.tool.call.id"), Some(request_id));

    // Without a traceparent the server span starts a trace of its own,
    // not one of the session's.
    assert_ne!(
        untraced.span_context.trace_id(),
        traced.span_context.trace_id()
    );
    assert_eq!(untraced.parent_span_id, SpanId::INVALID);

    // A name no tool has: the span's name does not say it, and the result
    // the model read as an error is `tool_error`.
    assert_eq!(refused.name, "tools/call");
    assert_eq!(
        text(refused, "gen_ai.tool.name").as_deref(),
        Some("drop_tables")
    );
    assert_eq!(text(refused, "error.type").as_deref(), Some("tool_error"));
    assert!(
        matches!(refused.status, Status::Error { .. }),
        "{:?}",
        refused.status
    );
    let denied = spans
        .iter()
        .find(|s| s.parent_span_id == refused.span_context.span_id())
        .expect("the refused call's execute_tool span");
    assert_eq!(denied.name, "execute_tool");
    assert_eq!(text(denied, "toolgate.gate").as_deref(), Some("admission"));
    assert_eq!(text(denied, "error.type").as_deref(), Some("NOT_PERMITTED"));
    // The audit event is an event of that span.
    assert!(
        denied.events.iter().any(|e| e.name == "call denied"),
        "{:?}",
        denied.events
    );
}

#[tokio::test]
async fn over_http_the_span_names_the_session_and_the_request() {
    let (exporter, provider) = exported();
    let url = common::start(common::hotels()).await;
    let bearer = common::bearer("analyst_1");
    let session = common::open_session(&url, &bearer).await;
    let stay = r#"{"hotel_id":"h_seaview1","nights":2}"#;
    let answer = common::in_session(&url, &bearer, &session, reqwest::Method::POST)
        .body(common::session_call(7, stay))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(common::outcome(answer).await["nights"], 2);
    provider.force_flush().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let server = spans
        .iter()
        .find(|s| text(s, "mcp.session.id").as_deref() == Some(session.as_str()))
        .expect("a span with the session's id");
    assert_eq!(server.name, "tools/call book_hotel");
    assert_eq!(text(server, "network.transport").as_deref(), Some("tcp"));
    assert_eq!(text(server, "jsonrpc.request.id").as_deref(), Some("7"));
    assert_eq!(
        text(server, "mcp.protocol.version").as_deref(),
        Some("2025-11-25")
    );
    assert!(
        spans
            .iter()
            .any(|s| s.parent_span_id == server.span_context.span_id()
                && s.name == "execute_tool book_hotel"),
        "{spans:#?}"
    );
}
