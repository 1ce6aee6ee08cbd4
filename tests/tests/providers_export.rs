//! Every example tool exported to every dialect: snapshots of the exact
//! envelopes, the conformance checkers over each, and the canonical schemas
//! against the draft 2020-12 meta-schema.

mod common;

use common::block_on;
use common::tools::{Add, Dashed, ExportRows, ListThings, Risky, SendNote, Spy, StoreTree};
use serde_json::Value;
use toolgate::providers::{ExportError, Strictness, anthropic, gemini, mcp, openai};
use toolgate::{ToolContext, ToolDef, Toolbox};
use toolgate_tests::conformance::{Dialect, check};

fn strictness(strict: bool) -> Strictness {
    if strict {
        Strictness::Strict
    } else {
        Strictness::NonStrict
    }
}

fn export(dialect: Dialect, def: &ToolDef) -> Result<Value, ExportError> {
    match dialect {
        Dialect::OpenAiChat { strict } => openai::chat_tool(def, strictness(strict)),
        Dialect::OpenAiResponses { strict } => openai::responses_tool(def, strictness(strict)),
        Dialect::Anthropic { strict } => anthropic::tool(def, strictness(strict)),
        Dialect::Gemini => gemini::function_declaration(def),
        Dialect::GeminiLegacy => gemini::legacy_function_declaration(def),
        Dialect::Mcp => Ok(mcp::tool(def)),
    }
}

fn example_tools() -> [&'static ToolDef; 4] {
    [
        toolgate_examples::hotel::BookHotel::definition(),
        toolgate_examples::export::ScheduleExport::definition(),
        toolgate_examples::refund::IssueRefund::definition(),
        toolgate_examples::invoice::RefundInvoice::definition(),
    ]
}

fn test_tools() -> [&'static ToolDef; 4] {
    [
        ExportRows::definition(),
        SendNote::definition(),
        Add::definition(),
        Risky::definition(),
    ]
}

#[test]
fn snapshots_of_every_example_tool_in_every_dialect() {
    for def in example_tools() {
        for dialect in Dialect::ALL {
            let tool = export(dialect, def).unwrap_or_else(|e| panic!("{e}"));
            insta::assert_json_snapshot!(format!("{}__{}", def.name(), dialect.slug()), tool);
        }
    }
}

#[test]
fn every_export_conforms_to_its_dialect() {
    for def in example_tools().into_iter().chain(test_tools()) {
        for dialect in Dialect::ALL {
            let tool = export(dialect, def).unwrap_or_else(|e| panic!("{e}"));
            let problems = check(dialect, &tool);
            assert!(
                problems.is_empty(),
                "{} in {}: {problems:#?}\n{tool:#}",
                def.name(),
                dialect.slug()
            );
        }
    }
}

#[test]
fn canonical_schemas_are_valid_draft_2020_12() {
    for def in example_tools()
        .into_iter()
        .chain(test_tools())
        .chain([StoreTree::definition()])
    {
        let schema = def.schema();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        if let Err(error) = jsonschema::meta::validate(schema) {
            panic!("{}: {error}", def.name());
        }
        if let Some(output) = def.output_schema() {
            jsonschema::meta::validate(output)
                .unwrap_or_else(|e| panic!("{} output: {e}", def.name()));
        }
    }
}

#[test]
fn a_removed_constraint_is_stated_and_still_enforced() {
    // Anthropic strict has no minimum/maximum: the bound moves to the text.
    let tool = anthropic::tool(
        toolgate_examples::hotel::BookHotel::definition(),
        Strictness::Strict,
    )
    .unwrap();
    let nights = &tool["input_schema"]["properties"]["nights"];
    assert!(nights.get("minimum").is_none() && nights.get("maximum").is_none());
    assert_eq!(
        nights["description"],
        "How many nights to stay. Server checks: must be between 1 and 30."
    );
    // The server still refuses 31 nights, whatever the provider sent.
    let mut toolbox = Toolbox::new(toolgate_examples::hotel::Hotels::demo());
    toolbox
        .register(toolgate_examples::hotel::BookHotel)
        .unwrap();
    let ctx = ToolContext::new("u", "t", "r")
        .allow_all_tools()
        .with_scopes(["bookings:write"]);
    let outcome = block_on(toolbox.call(
        &ctx,
        "book_hotel",
        r#"{"hotel_id":"h_seaview1","nights":31}"#,
    ));
    assert!(outcome.rejection().is_some());
}

