//! The scripted session: an agent's MCP client talks to the demo server
//! (rmcp's client, over an in-memory pipe carrying MCP's stdio framing),
//! and the transcript shows what the model would read after each call,
//! with the audit log beside it.

use std::path::Path;

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion, RequestMetaObject};
use rmcp::service::{ClientLifecycleMode, RunningService};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use toolgate::ToolContext;
use tracing::Instrument as _;

use crate::{Demo, Error, SCOPES, agent};

type Client = RunningService<RoleClient, ()>;

pub async fn run(demo: &Demo, store: &Path) -> Result<(), Error> {
    // The agent's session, which each of its calls is a part of: one trace.
    let session = tracing::info_span!("demo session", otel.name = "toolgate demo session");
    session_run(demo, store).instrument(session).await
}

async fn session_run(demo: &Demo, store: &Path) -> Result<(), Error> {
    println!("toolgate demo: four tools served over MCP, gate 6 on SQLite");
    println!("({})", store.display());
    let client = connect(demo).await?;
    let protocol = client
        .peer_info()
        .map(|info| info.protocol_version.to_string())
        .unwrap_or_default();

    section(&format!(
        "analyst_1 of tenant_a connects (MCP {protocol}) and lists the tools it may call"
    ));
    for tool in client.list_all_tools().await? {
        let effect = match tool.annotations.as_ref() {
            Some(a) if a.read_only_hint == Some(true) => "read",
            Some(a) if a.destructive_hint == Some(true) => "irreversible",
            _ => "write",
        };
        let description = tool.description.as_deref().unwrap_or_default();
        let first = description.split(". ").next().unwrap_or_default();
        println!("   {:<16} {effect:<13} {first}", tool.name);
    }

    section("valid calls");
    call(
        &client,
        "book_hotel",
        json!({"hotel_id": "h_seaview1", "nights": 3}),
    )
    .await?;
    call(
        &client,
        "schedule_export",
        json!({"account_ref": "acct_42", "format": "csv", "columns": ["id", "status"]}),
    )
    .await?;

    section("an agent steered by injected text");
    note("sets the price itself");
    call(
        &client,
        "book_hotel",
        json!({"hotel_id": "h_seaview1", "nights": 3, "price": 1}),
    )
    .await?;
    note("books 300 nights");
    call(
        &client,
        "book_hotel",
        json!({"hotel_id": "h_seaview1", "nights": 300}),
    )
    .await?;
    note("sends an object where the schema says string");
    call(
        &client,
        "book_hotel",
        json!({"hotel_id": {"$ne": ""}, "nights": 1}),
    )
    .await?;
    note("exports personal data from an account that may not export it");
    call(
        &client,
        "schedule_export",
        json!({"account_ref": "acct_42", "format": "csv", "columns": ["id", "email"]}),
    )
    .await?;
    note("refunds more than the order has left");
    call(
        &client,
        "issue_refund",
        json!({"order": "ord_1001", "amount_cents": 20000}),
    )
    .await?;
    note("refunds an order under dispute");
    call(
        &client,
        "issue_refund",
        json!({"order": "ord_1002", "amount_cents": 100}),
    )
    .await?;
    note("calls a tool that does not exist");
    call(&client, "delete_all_orders", json!({})).await?;
    note("repeats a key for a lenient parser to keep the last: a frame written by hand");
    duplicate_key(demo).await?;

    section("another tenant's objects: refused flat, as if they did not exist");
    call(
        &client,
        "issue_refund",
        json!({"order": "ord_2001", "amount_cents": 100}),
    )
    .await?;
    call(
        &client,
        "refund_invoice",
        json!({"invoice_id": "inv_90", "amount_cents": 100, "reason": {"kind": "duplicate"}}),
    )
    .await?;

    section("a refund: held for a person, approved, run once, its retry replayed");
    let refund = json!({"order": "ord_1001", "amount_cents": 2500});
    let held = call(&client, "issue_refund", refund.clone()).await?;
    let id = text(&held)["approval_id"]
        .as_str()
        .ok_or("the refund was not held for approval")?
        .to_owned();
    let manager =
        ToolContext::new("manager_1", "tenant_a", "host-1").with_scopes(["refunds:approve"]);
    let approval = demo
        .shop
        .approval(&manager, &id)
        .await?
        .ok_or("the approval is not in the manager's tenant")?;
    host(&format!(
        "shows manager_1 the call: {} {}",
        approval.tool, approval.arguments
    ));
    for seen in &approval.resources {
        let what = seen.summary.as_ref().unwrap_or(&seen.reference);
        host(&format!(
            "  {} as the server resolved it: {what}",
            seen.field
        ));
    }
    demo.shop.approve(&manager, &id).await?;
    host("manager_1 approves; the host runs the approved call for the agent");
    let ctx = ToolContext::new(approval.actor.as_str(), approval.tenant.as_str(), "host-2")
        .with_scopes(SCOPES)
        .allow_all_tools()
        .with_session(approval.session.clone().unwrap_or_default());
    let done = demo.shop.resume(&ctx, &id).await;
    println!("   ← {}", sorted(&done.to_json()));
    note("the agent makes the same call again");
    call(&client, "issue_refund", refund).await?;

    section("what happened");
    println!(
        "   bookings {}, exports queued {}, order refunds {}, invoice refunds {}",
        demo.hotels.state().bookings().len(),
        demo.accounts.state().queued().len(),
        demo.shop.state().refunds().len(),
        demo.billing.state().refunds().len(),
    );
    client.cancel().await?;
    Ok(())
}

