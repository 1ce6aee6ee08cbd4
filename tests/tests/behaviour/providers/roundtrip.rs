//! For every example tool and provider: a model-shaped call is imported,
//! run and rendered, and the result has the provider's documented shape.

use serde_json::{Value, json};
use toolgate::providers::{ToolCall, anthropic, gemini, mcp, openai};
use toolgate::{Code, Outcome, ToolContext, Toolbox};
use toolgate_examples::{export, hotel, invoice, refund};

use crate::common;
use crate::common::block_on;

#[derive(Clone, Copy, Debug)]
enum Provider {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    Gemini,
    Mcp,
}

const PROVIDERS: [Provider; 5] = [
    Provider::OpenAiChat,
    Provider::OpenAiResponses,
    Provider::Anthropic,
    Provider::Gemini,
    Provider::Mcp,
];

/// What the provider's response holds for a call of `name` with `args`.
fn envelope(provider: Provider, name: &str, args: &str) -> String {
    let raw = |text: String| text.replace("\"__ARGS__\"", args);
    match provider {
        Provider::OpenAiChat => json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": args}}]
        })
        .to_string(),
        Provider::OpenAiResponses => json!({
            "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name, "arguments": args, "status": "completed"
        })
        .to_string(),
        // The object forms are spliced in as text, so that what the model
        // wrote (duplicate keys included) reaches the toolbox unaltered.
        Provider::Anthropic => raw(json!({"type": "tool_use", "id": "toolu_1", "name": name, "input": "__ARGS__"}).to_string()),
        Provider::Gemini => raw(json!({"functionCall": {"name": name, "args": "__ARGS__"}}).to_string()),
        Provider::Mcp => raw(json!({"name": name, "arguments": "__ARGS__"}).to_string()),
    }
}

fn import(provider: Provider, text: &str) -> ToolCall<'_> {
    match provider {
        Provider::OpenAiChat => openai::chat_tool_calls(text).unwrap().remove(0),
        Provider::OpenAiResponses => openai::responses_function_call(text).unwrap(),
        Provider::Anthropic => anthropic::tool_use(text).unwrap(),
        Provider::Gemini => gemini::function_call(text).unwrap(),
        Provider::Mcp => mcp::call_params(text).unwrap(),
    }
}

/// Renders the outcome and checks the provider's shape; returns the outcome
/// object the model reads.
fn render(provider: Provider, call: &ToolCall<'_>, outcome: &Outcome) -> Value {
    let failed = !matches!(outcome, Outcome::Done(_));
    let parse = |text: &Value| serde_json::from_str::<Value>(text.as_str().unwrap()).unwrap();
    match provider {
        Provider::OpenAiChat => {
            let message = openai::chat_tool_message(call.id.as_deref().unwrap(), outcome);
            assert_eq!(message["role"], "tool");
            assert_eq!(message["tool_call_id"], "call_1");
            assert_eq!(message.as_object().unwrap().len(), 3);
            parse(&message["content"])
        }
        Provider::OpenAiResponses => {
            let item = openai::responses_output(call.id.as_deref().unwrap(), outcome);
            assert_eq!(item["type"], "function_call_output");
            assert_eq!(item["call_id"], "call_1");
            parse(&item["output"])
        }
        Provider::Anthropic => {
            let block = anthropic::tool_result(call.id.as_deref().unwrap(), outcome);
            assert_eq!(block["type"], "tool_result");
            assert_eq!(block["tool_use_id"], "toolu_1");
            assert_eq!(block["is_error"], failed);
            parse(&block["content"])
        }
        Provider::Gemini => {
            let part = gemini::function_response(call, outcome);
            assert_eq!(part["functionResponse"]["name"], call.name.as_ref());
            part["functionResponse"]["response"].clone()
        }
        Provider::Mcp => {
            let result = mcp::call_tool_result(outcome);
            assert_eq!(result["isError"], failed);
            assert_eq!(result["content"][0]["type"], "text");
            let shown = parse(&result["content"][0]["text"]);
            match outcome {
                // Any result but `null` is the structured content, as
                // rmcp's `Json<T>` gives it.
                Outcome::Done(value) if !value.is_null() => {
                    assert_eq!(&result["structuredContent"], value);
                    // The text is the structured content, serialized; that
                    // the call succeeded is `isError: false`.
                    assert_eq!(
                        result["content"][0]["text"].as_str().unwrap(),
                        serde_json::to_string(&result["structuredContent"]).unwrap()
                    );
                    json!({"status": "done", "result": shown})
                }
                _ => {
                    assert!(result.get("structuredContent").is_none());
                    shown
                }
            }
        }
    }
}