#[test]
fn openai_strict_requires_every_field_and_the_server_accepts_null_for_optional_ones() {
    let tool = openai::chat_tool(ExportRows::definition(), Strictness::Strict).unwrap();
    let parameters = &tool["function"]["parameters"];
    let required: Vec<&str> = parameters["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(required.contains(&"limit"), "{required:?}");
    assert_eq!(
        parameters["properties"]["limit"]["type"],
        serde_json::json!(["integer", "null"])
    );
    // What a strict model sends for "no limit": null, accepted by the server.
    let mut toolbox = Toolbox::new(Spy::default());
    toolbox.register(ExportRows).unwrap();
    let ctx = ToolContext::new("u", "t", "r")
        .allow_all_tools()
        .with_scopes(["exports:read"]);
    let args = r#"{"accountRef":"acct_42","format":"csv","window":{"lastDays":7,"timeZone":null},"columns":["id"],"limit":null,"dry_run":false}"#;
    assert!(
        block_on(toolbox.call(&ctx, "export_rows", args))
            .value()
            .is_some()
    );
}

#[test]
fn what_a_dialect_cannot_represent_is_an_export_error() {
    let recursive = StoreTree::definition();
    // OpenAI and Anthropic accept a recursive `$ref`; Gemini accepts none.
    assert!(openai::chat_tool(recursive, Strictness::Strict).is_ok());
    assert!(anthropic::tool(recursive, Strictness::NonStrict).is_ok());
    let error = gemini::function_declaration(recursive).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `store_tree` cannot be exported to gemini: `Node` is recursive, and this dialect accepts no `$ref`"
    );
    // An optional field that cannot be null cannot be strict.
    let error = openai::chat_tool(ListThings::definition(), Strictness::Strict).unwrap_err();
    assert_eq!(error.tool, "list_things");
    assert!(
        error.reason.contains("`page` does not accept null"),
        "{error}"
    );
    assert!(openai::chat_tool(ListThings::definition(), Strictness::NonStrict).is_ok());
    // A property name Gemini rejects.
    let error = gemini::function_declaration(Dashed::definition()).unwrap_err();
    assert!(error.reason.contains("`page-size`"), "{error}");
}

#[test]
fn mcp_annotations_follow_the_effect_class() {
    let hints = |def: &ToolDef| {
        let tool = mcp::tool(def);
        let a = &tool["annotations"];
        (
            a["readOnlyHint"].as_bool(),
            a["destructiveHint"].as_bool(),
            a["idempotentHint"].as_bool(),
        )
    };
    assert_eq!(
        hints(Add::definition()),
        (Some(true), Some(false), Some(true))
    );
    assert_eq!(
        hints(Risky::definition()),
        (Some(false), Some(false), Some(false))
    );
    assert_eq!(
        hints(toolgate_examples::refund::IssueRefund::definition()),
        (Some(false), Some(true), Some(false))
    );
}

#[test]
fn mcp_output_schema_when_the_result_type_has_one() {
    let refund = mcp::tool(toolgate_examples::refund::IssueRefund::definition());
    assert_eq!(refund["outputSchema"]["type"], "object");
    assert!(refund["outputSchema"]["properties"]["remaining_cents"].is_object());
    // `i128` has a schema but is not an object: MCP requires an object.
    assert!(mcp::tool(Add::definition()).get("outputSchema").is_none());
}
