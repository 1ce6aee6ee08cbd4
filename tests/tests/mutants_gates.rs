//! Calls that kill mutants which survived the rest of the suite (see
//! docs/maintainers/mutation.md): each test names the gate and the behaviour it pins.

mod common;

use common::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate::{Code, Limits, Outcome, ToolContext, ToolError, Toolbox, tool};

fn call<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str, args: &str) -> Outcome {
    let ctx = ToolContext::new("u", "t", "r").allow_all_tools();
    block_on(toolbox.call(&ctx, tool, args))
}

fn refusal(outcome: &Outcome) -> (Code, &str, String) {
    let r = outcome.rejection().expect("refused");
    (r.code(), r.path(), r.safe_message().to_owned())
}

/// Echo a note and a count.
#[tool(effect = read)]
pub fn echo_note(note: String, count: i32) -> Result<String, ToolError> {
    Ok(format!("{note}|{count}"))
}

// Gate 2 reads `-0` as the integer 0 by rewriting it to ` 0`; inside a
// string, after an escaped quote, `-0` is text and stays as sent.
#[test]
fn negative_zero_is_rewritten_outside_strings_only() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(EchoNote).unwrap();
    let outcome = call(
        &toolbox,
        "echo_note",
        r#"{"note":"say \"-0\" -0","count":-0}"#,
    );
    assert_eq!(
        outcome.value(),
        Some(&json!("say \"-0\" -0|0")),
        "{outcome:?}"
    );
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Stay {
    /// The hotel, as `h_` and eight letters or digits.
    #[serde(rename = "id")]
    #[garde(pattern(r"^h_[a-z0-9]{8}$"))]
    pub hotel_code: String,
    #[garde(range(min = 1, max = 30))]
    pub nights: u8,
}

/// Book a stay.
#[tool(effect = read)]
pub fn book_stay(#[garde(dive)] stay: Stay) -> Result<u8, ToolError> {
    Ok(stay.nights)
}

// Gate 3: garde names the Rust field `hotel_code`; serde renamed it inside
// a nested type, where the macro records no rename. The wire name is the
// one property whose schema states the rule that failed: a pattern.
#[test]
fn a_renamed_nested_field_is_found_by_the_pattern_its_schema_states() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(BookStay).unwrap();
    let outcome = call(&toolbox, "book_stay", r#"{"stay":{"id":"h_1","nights":2}}"#);
    assert_eq!(
        refusal(&outcome),
        (
            Code::PatternMismatch,
            "/stay/id",
            "stay/id must match the pattern ^h_[a-z0-9]{8}$".to_owned()
        )
    );
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Peer {
    /// The peer's IPv4 address.
    #[schemars(extend("format" = "ipv4"))]
    #[garde(ipv4)]
    pub address: String,
}

/// Ping a peer.
#[tool(effect = read)]
pub fn ping_peer(#[garde(dive)] peer: Peer) -> Result<(), ToolError> {
    let _ = peer;
    Ok(())
}

// Gate 3: a format the schema states is said in the schema's words, not
// garde's ("a valid IPv4 address").
#[test]
fn a_format_the_schema_states_is_named_as_the_schema_names_it() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(PingPeer).unwrap();
    let outcome = call(
        &toolbox,
        "ping_peer",
        r#"{"peer":{"address":"not an address"}}"#,
    );
    assert_eq!(
        refusal(&outcome),
        (
            Code::InvalidFormat,
            "/peer/address",
            "peer/address must be a valid ipv4".to_owned()
        )
    );
}

// Gate 0: a toolbox's Debug names its limits and tools, never its state.
#[test]
fn a_toolbox_debugs_as_its_limits_and_tool_names() {
    let mut toolbox = Toolbox::new(()).with_limits(Limits::default().max_depth(3));
    toolbox.register(EchoNote).unwrap();
    let text = format!("{toolbox:?}");
    assert!(text.starts_with("Toolbox {"), "{text}");
    assert!(text.contains("depth: 3"), "{text}");
    assert!(text.contains("tools: [\"echo_note\"]"), "{text}");
}

// A definition compares equal to its copy: the compiled shape is derived
// from the schema, which the comparison already covers.
#[test]
fn a_definition_equals_its_copy() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(EchoNote).unwrap();
    let definition = toolbox.definition("echo_note").expect("registered");
    assert_eq!(definition.clone(), *definition);
}

/// Read the weather.
#[tool(effect = read)]
pub fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

