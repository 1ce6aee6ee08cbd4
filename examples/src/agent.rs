//! An agent loop that keeps every gate: the model's tool calls, read from
//! a provider's response (OpenAI Chat Completions, OpenAI Responses,
//! Anthropic Messages), run through [`Toolbox::call`] as the caller the
//! host authenticated, with the provider's call id as the idempotency key;
//! the outcomes written back in that provider's format; and a call held
//! for approval pausing the loop until a person decides.
//!
//! The loop is the part between two requests to the provider: the host
//! sends the conversation, gives the response to [`AgentLoop::respond`],
//! and sends what it returns. Nothing here speaks to a provider, so the
//! same loop runs over recorded responses in the tests.
//!
//! - **Identity** is the [`ToolContext`] the host built from its own
//!   session, never anything in the response: a model that names another
//!   tenant's order reads `NOT_PERMITTED`.
//! - **Arguments** reach gate 1 as the model wrote them: the response is
//!   read with [`RawValue`]s, so a repeated key or a depth bomb in a
//!   tool call's arguments is judged on the bytes, not on a map.
//! - **Idempotency**: each call carries the provider's call id
//!   ([`ToolContext::with_call_id`]). A response processed twice (a retry
//!   after a crash, a duplicated webhook) replays each outcome; nothing
//!   runs twice.
//! - **Approval**: a call gate 6 holds pauses the loop with the
//!   [`Approval`] to show a person ([`Step::Paused`]). The host records
//!   the decision ([`Toolbox::approve`] by an approver, or
//!   [`Toolbox::deny`]) and calls [`AgentLoop::resume`]: the call is
//!   resolved, authorized and admitted again and runs once, and the model
//!   reads its real outcome under its own call id. The model never reads
//!   `approval_required` and never retries into a second approval.
//!
//! # Why this is not a rig adapter
//!
//! A thin adapter for `rig-core` (a rig tool per [`toolgate::ToolDef`]
//! that calls [`Toolbox::call`]) was weighed against its current release,
//! 0.46.0, and not shipped:
//!
//! - 0.46.0 declares `rust-version = "1.97.1"`; this workspace pins
//!   1.95.0, so the current release does not build here. An adapter on
//!   0.44.0 would target a superseded API: the `Tool` trait changed
//!   between the two (0.46 adds annotations and footprints).
//! - A rig tool receives its arguments and rig's own tool context; we
//!   found no way for it to learn the provider's call id, which this loop
//!   uses as gate 6's idempotency key, so a retried response could only
//!   be recognised by what the call does, not by the provider's word.
//!
//! This loop is an adapter's worth of code against the providers' own
//! formats, with the approval pause a framework's loop would need a hook
//! for. Revisit when the pinned toolchain reaches rig's, if rig passes
//! the call id to a tool.
//!
//! ```
//! use toolgate::{ToolContext, Toolbox};
//! use toolgate_examples::agent::{AgentLoop, Api, Step};
//! use toolgate_examples::refund::{IssueRefund, Shop};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let mut toolbox = Toolbox::new(Shop::demo());
//! toolbox.register(IssueRefund).unwrap();
//! // The caller, from the host's session.
//! let ctx = ToolContext::new("agent_7", "tenant_a", "req_1")
//!     .with_session("conversation_42")
//!     .with_scopes(["refunds:write"])
//!     .allow_tools(["issue_refund"]);
//! let mut agent = AgentLoop::new(&toolbox, ctx, Api::AnthropicMessages);
//! let response = r#"{"role":"assistant","stop_reason":"tool_use","content":[
//!     {"type":"tool_use","id":"toolu_01","name":"issue_refund",
//!      "input":{"order":"ord_1001","amount_cents":2500}}]}"#;
//! let Step::Paused(held) = agent.respond(response).await.unwrap() else { panic!() };
//! assert_eq!(held.call.id, "toolu_01");
//! // A person with the approver's scope approves it.
//! let manager = ToolContext::new("manager_1", "tenant_a", "req_2").with_scopes(["refunds:approve"]);
//! toolbox.approve(&manager, &held.approval.id).await.unwrap();
//! let Step::Send(message) = agent.resume().await.unwrap() else { panic!() };
//! assert_eq!(message["content"][0]["tool_use_id"], "toolu_01");
//! assert_eq!(toolbox.state().refunds().len(), 1);
//! # });
//! ```

