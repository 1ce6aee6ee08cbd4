//! Test tools: one of each argument shape the boundary must handle.

use std::sync::Mutex;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolgate::{
    Authorize, Authorized, Denied, DomainCode, Fault, Resolved, Resource, ToolContext, ToolError,
    tool,
};

/// Records every call that reached a body: the side effect a rejected call
/// must never reach.
#[derive(Default)]
pub struct Spy {
    pub calls: Mutex<Vec<String>>,
}

impl Spy {
    pub fn count(&self) -> usize {
        self.calls.lock().unwrap().len()
    }

    fn record(&self, what: impl Into<String>) {
        self.calls.lock().unwrap().push(what.into());
    }
}

#[derive(Debug, Deserialize, JsonSchema, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Csv,
    Jsonl,
}

#[derive(Debug, Deserialize, JsonSchema, Serialize, garde::Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Window {
    #[garde(range(min = 1, max = 90))]
    pub last_days: u16,
    #[garde(length(chars, max = 8))]
    pub time_zone: Option<String>,
}

/// Export rows of one of the caller's accounts.
#[tool(effect = read, scope = "exports:read")]
pub fn export_rows(
    spy: &Spy,
    /// The account, as `acct_` and letters or digits.
    #[serde(rename = "accountRef")]
    #[garde(pattern(r"^acct_[a-zA-Z0-9]+$"), length(min = 6, max = 40))]
    account_ref: String,
    format: Format,
    #[garde(dive)] window: Window,
    #[garde(length(min = 1, max = 3), inner(length(min = 1, max = 12)))] columns: Vec<String>,
    #[garde(range(max = 1_000_000))] limit: Option<u64>,
    dry_run: bool,
) -> Result<usize, ToolError> {
    spy.record(format!(
        "export {account_ref} {format:?} {window:?} {columns:?} {limit:?} {dry_run}"
    ));
    Ok(columns.len())
}

pub const NOT_TODAY: DomainCode = DomainCode::new("NOT_TODAY");

/// Do something that may fail in the body, as the argument asks.
#[tool(effect = write, version = 2)]
pub async fn risky(
    ctx: &ToolContext,
    spy: &Spy,
    #[garde(length(min = 1, max = 16))] mode: String,
) -> Result<String, ToolError> {
    spy.record(format!("risky {mode}"));
    match mode.as_str() {
        "reject" => Err(ToolError::reject(NOT_TODAY, "try again tomorrow")),
        "fail" => Err(ToolError::internal(
            "connection to db-7.internal:5432 refused: password authentication failed",
        )),
        "deny" => Err(ToolError::not_permitted().because("ord_3 exists but belongs to tenant_b")),
        "panic" => panic!("the body panicked on {mode}"),
        "panic any" => std::panic::panic_any(42_u8),
        "parse" => {
            let n: u32 = "not a number".parse()?;
            Ok(n.to_string())
        }
        _ => Ok(format!("{} did {mode}", ctx.actor())),
    }
}

/// Add two 64-bit integers.
#[tool(effect = read)]
pub fn add(a: i64, b: u64) -> Result<i128, ToolError> {
    Ok(i128::from(a) + i128::from(b))
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Contact {
    #[serde(rename = "mail")]
    #[garde(length(chars, min = 3))]
    pub email_address: String,
}

/// Send a short note.
#[tool(effect = write)]
pub fn send_note(
    spy: &Spy,
    #[serde(rename = "to")]
    #[garde(dive)]
    recipient: Contact,
    #[serde(rename = "text")]
    #[garde(length(min = 1, max = 10))]
    body: String,
) -> Result<(), ToolError> {
    spy.record(format!("note to {recipient:?}: {body}"));
    Ok(())
}

/// A recursive type: representable with `$ref`, not without.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Node {
    #[garde(length(chars, min = 1, max = 20))]
    pub name: String,
    #[garde(dive)]
    pub children: Vec<Node>,
}

/// Store a tree of names.
#[tool(effect = write)]
pub fn store_tree(#[garde(dive)] root: Node) -> Result<usize, ToolError> {
    fn count(node: &Node) -> usize {
        1 + node.children.iter().map(count).sum::<usize>()
    }
    Ok(count(&root))
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct Paging {
    /// Optional in the schema, but `null` is not a `u32`.
    #[serde(default)]
    #[garde(skip)]
    pub page: u32,
}

/// List things, page by page.
#[tool(effect = read)]
pub fn list_things(#[garde(dive)] paging: Paging) -> Result<u32, ToolError> {
    Ok(paging.page)
}

/// A tool whose field name Gemini does not accept.
#[tool(effect = read)]
pub fn dashed(#[serde(rename = "page-size")] page_size: u8) -> Result<u8, ToolError> {
    Ok(page_size)
}

/// A locker, named by any short text: the resource whose resolver, policy,
/// check and body do what the reference asks, so that each step can fail,
/// panic or carry attacker text to the audit log.
#[derive(Debug)]
pub struct Locker {
    pub label: String,
}

/// Any text: the rules of this reference are deliberately loose, so that
/// hostile text reaches the resolver.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct LockerRef(#[garde(length(chars, min = 1, max = 20_000))] pub String);

impl Resource<Spy> for Locker {
    type Ref = LockerRef;

    async fn resolve(_: &ToolContext, _: &Spy, r: &LockerRef) -> Result<Option<Locker>, Fault> {
        let label = r.0.as_str();
        if label.starts_with("panic in resolve") {
            panic!("resolver panicked on {label}");
        }
        if label.starts_with("fault") {
            return Err(Fault::new(format!("no locker table for {label}")));
        }
        if label.starts_with("missing") {
            return Ok(None);
        }
        Ok(Some(Locker {
            label: label.to_owned(),
        }))
    }
}

impl Authorize<OpenLocker, Spy> for Locker {
    async fn authorize(_: &ToolContext, _: &Spy, locker: &Resolved<Locker>) -> Result<(), Denied> {
        if locker.label.starts_with("panic in authorize") {
            panic!("policy panicked on {}", locker.label);
        }
        if locker.label.starts_with("deny") {
            return Err(Denied::because(format!("{} is not yours", locker.label)));
        }
        Ok(())
    }
}

fn locker_check(locker: &Locker) -> Result<(), ToolError> {
    if locker.label.starts_with("panic in check") {
        panic!("check panicked on {}", locker.label);
    }
    if locker.label.starts_with("refuse in check") {
        return Err(ToolError::not_permitted().because("lockers are closed on Sundays"));
    }
    Ok(())
}

/// Open one of the caller's lockers.
#[tool(effect = write, check = locker_check(&locker))]
pub async fn open_locker(spy: &Spy, locker: Authorized<Locker>) -> Result<String, ToolError> {
    let label = locker.into_inner().label;
    if label.starts_with("panic in body") {
        panic!("body panicked on {label}");
    }
    if label.starts_with("fail") {
        return Err(ToolError::internal(format!("cannot open {label}")));
    }
    if label.starts_with("belongs to another tenant") {
        return Err(ToolError::not_permitted()
            .because(format!("{label}: ord_3 exists but belongs to tenant_b")));
    }
    spy.record(format!("opened {label}"));
    Ok(format!("opened {label}"))
}
