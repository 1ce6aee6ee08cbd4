//! rmcp's client starts the demo as a child process (`--stdio`), as an
//! MCP host does, on both protocol generations.

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, RunningService};
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use serde_json::{Value, json};

async fn start(version: ProtocolVersion) -> RunningService<RoleClient, ()> {
    let command =
        tokio::process::Command::new(env!("CARGO_BIN_EXE_toolgate-demo")).configure(|c| {
            c.arg("--stdio");
        });
    let transport = TokioChildProcess::new(command).expect("the demo starts");
    let lifecycle = if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        }
    };
    rmcp::serve_client_with_lifecycle((), transport, lifecycle)
        .await
        .expect("the client connects")
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    arguments: Value,
) -> (bool, Value) {
    let Value::Object(arguments) = arguments else {
        unreachable!()
    };
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .expect("a result");
    let text = &result.content[0].as_text().expect("a text block").text;
    (
        result.is_error == Some(true),
        serde_json::from_str(text).expect("JSON text"),
    )
}

async fn a_host_starts_the_demo(version: ProtocolVersion) {
    let client = start(version.clone()).await;
    assert_eq!(client.peer_info().unwrap().protocol_version, version);
    let mut names: Vec<_> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "book_hotel",
            "issue_refund",
            "refund_invoice",
            "schedule_export"
        ]
    );
    let (error, booked) = call(
        &client,
        "book_hotel",
        json!({"hotel_id": "h_seaview1", "nights": 2}),
    )
    .await;
    assert!(!error, "{booked}");
    assert_eq!(booked["total_cents"], 24_000);
    let (error, refused) = call(
        &client,
        "book_hotel",
        json!({"hotel_id": "h_seaview1", "nights": 2, "price": 1}),
    )
    .await;
    assert!(error);
    assert_eq!(refused["code"], "UNKNOWN_FIELD");
    let (error, refused) = call(
        &client,
        "issue_refund",
        json!({"order": "ord_2001", "amount_cents": 100}),
    )
    .await;
    assert!(error);
    assert_eq!(refused["code"], "NOT_PERMITTED");
    let (error, refused) = call(&client, "drop_tables", json!({})).await;
    assert!(error);
    assert_eq!(refused["code"], "NOT_PERMITTED");
    // Held: an error in MCP's terms, since there is no result yet.
    let (error, held) = call(
        &client,
        "issue_refund",
        json!({"order": "ord_1001", "amount_cents": 100}),
    )
    .await;
    assert!(error, "{held}");
    assert_eq!(held["status"], "approval_required");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_host_starts_the_demo_with_initialize() {
    a_host_starts_the_demo(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test]
async fn a_host_starts_the_demo_without_initialize() {
    a_host_starts_the_demo(ProtocolVersion::V_2026_07_28).await;
}
