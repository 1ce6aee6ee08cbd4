//! Progress of a long call, sent to the client as MCP's
//! `notifications/progress`.

use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;

/// A tool body's way to tell the client how far a long call has come:
/// MCP's `notifications/progress`, for the request that asked for it (its
/// `_meta.progressToken`). The body finds it among the context's
/// extensions, present only when the client asked; a body that never
/// looks runs as before, and nothing about it reaches the gates.
///
/// ```
/// use toolgate::{ToolContext, ToolError, tool};
/// use toolgate_mcp::Progress;
///
/// /// Reindex every document of the caller's tenant.
/// #[tool(effect = write)]
/// async fn reindex(ctx: &ToolContext) -> Result<u32, ToolError> {
///     let batches = 4;
///     for done in 1..=batches {
///         // … one batch of work …
///         if let Some(progress) = ctx.extension::<Progress>() {
///             progress.report(f64::from(done), Some(f64::from(batches)), Some("indexing")).await;
///         }
///     }
///     Ok(batches)
/// }
/// # let _ = Reindex;
/// ```
#[derive(Clone, Debug)]
pub struct Progress {
    peer: Peer<RoleServer>,
    token: ProgressToken,
}

impl Progress {
    pub(crate) fn new(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        Progress { peer, token }
    }

    /// Tells the client that `progress` of `total` (if known) is done,
    /// with a message a person may read. `progress` should grow with each
    /// report. A client gone or a notification that cannot be sent is not
    /// the body's failure: the call goes on, and the report is dropped.
    pub async fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let mut param = ProgressNotificationParam::new(self.token.clone(), progress);
        param.total = total;
        param.message = message.map(str::to_owned);
        if let Err(error) = self.peer.notify_progress(param).await {
            tracing::debug!(target: "toolgate_mcp", %error, "progress not sent");
        }
    }
}