/// Starts the server on one end of a pipe and connects rmcp's client to
/// the other.
async fn connect(demo: &Demo) -> Result<Client, Error> {
    let (read, write) = tokio::io::split(serve(demo));
    let client = rmcp::serve_client_with_lifecycle(
        (),
        (read, write),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await?;
    Ok(client)
}

/// The demo server as the stdio transport runs it, on an in-memory pipe;
/// the other end is the client's.
fn serve(demo: &Demo) -> tokio::io::DuplexStream {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    let tools = demo.tools();
    tokio::spawn(async move {
        // The session ends when the client closes its end.
        let _ = toolgate_mcp::serve(tools, agent(), read, write).await;
    });
    client
}

/// Calls `tool`, printing the call and what the model reads back.
async fn call(client: &Client, tool: &str, arguments: Value) -> Result<CallToolResult, Error> {
    println!("   → {tool} {}", sorted(&arguments));
    let Value::Object(arguments) = arguments else {
        return Err("arguments are an object".into());
    };
    let span = client_span(tool);
    let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let mut meta = RequestMetaObject::new();
    crate::traces::inject(&span, &mut meta);
    params.meta = Some(meta).filter(|meta| !meta.0.0.is_empty());
    let result = client.call_tool(params).instrument(span).await?;
    println!("   ← {}", read_back(&result));
    Ok(result)
}

/// The result's text block, as JSON.
fn text(result: &CallToolResult) -> Value {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .and_then(|t| serde_json::from_str(&t.text).ok())
        .unwrap_or(Value::Null)
}

/// `value` with every object's keys in sorted order, so that the
/// transcript reads the same whatever order `serde_json`'s maps keep (a
/// program with a crate that asks for `preserve_order` keeps insertion
/// order, and then keeps the order this inserts in).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        scalar => scalar.clone(),
    }
}

/// One line for what the model reads.
fn read_back(result: &CallToolResult) -> String {
    let value = text(result);
    if value["status"] == "approval_required" {
        return format!(
            "held: approval {} ({})",
            value["approval_id"].as_str().unwrap_or_default(),
            value["safe_message"].as_str().unwrap_or_default()
        );
    }
    if result.is_error != Some(true) {
        return format!("done: {}", sorted(&value));
    }
    let path = match value["path"].as_str() {
        Some("") | None => String::new(),
        Some(path) => format!(" at {path}"),
    };
    format!(
        "refused {}{path}: {}",
        value["code"].as_str().unwrap_or_default(),
        value["safe_message"].as_str().unwrap_or_default()
    )
}

/// A `tools/call` whose arguments repeat a key, written by hand: no SDK
/// sends one, since their maps cannot hold it. The first amount is 100
/// cents, the repeat 50,000.
async fn duplicate_key(demo: &Demo) -> Result<(), Error> {
    let (read, mut write) = tokio::io::split(serve(demo));
    let mut read = BufReader::new(read);
    let arguments = r#"{"order":"ord_1001","amount_cents":100,"amount_cents":50000}"#;
    let span = client_span("issue_refund");
    let mut meta = RequestMetaObject::new();
    meta.0.0.insert(
        "io.modelcontextprotocol/protocolVersion".to_owned(),
        json!("2026-07-28"),
    );
    meta.0.0.insert(
        "io.modelcontextprotocol/clientCapabilities".to_owned(),
        json!({}),
    );
    crate::traces::inject(&span, &mut meta);
    let meta = serde_json::to_string(&meta)?;
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"issue_refund","arguments":{arguments},"_meta":{meta}}}}}"#
    );
    println!("   → issue_refund {arguments}");
    write.write_all(frame.as_bytes()).await?;
    write.write_all(b"\n").await?;
    let mut line = String::new();
    read.read_line(&mut line).await?;
    let answer: Value = serde_json::from_str(&line)?;
    let result: CallToolResult = serde_json::from_value(answer["result"].clone())?;
    println!("   ← {}", read_back(&result));
    Ok(())
}

/// The client's span of one `tools/call`, as OpenTelemetry's MCP
/// conventions name it: the server's span continues it.
fn client_span(tool: &str) -> tracing::Span {
    tracing::info_span!(
        "tools/call",
        otel.name = format!("tools/call {tool}"),
        otel.kind = "client",
        mcp.method.name = "tools/call",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
    )
}

fn section(title: &str) {
    println!("\n── {title}");
}

fn note(what: &str) {
    println!("   ({what})");
}

fn host(what: &str) {
    println!("   host: {what}");
}
