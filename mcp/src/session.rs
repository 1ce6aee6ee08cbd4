//! 2025-11-25 sessions over HTTP, each bound to the principal that opened
//! it.
//!
//! rmcp keeps sessions by their `Mcp-Session-Id` alone: whoever presents
//! the id is in the session, and the session is the conversation that
//! gate 6 replays outcomes in. Here the principal whose token opened a
//! session is recorded as it is created, and a request that presents the
//! id with another principal's token is answered exactly as a request for
//! a session that does not exist: it learns nothing, reaches nothing, and
//! the refusal goes to the audit log.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions as _, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};

use crate::{Identity, Principal};

/// Who opened each open session; `None` for a session whose opening
/// request carried no identity, which nobody may then use.
type Owners = Arc<Mutex<HashMap<SessionId, Option<Principal>>>>;

/// rmcp's in-memory sessions, each recorded with its owner from the
/// moment it is initialized until it closes (a `DELETE`, the client
/// gone, or rmcp's idle timeout).
pub(crate) struct BoundSessions {
    sessions: LocalSessionManager,
    owners: Owners,
}

/// The owners' record, for the request check.
#[derive(Clone)]
pub(crate) struct Bindings {
    owners: Owners,
}

impl BoundSessions {
    pub(crate) fn new() -> (Self, Bindings) {
        let owners = Owners::default();
        let bindings = Bindings {
            owners: Arc::clone(&owners),
        };
        let sessions = BoundSessions {
            sessions: LocalSessionManager::default(),
            owners,
        };
        (sessions, bindings)
    }
}

/// A lock poisoned by a panic elsewhere still holds a consistent map:
/// every update is one insert or one remove.
fn lock(owners: &Owners) -> std::sync::MutexGuard<'_, HashMap<SessionId, Option<Principal>>> {
    owners
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Bindings {
    /// `None` if `caller` may present `session`: it opened it, or no open
    /// session has that id (rmcp answers those). Otherwise the answer to
    /// send instead, the one rmcp sends for an unknown session.
    pub(crate) fn refuse(&self, session: &str, caller: &Identity) -> Option<Response> {
        let owner = lock(&self.owners).get(session)?.clone();
        let caller = caller.principal();
        if owner.as_ref() == Some(&caller) {
            return None;
        }
        audit_foreign_session(session, &caller, owner.as_ref());
        Some(unknown_session())
    }
}

/// rmcp's answer to a request for a session it does not have, to the byte.
fn unknown_session() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

/// A session presented by a principal that did not open it.
fn audit_foreign_session(session: &str, caller: &Principal, owner: Option<&Principal>) {
    // The id is the client's header: bounded and escaped.
    let session: String = session.chars().take(128).collect();
    tracing::warn!(
        target: "toolgate::audit",
        event = "foreign_session",
        actor = caller.actor(),
        tenant = caller.tenant(),
        session = %session.escape_debug(),
        owner_actor = owner.map_or("", Principal::actor),
        owner_tenant = owner.map_or("", Principal::tenant),
        reason = "the session was opened by another principal",
        "session refused"
    );
}

impl SessionManager for BoundSessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.sessions.create_session().await
    }

    /// Records the owner before the session answers: its id reaches the
    /// client only in that answer, so no request can present it unbound.
    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let owner = match &message {
            ClientJsonRpcMessage::Request(request) => request
                .request
                .extensions()
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Identity>())
                .map(Identity::principal),
            _ => None,
        };
        lock(&self.owners).insert(id.clone(), owner);
        self.sessions.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.sessions.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.sessions.close_session(id).await;
        lock(&self.owners).remove(id);
        closed
    }

    fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.sessions.create_stream(id, message)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.sessions.accept_message(id, message).await
    }

    fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.sessions.create_standalone_stream(id)
    }

    fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.sessions.resume(id, last_event_id)
    }
}
