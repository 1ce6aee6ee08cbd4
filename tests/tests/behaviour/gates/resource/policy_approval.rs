//! A policy sees the call it decides on, and can allow it only with a
//! person's approval (`Denied::unless_approved`), whatever the toolbox's
//! rule for the tool's effect class says.

use std::sync::Mutex;

use toolgate::{
    ApprovalRule, Authorize, Authorized, Denied, Effect, EffectPolicy, Fault, Resolved, Resource,
    ToolContext, ToolError, ToolInfo, Toolbox, tool,
};

use crate::common::block_on;

/// What the policy saw of each call: tool, field, arguments.
#[derive(Default)]
struct Vault {
    seen: Mutex<Vec<(String, String, String)>>,
}

#[derive(Debug)]
struct Safe {
    value_cents: u64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema, garde::Validate)]
#[serde(transparent)]
struct SafeRef(#[garde(pattern(r"^safe_[a-z]+$"))] String);

impl Resource<Vault> for Safe {
    type Ref = SafeRef;

    async fn resolve(_: &ToolContext, _: &Vault, r: &SafeRef) -> Result<Option<Safe>, Fault> {
        let value_cents = if r.0 == "safe_big" { 1_000_000 } else { 10 };
        Ok(Some(Safe { value_cents }))
    }
}

impl<T: ToolInfo> Authorize<T, Vault> for Safe {
    async fn authorize(
        _: &ToolContext,
        vault: &Vault,
        safe: &Resolved<Safe>,
    ) -> Result<(), Denied> {
        if let Ok(mut seen) = vault.seen.lock() {
            seen.push((
                safe.tool().name().to_owned(),
                safe.field().to_owned(),
                safe.arguments().to_owned(),
            ));
        }
        if safe.value_cents > 1_000 {
            return Err(Denied::unless_approved("a valuable safe"));
        }
        Ok(())
    }
}

/// Open a safe.
#[tool(effect = write)]
async fn open_safe(
    vault: &Vault,
    #[serde(rename = "safe_id")] safe: Authorized<Safe>,
    #[garde(range(max = 9))] drawer: u8,
) -> Result<u64, ToolError> {
    let _ = vault;
    Ok(safe.value_cents + u64::from(drawer))
}

fn toolbox() -> Toolbox<Vault> {
    // Writes never need approval by the toolbox's own rule.
    let policy = EffectPolicy::default().approval(Effect::Write, ApprovalRule::Never);
    let mut toolbox = Toolbox::new(Vault::default()).with_effect_policy(policy);
    toolbox.register(OpenSafe).unwrap();
    toolbox
}

fn agent() -> ToolContext {
    ToolContext::new("agent", "tenant_a", "req_1").allow_tools(["open_safe"])
}

#[test]
fn a_policy_reads_the_tool_the_field_and_the_arguments() {
    let toolbox = toolbox();
    let args = r#"{ "drawer": 2.0, "safe_id": "safe_small" }"#;
    let done = block_on(toolbox.call(&agent(), "open_safe", args));
    assert_eq!(done.value(), Some(&serde_json::json!(12)));
    let seen = toolbox.state().seen.lock().unwrap().clone();
    // The arguments as the gates accepted them, not as sent: `2.0` is
    // the whole number the body receives, keys sorted, no whitespace.
    assert_eq!(
        seen,
        [(
            "open_safe".to_owned(),
            "safe_id".to_owned(),
            r#"{"drawer":2,"safe_id":"safe_small"}"#.to_owned()
        )]
    );
}

#[test]
fn a_policy_can_allow_a_call_only_with_an_approval() {
    let toolbox = toolbox();
    let args = r#"{"safe_id":"safe_big","drawer":1}"#;
    let asked = block_on(toolbox.call(&agent(), "open_safe", args));
    let approval = asked.approval().expect("the policy asks").clone();
    let approver = ToolContext::new("manager", "tenant_a", "req_2");
    block_on(toolbox.approve(&approver, &approval.id)).unwrap();
    let ran = block_on(toolbox.resume(&agent(), &approval.id));
    assert_eq!(ran.value(), Some(&serde_json::json!(1_000_001)));
    // Another call is a new action: asked again.
    let again = block_on(toolbox.call(
        &agent(),
        "open_safe",
        r#"{"safe_id":"safe_big","drawer":2}"#,
    ));
    assert!(again.approval().is_some(), "{again:?}");
}
