//! The approvals API beside the MCP endpoint: a small JSON API through
//! which a person finds the approvals waiting for them and decides them,
//! under the same bearer authentication as the endpoint.
//!
//! | request | answer |
//! |---|---|
//! | `GET <endpoint>/approvals` | `200 {"approvals":[…]}`: what this caller may decide now, oldest first, at most 100 |
//! | `POST <endpoint>/approvals/{id}/approve` | `200 {"id":…,"state":"approved"}` |
//! | `POST <endpoint>/approvals/{id}/deny` | `200 {"id":…,"state":"denied"}` |
//! | `POST <endpoint>/approvals/{id}/withdraw` | `200 {"id":…,"state":"withdrawn"}` (the asker, or anyone who may decide) |
//!
//! Each listed approval is its preview, as the approval stores it: `id`,
//! `tool`, `version`, `asked_by` (the actor), `session`, `request_id`,
//! `call_id`, `arguments` (every value the body will receive, by wire
//! name), `resources` (each object's field, reference, version and
//! summary), `approver_scope`, `distinct_approver`, `approver`,
//! `created_at` and `expires_at` (RFC 3339, UTC).
//!
//! A decision the caller may not make (an id unknown, of another tenant,
//! or one they may not decide) is one flat answer, `404` with
//! `NOT_PERMITTED`, whatever the reason: it never says whether the
//! approval exists. The reason goes to the audit log with the tool's name.
//! To a caller who may decide it, an approval that expired or was decided
//! already is `409` with `APPROVAL_EXPIRED`, `ALREADY_DECIDED` or
//! `APPROVAL_USED`; a store that fails, `503` with `UNAVAILABLE`.
//!
//! The API answers only requests with a bearer token the authenticator
//! accepts; a browser never attaches one on its own, and the API sends
//! no CORS headers, so a page of another origin cannot call it with one.

use std::time::SystemTime;

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use toolgate::{Approval, ApprovalError, Code, Rejection, ToolContext};

use crate::{Identity, Tools};

/// The most approvals one listing returns.
pub(crate) const LISTED: usize = 100;

/// The API's routes under `endpoint` (the MCP endpoint's path), without
/// authentication: the router layers its own over them.
pub(crate) fn routes(endpoint: &str, tools: Tools) -> axum::Router {
    let base = match endpoint.trim_end_matches('/') {
        "" => String::new(),
        path => path.to_owned(),
    };
    axum::Router::new()
        .route(&format!("{base}/approvals"), axum::routing::get(list))
        .route(
            &format!("{base}/approvals/{{id}}/{{action}}"),
            axum::routing::post(act),
        )
        .with_state(tools)
}

/// The context of one API request by `identity`.
fn context(identity: &Identity) -> ToolContext {
    identity.context(crate::request_id(), &identity.conversation("approvals"))
}

async fn list(State(tools): State<Tools>, Extension(identity): Extension<Identity>) -> Response {
    let ctx = context(&identity);
    match tools.pending(&ctx, LISTED).await {
        Ok(listed) => {
            let approvals: Vec<Value> = listed.iter().map(preview).collect();
            axum::Json(json!({ "approvals": approvals })).into_response()
        }
        Err(error) => {
            tracing::error!(
                target: "toolgate::audit",
                request_id = ctx.request_id(),
                actor = %ctx.actor().escape_debug(),
                tenant = %ctx.tenant().escape_debug(),
                error = %error,
                "approvals could not be listed"
            );
            unavailable()
        }
    }
}

async fn act(
    State(tools): State<Tools>,
    Extension(identity): Extension<Identity>,
    Path((id, action)): Path<(String, String)>,
) -> Response {
    let ctx = context(&identity);
    let (done, state) = match action.as_str() {
        "approve" => (tools.decide_by_id(&ctx, &id, true).await, "approved"),
        "deny" => (tools.decide_by_id(&ctx, &id, false).await, "denied"),
        "withdraw" => (tools.withdraw(&ctx, &id).await, "withdrawn"),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    match done {
        Ok(()) => axum::Json(json!({ "id": id, "state": state })).into_response(),
        Err(error) => refused(&error),
    }
}

/// A refused decision as the caller reads it. The toolbox logged why.
fn refused(error: &ApprovalError) -> Response {
    let (status, code, message) = match error {
        ApprovalError::Expired => (
            StatusCode::CONFLICT,
            Code::ApprovalExpired.as_str(),
            "This approval expired; it can no longer be decided.",
        ),
        ApprovalError::AlreadyDecided => (
            StatusCode::CONFLICT,
            "ALREADY_DECIDED",
            "This approval was already decided or withdrawn.",
        ),
        ApprovalError::AlreadyUsed => (
            StatusCode::CONFLICT,
            Code::ApprovalUsed.as_str(),
            "The approved call ran already; it cannot be withdrawn.",
        ),
        ApprovalError::Store(_) => return unavailable(),
        // Unknown, another tenant's, or not this caller's to decide: one
        // answer, so that none says whether the approval exists.
        _ => {
            let flat = Rejection::not_permitted();
            return (StatusCode::NOT_FOUND, axum::Json(json!(flat))).into_response();
        }
    };
    let body = json!({
        "status": "rejected",
        "code": code,
        "safe_message": message,
        "retryable": false,
    });
    (status, axum::Json(body)).into_response()
}

fn unavailable() -> Response {
    let body = json!({
        "status": "rejected",
        "code": Code::Unavailable.as_str(),
        "safe_message": "The server could not reach its approvals. Try again shortly.",
        "retryable": true,
    });
    (StatusCode::SERVICE_UNAVAILABLE, axum::Json(body)).into_response()
}

/// An approval as a person is shown it.
fn preview(approval: &Approval) -> Value {
    let resources: Vec<Value> = approval
        .resources
        .iter()
        .map(|seen| {
            json!({
                "field": seen.field,
                "reference": seen.reference,
                "version": seen.version,
                "summary": seen.summary,
            })
        })
        .collect();
    json!({
        "id": approval.id,
        "tool": approval.tool,
        "version": approval.version,
        "asked_by": approval.actor,
        "session": approval.session,
        "request_id": approval.request_id,
        "call_id": approval.call_id,
        "arguments": approval.arguments,
        "resources": resources,
        "approver_scope": approval.approver_scope,
        "distinct_approver": approval.distinct_approver,
        "approver": approval.approver,
        "waits_for": approval.waits_for(),
        "created_at": rfc3339(approval.created_at),
        "expires_at": rfc3339(approval.expires_at),
    })
}

/// `time` in RFC 3339, UTC, to the millisecond: `2026-12-07T05:39:09.123Z`.
fn rfc3339(time: SystemTime) -> String {
    let since = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, for days on or after the epoch).
fn civil(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::rfc3339;

    #[test]
    fn instants_are_written_as_rfc_3339_in_utc() {
        let at = |secs: u64, millis: u64| {
            rfc3339(SystemTime::UNIX_EPOCH + Duration::from_millis(secs * 1_000 + millis))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        // A leap day, and the last second of a leap year.
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(1_735_689_599, 999), "2024-12-31T23:59:59.999Z");
        assert_eq!(at(1_796_621_949, 123), "2026-12-07T05:39:09.123Z");
    }
}
