//! A toolbox served over the stdio transport (newline-delimited JSON-RPC,
//! here over an in-memory pipe): rmcp's own client on both protocol
//! generations, and frames written by hand that no typed client can send
//! (a repeated key, nesting past any limit, a line too long to hold).

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, RunningService};
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream};
use toolgate::Toolbox;
use toolgate_examples::hotel::{BookHotel, Hotels};
use toolgate_mcp::Identity;

fn toolbox() -> Arc<Toolbox<Hotels>> {
    let mut toolbox = Toolbox::new(Hotels::demo());
    toolbox.register(BookHotel).unwrap();
    Arc::new(toolbox)
}

fn traveller() -> Identity {
    Identity::new("traveller_7", "tenant_a").with_scopes(["bookings:write"])
}

/// Starts the server on one end of a pipe; the other end is the client's.
fn start(toolbox: Arc<Toolbox<Hotels>>, identity: Identity) -> DuplexStream {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    tokio::spawn(async move {
        let _ = toolgate_mcp::serve(toolbox, identity, read, write).await;
    });
    client
}

async fn client(
    toolbox: Arc<Toolbox<Hotels>>,
    version: ProtocolVersion,
) -> RunningService<RoleClient, ()> {
    let (read, write) = tokio::io::split(start(toolbox, traveller()));
    let lifecycle = if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        }
    };
    rmcp::serve_client_with_lifecycle((), (read, write), lifecycle)
        .await
        .unwrap()
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