use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use toolgate::providers::{ImportError, anthropic, openai};
use toolgate::{Approval, Outcome, ToolContext, Toolbox};

/// The provider API whose responses the loop reads and whose format it
/// writes results in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// OpenAI Chat Completions: `choices[0].message.tool_calls`, answered
    /// with one `{"role":"tool"}` message per call.
    OpenAiChat,
    /// OpenAI Responses: `function_call` items in `output`, answered with
    /// `function_call_output` items.
    OpenAiResponses,
    /// Anthropic Messages: `tool_use` blocks in `content`, answered with
    /// one user message of `tool_result` blocks.
    AnthropicMessages,
}

/// One tool call of the model's, as its response carried it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The provider's id for the call: the idempotency key, and what the
    /// result is sent back under.
    pub id: String,
    /// The tool the model chose.
    pub tool: String,
    /// The arguments, as the model wrote them.
    pub arguments: String,
}

/// What a response asks of the loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Tool calls to run, in order.
    Calls(Vec<Call>),
    /// The model's answer: no more calls.
    Answer(String),
}

/// A call held for a person's approval, and the loop with it.
#[derive(Clone, Debug)]
pub struct Held {
    /// The call, still unanswered.
    pub call: Call,
    /// What to show the person: tool, validated arguments, the resolved
    /// objects; its id is what [`Toolbox::approve`] takes.
    pub approval: Approval,
}

/// What the host does next.
#[derive(Clone, Debug)]
pub enum Step {
    /// Send this to the provider (the results of the response's calls, in
    /// its format) and give the next response to
    /// [`respond`](AgentLoop::respond). For OpenAI it is an array of
    /// messages or items to append; for Anthropic one user message.
    Send(Value),
    /// A call waits for a person: record their decision, then
    /// [`resume`](AgentLoop::resume).
    Paused(Box<Held>),
    /// The model answered; the loop is done.
    Done(String),
}

/// Why the loop could not go on.
#[derive(Debug)]
pub enum LoopError {
    /// The response is not in the provider's shape.
    Unreadable(ImportError),
    /// `respond` while a call waits for approval, or `resume` while none
    /// does.
    OutOfTurn(&'static str),
}

impl core::fmt::Display for LoopError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LoopError::Unreadable(e) => write!(f, "{e}"),
            LoopError::OutOfTurn(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for LoopError {}

impl From<ImportError> for LoopError {
    fn from(error: ImportError) -> Self {
        LoopError::Unreadable(error)
    }
}

impl From<serde_json::Error> for LoopError {
    fn from(error: serde_json::Error) -> Self {
        LoopError::Unreadable(ImportError::from(error))
    }
}

/// The loop between a provider and a toolbox, for one conversation.
pub struct AgentLoop<'t, S> {
    toolbox: &'t Toolbox<S>,
    ctx: ToolContext,
    api: Api,
    /// The results of this response's calls so far, in the provider's
    /// format.
    results: Vec<Value>,
    /// This response's calls still to run.
    queue: VecDeque<Call>,
    held: Option<Held>,
}

impl<'t, S: Send + Sync + 'static> AgentLoop<'t, S> {
    /// A loop that runs the model's calls in `toolbox` as `ctx`, the
    /// caller the host authenticated, reading and writing `api`'s format.
    pub fn new(toolbox: &'t Toolbox<S>, ctx: ToolContext, api: Api) -> Self {
        AgentLoop {
            toolbox,
            ctx,
            api,
            results: Vec::new(),
            queue: VecDeque::new(),
            held: None,
        }
    }

    /// Runs the calls of the provider's `response` (its JSON text) in
    /// order, until one needs approval or all are answered.
    pub async fn respond(&mut self, response: &str) -> Result<Step, LoopError> {
        if self.held.is_some() {
            return Err(LoopError::OutOfTurn(
                "a call waits for approval: resume first",
            ));
        }
        match read(self.api, response)? {
            Reply::Answer(text) => Ok(Step::Done(text)),
            Reply::Calls(calls) => {
                self.results.clear();
                self.queue = calls.into();
                Ok(self.run().await)
            }
        }
    }

