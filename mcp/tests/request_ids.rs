//! A failure gives the model a reference to the request ("reference
//! mcp-…"), under which the audit log files the cause. The JSON-RPC id
//! alone recurs in every session (each client counts from the same
//! number), so the reference is a request id no other request has.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use serde_json::Value;
use toolgate::{ToolError, Toolbox};
use toolgate_mcp::Identity;

/// A tool whose body fails.
#[toolgate::tool(effect = read)]
fn broken() -> Result<u32, ToolError> {
    Err(ToolError::internal(std::io::Error::other(
        "the disk is full",
    )))
}

fn toolbox() -> Arc<Toolbox<()>> {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Broken).unwrap();
    Arc::new(toolbox)
}

/// The failure one new session reads for its first call.
async fn first_failure() -> Value {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    let identity = Identity::new("traveller_7", "tenant_a");
    tokio::spawn(toolgate_mcp::serve(toolbox(), identity, read, write));
    let client = ().serve(tokio::io::split(client)).await.unwrap();
    let failed = client
        .call_tool(CallToolRequestParams::new("broken"))
        .await
        .unwrap();
    client.cancel().await.unwrap();
    assert_eq!(failed.is_error, Some(true), "{failed:?}");
    serde_json::from_str(&failed.content[0].as_text().unwrap().text).unwrap()
}

#[tokio::test]
async fn each_failure_names_its_own_request_in_every_session() {
    common::record_audit();
    let mut references = BTreeSet::new();
    for _ in 0..3 {
        let failure = first_failure().await;
        assert_eq!(failure["code"], "INTERNAL", "{failure}");
        let id = failure["request_id"].as_str().unwrap().to_owned();
        assert!(id.starts_with("mcp-"), "{id}");
        // The model's message names the same request.
        let message = failure["safe_message"].as_str().unwrap();
        assert!(message.ends_with(&format!("reference {id}.")), "{message}");
        // The cause is in the audit log under that id, with the session.
        let log = common::audit_log();
        let filed = log
            .iter()
            .find(|line| line.contains(&format!("request_id={id:?}")))
            .unwrap_or_else(|| panic!("no audit line for {id}: {log:#?}"));
        assert!(filed.contains("the disk is full"), "{filed}");
        assert!(filed.contains("session_id=\"mcp:"), "{filed}");
        references.insert(id);
    }
    // Three sessions, each the first call of its client: three references.
    assert_eq!(references.len(), 3, "{references:?}");
}
