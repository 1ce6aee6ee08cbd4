//! `cargo run --example agent_loop [openai-chat|openai-responses|anthropic]`:
//! an agent loop over a provider's recorded responses (no network, no
//! key): each response's tool calls run through every gate as the
//! caller the host authenticated, keyed by the provider's call ids; a
//! refund held for approval pauses the loop until a manager approves it;
//! the outcomes go back in the provider's format, printed here as the
//! loop would send them.

use serde_json::value::RawValue;
use toolgate::{ToolContext, Toolbox};
use toolgate_examples::agent::{AgentLoop, Api, Step};
use toolgate_examples::refund::{IssueRefund, Shop};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (api, fixture) = match std::env::args().nth(1).as_deref() {
        None | Some("anthropic") => (
            Api::AnthropicMessages,
            include_str!("fixtures/agent/anthropic_messages.json"),
        ),
        Some("openai-chat") => (
            Api::OpenAiChat,
            include_str!("fixtures/agent/openai_chat.json"),
        ),
        Some("openai-responses") => (
            Api::OpenAiResponses,
            include_str!("fixtures/agent/openai_responses.json"),
        ),
        Some(other) => return Err(format!("unknown provider {other:?}").into()),
    };
    let mut toolbox = Toolbox::new(Shop::demo());
    toolbox.register(IssueRefund)?;
    // Who the host's session says is calling, and who approves refunds.
    let agent = ToolContext::new("agent_7", "tenant_a", "req_1")
        .with_session("conversation_42")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"]);
    let manager =
        ToolContext::new("manager_1", "tenant_a", "req_2").with_scopes(["refunds:approve"]);
    let responses: Vec<&RawValue> = serde_json::from_str(fixture)?;
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    runtime.block_on(async {
        let mut agent_loop = AgentLoop::new(&toolbox, agent, api);
        for response in responses {
            let mut step = agent_loop.respond(response.get()).await?;
            loop {
                match step {
                    Step::Paused(held) => {
                        println!(
                            "paused: {} ({}) waits for approval {}",
                            held.call.tool, held.call.id, held.approval.id
                        );
                        toolbox.approve(&manager, &held.approval.id).await?;
                        println!("approved by manager_1; resuming");
                        step = agent_loop.resume().await?;
                    }
                    Step::Send(message) => {
                        println!("send: {}", serde_json::to_string_pretty(&message)?);
                        break;
                    }
                    Step::Done(answer) => {
                        println!("model: {answer}");
                        break;
                    }
                }
            }
        }
        println!("refunds: {:?}", toolbox.state().refunds());
        Ok::<(), Box<dyn std::error::Error>>(())
    })
}
