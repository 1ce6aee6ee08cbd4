//! The approvals API beside the MCP endpoint, checked with two tenants,
//! two actors and two conversations: each caller is listed exactly the
//! approvals they may decide; a decision they may not make is one flat
//! answer, byte for byte the same as for an id that does not exist, with
//! the reason (and the tool) in the audit log; the asker and a decider
//! may withdraw, and a withdrawn approval never runs.

mod common;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use common::{AUDIENCE, ISSUER, SECRET, exp, token};
use serde_json::{Value, json};
use toolgate::{Approval, ApprovalState, EffectStore, MemoryStore, ToolContext, Toolbox};
use toolgate_examples::refund::{IssueRefund, Shop};
use toolgate_mcp::{HttpConfig, JwtAuthenticator};

const REFUND: &str = r#"{"order":"ord_1001","amount_cents":2500}"#;

fn bearer(actor: &str, tenant: &str, scopes: &str) -> String {
    token(json!({"sub":actor,"tenant":tenant,"scope":scopes,"aud":AUDIENCE,"exp":exp()}))
}

fn agent(session: &str) -> ToolContext {
    ToolContext::new("agent_1", "tenant_a", "req")
        .with_session(session)
        .with_scopes(["refunds:write"])
        .allow_all_tools()
}

struct Server {
    toolbox: Arc<Toolbox<Shop>>,
    store: Arc<MemoryStore>,
    approvals: String,
}

async fn start() -> Server {
    let store = Arc::new(MemoryStore::new());
    let mut toolbox = Toolbox::new(Shop::demo()).with_effect_store(Arc::clone(&store));
    toolbox.register(IssueRefund).unwrap();
    let toolbox = Arc::new(toolbox);
    let served = Arc::clone(&toolbox);
    let resource = common::serve(|resource| {
        toolgate_mcp::router(
            served,
            JwtAuthenticator::hs256(SECRET).unwrap().audience(AUDIENCE),
            HttpConfig::new(resource).authorization_servers([ISSUER]),
        )
    })
    .await;
    Server {
        toolbox,
        store,
        approvals: format!("{resource}/approvals"),
    }
}

impl Server {
    /// The approval the agent's refund waits for, asked in `conversation`.
    async fn held(&self, conversation: &str) -> Approval {
        let outcome = self
            .toolbox
            .call(&agent(conversation), "issue_refund", REFUND)
            .await;
        outcome
            .approval()
            .expect("the refund waits for approval")
            .clone()
    }
}

