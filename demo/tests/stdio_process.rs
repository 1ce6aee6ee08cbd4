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

/// The demo over stdio as `actor`, its effect store in `store`.
async fn start_as(
    actor: &str,
    store: &std::path::Path,
    version: ProtocolVersion,
) -> RunningService<RoleClient, ()> {
    let command =
        tokio::process::Command::new(env!("CARGO_BIN_EXE_toolgate-demo")).configure(|c| {
            c.arg("--stdio")
                .arg("--store")
                .arg(store)
                .arg("--actor")
                .arg(actor);
        });
    let transport = TokioChildProcess::new(command).expect("the demo starts");
    rmcp::serve_client_with_lifecycle((), transport, lifecycle(version))
        .await
        .expect("the client connects")
}

fn lifecycle(version: ProtocolVersion) -> ClientLifecycleMode {
    if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        }
    }
}

/// Two servers, each started for another caller of one tenant, keeping
/// gate 6's records in one SQLite file: the same call by each runs for
/// each, and neither replays the other's outcome; each one's repeat
/// replays its own.
async fn two_callers_on_one_store_get_their_own_outcomes(version: ProtocolVersion) {
    let store = std::env::temp_dir().join(format!(
        "toolgate-demo-test-{}-{}.db",
        std::process::id(),
        version.as_str()
    ));
    let stay = || json!({"hotel_id": "h_seaview1", "nights": 3});
    let first = start_as("analyst_1", &store, version.clone()).await;
    let second = start_as("analyst_2", &store, version.clone()).await;
    let mut guests = Vec::new();
    for client in [&first, &second, &first, &second] {
        let (error, booked) = call(client, "book_hotel", stay()).await;
        assert!(!error, "{booked}");
        guests.push((booked["guest"].clone(), booked["booking_id"].clone()));
    }
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
    for suffix in ["", "-wal", "-shm"] {
        let mut file = store.clone().into_os_string();
        file.push(suffix);
        let _ = std::fs::remove_file(file);
    }
    assert_eq!(guests[0].0, "analyst_1", "{guests:?}");
    assert_eq!(guests[1].0, "analyst_2", "{guests:?}");
    // Each repeat is its caller's own booking, replayed.
    assert_eq!(guests[2], guests[0], "{guests:?}");
    assert_eq!(guests[3], guests[1], "{guests:?}");
}

#[tokio::test]
async fn two_callers_on_one_store_get_their_own_outcomes_with_initialize() {
    two_callers_on_one_store_get_their_own_outcomes(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test]
async fn two_callers_on_one_store_get_their_own_outcomes_without_initialize() {
    two_callers_on_one_store_get_their_own_outcomes(ProtocolVersion::V_2026_07_28).await;
}
