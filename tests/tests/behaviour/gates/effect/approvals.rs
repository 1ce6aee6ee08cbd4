//! Gate 6's approvals: who may approve and resume one, until when, for
//! which tool, what it shows, and why an approval is refused.

use serde_json::json;
use toolgate::{Code, ToolContext, ToolError, Toolbox, tool};

use crate::common::block_on;

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

pub struct Vault;

/// A locker; it states no version and no summary of its own.
pub struct Locker;

#[derive(serde::Deserialize, schemars::JsonSchema, garde::Validate, Debug)]
pub struct LockerId(#[garde(pattern(r"^l_[0-9]{1,6}$"))] pub String);

impl toolgate::Resource<Vault> for Locker {
    type Ref = LockerId;

    async fn resolve(
        ctx: &ToolContext,
        _: &Vault,
        id: &LockerId,
    ) -> Result<Option<Locker>, toolgate::Fault> {
        Ok((ctx.tenant() == "tenant_a" && id.0 == "l_1").then_some(Locker))
    }
}

impl<T: toolgate::ToolInfo> toolgate::Authorize<T, Vault> for Locker {
    async fn authorize(
        _: &ToolContext,
        _: &Vault,
        _: &toolgate::Resolved<Locker>,
    ) -> Result<(), toolgate::Denied> {
        Ok(())
    }
}

/// Empty a locker.
#[tool(effect = irreversible)]
async fn empty_locker(
    _vault: &Vault,
    locker: toolgate::Authorized<Locker>,
) -> Result<bool, ToolError> {
    let _ = locker;
    Ok(true)
}

#[test]
fn an_approval_shows_no_version_or_summary_for_a_resource_that_states_none() {
    let mut toolbox = Toolbox::new(Vault);
    toolbox.register(EmptyLocker).unwrap();
    let ctx = ToolContext::new("user_7", "tenant_a", "req_1").allow_all_tools();
    let outcome = block_on(toolbox.call(&ctx, "empty_locker", r#"{"locker":"l_1"}"#));
    let approval = outcome
        .approval()
        .expect("an irreversible call waits for approval");
    assert_eq!(approval.resources.len(), 1);
    let seen = &approval.resources[0];
    assert_eq!(seen.field, "locker");
    // Nothing invented: no version to compare at resume, no summary to show.
    assert_eq!(seen.version, None);
    assert_eq!(seen.summary, None);
}
