//! `--otlp URL`: the demo's spans to an OpenTelemetry collector, over
//! OTLP/HTTP with protobuf (the collector's port 4318).
//!
//! Each `tools/call` is a server span with the toolbox's `execute_tool`
//! span beneath it; the scripted client names its own span in each
//! request's `_meta.traceparent`, so a whole session reads as one trace.

use opentelemetry::propagation::Injector;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use crate::Error;

/// Spans on their way to a collector; [`Exporting::finish`] sends what is
/// left before the demo exits.
pub struct Exporting(SdkTracerProvider);

/// The layer that turns spans into OpenTelemetry spans and exports them to
/// the collector at `url` (`http://127.0.0.1:4318`), and the exporter
/// behind it.
pub fn exporting<S>(url: &str) -> Result<(impl tracing_subscriber::Layer<S>, Exporting), Error>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    let endpoint = format!("{}/v1/traces", url.trim_end_matches('/'));
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(endpoint)
        .build()?;
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(
            Resource::builder()
                .with_service_name("toolgate-demo")
                .build(),
        )
        .build();
    // How a `traceparent` in `_meta` is read, and written by the client.
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("toolgate-demo"));
    Ok((layer, Exporting(provider)))
}

impl Exporting {
    /// Sends the spans not yet sent and stops the exporter. It blocks
    /// while it sends, so it runs on a thread that may block.
    pub async fn finish(self) {
        let provider = self.0;
        let finished = tokio::task::spawn_blocking(move || provider.shutdown()).await;
        if let Ok(Err(error)) = finished {
            eprintln!("toolgate-demo: exporting spans: {error}");
        }
    }
}

/// Writes the trace context of `span` (the client's span of one call)
/// into a request's `_meta`, as OpenTelemetry's MCP conventions carry it.
/// Nothing is written unless spans are being exported.
pub fn inject(span: &tracing::Span, meta: &mut rmcp::model::RequestMetaObject) {
    struct Meta<'a>(&'a mut serde_json::Map<String, serde_json::Value>);
    impl Injector for Meta<'_> {
        fn set(&mut self, key: &str, value: String) {
            self.0.insert(key.to_owned(), value.into());
        }
    }
    let context = span.context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut Meta(&mut meta.0.0));
    });
}
