//! The agent loop over recorded provider responses (no network): OpenAI
//! Chat Completions, OpenAI Responses and Anthropic Messages, each the
//! same conversation. The model asks for two refunds, one of an order of
//! another tenant's; the loop pauses for a person's approval of the
//! first, resumes, and writes both outcomes back under the provider's
//! call ids; a call whose arguments repeat a key is refused on the bytes
//! the model wrote; the model answers. Processing the first response
//! again refunds nothing twice, and its call id with other arguments is
//! refused.

use serde_json::Value;
use serde_json::value::RawValue;
use toolgate::{ToolContext, Toolbox};
use toolgate_examples::agent::{AgentLoop, Api, Step};
use toolgate_examples::refund::{IssueRefund, Shop};

/// The caller, as the host's session established it.
fn agent() -> ToolContext {
    ToolContext::new("agent_7", "tenant_a", "req_1")
        .with_session("conversation_42")
        .with_scopes(["refunds:write"])
        .allow_tools(["issue_refund"])
}

/// The person who approves refunds.
fn manager() -> ToolContext {
    ToolContext::new("manager_1", "tenant_a", "req_2").with_scopes(["refunds:approve"])
}

fn toolbox() -> Toolbox<Shop> {
    let mut toolbox = Toolbox::new(Shop::demo());
    toolbox.register(IssueRefund).unwrap();
    toolbox
}

/// The recorded responses of a fixture, each as the provider sent it.
fn responses(fixture: &str) -> Vec<&RawValue> {
    serde_json::from_str(fixture).unwrap()
}

/// The id, whether it is an error, and the outcome the model reads, of
/// each result in a message the loop sends.
fn results(api: Api, sent: &Value) -> Vec<(String, bool, Value)> {
    let parse = |text: &Value| serde_json::from_str::<Value>(text.as_str().unwrap()).unwrap();
    match api {
        Api::OpenAiChat => sent
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                assert_eq!(m["role"], "tool");
                let outcome = parse(&m["content"]);
                let failed = outcome["status"] != "done";
                (
                    m["tool_call_id"].as_str().unwrap().to_owned(),
                    failed,
                    outcome,
                )
            })
            .collect(),
        Api::OpenAiResponses => sent
            .as_array()
            .unwrap()
            .iter()
            .map(|item| {
                assert_eq!(item["type"], "function_call_output");
                let outcome = parse(&item["output"]);
                let failed = outcome["status"] != "done";
                (
                    item["call_id"].as_str().unwrap().to_owned(),
                    failed,
                    outcome,
                )
            })
            .collect(),
        Api::AnthropicMessages => {
            assert_eq!(sent["role"], "user");
            sent["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|block| {
                    assert_eq!(block["type"], "tool_result");
                    (
                        block["tool_use_id"].as_str().unwrap().to_owned(),
                        block["is_error"].as_bool().unwrap(),
                        parse(&block["content"]),
                    )
                })
                .collect()
        }
    }
}

async fn the_loop_keeps_every_gate(api: Api, fixture: &str, ids: [&str; 3]) {
    let toolbox = toolbox();
    let mut agent_loop = AgentLoop::new(&toolbox, agent(), api);
    let turns = responses(fixture);
    let mut sent = Vec::new();
    let mut paused = Vec::new();
    let mut answer = None;
    for response in &turns {
        let mut step = agent_loop.respond(response.get()).await.unwrap();
        loop {
            match step {
                Step::Paused(held) => {
                    // Nothing ran, and the model has read nothing yet.
                    assert!(toolbox.state().refunds().is_empty());
                    assert_eq!(held.approval.tool, "issue_refund");
                    paused.push(held.call.id.clone());
                    toolbox
                        .approve(&manager(), &held.approval.id)
                        .await
                        .unwrap();
                    step = agent_loop.resume().await.unwrap();
                }
                Step::Send(message) => {
                    sent.push(message);
                    break;
                }
                Step::Done(text) => {
                    answer = Some(text);
                    break;
                }
            }
        }
    }
    assert_eq!(paused, [ids[0]]);
    assert_eq!(sent.len(), 2);

    let first = results(api, &sent[0]);
    assert_eq!(first.len(), 2);
    let (id, failed, outcome) = &first[0];
    assert_eq!((id.as_str(), *failed), (ids[0], false), "{outcome}");
    assert_eq!(outcome["result"]["amount_cents"], 2500, "{outcome}");
    let (id, failed, outcome) = &first[1];
    assert_eq!((id.as_str(), *failed), (ids[1], true), "{outcome}");
    assert_eq!(outcome["code"], "NOT_PERMITTED", "{outcome}");

    let second = results(api, &sent[1]);
    let (id, failed, outcome) = &second[0];
    assert_eq!((id.as_str(), *failed), (ids[2], true), "{outcome}");
    assert_eq!(outcome["code"], "DUPLICATE_KEY", "{outcome}");

    assert_eq!(
        answer.as_deref(),
        Some("Refunded $25.00 on ord_1001. ord_2001 is not an order I can refund for you.")
    );
    assert_eq!(toolbox.state().refunds().len(), 1);

    // The first response again (a retry after a crash): its calls carry
    // the same provider ids, and nothing runs twice.
    let mut again = AgentLoop::new(&toolbox, agent(), api);
    let step = again.respond(turns[0].get()).await.unwrap();
    let Step::Send(message) = step else {
        panic!("{step:?}")
    };
    let replayed = results(api, &message);
    assert_eq!(replayed[0].0, ids[0]);
    assert_eq!(
        replayed[0].2["result"], first[0].2["result"],
        "{:?}",
        replayed[0]
    );
    assert_eq!(replayed[0].2["replayed"], true, "{:?}", replayed[0]);
    assert_eq!(toolbox.state().refunds().len(), 1);

    // The provider's id is the key: the same id with other arguments is
    // another action under a used key, refused, not a new refund to ask
    // a person about.
    let altered = turns[0].get().replace("2500", "2600");
    let step = again.respond(&altered).await.unwrap();
    let Step::Send(message) = step else {
        panic!("{step:?}")
    };
    let conflict = results(api, &message);
    assert_eq!(conflict[0].0, ids[0]);
    assert_eq!(
        conflict[0].2["code"], "IDEMPOTENCY_CONFLICT",
        "{:?}",
        conflict[0]
    );
    assert_eq!(toolbox.state().refunds().len(), 1);
}

#[tokio::test]
async fn openai_chat_completions() {
    the_loop_keeps_every_gate(
        Api::OpenAiChat,
        include_str!("../fixtures/agent/openai_chat.json"),
        ["call_Rf1001", "call_Rf2001", "call_Rf1001b"],
    )
    .await;
}

#[tokio::test]
async fn openai_responses() {
    the_loop_keeps_every_gate(
        Api::OpenAiResponses,
        include_str!("../fixtures/agent/openai_responses.json"),
        ["call_Rf1001", "call_Rf2001", "call_Rf1001b"],
    )
    .await;
}

#[tokio::test]
async fn anthropic_messages() {
    the_loop_keeps_every_gate(
        Api::AnthropicMessages,
        include_str!("../fixtures/agent/anthropic_messages.json"),
        ["toolu_Rf1001", "toolu_Rf2001", "toolu_Rf1001b"],
    )
    .await;
}
