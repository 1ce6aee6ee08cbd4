//! `--otlp`: the scripted session's spans reach a collector, as OTLP/HTTP
//! with protobuf, in one trace per session: the client's span of each
//! call, the server's `tools/call` span beneath it (its parent read from
//! `_meta.traceparent`), and the toolbox's `execute_tool` span beneath
//! that. The collector here is a loopback endpoint that keeps what it is
//! sent.

use std::collections::BTreeMap;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message as _;

/// A collector's OTLP/HTTP traces endpoint on a loopback port: its URL,
/// and every request body it receives.
async fn collector() -> (String, tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>) {
    let (sent, received) = tokio::sync::mpsc::unbounded_channel();
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: axum::body::Bytes| {
            let sent = sent.clone();
            async move {
                let _ = sent.send(body.to_vec());
                // An empty ExportTraceServiceResponse: all accepted.
                (
                    [("content-type", "application/x-protobuf")],
                    Vec::<u8>::new(),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, received)
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
        .map(|value| match value {
            Any::StringValue(text) => text.clone(),
            other => format!("{other:?}"),
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_sends_each_calls_spans_to_a_collector() {
    let (url, mut received) = collector().await;
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolgate-demo"))
        .args(["--otlp", &url])
        .output()
        .await
        .expect("the demo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The demo sends what is left before it exits.
    let mut spans = Vec::new();
    while let Ok(body) = received.try_recv() {
        let request = ExportTraceServiceRequest::decode(body.as_slice()).expect("OTLP protobuf");
        for resource in request.resource_spans {
            let service = resource
                .resource
                .iter()
                .flat_map(|r| &r.attributes)
                .find(|kv| kv.key == "service.name")
                .and_then(|kv| kv.value.as_ref()?.value.as_ref())
                .cloned();
            assert_eq!(service, Some(Any::StringValue("toolgate-demo".to_owned())));
            spans.extend(resource.scope_spans.into_iter().flat_map(|s| s.spans));
        }
    }
    assert!(!spans.is_empty(), "the collector received no span");
    let by_id: BTreeMap<&[u8], &Span> = spans.iter().map(|s| (s.span_id.as_slice(), s)).collect();
    let parent = |span: &Span| by_id.get(span.parent_span_id.as_slice()).copied();

    // Every call the model made: the client's span, the server's span
    // under it (its parent named in `_meta`), the toolbox's under that.
    let executed: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name == "execute_tool book_hotel")
        .collect();
    assert!(
        !executed.is_empty(),
        "{:#?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    for span in &executed {
        assert_eq!(span.kind, SpanKind::Internal as i32);
        let server = parent(span).expect("the server span");
        assert_eq!(server.name, "tools/call book_hotel");
        assert_eq!(server.kind, SpanKind::Server as i32);
        assert_eq!(
            attribute(server, "mcp.method.name").as_deref(),
            Some("tools/call")
        );
        let client = parent(server).expect("the client span, from _meta.traceparent");
        assert_eq!(client.kind, SpanKind::Client as i32);
        assert_eq!(span.trace_id, client.trace_id);
    }
    // A refused call says which gate refused it, which the model was not
    // told.
    assert!(
        executed.iter().any(|s| {
            attribute(s, "toolgate.outcome").as_deref() == Some("rejected")
                && attribute(s, "toolgate.gate").as_deref() == Some("structure")
                && attribute(s, "toolgate.code").as_deref() == Some("OUT_OF_RANGE")
        }),
        "{executed:#?}"
    );

    // The refund: held for a person, run once approved, its retry replayed.
    let refund: Vec<String> = spans
        .iter()
        .filter(|s| s.name == "execute_tool issue_refund")
        .filter_map(|s| attribute(s, "toolgate.outcome"))
        .collect();
    for outcome in ["approval_required", "done", "replayed"] {
        assert!(refund.iter().any(|o| o == outcome), "{outcome}: {refund:?}");
    }
    // The session is one trace.
    let traces: std::collections::BTreeSet<&[u8]> = spans
        .iter()
        .filter(|s| s.name.starts_with("execute_tool") || s.name.starts_with("tools/call"))
        .map(|s| s.trace_id.as_slice())
        .collect();
    assert_eq!(traces.len(), 1, "one trace per session");
}