async fn the_client_lists_and_calls(version: ProtocolVersion) {
    let toolbox = toolbox();
    let client = client(Arc::clone(&toolbox), version).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    let tool = &tools[0];
    assert_eq!(tool.name, "book_hotel");
    let annotations = tool.annotations.as_ref().unwrap();
    assert_eq!(annotations.read_only_hint, Some(false));
    assert_eq!(annotations.destructive_hint, Some(false));
    assert_eq!(
        Value::Object((*tool.input_schema).clone()),
        *BookHotel::definition().schema()
    );

    let done = client
        .call_tool(
            CallToolRequestParams::new("book_hotel")
                .with_arguments(arguments(json!({"hotel_id":"h_seaview1","nights":2}))),
        )
        .await
        .unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    let booking = done.structured_content.unwrap();
    assert_eq!(booking["guest"], "traveller_7");
    assert_eq!(toolbox.state().bookings().len(), 1);

    let refused = client
        .call_tool(
            CallToolRequestParams::new("book_hotel")
                .with_arguments(arguments(json!({"hotel_id":"h_seaview1","nights":31}))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    let text = refused.content[0].as_text().unwrap().text.clone();
    let rejection: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(rejection["code"], "OUT_OF_RANGE");
    assert_eq!(rejection["path"], "/nights");

    // An unknown tool is a result, worded as a tool this caller may not use.
    let unknown = client
        .call_tool(CallToolRequestParams::new("cancel_all_bookings"))
        .await
        .unwrap();
    assert_eq!(unknown.is_error, Some(true));
    let text = unknown.content[0].as_text().unwrap().text.clone();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["code"],
        "NOT_PERMITTED"
    );
    assert_eq!(toolbox.state().bookings().len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_lists_and_calls_with_initialize() {
    the_client_lists_and_calls(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test]
async fn rmcp_lists_and_calls_with_discover() {
    the_client_lists_and_calls(ProtocolVersion::V_2026_07_28).await;
}

#[tokio::test]
async fn tools_listed_are_those_this_caller_may_call() {
    let (read, write) = tokio::io::split(start(
        toolbox(),
        Identity::new("traveller_7", "tenant_a").with_scopes(["bookings:read"]),
    ));
    let client = ().serve((read, write)).await.unwrap();
    assert!(client.list_all_tools().await.unwrap().is_empty());
    let refused = client
        .call_tool(
            CallToolRequestParams::new("book_hotel")
                .with_arguments(arguments(json!({"hotel_id":"h_seaview1","nights":2}))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
}

/// A client that writes frames by hand and reads the answers.
struct Raw {
    write: tokio::io::WriteHalf<DuplexStream>,
    read: BufReader<tokio::io::ReadHalf<DuplexStream>>,
}

impl Raw {
    fn new(toolbox: Arc<Toolbox<Hotels>>) -> Raw {
        let (read, write) = tokio::io::split(start(toolbox, traveller()));
        Raw {
            write,
            read: BufReader::new(read),
        }
    }

    async fn send(&mut self, frame: &[u8]) {
        self.write.write_all(frame).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    /// The next message from the server.
    async fn answer(&mut self) -> Value {
        let mut line = String::new();
        self.read.read_line(&mut line).await.unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The rejection in a `tools/call` result.
    async fn rejection(&mut self, id: u64) -> Value {
        let answer = self.answer().await;
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        serde_json::from_str(text).unwrap()
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The handshake of each generation, written by hand.
async fn handshake(raw: &mut Raw, version: ProtocolVersion) {
    if version.has_initialize() {
        raw.send(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#).await;
        let answer = raw.answer().await;
        assert_eq!(
            answer["result"]["protocolVersion"], "2025-11-25",
            "{answer}"
        );
        raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }
}

fn call(id: u64, arguments: &str, version: &ProtocolVersion) -> Vec<u8> {
    let meta = if version.has_initialize() {
        String::new()
    } else {
        format!(",{META}")
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"book_hotel","arguments":{arguments}{meta}}}}}"#
    )
    .into_bytes()
}

async fn hostile_frames_are_answered(version: ProtocolVersion) {
    let toolbox = toolbox();
    let mut raw = Raw::new(Arc::clone(&toolbox));
    handshake(&mut raw, version.clone()).await;

    // A repeated key inside the arguments: refused, never last-wins.
    raw.send(&call(
        1,
        r#"{"hotel_id":"h_seaview1","nights":1,"nights":30}"#,
        &version,
    ))
    .await;
    let rejection = raw.rejection(1).await;
    assert_eq!(rejection["code"], "DUPLICATE_KEY", "{rejection}");
    assert_eq!(rejection["path"], "", "{rejection}");

    // Nested far past any limit (and past serde_json's own 128 levels).
    let deep = format!("{{\"hotel_id\":{}1{}}}", "[".repeat(3000), "]".repeat(3000));
    raw.send(&call(2, &deep, &version)).await;
    let rejection = raw.rejection(2).await;
    assert_eq!(rejection["code"], "TOO_DEEP", "{rejection}");

    // A line longer than the server reads: refused without being held.
    let huge = format!("{{\"hotel_id\":\"{}\"}}", "a".repeat(2 << 20));
    raw.send(&call(3, &huge, &version)).await;
    let rejection = raw.rejection(3).await;
    assert_eq!(rejection["code"], "PAYLOAD_TOO_LARGE", "{rejection}");

    // The server is still serving, and nothing above booked.
    raw.send(&call(
        4,
        r#"{"hotel_id":"h_seaview1","nights":2}"#,
        &version,
    ))
    .await;
    let answer = raw.answer().await;
    assert_eq!(answer["id"], 4, "{answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(toolbox.state().bookings().len(), 1);
}

#[tokio::test]
async fn hostile_frames_are_answered_with_initialize() {
    hostile_frames_are_answered(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test]
async fn hostile_frames_are_answered_with_discover() {
    hostile_frames_are_answered(ProtocolVersion::V_2026_07_28).await;
}

#[tokio::test]
async fn a_refused_request_that_is_not_a_call_gets_an_error() {
    let mut raw = Raw::new(toolbox());
    handshake(&mut raw, ProtocolVersion::V_2025_11_25).await;
    raw.send(
        br#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"a","cursor":"b"}}"#,
    )
    .await;
    let answer = raw.answer().await;
    assert_eq!(answer["id"], 9, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("more than once"),
        "{answer}"
    );
}

#[tokio::test]
async fn toolboxes_with_different_states_are_served_as_one() {
    use toolgate_examples::refund::{IssueRefund, Shop};
    let mut shop = Toolbox::new(Shop::demo());
    shop.register(IssueRefund).unwrap();
    let tools = toolgate_mcp::Tools::new().with(toolbox()).with(shop);
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    let identity =
        Identity::new("agent_1", "tenant_a").with_scopes(["bookings:write", "refunds:write"]);
    tokio::spawn(async move { toolgate_mcp::serve(tools, identity, read, write).await });
    let (read, write) = tokio::io::split(client);
    let client = ().serve((read, write)).await.unwrap();
    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["book_hotel", "issue_refund"]);
    // A refund is irreversible: it waits for approval, whichever toolbox.
    let asked = client
        .call_tool(
            CallToolRequestParams::new("issue_refund")
                .with_arguments(arguments(json!({"order":"ord_1001","amount_cents":2500}))),
        )
        .await
        .unwrap();
    let text = asked.content[0].as_text().unwrap().text.clone();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["status"],
        "approval_required",
        "{text}"
    );
}

#[test]
#[should_panic(expected = "two toolboxes register the tool `book_hotel`")]
fn a_tool_name_served_twice_is_refused() {
    let _ = toolgate_mcp::Tools::new().with(toolbox()).with(toolbox());
}

/// Whether the slow tool's body got to its end.
static FINISHED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A tool whose body panics.
#[toolgate::tool(effect = read)]
async fn explode() -> Result<u32, toolgate::ToolError> {
    panic!("the body broke");
}

/// A tool that takes a long time, and says when it finished.
#[toolgate::tool(effect = read)]
async fn slow() -> Result<u32, toolgate::ToolError> {
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    FINISHED.store(true, std::sync::atomic::Ordering::SeqCst);
    Ok(1)
}

fn troubled() -> Arc<Toolbox<()>> {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Explode).unwrap();
    toolbox.register(Slow).unwrap();
    Arc::new(toolbox)
}

#[tokio::test]
async fn a_body_that_panics_gets_an_answer_and_the_server_serves_on() {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    tokio::spawn(toolgate_mcp::serve(troubled(), traveller(), read, write));
    let (read, write) = tokio::io::split(client);
    let client = ().serve((read, write)).await.unwrap();
    for _ in 0..2 {
        let failed = client
            .call_tool(CallToolRequestParams::new("explode"))
            .await
            .unwrap();
        assert_eq!(failed.is_error, Some(true), "{failed:?}");
        let text = failed.content[0].as_text().unwrap().text.clone();
        let failure: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(failure["code"], "INTERNAL", "{failure}");
        // The request id, for the operator to find the panic in the log.
        assert!(
            failure["request_id"]
                .as_str()
                .is_some_and(|id| !id.is_empty()),
            "{failure}"
        );
        // The panic's message is the server's, not the model's to read.
        assert!(!text.contains("the body broke"), "{text}");
    }
    assert_eq!(client.list_all_tools().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_cancelled_call_stops_its_body() {
    let mut raw = {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        tokio::spawn(toolgate_mcp::serve(troubled(), traveller(), read, write));
        let (read, write) = tokio::io::split(client);
        Raw {
            write,
            read: BufReader::new(read),
        }
    };
    handshake(&mut raw, ProtocolVersion::V_2025_11_25).await;
    raw.send(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#)
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    raw.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user stopped it"}}"#)
        .await;
    // Past the body's two seconds: it was dropped, not left to finish.
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    assert!(!FINISHED.load(std::sync::atomic::Ordering::SeqCst));
    // The server still answers.
    raw.send(br#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#)
        .await;
    let answer = raw.answer().await;
    assert_eq!(answer["id"], 8, "{answer}");
}

/// A frame that is not JSON text: not UTF-8, or not well-formed. JSON-RPC
/// answers it with a parse error (-32700) that names no request, since
/// none could be read; nothing in it runs, and the server serves on.
async fn a_frame_that_is_not_json_text_is_a_parse_error(version: ProtocolVersion) {
    let toolbox = toolbox();
    let mut raw = Raw::new(Arc::clone(&toolbox));
    handshake(&mut raw, version.clone()).await;

    // `é` in Latin-1 (0xE9) where UTF-8 is required: in `_meta`, in an
    // argument, in the name of a key.
    let mut in_meta = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book_hotel","arguments":{"hotel_id":"h_seaview1","nights":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"note":"caf"#.to_vec();
    in_meta.extend_from_slice(b"\xE9\"}}}");
    let mut in_argument = call(
        2,
        r#"{"hotel_id":"h_seaview1","nights":2,"note":"cafX"}"#,
        &version,
    );
    let at = in_argument.iter().position(|&b| b == b'X').unwrap();
    in_argument[at] = 0xE9;
    let mut in_key = call(3, r#"{"hotel_id":"h_seaview1","nightsX":2}"#, &version);
    let at = in_key.iter().position(|&b| b == b'X').unwrap();
    in_key[at] = 0xE9;
    let malformed = br#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{]"#.to_vec();
    for frame in [in_meta, in_argument, in_key, malformed] {
        raw.send(&frame).await;
        let answer = raw.answer().await;
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
        assert!(answer.get("id").is_none_or(Value::is_null), "{answer}");
        assert!(answer.get("result").is_none(), "{answer}");
    }
    assert_eq!(toolbox.state().bookings().len(), 0);

    // Still serving.
    raw.send(&call(
        5,
        r#"{"hotel_id":"h_seaview1","nights":2}"#,
        &version,
    ))
    .await;
    let answer = raw.answer().await;
    assert_eq!(answer["id"], 5, "{answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(toolbox.state().bookings().len(), 1);
}

#[tokio::test]
async fn a_frame_that_is_not_json_text_is_a_parse_error_with_initialize() {
    a_frame_that_is_not_json_text_is_a_parse_error(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test]
async fn a_frame_that_is_not_json_text_is_a_parse_error_with_discover() {
    a_frame_that_is_not_json_text_is_a_parse_error(ProtocolVersion::V_2026_07_28).await;
}