    /// Goes on after a person decided on the held call: it is resumed
    /// (run once if approved, refused if denied or if anything it was
    /// approved for changed), its outcome written under its call id, and
    /// the response's other calls run.
    pub async fn resume(&mut self) -> Result<Step, LoopError> {
        let Some(held) = self.held.take() else {
            return Err(LoopError::OutOfTurn("no call waits for approval"));
        };
        let ctx = self.context(&held.call);
        let outcome = self.toolbox.resume(&ctx, &held.approval.id).await;
        self.results.push(render(self.api, &held.call.id, &outcome));
        Ok(self.run().await)
    }

    /// The caller's context for `call`, keyed by the provider's id. A
    /// call without one (none of these providers sends such a call) is
    /// keyed by what it does, as gate 6 derives it.
    fn context(&self, call: &Call) -> ToolContext {
        match call.id.as_str() {
            "" => self.ctx.clone(),
            id => self.ctx.clone().with_call_id(id),
        }
    }

    async fn run(&mut self) -> Step {
        while let Some(call) = self.queue.pop_front() {
            // The provider's id is the key: the same response processed
            // again replays each outcome instead of running it.
            let ctx = self.context(&call);
            let outcome = self
                .toolbox
                .call(&ctx, &call.tool, call.arguments.as_str())
                .await;
            if let Outcome::ApprovalRequired(approval) = outcome {
                let held = Held {
                    call,
                    approval: *approval,
                };
                self.held = Some(held.clone());
                return Step::Paused(Box::new(held));
            }
            self.results.push(render(self.api, &call.id, &outcome));
        }
        let results = std::mem::take(&mut self.results);
        Step::Send(match self.api {
            Api::OpenAiChat | Api::OpenAiResponses => Value::Array(results),
            Api::AnthropicMessages => json!({"role": "user", "content": results}),
        })
    }
}

/// `outcome` as `api` takes a tool's result.
fn render(api: Api, call_id: &str, outcome: &Outcome) -> Value {
    match api {
        Api::OpenAiChat => openai::chat_tool_message(call_id, outcome),
        Api::OpenAiResponses => openai::responses_output(call_id, outcome),
        Api::AnthropicMessages => anthropic::tool_result(call_id, outcome),
    }
}

#[derive(Deserialize)]
struct Completion<'a> {
    #[serde(borrow)]
    choices: Vec<Choice<'a>>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(borrow)]
    message: &'a RawValue,
}

#[derive(Deserialize)]
struct ChatText {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct Items<'a> {
    #[serde(borrow, alias = "content")]
    output: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct Typed {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    content: Option<Vec<Typed>>,
}

/// The calls (or the answer) in a response of `api`, its JSON text. Each
/// call's arguments are sliced from the text, never re-serialized.
pub fn read(api: Api, response: &str) -> Result<Reply, LoopError> {
    let mut calls = Vec::new();
    let mut answer = String::new();
    match api {
        Api::OpenAiChat => {
            let completion: Completion<'_> = serde_json::from_str(response)?;
            let Some(choice) = completion.choices.first() else {
                return Ok(Reply::Answer(String::new()));
            };
            for call in openai::chat_tool_calls(choice.message.get())? {
                calls.push(owned(call));
            }
            let text: ChatText = serde_json::from_str(choice.message.get())?;
            answer = text.content.unwrap_or_default();
        }
        Api::OpenAiResponses | Api::AnthropicMessages => {
            let items: Items<'_> = serde_json::from_str(response)?;
            for item in items.output {
                let typed: Typed = serde_json::from_str(item.get())?;
                match (api, typed.kind.as_str()) {
                    (Api::OpenAiResponses, "function_call") => {
                        calls.push(owned(openai::responses_function_call(item.get())?));
                    }
                    (Api::AnthropicMessages, "tool_use") => {
                        calls.push(owned(anthropic::tool_use(item.get())?));
                    }
                    // Anthropic's text block; Responses' message item,
                    // whose content holds `output_text` parts.
                    (_, "text") => answer.push_str(typed.text.as_deref().unwrap_or_default()),
                    (_, "message") => {
                        for part in typed.content.unwrap_or_default() {
                            answer.push_str(part.text.as_deref().unwrap_or_default());
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(if calls.is_empty() {
        Reply::Answer(answer)
    } else {
        Reply::Calls(calls)
    })
}

fn owned(call: toolgate::providers::ToolCall<'_>) -> Call {
    Call {
        id: call.id.map(|id| id.into_owned()).unwrap_or_default(),
        tool: call.name.into_owned(),
        arguments: call.arguments.into_owned(),
    }
}
