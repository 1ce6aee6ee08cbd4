//! An approval: what a person is shown, what they decide, and everything
//! the call it permits is bound to.

use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A call that waits for a person's decision, and the preview to show them.
///
/// It is bound to the tenant, the actor, the tool, its version and schema
/// fingerprint, the canonical arguments and the id and version of every
/// resolved object: [`Toolbox::resume`](crate::Toolbox::resume) runs it only
/// if all of them still hold, once, before [`expires_at`](Self::expires_at).
///
/// ```
/// use toolgate::{tool, ToolContext, ToolError, Toolbox};
///
/// pub struct Bank;
///
/// /// Send money to a payee the caller saved before.
/// #[tool(effect = irreversible, approver_scope = "payments:approve")]
/// fn send_money(
///     _bank: &Bank,
///     #[garde(pattern(r"^payee_[0-9]{1,8}$"))] payee: String,
///     #[garde(range(min = 1, max = 1_000_000))] amount_cents: u64,
/// ) -> Result<String, ToolError> {
///     Ok(format!("sent {amount_cents} to {payee}"))
/// }
///
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     let waker = std::task::Waker::noop();
/// #     let mut cx = std::task::Context::from_waker(&waker);
/// #     let mut f = std::pin::pin!(f);
/// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
/// # }
/// let mut toolbox = Toolbox::new(Bank);
/// toolbox.register(SendMoney)?;
/// let agent = ToolContext::new("user_1", "tenant_a", "req_1")
///     .with_session("conversation_9")
///     .allow_tools(["send_money"]);
///
/// // The model's call does not run: it asks for approval.
/// let outcome = block_on(toolbox.call(&agent, "send_money", r#"{"payee":"payee_7","amount_cents":2500}"#));
/// assert_eq!(outcome.to_json()["status"], "approval_required");
/// let approval = outcome.approval().unwrap(); // the preview, for the host
/// assert_eq!(approval.arguments["amount_cents"], 2500);
///
/// // A person holding the approver's scope approves; the call runs, once.
/// let manager = ToolContext::new("manager_1", "tenant_a", "req_2").with_scopes(["payments:approve"]);
/// block_on(toolbox.approve(&manager, &approval.id))?;
/// let done = block_on(toolbox.resume(&agent, &approval.id));
/// assert_eq!(done.value(), Some(&serde_json::json!("sent 2500 to payee_7")));
///
/// // Resumed again, it replays the outcome; nothing is sent twice.
/// assert!(block_on(toolbox.resume(&agent, &approval.id)).is_replay());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Approval {
    /// The id the model and the host refer to it by: `apr_` and 32 hex digits
    /// from the operating system's random source.
    pub id: String,
    /// The tenant the call was made in.
    pub tenant: String,
    /// The actor who made the call; only they may resume it.
    pub actor: String,
    /// The conversation or run the call was made in, if the host said.
    pub session: Option<String>,
    /// The host's id for the call ([`ToolContext::with_call_id`](crate::ToolContext::with_call_id)),
    /// if it gave one: the approved run keeps its outcome under it, so
    /// that the host's repeat of the id replays it.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The request the call was made in.
    #[serde(default)]
    pub request_id: String,
    /// The tool.
    pub tool: String,
    /// The tool's version.
    pub version: u32,
    /// The tool's schema fingerprint.
    pub fingerprint: String,
    /// The arguments as the gates accepted them and the body will receive
    /// them: every parameter by its wire name, defaults applied (see
    /// [`Resolved::arguments`](crate::Resolved::arguments)). What a person
    /// approves is exactly what runs.
    pub arguments: Value,
    /// BLAKE3 of the canonical arguments (length-prefixed, as every key
    /// of gate 6 is), in lower-case hex.
    pub digest: String,
    /// Each resolved object: the field that named it, the reference, its
    /// version and its summary.
    pub resources: Vec<Seen>,
    /// A scope the approver must hold.
    pub approver_scope: Option<String>,
    /// Whether the approver must be someone other than the actor.
    pub distinct_approver: bool,
    /// The one actor who may decide, when the call names them
    /// (`#[tool(approver = …)]`): a goodwill refund's named approver.
    pub approver: Option<String>,
    /// When the call asked for approval.
    pub created_at: SystemTime,
    /// When the approval stops being usable.
    pub expires_at: SystemTime,
    /// Pending, approved, denied, used or withdrawn.
    pub state: ApprovalState,
}

impl Approval {
    /// Who may decide this approval, in words for the model and the
    /// people it talks to: where the call waits. Never the caller's own
    /// scopes, only what the approval requires
    /// ([`rules::may_decide`](crate::rules::may_decide)).
    ///
    /// ```
    /// # let mut approval: toolgate::Approval = serde_json::from_value(serde_json::json!({
    /// #   "id":"apr_1","tenant":"tenant_a","actor":"agent_1","session":null,"tool":"issue_refund",
    /// #   "version":1,"fingerprint":"f","arguments":{},"digest":"d","resources":[],
    /// #   "approver_scope":"refunds:approve","distinct_approver":true,"approver":null,
    /// #   "created_at":{"secs_since_epoch":0,"nanos_since_epoch":0},
    /// #   "expires_at":{"secs_since_epoch":60,"nanos_since_epoch":0},"state":{"state":"pending"}
    /// # })).unwrap();
    /// assert_eq!(
    ///     approval.waits_for(),
    ///     "a person of this tenant holding the scope `refunds:approve`, other than the caller"
    /// );
    /// ```
    pub fn waits_for(&self) -> String {
        if let Some(named) = &self.approver {
            return format!("`{named}`, whom the call names as its approver");
        }
        let mut who = match &self.approver_scope {
            Some(scope) => format!("a person of this tenant holding the scope `{scope}`"),
            None => "a person of this tenant".to_owned(),
        };
        if self.distinct_approver {
            who.push_str(", other than the caller");
        }
        who
    }
}

/// Where an approval is in its life.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ApprovalState {
    /// Waiting for a decision.
    Pending,
    /// Approved by this actor, not yet run.
    Approved {
        /// The approver.
        by: String,
    },
    /// Denied by this actor.
    Denied {
        /// The approver who denied it.
        by: String,
    },
    /// Approved by this actor, and run.
    Used {
        /// The approver.
        by: String,
    },
    /// Withdrawn by this actor before it ran: it can no longer be
    /// decided or run ([`Toolbox::withdraw`](crate::Toolbox::withdraw)).
    Withdrawn {
        /// Who withdrew it: the actor who asked, or someone who may decide.
        by: String,
    },
}

/// A resolved object as an approval records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seen {
    /// The argument that named it (wire name).
    pub field: String,
    /// The reference, as validated.
    pub reference: Value,
    /// The object's version when it was resolved
    /// ([`Resource::version`](crate::Resource::version)).
    pub version: Option<u64>,
    /// What a person should see of it
    /// ([`Resource::summary`](crate::Resource::summary)).
    pub summary: Option<Value>,
}

/// A fresh approval id: `apr_` and 128 random bits in hex.
pub(crate) fn new_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    let mut id = String::with_capacity(36);
    id.push_str("apr_");
    id.push_str(&crate::json::canonical::hex(&bytes));
    Ok(id)
}
