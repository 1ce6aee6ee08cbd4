//! The approvals page, in a real browser: headless Chromium driven by
//! chromedriver over WebDriver (plain HTTP and JSON), against the demo's
//! HTTP server. An agent's refunds wait for approval; the manager, who
//! holds `refunds:approve`, sees each with its preview and approves one
//! (which the agent's repeat then runs, once) and denies the other; a
//! clerk of the same tenant without the scope sees none.
//!
//! Chromium and chromedriver come from the distribution
//! (`apt-get install chromium chromium-driver`); `TOOLGATE_CHROMIUM` and
//! `TOOLGATE_CHROMEDRIVER` name them if they are not `chromium` and
//! `chromedriver` on the `PATH`. Without them the test is ignored, with
//! that reason (see `build.rs`).

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long the test waits for the page to show what it should: a bound
/// on a hang, not a measure of speed.
const PATIENCE: Duration = Duration::from_secs(30);

/// The WebDriver key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn chromium() -> String {
    std::env::var("TOOLGATE_CHROMIUM")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| {
            if std::path::Path::new("/usr/bin/chromium").is_file() {
                "/usr/bin/chromium".to_owned()
            } else {
                "chromium".to_owned()
            }
        })
}

fn chromedriver() -> String {
    std::env::var("TOOLGATE_CHROMEDRIVER")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "chromedriver".to_owned())
}

/// The demo over HTTP on a free port: its origin, and the tokens of the
/// agent, the clerk and the manager.
fn demo() -> (Killed, String, [String; 3]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate-demo"))
        .args([
            "--http",
            "127.0.0.1:0",
            "--actor",
            "agent_1",
            "--actor",
            "clerk_1",
        ])
        .args(["--approver", "manager_1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the demo starts");
    let stderr = child.stderr.take().expect("its standard error");
    let stdout = child.stdout.take().expect("its standard output");
    let child = Killed(child);
    let mut lines = BufReader::new(stderr).lines();
    let origin = loop {
        let line = lines
            .next()
            .expect("the demo names its address")
            .expect("text");
        if let Some(url) = line.strip_prefix("toolgate demo: MCP over streamable HTTP at ") {
            break url.trim_end_matches("/mcp").to_owned();
        }
    };
    // The rest of its log is not read; it must not fill the pipe.
    std::thread::spawn(move || for _ in lines {});
    let mut tokens = BufReader::new(stdout).lines();
    let mut token = || tokens.next().expect("a token").expect("text");
    let tokens = [token(), token(), token()];
    (child, origin, tokens)
}

/// A `tools/call` of `issue_refund` as the agent, over MCP's streamable
/// HTTP (2026-07-28: no session); the outcome the model reads.
async fn refund(origin: &str, agent: &str, amount: u64) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "issue_refund",
            "arguments": {"order": "ord_1001", "amount_cents": amount},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    let response = reqwest::Client::new()
        .post(format!("{origin}/mcp"))
        .bearer_auth(agent)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "issue_refund")
        .json(&body)
        .send()
        .await
        .expect("the demo answers");
    let text = response.text().await.expect("a body");
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| !data.is_empty())
        .unwrap_or(&text);
    let message: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"));
    let outcome = message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{message}"));
    serde_json::from_str(outcome).expect("the outcome is JSON")
}

/// A WebDriver session of headless Chromium.
struct Browser {
    http: reqwest::Client,
    session: String,
    _driver: Killed,
    _profile: TempDir,
}

