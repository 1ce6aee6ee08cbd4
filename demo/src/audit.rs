//! The audit log, printed as it happens: every event toolgate sends to the
//! `toolgate::audit` tracing target, one line each, beside the transcript
//! (on standard output) or the server's protocol (on standard error); and
//! with `--otlp`, the spans too, to a collector.

use std::fmt::Write as _;
use std::io::Write as _;

use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::{Layer, Registry};

/// Prints each audit event as one line.
struct AuditLines {
    to_stdout: bool,
}

/// The event's message first, then `name=value` for the fields worth
/// reading beside a transcript.
#[derive(Default)]
struct Line {
    message: String,
    fields: String,
}

impl Visit for Line {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "message" => self.message = value.to_owned(),
            // Who and where are the same on every line of a session.
            "tenant" | "request_id" | "session_id" => {}
            _ if value.is_empty() => {}
            name => {
                let _ = write!(self.fields, " {name}={value}");
            }
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> Layer<S> for AuditLines {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "toolgate::audit" {
            return;
        }
        let mut line = Line::default();
        event.record(&mut line);
        let text = format!("      audit: {}{}\n", line.message, line.fields);
        // A lost audit line must not stop the demo.
        let _ = if self.to_stdout {
            std::io::stdout().lock().write_all(text.as_bytes())
        } else {
            std::io::stderr().lock().write_all(text.as_bytes())
        };
    }
}

/// Sends the audit log to standard output, or standard error; with
/// `otlp`, every span (and the audit events in it) to the collector there.
pub fn install(
    to_stdout: bool,
    otlp: Option<&str>,
) -> Result<Option<crate::traces::Exporting>, crate::Error> {
    let (layer, exporting) = match otlp {
        Some(url) => {
            let (layer, exporting) = crate::traces::exporting(url)?;
            (Some(layer), Some(exporting))
        }
        None => (None, None),
    };
    let subscriber = Registry::default()
        .with(AuditLines { to_stdout })
        .with(layer);
    let _ = tracing::subscriber::set_global_default(subscriber);
    Ok(exporting)
}
