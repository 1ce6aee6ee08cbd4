//! The host names its server: `serverInfo` (name, version, title) and
//! `instructions`, as clients read them on the wire, over stdio and over
//! streamable HTTP, on both protocol generations.

mod common;

use common::{INITIALIZE, META, bearer, hotels, message, post_method, request, serve};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use toolgate_mcp::{HttpConfig, Identity, JwtAuthenticator, McpServer, ServerInfo};

const INSTRUCTIONS: &str = "Book hotels for the signed-in traveller.";

fn info() -> ServerInfo {
    ServerInfo::new("bookings", "2.3.0")
        .title("Bookings")
        .instructions(INSTRUCTIONS)
}

fn named() -> Value {
    json!({"name":"bookings","version":"2.3.0","title":"Bookings"})
}

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"#;

fn discover() -> String {
    format!("{DISCOVER}{META}}}}}")
}

#[tokio::test]
async fn stdio_answers_with_the_host_s_name_and_instructions() {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    let identity = Identity::new("traveller_7", "tenant_a");
    tokio::spawn(
        McpServer::new(hotels(), identity)
            .with_info(info())
            .run(read, write),
    );
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    for (frame, answer_of) in [
        (INITIALIZE.to_owned(), "initialize"),
        (discover(), "server/discover"),
    ] {
        write.write_all(frame.as_bytes()).await.unwrap();
        write.write_all(b"\n").await.unwrap();
        let line = lines.next_line().await.unwrap().unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        let result = &answer["result"];
        assert_eq!(
            result["instructions"], INSTRUCTIONS,
            "{answer_of}: {answer}"
        );
        let server_info = if answer_of == "initialize" {
            &result["serverInfo"]
        } else {
            &result["_meta"]["io.modelcontextprotocol/serverInfo"]
        };
        assert_eq!(*server_info, named(), "{answer_of}: {answer}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_answers_with_the_host_s_name_and_instructions() {
    let url = serve(|resource| {
        toolgate_mcp::router(
            hotels(),
            JwtAuthenticator::hs256(common::SECRET)
                .unwrap()
                .audience(common::AUDIENCE),
            HttpConfig::new(resource)
                .authorization_servers([common::ISSUER])
                .server_info(info()),
        )
    })
    .await;
    let token = bearer("traveller_7");
    let opened = request(reqwest::Method::POST, &url, Some(&token))
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    let answer = message(opened).await;
    assert_eq!(answer["result"]["serverInfo"], named(), "{answer}");
    assert_eq!(answer["result"]["instructions"], INSTRUCTIONS, "{answer}");

    let discovered =
        message(post_method(&url, &token, "server/discover", None, discover()).await).await;
    assert_eq!(
        discovered["result"]["_meta"]["io.modelcontextprotocol/serverInfo"],
        named(),
        "{discovered}"
    );
    assert_eq!(
        discovered["result"]["instructions"], INSTRUCTIONS,
        "{discovered}"
    );
}

/// A server the host does not name is `toolgate`, with no instructions.
#[tokio::test]
async fn an_unnamed_server_is_toolgate() {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    let identity = Identity::new("traveller_7", "tenant_a");
    tokio::spawn(toolgate_mcp::serve(hotels(), identity, read, write));
    let (read, mut write) = tokio::io::split(client);
    write.write_all(INITIALIZE.as_bytes()).await.unwrap();
    write.write_all(b"\n").await.unwrap();
    let line = BufReader::new(read)
        .lines()
        .next_line()
        .await
        .unwrap()
        .unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        answer["result"]["serverInfo"]["name"], "toolgate",
        "{answer}"
    );
    assert!(answer["result"].get("instructions").is_none(), "{answer}");
}