// A transport bounds whole messages by `Toolbox::limits`: the widest of the
// toolbox's own limits and every tool's, bound by bound.
#[test]
fn a_toolbox_s_limits_are_the_widest_of_its_own_and_its_tools() {
    let own = Limits::default().max_bytes(1_000).max_depth(4);
    let mut toolbox = Toolbox::new(()).with_limits(own);
    assert_eq!(toolbox.limits(), own);
    toolbox
        .register(EchoNote)
        .unwrap()
        .register_with_limits(Weather, Limits::default().max_bytes(500).max_depth(9))
        .unwrap();
    let widest = toolbox.limits();
    assert_eq!(widest.bytes(), 1_000);
    assert_eq!(widest.depth(), 9);
    assert_eq!(widest.nodes(), Limits::default().nodes());
}

// Every registered tool's definition, by name: what a server lists.
#[test]
fn a_toolbox_lists_the_definition_of_every_tool() {
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(Weather)
        .unwrap()
        .register(EchoNote)
        .unwrap();
    let names: Vec<&str> = toolbox.definitions().map(|d| d.name()).collect();
    assert_eq!(names, ["echo_note", "weather"]);
}

// An approval error is for the host's logs and its people: each says why.
#[test]
fn each_approval_error_says_why() {
    use toolgate::ApprovalError;
    let errors = [
        ApprovalError::NotFound,
        ApprovalError::Expired,
        ApprovalError::AlreadyDecided,
        ApprovalError::MissingScope("refunds:approve".into()),
        ApprovalError::OwnCall,
        ApprovalError::NotTheNamedApprover("manager_1".into()),
        ApprovalError::Store("disk full".into()),
    ];
    let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    for (error, text) in errors.iter().zip(&texts) {
        assert!(text.len() > 10, "{error:?}: {text:?}");
    }
    assert!(texts[3].contains("refunds:approve"), "{}", texts[3]);
    assert!(texts[5].contains("manager_1"), "{}", texts[5]);
    let mut distinct = texts.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), texts.len());
}

/// Wire money somewhere.
#[tool(effect = irreversible)]
pub fn wire(amount_cents: u32) -> Result<u32, ToolError> {
    Ok(amount_cents)
}

/// The same tool, changed: another argument, the same name and version.
#[tool(effect = irreversible, name = "wire")]
pub fn wire_changed(amount_cents: u32, memo: String) -> Result<u32, ToolError> {
    let _ = memo;
    Ok(amount_cents)
}

fn asked<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, ctx: &ToolContext) -> String {
    let outcome = block_on(toolbox.call(ctx, "wire", r#"{"amount_cents":5}"#));
    outcome.approval().expect("waits for approval").id.clone()
}

fn agent(actor: &str) -> ToolContext {
    ToolContext::new(actor, "t", "r").allow_all_tools()
}

// Gate 6: only the actor who made a call resumes it, in its tenant.
#[test]
fn another_actor_in_the_tenant_cannot_resume_an_approval() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Wire).unwrap();
    let id = asked(&toolbox, &agent("alice"));
    block_on(toolbox.approve(&agent("manager"), &id)).unwrap();
    let stolen = block_on(toolbox.resume(&agent("mallory"), &id));
    assert_eq!(
        stolen.rejection().map(|r| r.code()),
        Some(Code::NotPermitted)
    );
    let other_tenant = ToolContext::new("alice", "t2", "r").allow_all_tools();
    let stolen = block_on(toolbox.resume(&other_tenant, &id));
    assert_eq!(
        stolen.rejection().map(|r| r.code()),
        Some(Code::NotPermitted)
    );
    let done = block_on(toolbox.resume(&agent("alice"), &id));
    assert_eq!(done.value(), Some(&json!(5)));
}

// Gate 6: an approval past its time does not run, even once approved.
#[test]
fn an_approval_expired_at_resume_does_not_run() {
    use std::time::{Duration, SystemTime};
    let clock = toolgate::testing::ManualClock::new(SystemTime::UNIX_EPOCH);
    let mut toolbox = Toolbox::new(())
        .with_clock(clock.clone())
        .with_effect_policy(
            toolgate::EffectPolicy::default().approval_ttl(Duration::from_secs(60)),
        );
    toolbox.register(Wire).unwrap();
    let id = asked(&toolbox, &agent("alice"));
    block_on(toolbox.approve(&agent("manager"), &id)).unwrap();
    clock.advance(Duration::from_secs(60));
    let late = block_on(toolbox.resume(&agent("alice"), &id));
    assert_eq!(
        late.rejection().map(|r| r.code()),
        Some(Code::ApprovalExpired)
    );
}

