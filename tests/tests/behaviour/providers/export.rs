//! Every example tool exported to every dialect: snapshots of the exact
//! envelopes, the conformance checkers over each, and the canonical schemas
//! against the draft 2020-12 meta-schema.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate::providers::{ExportError, Strictness, anthropic, gemini, mcp, openai};
use toolgate::{Outcome, ToolContext, ToolDef, ToolError, Toolbox, tool};
use toolgate_tests::conformance::{CLOSED, Dialect, check, check_meaning, check_request};

use crate::common::block_on;
use crate::common::tools::{Add, Dashed, ExportRows, ListThings, Risky, SendNote, Spy, StoreTree};

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
            // Keys sorted, whatever order `serde_json`'s maps keep.
            insta::with_settings!({ sort_maps => true }, {
                insta::assert_json_snapshot!(format!("{}__{}", def.name(), dialect.slug()), tool);
            });
        }
    }
}

#[test]
fn every_export_conforms_to_its_dialect() {
    for def in example_tools().into_iter().chain(test_tools()) {
        for dialect in Dialect::ALL {
            let tool = export(dialect, def).unwrap_or_else(|e| panic!("{e}"));
            let mut problems = check(dialect, &tool);
            problems.extend(check_meaning(dialect, def.schema(), &tool));
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
    // A result type without a schema publishes none.
    assert_eq!(Receipt::definition().output_schema(), None);
    assert!(
        mcp::tool(Receipt::definition())
            .get("outputSchema")
            .is_none()
    );
}

/// A result the tool serializes but does not describe.
#[derive(serde::Serialize)]
pub struct Plain {
    pub total: u32,
}

/// Print a receipt.
#[tool(effect = read)]
pub fn receipt(#[garde(range(max = 100))] total: u32) -> Result<Plain, ToolError> {
    Ok(Plain { total })
}

// Shapes a strict dialect cannot say: keys the model chooses, and a value
// of any JSON type.

/// Label a document.
#[tool(effect = write)]
fn tag_document(
    /// Label name to label value.
    labels: HashMap<String, String>,
) -> Result<usize, ToolError> {
    Ok(labels.len())
}

/// Store a JSON document as it is.
#[tool(effect = write)]
fn store_document(
    /// The document.
    document: Value,
) -> Result<bool, ToolError> {
    Ok(document.is_object())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
struct Note {
    #[garde(length(chars, min = 1, max = 200))]
    text: String,
    /// Anything the caller wants kept with the note.
    #[garde(skip)]
    extra: Value,
}

/// Keep a note.
#[tool(effect = write)]
fn keep_note(#[garde(dive)] note: Note) -> Result<usize, ToolError> {
    Ok(note.text.len() + usize::from(note.extra.is_null()))
}

const STRICT_DIALECTS: [Dialect; 3] = [
    Dialect::OpenAiChat { strict: true },
    Dialect::OpenAiResponses { strict: true },
    Dialect::Anthropic { strict: true },
];

#[test]
fn strict_exports_refuse_a_map_or_any_value_and_name_the_field() {
    for dialect in STRICT_DIALECTS {
        let error = export(dialect, TagDocument::definition()).unwrap_err();
        assert_eq!(error.tool, "tag_document");
        assert!(
            error.reason.starts_with("field `labels` is a map"),
            "{error}"
        );
        let error = export(dialect, StoreDocument::definition()).unwrap_err();
        assert_eq!(error.tool, "store_document");
        assert!(
            error
                .reason
                .starts_with("field `document` takes any JSON value"),
            "{error}"
        );
        let error = export(dialect, KeepNote::definition()).unwrap_err();
        assert!(
            error
                .reason
                .starts_with("field `extra` of `Note` takes any JSON value"),
            "{error}"
        );
    }
}

#[test]
fn a_map_stays_a_map_where_the_dialect_can_say_it() {
    let map = json!({"type": "string"});
    let chat = openai::chat_tool(TagDocument::definition(), Strictness::NonStrict).unwrap();
    assert_eq!(
        chat["function"]["parameters"]["properties"]["labels"]["additionalProperties"],
        map
    );
    let claude = anthropic::tool(TagDocument::definition(), Strictness::NonStrict).unwrap();
    assert_eq!(
        claude["input_schema"]["properties"]["labels"]["additionalProperties"],
        map
    );
    let gemini = gemini::function_declaration(TagDocument::definition()).unwrap();
    assert_eq!(
        gemini["parametersJsonSchema"]["properties"]["labels"]["additionalProperties"],
        map
    );
    // The legacy form has no `additionalProperties` to say what the values are.
    let error = gemini::legacy_function_declaration(TagDocument::definition()).unwrap_err();
    assert!(
        error.reason.starts_with("field `labels` is a map"),
        "{error}"
    );
    // Every export that succeeds means what the canonical schema means.
    for def in [
        TagDocument::definition(),
        StoreDocument::definition(),
        KeepNote::definition(),
    ] {
        for dialect in Dialect::ALL {
            if let Ok(tool) = export(dialect, def) {
                let mut problems = check(dialect, &tool);
                problems.extend(check_meaning(dialect, def.schema(), &tool));
                assert!(
                    problems.is_empty(),
                    "{} in {}: {problems:#?}\n{tool:#}",
                    def.name(),
                    dialect.slug()
                );
            }
        }
    }
}

/// Count nights by room number, and bunks by floor.
#[tool(effect = read)]
fn count_nights(
    /// Nights, by room number.
    rooms: std::collections::BTreeMap<u16, u32>,
    /// Bunks by floor, floors below ground negative.
    bunks: Option<std::collections::BTreeMap<std::num::NonZeroI8, Vec<u8>>>,
) -> Result<u32, ToolError> {
    let bunks: usize = bunks.iter().flatten().map(|(_, b)| b.len()).sum();
    Ok(rooms.values().sum::<u32>() + u32::try_from(bunks).unwrap_or(u32::MAX))
}

/// A map with integer keys is a map in every dialect that can say one: its
/// values under `additionalProperties`, the keys' range (the canonical
/// schema's key pattern) in words, and in MCP the pattern itself. Strict
/// dialects and Gemini's legacy form refuse it as they refuse any map,
/// where an object that takes no key at all once stood for it.
#[test]
fn a_map_with_integer_keys_states_their_range_in_every_dialect() {
    let def = CountNights::definition();
    let rooms = &def.schema()["properties"]["rooms"];
    for dialect in Dialect::ALL {
        let exported = export(dialect, def);
        let tool = match (dialect, exported) {
            (Dialect::GeminiLegacy, Err(error)) => {
                assert!(
                    error.reason.starts_with("field `rooms` is a map"),
                    "{error}"
                );
                continue;
            }
            (dialect, Err(error)) if STRICT_DIALECTS.contains(&dialect) => {
                assert!(
                    error.reason.starts_with("field `rooms` is a map"),
                    "{error}"
                );
                continue;
            }
            (_, Ok(tool)) => tool,
            (dialect, Err(error)) => panic!("{dialect:?}: {error}"),
        };
        let mut problems = check(dialect, &tool);
        problems.extend(check_meaning(dialect, def.schema(), &tool));
        assert!(
            problems.is_empty(),
            "{}: {problems:#?}\n{tool:#}",
            dialect.slug()
        );
        let schema = match dialect {
            Dialect::OpenAiChat { .. } => &tool["function"]["parameters"],
            Dialect::OpenAiResponses { .. } => &tool["parameters"],
            Dialect::Anthropic { .. } => &tool["input_schema"],
            Dialect::Gemini => &tool["parametersJsonSchema"],
            Dialect::Mcp => &tool["inputSchema"],
            Dialect::GeminiLegacy => unreachable!("refused above"),
        };
        if dialect == Dialect::Mcp {
            assert_eq!(&schema["properties"]["rooms"], rooms);
        } else {
            assert_eq!(
                schema["properties"]["rooms"],
                json!({
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
                    "description": "Nights, by room number. Server checks: keys must be whole numbers from 0 to 65535, written in digits."
                }),
                "{}",
                dialect.slug()
            );
        }
        insta::with_settings!({ sort_maps => true }, {
            insta::assert_json_snapshot!(format!("count_nights__{}", dialect.slug()), tool);
        });
    }
    // The server holds every model to the range, whatever it was told.
    let mut toolbox = Toolbox::new(());
    toolbox.register(CountNights).unwrap();
    let ctx = ToolContext::new("u", "t", "r").allow_all_tools();
    for (args, counted) in [
        (r#"{"rooms":{"65535":2}}"#, Some(2)),
        (r#"{"rooms":{"65536":2}}"#, None),
        (r#"{"rooms":{},"bunks":{"-128":[1],"127":[2]}}"#, Some(2)),
        (r#"{"rooms":{},"bunks":{"0":[1]}}"#, None),
    ] {
        let outcome = block_on(toolbox.call(&ctx, "count_nights", args));
        assert_eq!(
            outcome.value(),
            counted.map(|n| json!(n)).as_ref(),
            "{args}"
        );
    }
}

/// Count switches by state, and marks by letter.
#[tool(effect = read)]
fn count_switches(
    /// Switches, by whether they are on.
    switches: std::collections::BTreeMap<bool, u32>,
    /// Marks, by letter.
    marks: Option<std::collections::BTreeMap<char, Vec<u8>>>,
) -> Result<u32, ToolError> {
    let marks: usize = marks.iter().flatten().map(|(_, m)| m.len()).sum();
    Ok(switches.values().sum::<u32>() + u32::try_from(marks).unwrap_or(u32::MAX))
}

/// Maps keyed by `bool` and by `char` are maps in every dialect that can
/// say one: their values under `additionalProperties`, and what their keys
/// must be (the canonical schema's key pattern, and its `propertyNames`)
/// in words; in MCP the canonical schema itself. Strict dialects and
/// Gemini's legacy form refuse them as they refuse any map.
#[test]
fn maps_with_bool_and_char_keys_state_their_keys_in_every_dialect() {
    let def = CountSwitches::definition();
    let canonical = def.schema();
    assert_eq!(
        canonical["properties"]["marks"]["propertyNames"],
        json!({"minLength": 1, "maxLength": 1})
    );
    for dialect in Dialect::ALL {
        let tool = match (dialect, export(dialect, def)) {
            (dialect, Err(error))
                if dialect == Dialect::GeminiLegacy || STRICT_DIALECTS.contains(&dialect) =>
            {
                assert!(
                    error.reason.starts_with("field `switches` is a map"),
                    "{error}"
                );
                continue;
            }
            (_, Ok(tool)) => tool,
            (dialect, Err(error)) => panic!("{dialect:?}: {error}"),
        };
        let mut problems = check(dialect, &tool);
        problems.extend(check_meaning(dialect, canonical, &tool));
        assert!(
            problems.is_empty(),
            "{}: {problems:#?}\n{tool:#}",
            dialect.slug()
        );
        let schema = match dialect {
            Dialect::OpenAiChat { .. } => &tool["function"]["parameters"],
            Dialect::OpenAiResponses { .. } => &tool["parameters"],
            Dialect::Anthropic { .. } => &tool["input_schema"],
            Dialect::Gemini => &tool["parametersJsonSchema"],
            Dialect::Mcp => &tool["inputSchema"],
            Dialect::GeminiLegacy => unreachable!("refused above"),
        };
        if dialect == Dialect::Mcp {
            assert_eq!(schema, canonical);
        } else {
            let said = |field: &str| schema["properties"][field]["description"].clone();
            assert_eq!(
                said("switches"),
                "Switches, by whether they are on. Server checks: keys must be true or false.",
                "{}",
                dialect.slug()
            );
            assert_eq!(
                said("marks"),
                "Marks, by letter. Server checks: keys must be single characters.",
                "{}",
                dialect.slug()
            );
            assert!(schema["properties"]["marks"].get("propertyNames").is_none());
        }
        insta::with_settings!({ sort_maps => true }, {
            insta::assert_json_snapshot!(format!("count_switches__{}", dialect.slug()), tool);
        });
    }
    // The server holds every model to the keys, whatever it was told.
    let mut toolbox = Toolbox::new(());
    toolbox.register(CountSwitches).unwrap();
    let ctx = ToolContext::new("u", "t", "r").allow_all_tools();
    for (args, counted) in [
        (r#"{"switches":{"true":2,"false":1}}"#, Some(3)),
        (r#"{"switches":{"yes":2}}"#, None),
        (r#"{"switches":{},"marks":{"😀":[1],"é":[2,3]}}"#, Some(3)),
        (r#"{"switches":{},"marks":{"ab":[1]}}"#, None),
    ] {
        let outcome = block_on(toolbox.call(&ctx, "count_switches", args));
        assert_eq!(
            outcome.value(),
            counted.map(|n| json!(n)).as_ref(),
            "{args}"
        );
    }
}

#[test]
fn gemini_legacy_states_that_nested_objects_are_closed() {
    let def = toolgate_examples::invoice::RefundInvoice::definition();
    let tool = gemini::legacy_function_declaration(def).unwrap();
    let branches = tool["parameters"]["properties"]["reason"]["anyOf"]
        .as_array()
        .unwrap();
    assert_eq!(branches.len(), 3);
    for branch in branches {
        assert!(branch.get("additionalProperties").is_none(), "{branch}");
        let description = branch["description"].as_str().unwrap();
        assert!(
            description.ends_with(&format!("Server checks: {CLOSED}.")),
            "{description}"
        );
    }
    assert_eq!(
        check_meaning(Dialect::GeminiLegacy, def.schema(), &tool),
        Vec::<String>::new()
    );
    // The server enforces what the text says: an extra field in a branch.
    let mut billing = Toolbox::new(toolgate_examples::invoice::Billing::demo());
    billing
        .register(toolgate_examples::invoice::RefundInvoice)
        .unwrap();
    let ctx = ToolContext::new("u", "t", "r")
        .allow_all_tools()
        .with_scopes(["billing:refund"]);
    let outcome = block_on(billing.call(
        &ctx,
        "refund_invoice",
        r#"{"invoice_id":"inv_88","amount_cents":100,"reason":{"kind":"error","approver_id":"usr_lena"}}"#,
    ));
    assert!(outcome.rejection().is_some(), "{outcome:?}");
    assert!(billing.state().refunds().is_empty());
}

#[test]
fn anthropic_strict_refuses_a_recursive_schema() {
    let error = anthropic::tool(StoreTree::definition(), Strictness::Strict).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `store_tree` cannot be exported to anthropic (strict): `Node` is recursive, and this dialect accepts no recursive schema"
    );
    assert!(anthropic::tool(StoreTree::definition(), Strictness::NonStrict).is_ok());
    assert!(openai::chat_tool(StoreTree::definition(), Strictness::Strict).is_ok());
}

#[test]
fn anthropic_non_strict_sends_no_strict_key() {
    let tool = anthropic::tool(Add::definition(), Strictness::NonStrict).unwrap();
    assert!(tool.get("strict").is_none(), "{tool}");
    let tools = anthropic::tools(
        [Add::definition(), Risky::definition()],
        Strictness::NonStrict,
    )
    .unwrap();
    assert!(tools.iter().all(|t| t.get("strict").is_none()));
    let tool = anthropic::tool(Add::definition(), Strictness::Strict).unwrap();
    assert_eq!(tool["strict"], true);
}

macro_rules! numbered_tools {
    ($($name:ident),*) => {$(
        /// Does nothing; one of many.
        #[tool(effect = read)]
        fn $name() -> Result<u8, ToolError> {
            Ok(0)
        }
    )*};
}

numbered_tools!(
    n01, n02, n03, n04, n05, n06, n07, n08, n09, n10, n11, n12, n13, n14, n15, n16, n17, n18, n19,
    n20, n21
);

fn numbered() -> Vec<&'static ToolDef> {
    vec![
        N01::definition(),
        N02::definition(),
        N03::definition(),
        N04::definition(),
        N05::definition(),
        N06::definition(),
        N07::definition(),
        N08::definition(),
        N09::definition(),
        N10::definition(),
        N11::definition(),
        N12::definition(),
        N13::definition(),
        N14::definition(),
        N15::definition(),
        N16::definition(),
        N17::definition(),
        N18::definition(),
        N19::definition(),
        N20::definition(),
        N21::definition(),
    ]
}

/// Thirteen optional fields that cannot be null: no unions.
#[derive(Debug, Default, Deserialize, JsonSchema, garde::Validate)]
#[serde(default, deny_unknown_fields)]
#[garde(allow_unvalidated)]
struct Filters {
    a: u8,
    b: u8,
    c: u8,
    d: u8,
    e: u8,
    f: u8,
    g: u8,
    h: u8,
    i: u8,
    j: u8,
    k: u8,
    l: u8,
    m: u8,
}

/// Search orders.
#[tool(effect = read)]
fn search_orders(#[garde(dive)] filters: Filters) -> Result<u8, ToolError> {
    Ok(filters.a)
}

/// Search invoices.
#[tool(effect = read)]
fn search_invoices(#[garde(dive)] filters: Filters) -> Result<u8, ToolError> {
    Ok(filters.m)
}

/// Nine optional fields that may be null: nine unions.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
#[garde(allow_unvalidated)]
struct Choices {
    a: Option<u8>,
    b: Option<u8>,
    c: Option<u8>,
    d: Option<u8>,
    e: Option<u8>,
    f: Option<u8>,
    g: Option<u8>,
    h: Option<u8>,
    i: Option<u8>,
}

impl Choices {
    fn picked(&self) -> usize {
        let all = [
            self.a, self.b, self.c, self.d, self.e, self.f, self.g, self.h, self.i,
        ];
        all.iter().flatten().count()
    }
}

/// Pick seats.
#[tool(effect = read)]
fn pick_seats(#[garde(dive)] seats: Choices) -> Result<usize, ToolError> {
    Ok(seats.picked())
}

/// Pick meals.
#[tool(effect = read)]
fn pick_meals(#[garde(dive)] meals: Choices) -> Result<usize, ToolError> {
    Ok(meals.picked())
}

#[test]
fn anthropic_limits_hold_over_the_tools_of_one_request() {
    let strict = Dialect::Anthropic { strict: true };
    // 20 strict tools are accepted; the 21st is named.
    let twenty = anthropic::tools(numbered().into_iter().take(20), Strictness::Strict).unwrap();
    assert_eq!(twenty.len(), 20);
    assert_eq!(check_request(strict, &twenty), Vec::<String>::new());
    let error = anthropic::tools(numbered(), Strictness::Strict).unwrap_err();
    assert_eq!(error.tool, "n21");
    assert!(
        error.reason.contains("20 strict tools per request"),
        "{error}"
    );
    let non_strict = anthropic::tools(numbered(), Strictness::NonStrict).unwrap();
    assert_eq!(non_strict.len(), 21);

    // Each tool is within the limits on its own, and over them together.
    for (a, b, limit) in [
        (
            SearchOrders::definition(),
            SearchInvoices::definition(),
            "24 per request",
        ),
        (
            PickSeats::definition(),
            PickMeals::definition(),
            "16 per request",
        ),
    ] {
        let one_by_one = vec![
            anthropic::tool(a, Strictness::Strict).unwrap(),
            anthropic::tool(b, Strictness::Strict).unwrap(),
        ];
        assert!(
            !check_request(strict, &one_by_one).is_empty(),
            "the checker sees the set over the limit"
        );
        let error = anthropic::tools([a, b], Strictness::Strict).unwrap_err();
        assert_eq!(error.tool, b.name());
        assert!(error.reason.ends_with(limit), "{error}");
        assert!(anthropic::tools([a, b], Strictness::NonStrict).is_ok());
        let alone = anthropic::tools([a], Strictness::Strict).unwrap();
        assert_eq!(check_request(strict, &alone), Vec::<String>::new());
    }
}

#[test]
fn mcp_text_is_the_serialized_structured_content() {
    let value = json!({"refund_id": "rf_1", "remaining_cents": 900, "note": "a \"quoted\" é"});
    let result = mcp::call_tool_result(&Outcome::Done(value.clone()));
    assert_eq!(result["structuredContent"], value);
    assert_eq!(
        result["content"][0]["text"].as_str().unwrap(),
        serde_json::to_string(&result["structuredContent"]).unwrap()
    );
    assert_eq!(result["isError"], false);
    // A result that is not an object follows the same rule, as rmcp's
    // `Json<T>` does.
    for value in [json!(5), json!(["a", "b \"c\""]), json!("text")] {
        let result = mcp::call_tool_result(&Outcome::Done(value.clone()));
        assert_eq!(result["structuredContent"], value);
        assert_eq!(
            result["content"][0]["text"].as_str().unwrap(),
            serde_json::to_string(&value).unwrap()
        );
        assert_eq!(result["isError"], false);
    }
    // Nothing returned: the text `null`, no structured content.
    let result = mcp::call_tool_result(&Outcome::Done(Value::Null));
    assert!(result.get("structuredContent").is_none());
    assert_eq!(result["content"][0]["text"], "null");
}