fn round_trip<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    ctx: &ToolContext,
    name: &str,
    args: &str,
) -> Vec<Value> {
    PROVIDERS
        .iter()
        .map(|&provider| {
            let text = envelope(provider, name, args);
            let call = import(provider, &text);
            assert_eq!(call.name, name);
            assert_eq!(call.arguments, args, "{provider:?} altered the arguments");
            // Each provider's call is a call of its own: without its id,
            // gate 6 would replay the first one's outcome to the others.
            let ctx = ctx.clone().with_call_id(format!("{provider:?}"));
            let outcome = block_on(toolbox.call(&ctx, &call.name, call.arguments()));
            render(provider, &call, &outcome)
        })
        .collect()
}

fn ctx(scope: &str, tool: &str) -> ToolContext {
    ToolContext::new("analyst_1", "tenant_a", "req_1")
        .with_scopes([scope])
        .allow_tools([tool])
}

#[test]
fn every_example_tool_through_every_provider() {
    let mut hotels = Toolbox::new(hotel::Hotels::demo());
    hotels.register(hotel::BookHotel).unwrap();
    let mut accounts = Toolbox::new(export::Accounts::demo());
    accounts.register(export::ScheduleExport).unwrap();
    let mut shop = Toolbox::new(refund::Shop::demo()).with_effect_policy(common::no_approvals());
    shop.register(refund::IssueRefund).unwrap();
    let mut billing =
        Toolbox::new(invoice::Billing::demo()).with_effect_policy(common::no_approvals());
    billing.register(invoice::RefundInvoice).unwrap();

    let results = [
        round_trip(
            &hotels,
            &ctx("bookings:write", "book_hotel"),
            "book_hotel",
            r#"{"hotel_id":"h_seaview1","nights":2}"#,
        ),
        round_trip(
            &accounts,
            &ctx("exports:write", "schedule_export"),
            "schedule_export",
            r#"{"account_ref":"acct_42","format":"csv","columns":["id","status"]}"#,
        ),
        round_trip(
            &shop,
            &ctx("refunds:write", "issue_refund"),
            "issue_refund",
            r#"{"order":"ord_1001","amount_cents":100}"#,
        ),
        round_trip(
            &billing,
            &ctx("billing:refund", "refund_invoice"),
            "refund_invoice",
            r#"{"invoice_id":"inv_88","amount_cents":100,"reason":{"kind":"goodwill","approver_id":"usr_lena"}}"#,
        ),
    ];
    for shown in results.iter().flatten() {
        assert_eq!(shown["status"], "done", "{shown}");
    }
    assert_eq!(hotels.state().bookings().len(), 5);
    assert_eq!(accounts.state().queued().len(), 5);
    assert_eq!(shop.state().refunds().len(), 5);
    assert_eq!(billing.state().refunds().len(), 5);
}

#[test]
fn a_rejection_is_an_error_result_not_a_protocol_error() {
    let mut hotels = Toolbox::new(hotel::Hotels::demo());
    hotels.register(hotel::BookHotel).unwrap();
    let ctx = ctx("bookings:write", "book_hotel");
    for shown in round_trip(
        &hotels,
        &ctx,
        "book_hotel",
        r#"{"hotel_id":"h_seaview1","nights":2,"price":1}"#,
    ) {
        assert_eq!(shown["status"], "rejected");
        assert_eq!(shown["code"], "UNKNOWN_FIELD");
    }
    for shown in round_trip(
        &hotels,
        &ctx,
        "book_hotel",
        r#"{"hotel_id":"h_seaview1","nights":2,"nights":30}"#,
    ) {
        assert_eq!(
            shown["code"],
            Code::DuplicateKey.as_str(),
            "duplicates survive import: no second parse"
        );
    }
    for shown in round_trip(&hotels, &ctx, "no_such_tool", "{}") {
        assert_eq!(shown["code"], "NOT_PERMITTED");
    }
    assert!(hotels.state().bookings().is_empty());
}

#[test]
fn malformed_envelopes_are_import_errors() {
    assert!(
        openai::chat_tool_calls(r#"{"tool_calls":[{"id":"c","function":{"name":"x"}}]}"#).is_err()
    );
    assert!(
        openai::responses_function_call(
            r#"{"type":"message","call_id":"c","name":"x","arguments":"{}"}"#
        )
        .is_err()
    );
    assert!(anthropic::tool_use(r#"{"type":"text","id":"t","name":"x","input":{}}"#).is_err());
    assert!(gemini::function_call(r#"{"text":"hi"}"#).is_err());
    assert!(mcp::call_params(r#"{"arguments":{}}"#).is_err());
    // MCP arguments are optional: absent means the empty object.
    assert_eq!(mcp::call_params(r#"{"name":"x"}"#).unwrap().arguments, "{}");
}