// Gate 6: with distinct approvers, anyone but the caller may approve.
#[test]
fn a_distinct_approver_is_anyone_but_the_caller() {
    let mut toolbox = Toolbox::new(())
        .with_effect_policy(toolgate::EffectPolicy::default().distinct_approver(true));
    toolbox.register(Wire).unwrap();
    let id = asked(&toolbox, &agent("alice"));
    assert_eq!(
        block_on(toolbox.approve(&agent("alice"), &id)),
        Err(toolgate::ApprovalError::OwnCall)
    );
    assert!(block_on(toolbox.approve(&agent("manager"), &id)).is_ok());
}

// Gate 6: an approval is for the tool as it was; a tool changed under the
// same name and version (another schema) asks again.
#[test]
fn an_approval_does_not_run_a_changed_tool() {
    let store = std::sync::Arc::new(toolgate::MemoryStore::default());
    let mut before = Toolbox::new(()).with_effect_store(std::sync::Arc::clone(&store));
    before.register(Wire).unwrap();
    let id = asked(&before, &agent("alice"));
    block_on(before.approve(&agent("manager"), &id)).unwrap();
    let mut after = Toolbox::new(()).with_effect_store(store);
    after.register(WireChanged).unwrap();
    let changed = block_on(after.resume(&agent("alice"), &id));
    assert_eq!(
        changed.rejection().map(|r| r.code()),
        Some(Code::VersionMismatch)
    );
}

// --- Registration's instance builder (`lengths.rs`) ---
//
// Registration builds an instance of each tool's schema and fills each
// string to its `maxLength` with two-byte characters: a nested rule that
// counts bytes is refused. The builder must reach every kind of value,
// stop recursion through every kind of container, and satisfy every
// constraint it reads, or the check silently decides nothing.

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Folder {
    /// garde's `length` without `chars` counts bytes.
    #[garde(length(max = 8))]
    pub name: String,
    #[garde(skip)]
    pub hidden: bool,
    #[garde(dive)]
    pub children: Vec<Folder>,
    #[garde(dive)]
    pub by_tag: std::collections::BTreeMap<String, Folder>,
    /// A required tuple holding an optional folder: past the depth where
    /// optional fields are left out, it is still built, and its option
    /// must be `null` for the recursion to end.
    #[garde(skip)]
    pub link: (u8, Option<Box<Folder>>),
}

/// File a folder tree.
#[tool(effect = write)]
pub fn file_tree(root: Folder) -> Result<usize, ToolError> {
    Ok(root.children.len())
}

#[test]
fn a_byte_length_deep_in_a_recursive_tree_is_found() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(FileTree).unwrap_err();
    assert!(
        matches!(
            &error,
            toolgate::RegisterError::LengthInBytes { tool: "file_tree", at } if at.starts_with("/root") && at.ends_with("/name")
        ),
        "{error:?}"
    );
}

fn above_five(n: &f64, _: &()) -> garde::Result {
    if *n > 5.0 {
        Ok(())
    } else {
        Err(garde::Error::new("must be above 5"))
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Dated {
    #[garde(length(max = 8))]
    pub label: String,
    #[garde(skip)]
    #[schemars(extend("format" = "email"))]
    pub mail: String,
    #[garde(skip)]
    #[schemars(extend("format" = "date"))]
    pub day: String,
    #[garde(skip)]
    #[schemars(extend("format" = "date-time"))]
    pub at: String,
    #[garde(skip)]
    #[schemars(extend("format" = "time"))]
    pub clock: String,
    #[garde(skip)]
    #[schemars(extend("format" = "uuid"))]
    pub id: String,
    #[garde(skip)]
    #[schemars(extend("format" = "ipv4"))]
    pub v4: String,
    #[garde(skip)]
    #[schemars(extend("format" = "ipv6"))]
    pub v6: String,
    #[garde(skip)]
    #[schemars(extend("format" = "uri"))]
    pub link: String,
    #[garde(skip)]
    #[schemars(extend("format" = "hostname"))]
    pub host: String,
    /// A pattern the builder writes a match for.
    #[garde(pattern(r"^[a-z]{3}-[0-9]{2}$"))]
    pub code: String,
    /// Stated as an exclusive minimum alone (a float's type publishes no
    /// range of its own): the instance holds 6.
    #[garde(custom(above_five))]
    #[schemars(extend("exclusiveMinimum" = 5))]
    pub weight: f64,
}

/// File a dated record.
#[tool(effect = write)]
pub fn file_dated(record: Dated) -> Result<f64, ToolError> {
    Ok(record.weight)
}

#[test]
fn the_instance_builder_writes_each_format_and_an_exclusive_minimum() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(FileDated).unwrap_err();
    assert_eq!(
        error,
        toolgate::RegisterError::LengthInBytes {
            tool: "file_dated",
            at: "/record/label".to_owned()
        }
    );
}
