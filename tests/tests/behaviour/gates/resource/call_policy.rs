//! Gate 5 decides every call: a call that authorizes no object (a tool
//! without resources, or one whose optional resource the model left out)
//! is decided by the toolbox's `CallPolicy`; the policies of one call see
//! one set of rules and the arguments as the gates accepted them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolgate::{
    Authorize, Authorized, CallInfo, CallPolicy, Code, Denied, Fault, Resolved, Resource,
    ToolContext, ToolError, ToolInfo, Toolbox, tool,
};

use crate::common::block_on;

#[derive(Default)]
pub struct Vault {
    runs: AtomicUsize,
    /// The rules in force: a number the policies read, replaced while
    /// calls run.
    rules: AtomicUsize,
    /// What each decision saw: (field, rules).
    decided: Mutex<Vec<(String, usize)>>,
    /// The arguments each policy read.
    arguments: Mutex<Vec<String>>,
}

pub struct Document {
    id: String,
}

#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct DocumentRef(#[garde(pattern(r"^doc_[0-9]{1,6}$"))] String);

impl Resource<Vault> for Document {
    type Ref = DocumentRef;

    async fn resolve(
        _: &ToolContext,
        _: &Vault,
        r: &DocumentRef,
    ) -> Result<Option<Document>, Fault> {
        Ok(Some(Document { id: r.0.clone() }))
    }
}

/// The rules of the call: kept once per call, as a policy that can be
/// replaced keeps its snapshot.
struct Rules(usize);

