//! A call that gate 6 holds for approval, over MCP: a client that can be
//! asked (elicitation) is asked, with what the call will do; accepting
//! approves it as the session's actor and runs it once, declining denies
//! it; a client that cannot be asked reads `approval_required` with the
//! id, for the host to approve out of band.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData, Implementation,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, RoleClient, ServiceExt as _};
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

#[tokio::test]
async fn accepting_the_question_runs_the_call_once() {
    let toolbox = shop();
    let person = Person {
        action: ElicitationAction::Accept,
        asked: Arc::default(),
    };
    let (read, write) = tokio::io::split(serve(Arc::clone(&toolbox), manager()));
    let client = person.clone().serve((read, write)).await.unwrap();
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

#[tokio::test]
async fn declining_the_question_denies_the_call() {
    let toolbox = shop();
    let person = Person {
        action: ElicitationAction::Decline,
        asked: Arc::default(),
    };
    let (read, write) = tokio::io::split(serve(Arc::clone(&toolbox), manager()));
    let client = person.serve((read, write)).await.unwrap();
    let denied = client.call_tool(refund()).await.unwrap();
    assert_eq!(status(&denied)["code"], "APPROVAL_DENIED", "{denied:?}");
    assert!(toolbox.state().refunds().is_empty());
}

#[tokio::test]
async fn an_actor_who_may_not_approve_is_held_for_the_host() {
    let toolbox = shop();
    let person = Person {
        action: ElicitationAction::Accept,
        asked: Arc::default(),
    };
    let agent = Identity::new("agent_1", "tenant_a").with_scopes(["refunds:write"]);
    let (read, write) = tokio::io::split(serve(Arc::clone(&toolbox), agent));
    let client = person.serve((read, write)).await.unwrap();
    let held = client.call_tool(refund()).await.unwrap();
    assert_eq!(status(&held)["status"], "approval_required", "{held:?}");
    assert!(toolbox.state().refunds().is_empty());
}

#[tokio::test]
async fn a_client_that_cannot_be_asked_reads_the_approval_id() {
    let toolbox = shop();
    let (read, write) = tokio::io::split(serve(Arc::clone(&toolbox), manager()));
    let client = ().serve((read, write)).await.unwrap();
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
