//! A call that gate 6 holds for approval, over MCP: a client that can be
//! asked (elicitation) is asked, with what the call will do; accepting
//! approves it as the session's actor and runs it once, declining denies
//! it; a client that cannot be asked reads `approval_required` with the
//! id, for the host to approve out of band. On 2025-11-25 the server asks
//! mid-call; on 2026-07-28 it answers `input_required` and rmcp's client
//! calls again with the answer and the request state, which the server
//! does not trust.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData, Implementation,
};
use rmcp::model::{CallToolResponse, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, RequestContext, RunningService};
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;
use toolgate::Toolbox;
use toolgate_examples::refund::{IssueRefund, Shop};
use toolgate_mcp::Identity;

/// A client whose person answers every question with `action`, and
/// keeps what it was asked.
#[derive(Clone)]
struct Person {
    action: ElicitationAction,
    asked: Arc<std::sync::Mutex<Vec<String>>>,
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("person", "0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().unwrap().push(message);
        }
        Ok(ElicitResult::new(self.action.clone()))
    }
}

fn shop() -> Arc<Toolbox<Shop>> {
    let mut toolbox = Toolbox::new(Shop::demo());
    toolbox.register(IssueRefund).unwrap();
    Arc::new(toolbox)
}

fn serve(toolbox: Arc<Toolbox<Shop>>, identity: Identity) -> tokio::io::DuplexStream {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    tokio::spawn(async move { toolgate_mcp::serve(toolbox, identity, read, write).await });
    client
}

/// `handler` connected to a server for `identity`, on `version`.
async fn connect<H: ClientHandler>(
    handler: H,
    toolbox: Arc<Toolbox<Shop>>,
    identity: Identity,
    version: &ProtocolVersion,
) -> RunningService<RoleClient, H> {
    let (read, write) = tokio::io::split(serve(toolbox, identity));
    let lifecycle = if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    };
    rmcp::serve_client_with_lifecycle(handler, (read, write), lifecycle)
        .await
        .unwrap()
}

/// Each test, on each protocol generation.
macro_rules! both_generations {
    ($($test:ident),* $(,)?) => {
        mod with_initialize {
            $(#[tokio::test]
            async fn $test() {
                super::$test(rmcp::model::ProtocolVersion::V_2025_11_25).await;
            })*
        }
        mod without_initialize {
            $(#[tokio::test]
            async fn $test() {
                super::$test(rmcp::model::ProtocolVersion::V_2026_07_28).await;
            })*
        }
    };
}

both_generations!(
    accepting_the_question_runs_the_call_once,
    declining_the_question_denies_the_call,
    an_actor_who_may_not_approve_is_held_for_the_host,
    a_client_that_cannot_be_asked_reads_the_approval_id,
    a_person_without_the_approver_scope_is_not_asked,
    the_asker_is_not_asked_when_another_must_approve,
    a_call_approved_out_of_band_runs_on_its_repeat_once,
);

fn manager() -> Identity {
    Identity::new("manager_1", "tenant_a").with_scopes(["refunds:write", "refunds:approve"])
}

const REFUND: &str = r#"{"order":"ord_1001","amount_cents":2500}"#;

fn refund() -> CallToolRequestParams {
    let args: Value = serde_json::from_str(REFUND).unwrap();
    CallToolRequestParams::new("issue_refund").with_arguments(args.as_object().unwrap().clone())
}

fn status(result: &rmcp::model::CallToolResult) -> Value {
    let text = &result.content[0].as_text().unwrap().text;
    serde_json::from_str(text).unwrap()
}