/// A directory removed when dropped.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Browser {
    async fn start() -> Browser {
        let port = {
            let free = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
            free.local_addr().expect("its address").port()
        };
        let driver = Command::new(chromedriver())
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("chromedriver ({}) does not start: {e}", chromedriver()));
        let driver = Killed(driver);
        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        let since = Instant::now();
        while http.get(format!("{base}/status")).send().await.is_err() {
            assert!(since.elapsed() < PATIENCE, "chromedriver never answered");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let profile =
            std::env::temp_dir().join(format!("toolgate-chromium-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&profile).expect("a profile directory");
        // The machine may have no network: without these Chromium waits
        // on connections it will never make.
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ]
        .map(str::to_owned)
        .into_iter()
        .chain([format!("--user-data-dir={}", profile.display())])
        .collect::<Vec<_>>();
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium(), "args": args}
        }}});
        let created: Value = http
            .post(format!("{base}/session"))
            .json(&capabilities)
            .send()
            .await
            .expect("chromedriver answers")
            .json()
            .await
            .expect("JSON");
        let session = created["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no browser session: {created}"));
        Browser {
            http,
            session: format!("{base}/session/{session}"),
            _driver: driver,
            _profile: TempDir(profile),
        }
    }

    async fn command(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let mut request = self.http.request(method, format!("{}{path}", self.session));
        if !body.is_null() {
            request = request.json(&body);
        }
        let answer: Value = request
            .send()
            .await
            .expect("chromedriver answers")
            .json()
            .await
            .expect("JSON");
        answer["value"].clone()
    }

    async fn open(&self, url: &str) {
        // Through a blank page, so that a page differing only in its
        // fragment loads again.
        let go = |url: &str| json!({ "url": url });
        self.command(reqwest::Method::POST, "/url", go("about:blank"))
            .await;
        self.command(reqwest::Method::POST, "/url", go(url)).await;
    }

    /// The elements `css` selects now.
    async fn all(&self, css: &str) -> Vec<String> {
        let found = self
            .command(
                reqwest::Method::POST,
                "/elements",
                json!({"using": "css selector", "value": css}),
            )
            .await;
        found
            .as_array()
            .map(|elements| {
                elements
                    .iter()
                    .filter_map(|e| e[ELEMENT].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The elements `css` selects once there are `count` of them.
    async fn wait_for(&self, css: &str, count: usize) -> Vec<String> {
        let since = Instant::now();
        loop {
            let found = self.all(css).await;
            if found.len() == count {
                return found;
            }
            assert!(
                since.elapsed() < PATIENCE,
                "the page shows {} of `{css}`, not {count}: {}",
                found.len(),
                self.text("body").await
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn text(&self, css: &str) -> String {
        let Some(element) = self.all(css).await.into_iter().next() else {
            return String::new();
        };
        let path = format!("/element/{element}/text");
        let text = self.command(reqwest::Method::GET, &path, Value::Null).await;
        text.as_str().unwrap_or_default().to_owned()
    }

    async fn click(&self, css: &str) {
        let element = self.wait_for(css, 1).await.remove(0);
        let path = format!("/element/{element}/click");
        self.command(reqwest::Method::POST, &path, json!({})).await;
    }

    async fn close(&self) {
        let _ = self.http.delete(&self.session).send().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    no_chromium,
    ignore = "needs Chromium and chromedriver: apt-get install chromium chromium-driver, or set TOOLGATE_CHROMIUM and TOOLGATE_CHROMEDRIVER"
)]
async fn a_manager_approves_and_denies_in_the_browser_and_a_clerk_sees_nothing() {
    let (_demo, origin, [agent, clerk, manager]) = demo();
    let asked = refund(&origin, &agent, 2500).await;
    assert_eq!(asked["status"], "approval_required", "{asked}");
    let to_deny = refund(&origin, &agent, 1200).await;
    assert_eq!(to_deny["status"], "approval_required", "{to_deny}");
    let (approve_id, deny_id) = (
        asked["approval_id"].as_str().expect("an id").to_owned(),
        to_deny["approval_id"].as_str().expect("an id").to_owned(),
    );

    let browser = Browser::start().await;
    browser
        .open(&format!("{origin}/approvals#token={manager}"))
        .await;
    browser.wait_for("li.approval", 2).await;
    let item = |id: &str| format!(r#"li.approval[data-id="{id}"]"#);
    let preview = browser
        .text(&format!("{} pre.preview", item(&approve_id)))
        .await;
    assert!(
        preview.contains(r#""amount_cents": 2500"#),
        "{preview:?} in {:?}",
        browser.text("body").await
    );
    assert!(preview.contains(r#""order": "ord_1001""#), "{preview}");
    let shown = browser.text(&item(&approve_id)).await;
    assert!(shown.contains("issue_refund"), "{shown}");
    assert!(shown.contains("asked by agent_1"), "{shown}");
    assert!(shown.contains("expires 20"), "{shown}");

    // Approve: the list loses it, and the agent's repeat runs it, once.
    browser
        .click(&format!("{} button.approve", item(&approve_id)))
        .await;
    browser.wait_for("li.approval", 1).await;
    // (A result object is what the model reads; a second run would be a
    // second refund, with its own id and less left to refund.)
    let done = refund(&origin, &agent, 2500).await;
    assert_eq!(done["amount_cents"], 2500, "{done}");
    assert!(done["refund_id"].is_string(), "{done}");
    let again = refund(&origin, &agent, 2500).await;
    assert_eq!(again, done, "the repeat ran the refund again");

    // Deny: gone from the list; the agent's repeat did not run, and has to
    // ask anew.
    browser
        .click(&format!("{} button.deny", item(&deny_id)))
        .await;
    browser.wait_for("li.approval", 0).await;
    let status = browser.text("#status").await;
    assert!(status.contains("denied"), "{status}");
    let repeated = refund(&origin, &agent, 1200).await;
    assert_eq!(repeated["status"], "approval_required", "{repeated}");
    assert_ne!(repeated["approval_id"], deny_id.as_str());
    let renewed = repeated["approval_id"].as_str().expect("an id").to_owned();

    // The clerk, of the same tenant, without the approver's scope: none,
    // while the renewed approval waits for the manager.
    browser
        .open(&format!("{origin}/approvals#token={clerk}"))
        .await;
    browser.wait_for("body[data-loaded]", 1).await;
    assert!(browser.all("li.approval").await.is_empty());
    let status = browser.text("#status").await;
    assert!(status.contains("No approvals wait for you"), "{status:?}");
    browser
        .open(&format!("{origin}/approvals#token={manager}"))
        .await;
    browser.wait_for(&item(&renewed), 1).await;
    browser.close().await;
}