impl<T: ToolInfo> Authorize<T, Vault> for Document {
    async fn authorize(
        _: &ToolContext,
        vault: &Vault,
        document: &Resolved<Document>,
    ) -> Result<(), Denied> {
        let rules = document.per_call(|| Rules(vault.rules.load(Ordering::SeqCst)));
        vault
            .decided
            .lock()
            .unwrap()
            .push((document.field().to_owned(), rules.0));
        vault
            .arguments
            .lock()
            .unwrap()
            .push(document.arguments().to_owned());
        // The rules are replaced between this call's two decisions.
        vault.rules.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

/// The caller's recent documents.
#[tool(effect = read)]
fn list_recent(vault: &Vault) -> Result<u32, ToolError> {
    vault.runs.fetch_add(1, Ordering::SeqCst);
    Ok(3)
}

/// Bundle the caller's documents for export, one of them named.
#[tool(effect = read)]
async fn export_bundle(
    vault: &Vault,
    document: Option<Authorized<Document>>,
    #[serde(default)]
    #[garde(range(max = 10))]
    copies: u8,
) -> Result<String, ToolError> {
    vault.runs.fetch_add(1, Ordering::SeqCst);
    Ok(format!(
        "{:?} x{copies}",
        document.map(|d| d.into_inner().id)
    ))
}

/// Copy one document onto another.
#[tool(effect = read)]
async fn copy(
    vault: &Vault,
    from: Authorized<Document>,
    to: Authorized<Document>,
) -> Result<String, ToolError> {
    vault.runs.fetch_add(1, Ordering::SeqCst);
    Ok(format!("{} -> {}", from.id, to.id))
}

/// Forbids the tools it names; asks for approval for `export_bundle`.
struct Forbid {
    tools: Vec<&'static str>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl CallPolicy for Forbid {
    fn authorize_call(&self, _: &ToolContext, call: &CallInfo<'_>) -> Result<(), Denied> {
        self.seen
            .lock()
            .unwrap()
            .push(format!("{} {}", call.tool().name(), call.arguments()));
        if self.tools.contains(&call.tool().name()) {
            return Err(Denied::because("forbidden by the test's policy"));
        }
        if call.tool().name() == "export_bundle" {
            return Err(Denied::unless_approved("exports need a person"));
        }
        Ok(())
    }
}

fn toolbox(forbid: &[&'static str]) -> (Toolbox<Vault>, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let policy = Forbid {
        tools: forbid.to_vec(),
        seen: Arc::clone(&seen),
    };
    let mut toolbox = Toolbox::new(Vault::default()).with_call_policy(policy);
    toolbox
        .register(ListRecent)
        .unwrap()
        .register(ExportBundle)
        .unwrap()
        .register(Copy)
        .unwrap();
    (toolbox, seen)
}

fn ctx() -> ToolContext {
    ToolContext::new("alice", "tenant_a", "req_1")
        .with_session("conv")
        .allow_all_tools()
}

#[test]
fn a_tool_without_resources_is_decided_by_the_call_policy() {
    let (toolbox, seen) = toolbox(&["list_recent"]);
    let outcome = block_on(toolbox.call(&ctx(), "list_recent", "{}"));
    assert_eq!(
        outcome.rejection().map(|r| r.code()),
        Some(Code::NotPermitted)
    );
    assert_eq!(toolbox.state().runs.load(Ordering::SeqCst), 0);
    assert_eq!(*seen.lock().unwrap(), ["list_recent {}"]);
    // Allowed, it runs.
    let (toolbox, _) = toolbox_allowing();
    let outcome = block_on(toolbox.call(&ctx(), "list_recent", "{}"));
    assert_eq!(outcome.value(), Some(&json!(3)));
}

fn toolbox_allowing() -> (Toolbox<Vault>, Arc<Mutex<Vec<String>>>) {
    toolbox(&[])
}

#[test]
fn a_call_that_leaves_out_its_optional_resource_is_decided_by_the_call_policy() {
    let (toolbox, seen) = toolbox(&[]);
    // Left out: the call policy asks for approval, with the arguments as
    // accepted (the default applied).
    let asked = block_on(toolbox.call(&ctx(), "export_bundle", "{}"));
    let approval = asked.approval().expect("an approval").clone();
    assert_eq!(approval.arguments, json!({"copies": 0, "document": null}));
    assert_eq!(
        *seen.lock().unwrap(),
        [r#"export_bundle {"copies":0,"document":null}"#]
    );
    assert_eq!(toolbox.state().runs.load(Ordering::SeqCst), 0);
    // Named: the object's own policy decides, and the call policy is not
    // asked.
    let named = block_on(toolbox.call(&ctx(), "export_bundle", r#"{"document":"doc_1"}"#));
    assert_eq!(named.value(), Some(&json!(r#"Some("doc_1") x0"#)));
    assert_eq!(seen.lock().unwrap().len(), 1);
    // Approved, the call left out runs once.
    let manager = ToolContext::new("manager", "tenant_a", "req_m");
    block_on(toolbox.approve(&manager, &approval.id)).unwrap();
    let done = block_on(toolbox.resume(&ctx(), &approval.id));
    assert_eq!(done.value(), Some(&json!("None x0")), "{done:?}");
    // Forbidden, it never runs.
    let (forbidding, _) = toolbox_forbidding_exports();
    let outcome = block_on(forbidding.call(&ctx(), "export_bundle", r#"{"document":null}"#));
    assert_eq!(
        outcome.rejection().map(|r| r.code()),
        Some(Code::NotPermitted)
    );
}

fn toolbox_forbidding_exports() -> (Toolbox<Vault>, Arc<Mutex<Vec<String>>>) {
    toolbox(&["export_bundle"])
}

#[test]
fn the_objects_of_one_call_are_decided_by_one_snapshot_of_the_rules() {
    let (toolbox, _) = toolbox(&[]);
    let outcome = block_on(toolbox.call(&ctx(), "copy", r#"{"to":"doc_2","from":"doc_1"}"#));
    assert_eq!(
        outcome.value(),
        Some(&json!("doc_1 -> doc_2")),
        "{outcome:?}"
    );
    let decided = toolbox.state().decided.lock().unwrap().clone();
    assert_eq!(decided, [("from".to_owned(), 0), ("to".to_owned(), 0)]);
    // The next call sees the rules as they are now.
    let _ = block_on(toolbox.call(&ctx(), "copy", r#"{"from":"doc_1","to":"doc_2"}"#));
    let decided = toolbox.state().decided.lock().unwrap().clone();
    assert_eq!(decided[2..], [("from".to_owned(), 2), ("to".to_owned(), 2)]);
}

#[test]
fn a_policy_reads_the_arguments_as_accepted_whatever_the_spelling() {
    let (toolbox, _) = toolbox(&[]);
    for spelling in [
        r#"{"document":"doc_1"}"#,
        r#"{"copies":0,"document":"doc_1"}"#,
        r#"{"copies":null, "document":"doc_1"}"#,
        r#"{"document":"doc\u005f1","copies":0.0}"#,
    ] {
        let outcome = block_on(toolbox.call(&ctx(), "export_bundle", spelling));
        assert!(outcome.value().is_some(), "{spelling}: {outcome:?}");
    }
    let arguments = toolbox.state().arguments.lock().unwrap().clone();
    assert_eq!(arguments, [r#"{"copies":0,"document":"doc_1"}"#; 4]);
}