async fn accepting_the_question_runs_the_call_once(version: ProtocolVersion) {
    let toolbox = shop();
    let person = Person {
        action: ElicitationAction::Accept,
        asked: Arc::default(),
    };
    let client = connect(person.clone(), Arc::clone(&toolbox), manager(), &version).await;
    let done = client.call_tool(refund()).await.unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    assert_eq!(toolbox.state().refunds().len(), 1);
    let asked = person.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("issue_refund"), "{asked:?}");
    assert!(asked[0].contains(r#""amount_cents":2500"#), "{asked:?}");

    // The model repeats itself: the same result, replayed; no second
    // question, no second refund.
    let again = client.call_tool(refund()).await.unwrap();
    assert_eq!(again.structured_content, done.structured_content);
    assert_eq!(toolbox.state().refunds().len(), 1);
    assert_eq!(person.asked.lock().unwrap().len(), 1);
}

async fn declining_the_question_denies_the_call(version: ProtocolVersion) {
    let toolbox = shop();
    let person = Person {
        action: ElicitationAction::Decline,
        asked: Arc::default(),
    };
    let client = connect(person, Arc::clone(&toolbox), manager(), &version).await;
    let denied = client.call_tool(refund()).await.unwrap();
    assert_eq!(status(&denied)["code"], "APPROVAL_DENIED", "{denied:?}");
    assert!(toolbox.state().refunds().is_empty());
}

async fn an_actor_who_may_not_approve_is_held_for_the_host(version: ProtocolVersion) {
    let toolbox = shop();
    let person = Person {
        action: ElicitationAction::Accept,
        asked: Arc::default(),
    };
    let agent = Identity::new("agent_1", "tenant_a").with_scopes(["refunds:write"]);
    let client = connect(person, Arc::clone(&toolbox), agent, &version).await;
    let held = client.call_tool(refund()).await.unwrap();
    assert_eq!(status(&held)["status"], "approval_required", "{held:?}");
    assert!(toolbox.state().refunds().is_empty());
}

async fn a_client_that_cannot_be_asked_reads_the_approval_id(version: ProtocolVersion) {
    let toolbox = shop();
    let client = connect((), Arc::clone(&toolbox), manager(), &version).await;
    let held = client.call_tool(refund()).await.unwrap();
    // Not the tool's result: an error in MCP's terms, which a tool with an
    // output schema needs for a result without structured content.
    assert_eq!(held.is_error, Some(true));
    assert!(held.structured_content.is_none());
    let held = status(&held);
    assert_eq!(held["status"], "approval_required", "{held}");
    let id = held["approval_id"].as_str().unwrap();
    assert!(toolbox.state().refunds().is_empty());

    // The host approves out of band; the resumed call runs once.
    let approver =
        toolgate::ToolContext::new("manager_2", "tenant_a", "req").with_scopes(["refunds:approve"]);
    toolbox.approve(&approver, id).await.unwrap();
    let ctx = toolgate::ToolContext::new("manager_1", "tenant_a", "req")
        .with_scopes(["refunds:write"])
        .allow_all_tools();
    let done = toolbox.resume(&ctx, id).await;
    assert!(matches!(done, toolgate::Outcome::Done(_)), "{done:?}");
    assert_eq!(toolbox.state().refunds().len(), 1);
}

/// 2026-07-28: the request state comes back from the client, which may
/// have changed it. A state naming no approval, another tool's, or one
/// asked for by someone else is refused flat; a forged accept for an
/// approval still pending runs nothing the session's actor may not
/// approve.
#[tokio::test]
async fn a_request_state_is_not_trusted() {
    let toolbox = shop();
    // The agent may call but not approve; its client answers every
    // question with accept.
    let agent = Identity::new("agent_1", "tenant_a").with_scopes(["refunds:write"]);
    let client = connect(
        (),
        Arc::clone(&toolbox),
        agent,
        &ProtocolVersion::V_2026_07_28,
    )
    .await;
    let held = client.call_tool(refund()).await.unwrap();
    let id = status(&held)["approval_id"].as_str().unwrap().to_owned();
    let accept = serde_json::to_value(ElicitResult::new(ElicitationAction::Accept)).unwrap();
    let retry =
        |state: &str| {
            refund().with_request_state(state).with_input_responses(
                std::collections::BTreeMap::from([("approval".to_owned(), accept.clone())]),
            )
        };
    let result = |response: CallToolResponse| match response {
        CallToolResponse::Complete(result) => status(&result),
        other => panic!("{other:?}"),
    };
    for state in ["apr_00000000000000000000000000000000", "", "not an id"] {
        let answer = result(client.call_tool_once(retry(state)).await.unwrap());
        assert_eq!(answer["code"], "NOT_PERMITTED", "{state}: {answer}");
    }
    // The agent's own approval: accepting it as the agent, who lacks the
    // approver's scope, approves nothing; the call stays held.
    let answer = result(client.call_tool_once(retry(&id)).await.unwrap());
    assert_eq!(answer["status"], "approval_required", "{answer}");
    assert!(toolbox.state().refunds().is_empty());

    // Another caller of the same tenant replays the agent's state.
    let other =
        Identity::new("manager_1", "tenant_a").with_scopes(["refunds:write", "refunds:approve"]);
    let other = connect(
        (),
        Arc::clone(&toolbox),
        other,
        &ProtocolVersion::V_2026_07_28,
    )
    .await;
    let answer = result(other.call_tool_once(retry(&id)).await.unwrap());
    assert_eq!(answer["code"], "NOT_PERMITTED", "{answer}");
    // It decided nothing: the approval waits for someone who sees it.
    let lookup = toolgate::ToolContext::new("manager_1", "tenant_a", "req");
    let approval = toolbox.approval(&lookup, &id).await.unwrap().unwrap();
    assert_eq!(approval.state, toolgate::ApprovalState::Pending);
    // Under another tool's name.
    let mut renamed = retry(&id);
    renamed.name = "refund_invoice".into();
    let answer = result(other.call_tool_once(renamed).await.unwrap());
    assert_eq!(answer["code"], "NOT_PERMITTED", "{answer}");
    assert!(toolbox.state().refunds().is_empty());
}

fn agent() -> Identity {
    Identity::new("agent_1", "tenant_a").with_scopes(["refunds:write"])
}

/// Two identities of one tenant: the agent, who may call but not
/// approve, and the manager, who may do both. Only the manager's person
/// is asked; the agent's reads where the call waits.
async fn a_person_without_the_approver_scope_is_not_asked(version: ProtocolVersion) {
    let toolbox = shop();
    let person = Person {
        action: ElicitationAction::Accept,
        asked: Arc::default(),
    };
    let client = connect(person.clone(), Arc::clone(&toolbox), agent(), &version).await;
    let held = client.call_tool(refund()).await.unwrap();
    let held = status(&held);
    assert_eq!(held["status"], "approval_required", "{held}");
    assert!(
        person.asked.lock().unwrap().is_empty(),
        "a person whose accept cannot count was asked"
    );
    let waits = held["waits_for"].as_str().unwrap_or_default();
    assert!(waits.contains("`refunds:approve`"), "{held}");
    let id = held["approval_id"].as_str().unwrap();
    // The approval waits, pending, for a person who may decide it.
    let lookup = toolgate::ToolContext::new("manager_1", "tenant_a", "req");
    let approval = toolbox.approval(&lookup, id).await.unwrap().unwrap();
    assert_eq!(approval.state, toolgate::ApprovalState::Pending);
    assert!(toolbox.state().refunds().is_empty());

    // The manager, with the scope, is asked, and accepting runs it.
    let manager_person = Person {
        action: ElicitationAction::Accept,
        asked: Arc::default(),
    };
    let client = connect(
        manager_person.clone(),
        Arc::clone(&toolbox),
        manager(),
        &version,
    )
    .await;
    let done = client.call_tool(refund()).await.unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    assert_eq!(manager_person.asked.lock().unwrap().len(), 1);
    assert_eq!(toolbox.state().refunds().len(), 1);
}

/// With `distinct_approver`, the manager's own call is not theirs to
/// approve: they are not asked, though they hold the scope.
async fn the_asker_is_not_asked_when_another_must_approve(version: ProtocolVersion) {
    let mut toolbox = Toolbox::new(Shop::demo())
        .with_effect_policy(toolgate::EffectPolicy::default().distinct_approver(true));
    toolbox.register(IssueRefund).unwrap();
    let toolbox = Arc::new(toolbox);
    let person = Person {
        action: ElicitationAction::Accept,
        asked: Arc::default(),
    };
    let client = connect(person.clone(), Arc::clone(&toolbox), manager(), &version).await;
    let held = status(&client.call_tool(refund()).await.unwrap());
    assert_eq!(held["status"], "approval_required", "{held}");
    assert!(
        person.asked.lock().unwrap().is_empty(),
        "the asker was asked"
    );
    assert!(
        held["waits_for"]
            .as_str()
            .is_some_and(|w| w.contains("other than the caller")),
        "{held}"
    );
    assert!(toolbox.state().refunds().is_empty());
}

/// A call held for a person who may decide it, approved out of band: the
/// model's repeat of the call runs it, once; a further repeat replays it.
async fn a_call_approved_out_of_band_runs_on_its_repeat_once(version: ProtocolVersion) {
    let toolbox = shop();
    let client = connect((), Arc::clone(&toolbox), agent(), &version).await;
    let held = status(&client.call_tool(refund()).await.unwrap());
    let id = held["approval_id"].as_str().unwrap().to_owned();
    // Repeated before anyone decided: still held, the same approval.
    let again = status(&client.call_tool(refund()).await.unwrap());
    assert_eq!(again["approval_id"], held["approval_id"], "{again}");
    let approver =
        toolgate::ToolContext::new("manager_1", "tenant_a", "req").with_scopes(["refunds:approve"]);
    toolbox.approve(&approver, &id).await.unwrap();
    let done = client.call_tool(refund()).await.unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    assert_eq!(toolbox.state().refunds().len(), 1);
    let replayed = client.call_tool(refund()).await.unwrap();
    assert_eq!(replayed.structured_content, done.structured_content);
    assert_eq!(toolbox.state().refunds().len(), 1);
}