async fn get(url: &str, bearer: Option<&str>) -> (u16, Value) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(bearer) = bearer {
        request = request.bearer_auth(bearer);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn post(url: &str, bearer: &str) -> (u16, String) {
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(bearer)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// The ids a listing shows.
fn ids(listing: &Value) -> Vec<&str> {
    listing["approvals"]
        .as_array()
        .unwrap_or_else(|| panic!("{listing}"))
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect()
}

/// The same refund asked for in `tenant_b`, saved as gate 6 would.
fn elsewhere(like: &Approval) -> Approval {
    Approval {
        id: "apr_0000000000000000000000000000b0b0".to_owned(),
        tenant: "tenant_b".to_owned(),
        created_at: SystemTime::now(),
        expires_at: SystemTime::now() + Duration::from_secs(600),
        state: ApprovalState::Pending,
        ..like.clone()
    }
}

#[tokio::test]
async fn each_caller_is_listed_what_they_may_decide_and_nothing_else() {
    let server = start().await;
    let asked = server.held("c1").await;
    let other = elsewhere(&asked);
    server.store.create_approval(other.clone()).await.unwrap();

    let manager_a = bearer("manager_1", "tenant_a", "refunds:approve");
    let manager_b = bearer("manager_1", "tenant_b", "refunds:approve");
    let clerk_a = bearer("clerk_1", "tenant_a", "refunds:write");
    let (status, listing) = get(&server.approvals, Some(&manager_a)).await;
    assert_eq!(status, 200);
    assert_eq!(ids(&listing), vec![asked.id.as_str()]);
    let shown = &listing["approvals"][0];
    assert_eq!(shown["tool"], "issue_refund");
    assert_eq!(shown["asked_by"], "agent_1");
    assert_eq!(shown["session"], "c1");
    assert_eq!(
        shown["arguments"],
        json!({"order":"ord_1001","amount_cents":2500})
    );
    assert_eq!(shown["resources"][0]["field"], "order");
    assert!(shown["resources"][0]["summary"].is_object(), "{shown}");
    assert_eq!(shown["approver_scope"], "refunds:approve");
    let expires = shown["expires_at"].as_str().unwrap();
    assert!(expires.ends_with('Z') && expires.len() == 24, "{expires}");

    // The same manager in the other tenant sees only that tenant's.
    let (_, listing) = get(&server.approvals, Some(&manager_b)).await;
    assert_eq!(ids(&listing), vec![other.id.as_str()]);
    // Without the approver's scope: nothing.
    let (_, listing) = get(&server.approvals, Some(&clerk_a)).await;
    assert!(ids(&listing).is_empty(), "{listing}");
    // Without a token: the endpoint's challenge.
    let (status, _) = get(&server.approvals, None).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn a_refused_decision_is_the_flat_answer_and_decides_nothing() {
    common::record_audit();
    let server = start().await;
    let id = server.held("c1").await.id;
    let manager_b = bearer("manager_1", "tenant_b", "refunds:approve");
    let clerk_a = bearer("clerk_1", "tenant_a", "refunds:write");
    let unknown = format!(
        "{}/apr_00000000000000000000000000000000/approve",
        server.approvals
    );
    let flat = post(&unknown, &manager_b).await;
    assert_eq!(flat.0, 404);
    for who in [&manager_b, &clerk_a] {
        for action in ["approve", "deny", "withdraw"] {
            let answer = post(&format!("{}/{id}/{action}", server.approvals), who).await;
            assert_eq!(answer, flat, "{action}");
        }
    }
    let lookup = ToolContext::new("x", "tenant_a", "req");
    let approval = server
        .toolbox
        .approval(&lookup, &id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(approval.state, ApprovalState::Pending);
    let refusals: Vec<String> = common::audit_log()
        .into_iter()
        .filter(|line| line.contains(&id) || line.contains("refused"))
        .filter(|line| line.contains("clerk_1") && line.contains("refused"))
        .collect();
    assert!(!refusals.is_empty());
    for line in &refusals {
        assert!(line.contains(r#"tool="issue_refund""#), "{line}");
    }
}

#[tokio::test]
async fn approving_over_the_api_lets_the_call_run_once() {
    let server = start().await;
    let id = server.held("c1").await.id;
    let manager_a = bearer("manager_1", "tenant_a", "refunds:approve");
    let approve = format!("{}/{id}/approve", server.approvals);
    let (status, body) = post(&approve, &manager_a).await;
    assert_eq!(
        (status, body.contains(r#""state":"approved""#)),
        (200, true),
        "{body}"
    );
    let (status, body) = post(&approve, &manager_a).await;
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("ALREADY_DECIDED"), "{body}");
    // No longer waiting for anyone.
    let (_, listing) = get(&server.approvals, Some(&manager_a)).await;
    assert!(ids(&listing).is_empty(), "{listing}");
    let done = server.toolbox.resume(&agent("c1"), &id).await;
    assert!(done.value().is_some(), "{done:?}");
    assert!(server.toolbox.resume(&agent("c1"), &id).await.is_replay());
    assert_eq!(server.toolbox.state().refunds().len(), 1);
}

#[tokio::test]
async fn the_asker_or_a_decider_withdraws_and_the_call_never_runs() {
    let server = start().await;
    let manager_a = bearer("manager_1", "tenant_a", "refunds:approve");
    let asker = bearer("agent_1", "tenant_a", "refunds:write");
    // Conversation 1: the asker takes back a pending approval.
    let first = server.held("c1").await.id;
    let (status, body) = post(&format!("{}/{first}/withdraw", server.approvals), &asker).await;
    assert_eq!(status, 200, "{body}");
    // Conversation 2: approved, then the manager takes it back.
    let second = server.held("c2").await.id;
    let approve = format!("{}/{second}/approve", server.approvals);
    assert_eq!(post(&approve, &manager_a).await.0, 200);
    let withdraw = format!("{}/{second}/withdraw", server.approvals);
    assert_eq!(post(&withdraw, &manager_a).await.0, 200);
    for (id, session) in [(&first, "c1"), (&second, "c2")] {
        let resumed = server.toolbox.resume(&agent(session), id).await;
        assert_eq!(
            resumed.rejection().map(|r| r.code()),
            Some(toolgate::Code::ApprovalDenied),
            "{resumed:?}"
        );
    }
    assert!(server.toolbox.state().refunds().is_empty());
    // Neither can be decided any more.
    let (status, body) = post(&format!("{}/{first}/approve", server.approvals), &manager_a).await;
    assert_eq!(status, 409, "{body}");
}

/// A page of another site, in the browser of a person who may decide,
/// posts an approval: refused before the caller is read, as at the MCP
/// endpoint (DNS rebinding, a forged cross-site request). So is a request
/// naming a host the server does not answer to. Nothing is decided.
#[tokio::test]
async fn a_foreign_origin_or_host_decides_nothing() {
    let server = start().await;
    let id = server.held("c1").await.id;
    let manager_a = bearer("manager_1", "tenant_a", "refunds:approve");
    let approve = format!("{}/{id}/approve", server.approvals);
    for (name, value) in [
        ("origin", "https://evil.example.com"),
        ("host", "rebind.example.invalid"),
    ] {
        let response = reqwest::Client::new()
            .post(&approve)
            .bearer_auth(&manager_a)
            .header(name, value)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{name}: {value}");
        let (status, listing) = get(&server.approvals, Some(&manager_a)).await;
        assert_eq!(
            (status, ids(&listing)),
            (200, vec![id.as_str()]),
            "{listing}"
        );
    }
    // The loopback page a local tool serves may decide.
    let response = reqwest::Client::new()
        .post(&approve)
        .bearer_auth(&manager_a)
        .header("origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(matches!(
        server.store.approval(&id).await.unwrap().unwrap().state,
        ApprovalState::Approved { .. }
    ));
}
