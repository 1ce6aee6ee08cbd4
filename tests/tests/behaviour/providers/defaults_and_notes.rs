//! Defaults and toolgate's notes: a default applies where its field is
//! left out or null, as the published schema says; every dialect states
//! it, in the schema or, where a dialect cannot, in the field's
//! description; such notes, and the server's checks a dialect drops, a
//! toolbox can leave out; and no dialect tells the model of a check the
//! server does not make (a float being a valid double).

use toolgate::{Outcome, ToolContext, ToolError, Toolbox, tool};

use crate::common::block_on;

fn ctx() -> ToolContext {
    ToolContext::new("user_7", "tenant_a", "req_1").allow_all_tools()
}

fn call<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    ctx: &ToolContext,
    tool: &str,
    args: &str,
) -> Outcome {
    block_on(toolbox.call(ctx, tool, args))
}

fn two_nights() -> u8 {
    2
}

/// Book a stay.
#[tool(effect = write)]
fn stay(
    #[serde(default = "two_nights")]
    #[garde(range(min = 1, max = 30))]
    nights: u8,
    #[serde(default)]
    #[garde(length(max = 20))]
    note: String,
) -> Result<String, ToolError> {
    Ok(format!("{nights}|{note}"))
}

#[test]
fn a_default_applies_when_the_field_is_left_out_or_null() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Stay).unwrap();
    let schema = Stay::definition().schema();
    let validator = jsonschema::options().build(schema).unwrap();
    for (args, expected) in [
        (r#"{}"#, Some("2|")),
        (r#"{"nights":null,"note":null}"#, Some("2|")),
        (r#"{"nights":5}"#, Some("5|")),
        (r#"{"note":"sea view"}"#, Some("2|sea view")),
        // Sent, a value still passes its rules.
        (r#"{"nights":31}"#, None),
        (r#"{"note":"a note much longer than twenty"}"#, None),
        (r#"{"nights":"5"}"#, None),
    ] {
        let outcome = call(&toolbox, &ctx(), "stay", args);
        assert_eq!(
            outcome.value().and_then(|v| v.as_str()),
            expected,
            "{args}: {outcome:?}"
        );
        // The published schema agrees, by an independent validator.
        let document: serde_json::Value = serde_json::from_str(args).unwrap();
        assert_eq!(validator.is_valid(&document), expected.is_some(), "{args}");
    }
    assert_eq!(schema["properties"]["nights"]["default"], 2);
    assert_eq!(schema["properties"]["note"]["default"], "");
}

#[test]
fn every_dialect_states_a_default() {
    use toolgate::providers::{Strictness, anthropic, gemini, mcp, openai};
    let def = Stay::definition();
    // MCP takes the canonical schema whole, `default` included.
    assert_eq!(
        mcp::tool(def)["inputSchema"]["properties"]["nights"]["default"],
        2
    );
    // OpenAI strict: every field required, a defaulted one nullable, and
    // null means the default, as the description says.
    let strict = openai::parameters(def, Strictness::Strict).unwrap();
    let required: Vec<&str> = strict["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(required, ["nights", "note"]);
    let nights = &strict["properties"]["nights"];
    assert!(nights.get("default").is_none(), "{nights}");
    assert!(
        nights["description"]
            .as_str()
            .unwrap()
            .contains("Default: 2, if null or left out."),
        "{nights}"
    );
    for exported in [
        openai::parameters(def, Strictness::NonStrict).unwrap(),
        anthropic::tool(def, Strictness::NonStrict).unwrap()["input_schema"].clone(),
        gemini::function_declaration(def).unwrap()["parametersJsonSchema"].clone(),
        gemini::legacy_function_declaration(def).unwrap()["parameters"].clone(),
    ] {
        let note = &exported["properties"]["note"]["description"];
        assert!(
            note.as_str()
                .unwrap_or_default()
                .contains("Default: \"\", if null or left out."),
            "{exported}"
        );
    }
}

/// Count the nights booked per room number.
#[tool(effect = read)]
fn nights_by_room(
    /// Nights, by room number.
    rooms: std::collections::BTreeMap<u16, u32>,
) -> Result<u32, ToolError> {
    Ok(rooms.values().sum())
}

#[test]
fn a_toolbox_can_show_its_tools_without_toolgate_s_notes() {
    use toolgate::providers::{Strictness, anthropic, gemini, mcp};
    let mut noted = Toolbox::new(());
    noted.register(Stay).unwrap();
    // Turned off before or after registering, alike.
    let mut plain = Toolbox::new(()).without_notes();
    plain.register(Stay).unwrap();
    let mut plain_after = Toolbox::new(());
    plain_after.register(NightsByRoom).unwrap();
    let plain_after = plain_after.without_notes();

    // With notes: the default and a dropped bound are stated where a
    // dialect drops them.
    let exported = anthropic::tool(noted.definition("stay").unwrap(), Strictness::Strict).unwrap();
    let nights = exported["input_schema"]["properties"]["nights"]["description"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(nights.contains("Default: 2"), "{nights}");
    assert!(
        nights.contains("Server checks: must be between 1 and 30."),
        "{nights}"
    );

    // Without: nothing of toolgate's in any dialect, while the schema keeps
    // every rule it can express and the server enforces them all.
    let def = plain.definition("stay").unwrap();
    assert!(!def.has_notes());
    for exported in [
        anthropic::tool(def, Strictness::Strict).unwrap(),
        gemini::legacy_function_declaration(def).unwrap(),
        mcp::tool(def),
    ] {
        let text = exported.to_string();
        assert!(!text.contains("Default: "), "{text}");
        assert!(!text.contains("Server checks"), "{text}");
    }
    assert_eq!(
        mcp::tool(def)["inputSchema"]["properties"]["nights"]["maximum"],
        30
    );
    let outcome = call(&plain, &ctx(), "stay", r#"{"nights":31}"#);
    assert!(outcome.value().is_none(), "{outcome:?}");

    // The keys' range, which the schema states in the keys' pattern, is
    // stated in words where a dialect drops the pattern; turned off after
    // registering, not, and the server refuses a key past it all the same.
    let rooms = |def: &toolgate::ToolDef| {
        anthropic::tool(def, Strictness::NonStrict).unwrap()["input_schema"]["properties"]["rooms"]
            ["description"]
            .clone()
    };
    assert_eq!(
        rooms(NightsByRoom::definition()),
        "Nights, by room number. Server checks: keys must be whole numbers from 0 to 65535, written in digits."
    );
    let def = plain_after.definition("nights_by_room").unwrap();
    assert_eq!(rooms(def), "Nights, by room number.");
    assert_eq!(
        NightsByRoom::definition().description(),
        "Count the nights booked per room number."
    );
    let outcome = call(
        &plain_after,
        &ctx(),
        "nights_by_room",
        r#"{"rooms":{"300":1}}"#,
    );
    assert_eq!(outcome.value(), Some(&serde_json::json!(1)));
    let outcome = call(
        &plain_after,
        &ctx(),
        "nights_by_room",
        r#"{"rooms":{"70000":1}}"#,
    );
    assert!(outcome.value().is_none(), "{outcome:?}");
}

/// Convert a temperature.
#[tool(effect = read)]
fn to_fahrenheit(
    celsius: f64,
    #[garde(range(min = -100.0, max = 100.0))] precision: f32,
) -> Result<f64, ToolError> {
    Ok(celsius * 1.8 + 32.0 + f64::from(precision) * 0.0)
}

#[test]
fn no_dialect_tells_the_model_a_float_must_be_a_valid_double() {
    use toolgate::providers::{Strictness, anthropic, gemini, openai};
    let def = ToFahrenheit::definition();
    for exported in [
        openai::chat_tool(def, Strictness::Strict).unwrap(),
        openai::chat_tool(def, Strictness::NonStrict).unwrap(),
        anthropic::tool(def, Strictness::Strict).unwrap(),
        anthropic::tool(def, Strictness::NonStrict).unwrap(),
        gemini::function_declaration(def).unwrap(),
        gemini::legacy_function_declaration(def).unwrap(),
    ] {
        let text = exported.to_string();
        assert!(!text.contains("valid double"), "{text}");
        assert!(!text.contains("valid float"), "{text}");
    }
}
