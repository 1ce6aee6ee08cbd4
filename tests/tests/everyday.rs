//! The patterns users reach for first: shared state, what the host's
//! authentication knows, errors from other libraries with `?`, and bounds
//! as large as the field's type.

mod common;

use std::sync::Arc;

use common::block_on;
use toolgate::{Code, Outcome, Provides, ToolContext, ToolError, Toolbox, tool};

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

pub struct Catalogue {
    nightly_cents: u64,
}

/// Quote a stay.
#[tool(effect = read)]
fn quote(
    catalogue: &Catalogue,
    #[garde(range(min = 1, max = 30))] nights: u64,
) -> Result<u64, ToolError> {
    Ok(catalogue.nightly_cents * nights)
}

#[test]
fn a_tool_taking_its_state_joins_a_toolbox_of_an_arc_of_it() {
    let shared = Arc::new(Catalogue { nightly_cents: 100 });
    let mut toolbox = Toolbox::new(Arc::clone(&shared));
    toolbox.register(Quote).unwrap();
    let outcome = call(&toolbox, &ctx(), "quote", r#"{"nights":3}"#);
    assert_eq!(
        outcome.value(),
        Some(&serde_json::json!(300)),
        "{outcome:?}"
    );
    // The gates still run on the lent state's tool.
    let refused = call(&toolbox, &ctx(), "quote", r#"{"nights":31}"#);
    assert_eq!(
        refused.rejection().map(|r| r.code()),
        Some(Code::OutOfRange)
    );
    assert_eq!(Arc::strong_count(&shared), 2);
}

pub struct Server {
    catalogue: Catalogue,
}

impl Provides<Catalogue> for Server {
    fn provide(&self) -> &Catalogue {
        &self.catalogue
    }
}

#[test]
fn a_state_lends_the_part_a_tool_takes() {
    let mut toolbox = Toolbox::new(Server {
        catalogue: Catalogue { nightly_cents: 7 },
    });
    toolbox.register(Quote).unwrap();
    let outcome = call(&toolbox, &ctx(), "quote", r#"{"nights":2}"#);
    assert_eq!(outcome.value(), Some(&serde_json::json!(14)), "{outcome:?}");
}

/// What the host's token said about the caller.
pub struct Roles(Vec<&'static str>);

/// Say which roles the caller holds.
#[tool(effect = read)]
fn my_roles(ctx: &ToolContext) -> Result<String, ToolError> {
    Ok(match ctx.extension::<Roles>() {
        Some(roles) => roles.0.join(","),
        None => "none".to_owned(),
    })
}

#[test]
fn a_body_reads_what_the_host_attached_to_the_context() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(MyRoles).unwrap();
    let with = ctx().with_extension(Roles(vec!["support", "billing"]));
    let outcome = call(&toolbox, &with, "my_roles", "{}");
    assert_eq!(outcome.value(), Some(&serde_json::json!("support,billing")));
    let without = call(&toolbox, &ctx(), "my_roles", "{}");
    assert_eq!(without.value(), Some(&serde_json::json!("none")));
}

/// Read a ledger through a library that reports with `anyhow`.
#[tool(effect = read)]
fn ledger(fail: bool) -> Result<u32, ToolError> {
    fn library(fail: bool) -> anyhow::Result<u32> {
        if fail {
            anyhow::bail!("ledger shard 3 at 10.0.0.7 is down");
        }
        Ok(5)
    }
    Ok(library(fail)?)
}

/// Parse a number with the standard library, and fail with a `String`.
#[tool(effect = read)]
fn parse_number(text: String) -> Result<u32, ToolError> {
    let number: u32 = text.parse()?;
    if number == 13 {
        Err("13 is unlucky, see /etc/superstitions".to_owned())?;
    }
    Ok(number)
}

#[test]
fn errors_of_other_libraries_are_internal_failures_with_question_mark() {
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(Ledger)
        .unwrap()
        .register(ParseNumber)
        .unwrap();
    assert_eq!(
        call(&toolbox, &ctx(), "ledger", r#"{"fail":false}"#).value(),
        Some(&serde_json::json!(5))
    );
    for (tool, args, secret) in [
        ("ledger", r#"{"fail":true}"#, "10.0.0.7"),
        ("parse_number", r#"{"text":"seven"}"#, "invalid digit"),
        ("parse_number", r#"{"text":"13"}"#, "superstitions"),
    ] {
        let outcome = call(&toolbox, &ctx(), tool, args);
        let Outcome::Failed(failure) = &outcome else {
            panic!("{tool} {args}: {outcome:?}");
        };
        // Internal: the model reads that it failed, never why.
        let seen = outcome.to_json().to_string();
        assert!(!seen.contains(secret), "{seen}");
        assert_eq!(failure.request_id(), "req_1");
    }
}

/// Take a count past `i32`.
#[tool(effect = read)]
fn big_count(
    #[garde(range(min = 3_000_000_000, max = 4_000_000_000))] count: u32,
) -> Result<u32, ToolError> {
    Ok(count)
}

#[test]
fn a_bound_past_i32_means_the_same_to_the_schema_and_the_server() {
    let schema = BigCount::definition().schema();
    assert_eq!(schema["properties"]["count"]["minimum"], 3_000_000_000u64);
    assert_eq!(schema["properties"]["count"]["maximum"], 4_000_000_000u64);
    let mut toolbox = Toolbox::new(());
    toolbox.register(BigCount).unwrap();
    let ok = call(&toolbox, &ctx(), "big_count", r#"{"count":4000000000}"#);
    assert_eq!(ok.value(), Some(&serde_json::json!(4_000_000_000u64)));
    let low = call(&toolbox, &ctx(), "big_count", r#"{"count":2999999999}"#);
    assert_eq!(low.rejection().map(|r| r.code()), Some(Code::OutOfRange));
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

pub struct Account {
    balance_cents: std::sync::Mutex<i64>,
}

#[toolgate::tools]
impl Account {
    /// Read the balance.
    #[tool(effect = read)]
    pub fn balance(&self) -> Result<i64, ToolError> {
        Ok(*self.balance_cents.lock().unwrap())
    }

    /// Add to the balance.
    #[tool(effect = write, name = "credit_ledger")]
    pub async fn credit(
        &self,
        ctx: &ToolContext,
        /// The amount, in cents.
        #[garde(range(min = 1, max = 10_000))]
        amount_cents: i64,
    ) -> Result<String, ToolError> {
        let mut balance = self.balance_cents.lock().unwrap();
        *balance += amount_cents;
        Ok(format!("{} credited {amount_cents}", ctx.actor()))
    }

    /// An ordinary method, untouched.
    pub fn reset(&self) {
        *self.balance_cents.lock().unwrap() = 0;
    }
}

#[test]
fn methods_of_a_tools_block_are_tools_on_their_type() {
    let account = Arc::new(Account {
        balance_cents: std::sync::Mutex::new(100),
    });
    let mut toolbox = Toolbox::new(Arc::clone(&account));
    toolbox.register(Balance).unwrap().register(Credit).unwrap();
    let credited = call(&toolbox, &ctx(), "credit_ledger", r#"{"amount_cents":50}"#);
    assert_eq!(
        credited.value(),
        Some(&serde_json::json!("user_7 credited 50"))
    );
    let refused = call(&toolbox, &ctx(), "credit_ledger", r#"{"amount_cents":0}"#);
    assert_eq!(
        refused.rejection().map(|r| r.code()),
        Some(Code::OutOfRange)
    );
    let unknown = call(
        &toolbox,
        &ctx(),
        "credit_ledger",
        r#"{"amount_cents":5,"to":"me"}"#,
    );
    assert_eq!(
        unknown.rejection().map(|r| r.code()),
        Some(Code::UnknownField)
    );
    assert_eq!(
        call(&toolbox, &ctx(), "balance", "{}").value(),
        Some(&serde_json::json!(150))
    );
    account.reset();
    assert_eq!(
        call(&toolbox, &ctx(), "balance", "{}").value(),
        Some(&serde_json::json!(0))
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
    let outcome = call(&toolbox, &ctx(), "empty_locker", r#"{"locker":"l_1"}"#);
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
