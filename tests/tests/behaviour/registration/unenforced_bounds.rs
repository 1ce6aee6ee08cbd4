//! Registration refuses a tool whose schema states a bound nothing
//! enforces. `#[schemars(length(…))]`, `#[schemars(range(…))]` and
//! `#[schemars(regex(…))]` write `maxLength`, `maximum`, `pattern`, … into
//! the published schema and check nothing at run time; a hand-written
//! schema can do the same. Without this check the server would accept
//! calls the schema it publishes refuses. A bound backed by a garde rule,
//! or by the type itself, registers.

use schemars::JsonSchema;
use serde::Deserialize;
use toolgate::{RegisterError, ToolError, Toolbox, tool};

/// The keyword and place registration names for `tool`, if it refuses it.
fn unenforced<T: toolgate::Tool<()> + 'static>(tool: T) -> Option<(&'static str, String)> {
    match Toolbox::new(()).register(tool).err()? {
        RegisterError::UnenforcedBound { keyword, at, .. } => Some((keyword, at)),
        other => panic!("refused for another reason: {other}"),
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Label {
    /// At most three characters, by the schema alone.
    #[schemars(length(max = 3))]
    #[garde(skip)]
    pub text: String,
}

/// Keep a label.
#[tool(effect = read)]
pub fn keep_label(#[garde(dive)] label: Label) -> Result<usize, ToolError> {
    Ok(label.text.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Code {
    /// At least two characters, by the schema alone.
    #[schemars(length(min = 2))]
    #[garde(skip)]
    pub code: String,
}

/// Check a code.
#[tool(effect = read)]
pub fn check_code(#[garde(dive)] code: Code) -> Result<usize, ToolError> {
    Ok(code.code.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Stars {
    /// One to five, by the schema alone (the type stops at 255).
    #[schemars(range(min = 1, max = 5))]
    #[garde(skip)]
    pub stars: u8,
}

/// Rate a stay.
#[tool(effect = read)]
pub fn rate_stay(#[garde(dive)] rating: Stars) -> Result<u8, ToolError> {
    Ok(rating.stars)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Floor {
    /// At least ten, by the schema alone.
    #[schemars(range(min = 10))]
    #[garde(skip)]
    pub level: i64,
}

/// Go to a floor.
#[tool(effect = read)]
pub fn go_to_floor(#[garde(dive)] floor: Floor) -> Result<i64, ToolError> {
    Ok(floor.level)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Share {
    /// Under one, by a hand-added keyword.
    #[schemars(extend("exclusiveMaximum" = 1.0))]
    #[garde(skip)]
    pub share: f64,
}

/// Split a bill.
#[tool(effect = read)]
pub fn split_bill(#[garde(dive)] share: Share) -> Result<f64, ToolError> {
    Ok(share.share)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Sku {
    /// Digits only, by the schema alone.
    #[schemars(regex(pattern = r"^[0-9]+$"))]
    #[garde(skip)]
    pub sku: String,
}

/// Find a product.
#[tool(effect = read)]
pub fn find_product(#[garde(dive)] sku: Sku) -> Result<usize, ToolError> {
    Ok(sku.sku.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    /// One or two ids, by the schema alone.
    #[schemars(length(min = 1, max = 2))]
    #[garde(skip)]
    pub ids: Vec<u32>,
}

/// Close a batch.
#[tool(effect = read)]
pub fn close_batch(#[garde(dive)] batch: Batch) -> Result<usize, ToolError> {
    Ok(batch.ids.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Nickname {
    /// Optional, and at most four characters when set, by the schema alone.
    #[schemars(length(max = 4))]
    #[garde(skip)]
    pub nickname: Option<String>,
}

/// Set a nickname.
#[tool(effect = read)]
pub fn set_nickname(#[garde(dive)] name: Nickname) -> Result<bool, ToolError> {
    Ok(name.nickname.is_some())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Team {
    /// At least two members, by the schema alone.
    #[schemars(length(min = 2))]
    #[garde(skip)]
    pub members: Vec<String>,
}

/// Form a team.
#[tool(effect = read)]
pub fn form_team(#[garde(dive)] team: Team) -> Result<usize, ToolError> {
    Ok(team.members.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Above zero, by a hand-added keyword.
    #[schemars(extend("exclusiveMinimum" = 0))]
    #[garde(skip)]
    pub cents: i32,
}

/// Set a budget.
#[tool(effect = read)]
pub fn set_budget(#[garde(dive)] budget: Budget) -> Result<i32, ToolError> {
    Ok(budget.cents)
}

#[test]
fn a_bound_only_the_schema_states_is_refused_at_registration() {
    let at = |keyword: &'static str, at: &str| Some((keyword, at.to_owned()));
    assert_eq!(unenforced(KeepLabel), at("maxLength", "/label/text"));
    assert_eq!(unenforced(CheckCode), at("minLength", "/code/code"));
    assert_eq!(unenforced(RateStay), at("maximum", "/rating/stars"));
    assert_eq!(unenforced(GoToFloor), at("minimum", "/floor/level"));
    assert_eq!(
        unenforced(SplitBill),
        at("exclusiveMaximum", "/share/share")
    );
    assert_eq!(unenforced(FindProduct), at("pattern", "/sku/sku"));
    assert_eq!(unenforced(CloseBatch), at("maxItems", "/batch/ids"));
    assert_eq!(unenforced(SetNickname), at("maxLength", "/name/nickname"));
    assert_eq!(unenforced(FormTeam), at("minItems", "/team/members"));
    assert_eq!(
        unenforced(SetBudget),
        at("exclusiveMinimum", "/budget/cents")
    );
}

/// An enum's variants, which its tags tell apart: a value past a bound in
/// one variant is refused by the whole schema, whichever variant it is in.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub enum Shipping {
    Pickup,
    Courier {
        #[garde(skip)]
        eta_days: u8,
    },
    Post {
        /// At most 10 parcels, by the schema alone.
        #[schemars(range(max = 10))]
        #[garde(skip)]
        parcels: u8,
    },
}

/// Ship an order.
#[tool(effect = read)]
pub fn ship_order(#[garde(dive)] shipping: Shipping) -> Result<bool, ToolError> {
    Ok(matches!(shipping, Shipping::Pickup))
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Reminder {
    Once {
        #[garde(skip)]
        at: u32,
    },
    Repeat {
        #[garde(skip)]
        every: u32,
        /// At most five words, by the schema alone.
        #[schemars(length(max = 5))]
        #[garde(skip)]
        label: String,
    },
}

/// Set a reminder.
#[tool(effect = read)]
pub fn set_reminder(#[garde(dive)] reminder: Reminder) -> Result<bool, ToolError> {
    Ok(matches!(reminder, Reminder::Once { .. }))
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "t", content = "c", deny_unknown_fields)]
pub enum Step {
    Wait(#[garde(skip)] u32),
    Say(
        /// At least two characters, by the schema alone.
        #[schemars(length(min = 2))]
        #[garde(skip)]
        String,
    ),
}

/// Run a step.
#[tool(effect = read)]
pub fn run_step(#[garde(dive)] step: Step) -> Result<bool, ToolError> {
    Ok(matches!(step, Step::Wait(_)))
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Dose {
    /// At least half a unit: the simplest number is not zero.
    #[garde(range(min = 0.5, max = 4.0))]
    pub units: f64,
    /// At most eight characters, by the schema alone.
    #[schemars(length(max = 8))]
    #[garde(skip)]
    pub drug: String,
}

/// Record a dose.
#[tool(effect = read)]
pub fn record_dose(#[garde(dive)] dose: Dose) -> Result<f64, ToolError> {
    Ok(dose.units)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Handle {
    /// Lowercase letters, at least three (both enforced), at most twelve by
    /// the schema alone: the shortest match is too short to be built, and
    /// a longer match is tried.
    #[schemars(length(min = 3, max = 12))]
    #[garde(pattern(r"^[a-z]+$"), length(chars, min = 3))]
    pub handle: String,
}

/// Claim a handle.
#[tool(effect = read)]
pub fn claim_handle(#[garde(dive)] handle: Handle) -> Result<usize, ToolError> {
    Ok(handle.handle.len())
}

#[test]
fn a_length_beside_a_pattern_is_tried_with_a_match() {
    assert_eq!(
        unenforced(ClaimHandle),
        Some(("maxLength", "/handle/handle".to_owned()))
    );
}

#[test]
fn a_bound_in_any_variant_of_a_tagged_enum_is_tried() {
    let at = |keyword: &'static str, at: &str| Some((keyword, at.to_owned()));
    assert_eq!(
        unenforced(ShipOrder),
        at("maximum", "/shipping/Post/parcels")
    );
    assert_eq!(unenforced(SetReminder), at("maxLength", "/reminder/label"));
    assert_eq!(unenforced(RunStep), at("minLength", "/step/c"));
    assert_eq!(unenforced(RecordDose), at("maxLength", "/dose/drug"));
}

/// A hand-written schema whose bound is one branch's: the other takes any
/// string, so a longer one is valid and the tool rightly takes it.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct Loose(pub String);

impl JsonSchema for Loose {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Loose".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [{"type": "string", "maxLength": 3}, {"type": "string"}]
        })
    }
}

/// Keep a note, short or long.
#[tool(effect = read)]
pub fn keep_note(#[garde(skip)] note: Loose) -> Result<usize, ToolError> {
    Ok(note.0.len())
}

/// Untagged, the variants share their member's name: a value past the
/// first variant's bound is the second's, and the schema takes it.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged, deny_unknown_fields)]
pub enum Crowd {
    Small {
        #[schemars(range(max = 5))]
        #[garde(skip)]
        people: u8,
    },
    Any {
        #[garde(skip)]
        people: u8,
    },
}

/// Book a table.
#[tool(effect = read)]
pub fn book_table(#[garde(dive)] crowd: Crowd) -> Result<bool, ToolError> {
    Ok(matches!(crowd, Crowd::Small { .. }))
}

#[test]
fn a_bound_inside_a_union_is_not_taken_for_the_whole_schema() {
    Toolbox::new(()).register(KeepNote).unwrap();
    Toolbox::new(()).register(BookTable).unwrap();
}

/// Untagged, nothing tells the variants apart, and each holds a bound only
/// the schema states: registration cannot try them, so each call is
/// checked against them before serde reads it.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged, deny_unknown_fields)]
pub enum Lookup {
    Code(
        #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
        #[garde(skip)]
        String,
    ),
    Codes(
        #[schemars(length(min = 1, max = 2))]
        #[garde(skip)]
        Vec<u32>,
    ),
    Weight(
        #[schemars(extend("exclusiveMinimum" = 0))]
        #[garde(skip)]
        f64,
    ),
}

/// Look up an airport.
#[tool(effect = read)]
pub fn look_up(#[garde(dive)] lookup: Lookup) -> Result<bool, ToolError> {
    Ok(matches!(lookup, Lookup::Code(_)))
}

#[test]
fn a_bound_inside_a_union_is_enforced_as_each_call_is_read() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(LookUp).unwrap();
    let code = |args: &str| {
        let checked = toolgate::testing::check_arguments(&toolbox, "look_up", args.as_bytes());
        checked
            .unwrap()
            .err()
            .map(|r| (r.code(), r.path().to_owned()))
    };
    for valid in [
        r#"{"lookup":"LHR"}"#,
        r#"{"lookup":[7]}"#,
        r#"{"lookup":[7,8]}"#,
        r#"{"lookup":0.5}"#,
    ] {
        assert_eq!(code(valid), None, "{valid}");
    }
    for (refused, expected) in [
        (r#"{"lookup":"lhr"}"#, toolgate::Code::PatternMismatch),
        (r#"{"lookup":[]}"#, toolgate::Code::InvalidLength),
        (r#"{"lookup":[7,8,9]}"#, toolgate::Code::InvalidLength),
        (r#"{"lookup":0}"#, toolgate::Code::OutOfRange),
        (r#"{"lookup":-2.5}"#, toolgate::Code::OutOfRange),
    ] {
        assert_eq!(
            code(refused),
            Some((expected, "/lookup".to_owned())),
            "{refused}"
        );
    }
}

#[test]
fn the_refusal_says_what_to_write() {
    let error = Toolbox::new(()).register(KeepLabel).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `keep_label`: the schema states `maxLength` for the value at `/label/text`, but the \
         tool accepts a value past it: nothing enforces it; state it as a garde rule in its type \
         (`length(chars, …)`), or leave it out of the schema"
    );
    // Each keyword names the rule that states it.
    assert_eq!(rule_named(CloseBatch), "length(…)");
    assert_eq!(rule_named(FindProduct), "pattern(…)");
    assert_eq!(rule_named(SetBudget), "range(…)");
    assert_eq!(rule_named(PackEggs), "custom(…)");
}

/// The garde rule the refusal of `tool` says to write.
fn rule_named<T: toolgate::Tool<()> + 'static>(tool: T) -> String {
    let message = Toolbox::new(()).register(tool).err().unwrap().to_string();
    let (_, rule) = message.split_once("in its type (`").unwrap();
    rule.split_once('`').unwrap().0.to_owned()
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Backed {
    #[garde(length(chars, min = 2, max = 3))]
    pub text: String,
    #[garde(range(min = 1, max = 5))]
    pub stars: u8,
    #[garde(pattern(r"^[0-9]+$"))]
    pub sku: String,
    #[garde(length(min = 1, max = 2))]
    pub ids: Vec<u32>,
    /// The type's own range, which serde enforces: 0 to 255.
    #[garde(skip)]
    pub small: u8,
    /// At least one, by the type.
    #[garde(skip)]
    pub count: std::num::NonZeroU32,
}

/// Every bound enforced by a rule or the type.
#[tool(effect = read)]
pub fn keep_handle(
    #[garde(pattern(r"^[a-z]+$"), length(chars, min = 3, max = 12))] handle: String,
) -> Result<usize, ToolError> {
    Ok(handle.len())
}

/// Every bound enforced by a rule or the type.
#[tool(effect = read)]
pub fn keep_backed(#[garde(dive)] backed: Backed) -> Result<u8, ToolError> {
    Ok(backed.stars)
}

/// The same rules on the tool's own parameters.
#[tool(effect = read)]
pub fn keep_own(
    #[garde(length(chars, min = 2, max = 3))] text: String,
    #[garde(range(min = 1, max = 5))] stars: u8,
    #[garde(length(min = 1, max = 2))] ids: Vec<u32>,
) -> Result<usize, ToolError> {
    Ok(text.len() + usize::from(stars) + ids.len())
}

/// Bounds a double cannot step past: one more than `f64::MAX`, or than
/// 1e20, is the same double, which the schema accepts.
#[tool(effect = read)]
pub fn measure(
    #[garde(range(min = f64::MIN, max = f64::MAX))] any: f64,
    #[garde(range(max = 1e20))] large: Option<f64>,
    #[garde(range(max = 10_000_000_000_000_000_000u64))] count: Option<u64>,
) -> Result<bool, ToolError> {
    Ok(any < 0.0 && large.is_some() && count.is_some())
}

/// Counts and lengths far past what a call can send: registration does not
/// write such values out (two billion items would not fit in memory).
#[tool(effect = read)]
pub fn take_bulk(
    #[garde(length(max = 2_000_000_000))] values: Vec<u8>,
    #[garde(length(chars, max = 1_000_000_000))] text: String,
) -> Result<usize, ToolError> {
    Ok(values.len() + text.len())
}

#[test]
fn bounds_a_rule_or_the_type_enforces_register() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(KeepBacked).unwrap();
    toolbox.register(KeepOwn).unwrap();
    toolbox.register(Measure).unwrap();
    toolbox.register(KeepHandle).unwrap();
    toolbox.register(TakeBulk).unwrap();
}

/// Two variants with a member of one name, its bound enforced in one and
/// stated by the schema alone in the other: each is tried.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum Sticker {
    Round {
        #[garde(length(chars, max = 5))]
        label: String,
    },
    Square {
        #[schemars(length(max = 3))]
        #[garde(skip)]
        label: String,
    },
}

/// Print a sticker.
#[tool(effect = read)]
pub fn print_sticker(#[garde(dive)] sticker: Sticker) -> Result<bool, ToolError> {
    Ok(matches!(sticker, Sticker::Round { .. }))
}

/// A minimum past a double's precision: the instance holds it exactly,
/// so the unenforced bound beside it is still found.
#[tool(effect = read)]
pub fn list_since(
    #[garde(range(min = 1_577_836_800_123_456_789))] since_ns: u64,
    #[garde(dive)] label: Label,
) -> Result<u64, ToolError> {
    Ok(since_ns + label.text.len() as u64)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Sequence {
    /// At most `i64::MAX`, by the schema alone: one past it is a `u64`.
    #[schemars(range(max = 9_223_372_036_854_775_807_u64))]
    #[garde(skip)]
    pub next: u64,
}

/// Advance a sequence.
#[tool(effect = read)]
pub fn advance(#[garde(dive)] sequence: Sequence) -> Result<u64, ToolError> {
    Ok(sequence.next)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Pack {
    /// Whole boxes of six, by the schema alone.
    #[schemars(extend("multipleOf" = 6))]
    #[garde(skip)]
    pub eggs: u32,
}

/// Pack eggs.
#[tool(effect = read)]
pub fn pack_eggs(#[garde(dive)] pack: Pack) -> Result<u32, ToolError> {
    Ok(pack.eggs)
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Tablets {
    /// In quarter tablets, by the schema alone; at most 4, by a rule.
    #[schemars(extend("multipleOf" = 0.25))]
    #[garde(range(max = 4.0))]
    pub tablets: f64,
}

/// Take tablets.
#[tool(effect = read)]
pub fn take_tablets(#[garde(dive)] dose: Tablets) -> Result<bool, ToolError> {
    Ok(dose.tablets > 0.0)
}

fn whole_boxes(eggs: &u32, _: &()) -> garde::Result {
    match eggs % 6 {
        0 => Ok(()),
        _ => Err(garde::Error::new("must be whole boxes of six")),
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct CheckedPack {
    /// Whole boxes of six, checked by a custom rule.
    #[schemars(extend("multipleOf" = 6))]
    #[garde(custom(whole_boxes))]
    pub eggs: u32,
    /// Any count: every integer is a multiple of 1.
    #[schemars(extend("multipleOf" = 1))]
    #[garde(skip)]
    pub spare: u32,
}

/// Pack eggs, checked.
#[tool(effect = read)]
pub fn pack_checked(#[garde(dive)] pack: CheckedPack) -> Result<u32, ToolError> {
    Ok(pack.eggs + pack.spare)
}

#[test]
fn a_multiple_only_the_schema_states_is_tried() {
    assert_eq!(
        unenforced(PackEggs),
        Some(("multipleOf", "/pack/eggs".to_owned()))
    );
    assert_eq!(
        unenforced(TakeTablets),
        Some(("multipleOf", "/dose/tablets".to_owned()))
    );
    Toolbox::new(()).register(PackChecked).unwrap();
}

#[test]
fn each_variant_s_bound_is_tried_and_large_integers_are_exact() {
    assert_eq!(
        unenforced(Advance),
        Some(("maximum", "/sequence/next".to_owned()))
    );
    assert_eq!(
        unenforced(PrintSticker),
        Some(("maxLength", "/sticker/label".to_owned()))
    );
    assert_eq!(
        unenforced(ListSince),
        Some(("maxLength", "/label/text".to_owned()))
    );
}

/// Hand-written unions whose branches look told apart and are not: tags
/// `1` and `1.0` are one number to JSON Schema, and a branch of type
/// string or object is written as a string, which the other branch takes.
#[derive(Debug, Deserialize)]
pub struct Versioned {
    pub v: u8,
    pub s: String,
}

impl JsonSchema for Versioned {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Versioned".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"anyOf": [
            {"type": "object", "properties": {"v": {"const": 1}, "s": {"type": "string", "maxLength": 3}},
             "required": ["v", "s"]},
            {"type": "object", "properties": {"v": {"const": 1.0}, "s": {"type": "string"}},
             "required": ["v", "s"]}
        ]})
    }
}

/// Store a versioned note.
#[tool(effect = read)]
pub fn store_versioned(#[garde(skip)] note: Versioned) -> Result<u8, ToolError> {
    Ok(note.v)
}

#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct Either(pub String);

impl JsonSchema for Either {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Either".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"anyOf": [
            {"type": ["string", "object"], "maxLength": 3,
             "properties": {"k": {"const": "a"}}, "required": ["k"]},
            {"type": "string"}
        ]})
    }
}

/// Keep either.
#[tool(effect = read)]
pub fn keep_either(#[garde(skip)] value: Either) -> Result<usize, ToolError> {
    Ok(value.0.len())
}

#[test]
fn unions_that_only_look_told_apart_are_not_tried() {
    Toolbox::new(()).register(StoreVersioned).unwrap();
    Toolbox::new(()).register(KeepEither).unwrap();
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct Bank {
    #[garde(length(chars, max = 34))]
    pub iban: String,
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct Card {
    /// The last four digits, by the schema alone.
    #[schemars(length(max = 4))]
    #[garde(skip)]
    pub last4: String,
}

/// Newtype variants of an internally tagged enum: the schema puts the tag
/// beside a `$ref` to each variant's struct.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Payment {
    Bank(#[garde(dive)] Bank),
    Card(#[garde(dive)] Card),
}

/// Take a payment.
#[tool(effect = read)]
pub fn take_payment(#[garde(dive)] payment: Payment) -> Result<bool, ToolError> {
    Ok(matches!(payment, Payment::Card(_)))
}

#[test]
fn a_bound_in_a_newtype_variant_of_an_internally_tagged_enum_is_tried() {
    assert_eq!(
        unenforced(TakePayment),
        Some(("maxLength", "/payment/last4".to_owned()))
    );
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TextKind {
    Text,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ImageKind {
    Image,
}

/// An untagged enum told apart by members of one-variant enums, whose
/// schemas are an `enum` of one value. A schema with an untagged union is
/// walked before serde reads each call, bounds included, so its bounds are
/// enforced and the tool registers.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged, deny_unknown_fields)]
pub enum Part {
    Text {
        #[garde(skip)]
        kind: TextKind,
        #[garde(length(chars, max = 100))]
        text: String,
    },
    Image {
        #[garde(skip)]
        kind: ImageKind,
        /// An https address, by the schema alone.
        #[schemars(regex(pattern = r"^https://"))]
        #[garde(skip)]
        url: String,
    },
}

/// Post a part.
#[tool(effect = read)]
pub fn post_part(#[garde(dive)] part: Part) -> Result<bool, ToolError> {
    Ok(matches!(part, Part::Text { .. }))
}

#[test]
fn a_union_told_apart_by_one_value_enums_is_enforced_as_each_call_is_read() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(PostPart).unwrap();
    let check = |args: &str| {
        toolgate::testing::check_arguments(&toolbox, "post_part", args.as_bytes())
            .unwrap()
            .map_err(|r| (r.code(), r.path().to_owned()))
    };
    assert_eq!(
        check(r#"{"part":{"kind":"image","url":"https://example.com/a.png"}}"#),
        Ok(())
    );
    assert_eq!(
        check(r#"{"part":{"kind":"image","url":"http://example.com/a.png"}}"#),
        Err((toolgate::Code::PatternMismatch, "/part/url".to_owned()))
    );
}

/// A number held to a multiple inside an untagged union, with its schema
/// written by hand: `anyOf` of the number and a string.
macro_rules! stepped {
    ($name:ident, $tool:ident, $step:expr) => {
        #[derive(Debug, Deserialize)]
        #[serde(untagged)]
        pub enum $name {
            Number(f64),
            Text(String),
        }

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"anyOf": [
                    {"type": "number", "multipleOf": $step},
                    {"type": "string"}
                ]})
            }
        }

        /// Measure in steps.
        #[tool(effect = read)]
        pub fn $tool(#[garde(skip)] value: $name) -> Result<bool, ToolError> {
            Ok(matches!(value, $name::Number(_)))
        }
    };
}

stepped!(InTenths, tenths, 0.1);
stepped!(InQuarters, quarters, 0.25);
stepped!(InThrees, threes, 3);
stepped!(InTiny, tiny, 0.00001);

/// The walk before serde reads `multipleOf` as the jsonschema crate does:
/// numbers by their shortest decimal text (`0.3` is a multiple of `0.1`),
/// and exactly past what that holds.
#[test]
fn a_multiple_is_read_as_the_published_schema_reads_it() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Tenths).unwrap();
    toolbox.register(Quarters).unwrap();
    toolbox.register(Threes).unwrap();
    toolbox.register(Tiny).unwrap();
    let mut texts: Vec<String> = [
        "0",
        "-0",
        "0.0",
        "0.3",
        "0.30000000000000004",
        "0.35",
        "1e-7",
        "1e-5",
        "2e-5",
        "123.456",
        "1e20",
        "1e300",
        "-1e300",
        "5e-324",
        "1.7976931348623157e308",
        "9007199254740993",
        "18446744073709551616",
        "2.5",
        "7.5",
        "-7.5",
        "1E1",
        "1.0e2",
        "0.1",
        "0.2",
        "0.7",
    ]
    .iter()
    .map(|t| (*t).to_owned())
    .collect();
    for step in [0.1_f64, 0.25, 3.0, 0.00001] {
        for k in -30..30 {
            let n = f64::from(k) * step;
            texts.extend([n, n.next_up(), n.next_down(), n + step / 2.0].map(|n| format!("{n:?}")));
        }
    }
    let mut checked = 0;
    for tool in ["tenths", "quarters", "threes", "tiny"] {
        let schema = toolbox.definition(tool).unwrap().schema().clone();
        let validator = jsonschema::validator_for(&schema).unwrap();
        for text in &texts {
            let args = format!(r#"{{"value":{text}}}"#);
            let Ok(instance) = serde_json::from_str::<serde_json::Value>(&args) else {
                continue;
            };
            let server = toolgate::testing::check_arguments(&toolbox, tool, args.as_bytes());
            let server = server.unwrap();
            assert_eq!(
                server.is_ok(),
                validator.is_valid(&instance),
                "{tool}: {args}: {server:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 900, "{checked}");
}

/// Untagged, serde takes the first variant whose type reads the value:
/// any string is an `Airport` to serde, whatever the schema says. With
/// the airport's form a garde rule, the variant serde chose is checked.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged)]
pub enum Destination {
    Airport(#[garde(pattern(r"^[A-Z]{3}$"))] String),
    City(#[garde(length(chars, min = 1, max = 40))] String),
}

/// Fly somewhere.
#[tool(effect = read)]
pub fn fly(#[garde(dive)] to: Destination) -> Result<bool, ToolError> {
    Ok(matches!(to, Destination::Airport(_)))
}

#[test]
fn an_untagged_variant_serde_chose_is_held_to_its_own_rules() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Fly).unwrap();
    let schema = toolbox.definition("fly").unwrap().schema().clone();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let check = |args: &str| {
        toolgate::testing::check_arguments(&toolbox, "fly", args.as_bytes())
            .unwrap()
            .map_err(|r| r.code())
    };
    assert_eq!(check(r#"{"to":"LHR"}"#), Ok(()));
    // A city to the schema, an airport to serde: refused by the airport's
    // rule, the safe side of the difference.
    let city = r#"{"to":"lhr; drop"}"#;
    assert!(validator.is_valid(&serde_json::from_str(city).unwrap()));
    assert_eq!(check(city), Err(toolgate::Code::PatternMismatch));
}

/// Where registration cannot try a bound, each call is checked against
/// the schema's bounds before serde reads it.
mod untried {
    use super::*;
    use toolgate::testing::{check_arguments, checked_before_serde};

    fn refusal<S: Send + Sync + 'static>(
        toolbox: &Toolbox<S>,
        tool: &str,
        args: &str,
    ) -> Option<(toolgate::Code, String)> {
        let checked = check_arguments(toolbox, tool, args.as_bytes()).unwrap();
        checked.err().map(|r| (r.code(), r.path().to_owned()))
    }

    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Contact {
        /// An address of at most 20 characters, the length by the schema
        /// alone: a value past it beside a `format` is not easy to write.
        #[schemars(email, length(max = 20))]
        #[garde(skip)]
        pub email: String,
    }

    /// Add a contact.
    #[tool(effect = read)]
    pub fn add_contact(#[garde(dive)] contact: Contact) -> Result<usize, ToolError> {
        Ok(contact.email.len())
    }

    #[test]
    fn a_length_beside_a_format_is_checked_as_each_call_is_read() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(AddContact).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "add_contact"), Some(true));
        assert_eq!(
            refusal(
                &toolbox,
                "add_contact",
                r#"{"contact":{"email":"a@example.com"}}"#
            ),
            None
        );
        assert_eq!(
            refusal(
                &toolbox,
                "add_contact",
                r#"{"contact":{"email":"averyveryverylongname@example.com"}}"#
            ),
            Some((toolgate::Code::InvalidLength, "/contact/email".to_owned()))
        );
    }

    fn served(city: &str, _: &()) -> garde::Result {
        match city {
            "Paris" | "Lyon" => Ok(()),
            _ => Err(garde::Error::new("is not a city we serve")),
        }
    }

    /// A custom rule refuses the simplest instance, so registration tries
    /// nothing; the party's size is the schema's alone.
    #[tool(effect = read)]
    pub fn plan_tour(
        #[garde(custom(served))] city: String,
        #[garde(dive)] party: Party,
    ) -> Result<usize, ToolError> {
        Ok(city.len() + usize::from(party.size))
    }

    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Party {
        /// At most 12 people, by the schema alone.
        #[schemars(range(max = 12))]
        #[garde(skip)]
        pub size: u8,
    }

    #[test]
    fn bounds_of_a_tool_whose_simplest_call_is_refused_are_checked_as_each_call_is_read() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(PlanTour).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "plan_tour"), Some(true));
        assert_eq!(
            refusal(
                &toolbox,
                "plan_tour",
                r#"{"city":"Paris","party":{"size":12}}"#
            ),
            None
        );
        assert_eq!(
            refusal(
                &toolbox,
                "plan_tour",
                r#"{"city":"Paris","party":{"size":13}}"#
            ),
            Some((toolgate::Code::OutOfRange, "/party/size".to_owned()))
        );
        // A call, not only its gates 1–3.
        let ctx = toolgate::ToolContext::new("agent_1", "tenant_a", "req_1").allow_all_tools();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let call =
            |args: &'static str| runtime.block_on(toolbox.call(&ctx, "plan_tour", args.as_bytes()));
        assert!(matches!(
            call(r#"{"city":"Lyon","party":{"size":12}}"#),
            toolgate::Outcome::Done(_)
        ));
        match call(r#"{"city":"Lyon","party":{"size":13}}"#) {
            toolgate::Outcome::Rejected(r) => assert_eq!(r.code(), toolgate::Code::OutOfRange),
            other => panic!("{other:?}"),
        }
    }

    /// A hand-written `oneOf` whose branches nothing tells apart.
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    pub enum Code {
        Short(String),
    }

    impl JsonSchema for Code {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Code".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({"oneOf": [
                {"type": "string", "maxLength": 3},
                {"type": "string", "pattern": "^[0-9]+$"}
            ]})
        }
    }

    /// Redeem a code.
    #[tool(effect = read)]
    pub fn redeem(#[garde(skip)] code: Code) -> Result<bool, ToolError> {
        let Code::Short(code) = code;
        Ok(code.is_empty())
    }

    #[test]
    fn bounds_inside_a_hand_written_one_of_are_checked_as_each_call_is_read() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(Redeem).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "redeem"), Some(true));
        assert_eq!(refusal(&toolbox, "redeem", r#"{"code":"ab"}"#), None);
        assert_eq!(refusal(&toolbox, "redeem", r#"{"code":"123456"}"#), None);
        assert!(refusal(&toolbox, "redeem", r#"{"code":"abcdef"}"#).is_some());
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Column {
        Id,
        Status,
        Email,
    }

    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(transparent)]
    #[schemars(extend("uniqueItems" = true))]
    pub struct Columns(
        /// At most two, by the schema alone; each once, by a rule.
        #[schemars(length(max = 2))]
        #[garde(custom(each_once))]
        pub Vec<Column>,
    );

    fn each_once(columns: &[Column], _: &()) -> garde::Result {
        let twice = columns
            .iter()
            .enumerate()
            .any(|(i, c)| columns[..i].contains(c));
        if twice {
            Err(garde::Error::new("lists a column twice"))
        } else {
            Ok(())
        }
    }

    /// Pick columns.
    #[tool(effect = read)]
    pub fn pick_columns(#[garde(dive)] columns: Columns) -> Result<usize, ToolError> {
        Ok(columns.0.len())
    }

    #[test]
    fn an_item_count_where_items_must_differ_is_tried_with_different_items() {
        assert_eq!(
            unenforced(PickColumns),
            Some(("maxItems", "/columns".to_owned()))
        );
    }

    #[test]
    fn the_example_tools_are_read_in_one_pass() {
        use toolgate_examples::{export, hotel, invoice};
        let mut hotels = Toolbox::new(hotel::Hotels::demo());
        hotels.register(hotel::BookHotel).unwrap();
        assert_eq!(checked_before_serde(&hotels, "book_hotel"), Some(false));
        let mut accounts = Toolbox::new(export::Accounts::demo());
        accounts.register(export::ScheduleExport).unwrap();
        assert_eq!(
            checked_before_serde(&accounts, "schedule_export"),
            Some(false)
        );
        let mut billing = Toolbox::new(invoice::Billing::demo());
        billing.register(invoice::RefundInvoice).unwrap();
        assert_eq!(
            checked_before_serde(&billing, "refund_invoice"),
            Some(false)
        );
        let mut lookups = Toolbox::new(());
        lookups.register(LookUp).unwrap();
        assert_eq!(checked_before_serde(&lookups, "look_up"), Some(true));
    }
}

/// Places registration reaches in one way and not in another: each way is
/// tried, or checked on every call.
mod every_place {
    use super::*;
    use std::collections::HashMap;
    use toolgate::testing::{check_arguments, checked_before_serde};

    /// A short text: at most 3 characters, by a rule and the schema.
    #[derive(Debug, Deserialize, garde::Validate)]
    #[serde(transparent)]
    pub struct Short(#[garde(length(chars, max = 3))] pub String);

    impl JsonSchema for Short {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Short".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({"type": "string", "maxLength": 3})
        }
    }

    /// A text or a number, by a hand-written `oneOf` that names `Short`.
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    pub enum Either {
        Text(String),
        Number(i64),
    }

    impl JsonSchema for Either {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Either".into()
        }
        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            let short = generator.subschema_for::<Short>();
            schemars::json_schema!({"oneOf": [short, {"type": "integer"}]})
        }
    }

    /// Tag twice.
    #[tool(effect = read)]
    pub fn tag_twice(
        #[garde(dive)] first: Short,
        #[garde(skip)] second: Either,
    ) -> Result<bool, ToolError> {
        let second = match second {
            Either::Text(text) => text.len(),
            Either::Number(n) => usize::from(n == 0),
        };
        Ok(first.0.len() + second > 0)
    }

    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    pub struct Labels {
        #[garde(dive)]
        pub main: Short,
        #[serde(flatten)]
        #[garde(skip)]
        pub rest: HashMap<String, Short>,
    }

    /// Keep labels.
    #[tool(effect = read)]
    pub fn keep_labels(#[garde(dive)] labels: Labels) -> Result<usize, ToolError> {
        Ok(labels.rest.len())
    }

    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Amount {
        /// A double below 2^64, by the schema alone.
        #[schemars(extend("maximum" = 18446744073709551615u64))]
        #[garde(skip)]
        pub value: f64,
        /// An integer that is a multiple of a third, by the schema alone:
        /// only 0 is, as the schema reads it.
        #[schemars(extend("multipleOf" = 0.3333333333333333))]
        #[garde(skip)]
        pub thirds: i64,
        /// At most 0.1, which a single-precision float cannot hold.
        #[garde(range(max = 0.1))]
        pub ratio: f32,
    }

    /// Weigh an amount.
    #[tool(effect = read)]
    pub fn weigh(#[garde(dive)] amount: Amount) -> Result<bool, ToolError> {
        Ok(amount.value > 0.0 && amount.thirds == 0 && amount.ratio > 0.0)
    }

    fn refused<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str, args: &str) -> bool {
        check_arguments(toolbox, tool, args.as_bytes())
            .unwrap()
            .is_err()
    }

    #[test]
    fn a_definition_tried_in_one_place_is_checked_in_the_others() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(TagTwice).unwrap();
        toolbox.register(KeepLabels).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "tag_twice"), Some(true));
        assert!(!refused(
            &toolbox,
            "tag_twice",
            r#"{"first":"abc","second":"abc"}"#
        ));
        assert!(refused(
            &toolbox,
            "tag_twice",
            r#"{"first":"abc","second":"abcdefgh"}"#
        ));
        assert_eq!(checked_before_serde(&toolbox, "keep_labels"), Some(true));
        assert!(!refused(
            &toolbox,
            "keep_labels",
            r#"{"labels":{"main":"abc","x":"abc"}}"#
        ));
        assert!(refused(
            &toolbox,
            "keep_labels",
            r#"{"labels":{"main":"abc","x":"abcdefgh"}}"#
        ));
    }

    #[test]
    fn bounds_counted_enforced_only_where_they_are() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(Weigh).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "weigh"), Some(true));
        let call = |value: &str, thirds: &str, ratio: &str| {
            format!(r#"{{"amount":{{"value":{value},"thirds":{thirds},"ratio":{ratio}}}}}"#)
        };
        assert!(!refused(&toolbox, "weigh", &call("1.5", "0", "0.1")));
        assert!(refused(&toolbox, "weigh", &call("1e30", "0", "0.1")));
        assert!(refused(&toolbox, "weigh", &call("1.5", "3", "0.1")));
        assert!(refused(
            &toolbox,
            "weigh",
            &call("1.5", "0", "0.1000000001")
        ));
    }
}

/// `maxProperties` and `minProperties`: how many members an object has.
/// Registration puts an object with one member too many, or one too few,
/// where the schema states them; where it cannot, each call is checked.
mod member_counts {
    use super::*;
    use std::collections::{BTreeMap, HashMap};
    use toolgate::testing::{check_arguments, checked_before_serde};

    fn refusal<S: Send + Sync + 'static>(
        toolbox: &Toolbox<S>,
        tool: &str,
        args: &str,
    ) -> Option<(toolgate::Code, String, String)> {
        let checked = check_arguments(toolbox, tool, args.as_bytes()).unwrap();
        checked
            .err()
            .map(|r| (r.code(), r.path().to_owned(), r.safe_message().to_owned()))
    }

    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Stock {
        /// At most two entries, by the schema alone.
        #[schemars(extend("maxProperties" = 2))]
        #[garde(skip)]
        pub counts: HashMap<String, u32>,
    }

    /// Count stock.
    #[tool(effect = read)]
    pub fn count_stock(#[garde(dive)] stock: Stock) -> Result<usize, ToolError> {
        Ok(stock.counts.len())
    }

    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Shelf {
        /// At least two entries, by the schema alone.
        #[schemars(extend("minProperties" = 2))]
        #[garde(skip)]
        pub counts: BTreeMap<String, u32>,
    }

    /// Fill a shelf.
    #[tool(effect = read)]
    pub fn fill_shelf(#[garde(dive)] shelf: Shelf) -> Result<usize, ToolError> {
        Ok(shelf.counts.len())
    }

    #[test]
    fn a_map_size_the_schema_alone_states_is_refused() {
        assert_eq!(
            unenforced(CountStock),
            Some(("maxProperties", "/stock/counts".to_owned()))
        );
        assert_eq!(
            unenforced(FillShelf),
            Some(("minProperties", "/shelf/counts".to_owned()))
        );
    }

    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Kept {
        /// One to two entries, by the schema and a rule.
        #[schemars(extend("minProperties" = 1, "maxProperties" = 2))]
        #[garde(length(min = 1, max = 2))]
        pub counts: HashMap<String, u32>,
    }

    /// Keep stock.
    #[tool(effect = read)]
    pub fn keep_stock(#[garde(dive)] kept: Kept) -> Result<usize, ToolError> {
        Ok(kept.counts.len())
    }

    #[test]
    fn a_map_size_a_rule_enforces_is_tried_and_never_checked_again() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(KeepStock).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "keep_stock"), Some(false));
        let refused = refusal(&toolbox, "keep_stock", r#"{"kept":{"counts":{}}}"#).unwrap();
        assert_eq!(
            (refused.0, refused.1.as_str()),
            (toolgate::Code::InvalidLength, "/kept/counts")
        );
        assert!(
            refused.2.ends_with("must have 1 to 2 entries"),
            "{refused:?}"
        );
    }

    /// A window whose two bounds are each optional, and which must not
    /// have both: by the schema alone.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    #[schemars(extend("maxProperties" = 1))]
    pub struct Window {
        #[garde(skip)]
        pub from: Option<u32>,
        #[garde(skip)]
        pub to: Option<u32>,
    }

    /// Set a window.
    #[tool(effect = read)]
    pub fn set_window(#[garde(dive)] window: Window) -> Result<u32, ToolError> {
        Ok(window.from.or(window.to).unwrap_or_default())
    }

    /// A filter that must name something: by the schema alone.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    #[schemars(extend("minProperties" = 1))]
    pub struct Filter {
        #[garde(skip)]
        pub owner: Option<String>,
        #[garde(skip)]
        pub status: Option<String>,
    }

    /// Filter notes.
    #[tool(effect = read)]
    pub fn filter_notes(#[garde(dive)] filter: Filter) -> Result<bool, ToolError> {
        Ok(filter.owner.is_some() || filter.status.is_some())
    }

    /// A route that must have its note: three members, by the schema
    /// alone. The optional member's name comes first.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    #[schemars(extend("minProperties" = 3))]
    pub struct Route {
        #[garde(skip)]
        pub a_note: Option<String>,
        #[garde(skip)]
        pub from: String,
        #[garde(skip)]
        pub to: String,
    }

    /// Plan a route.
    #[tool(effect = read)]
    pub fn plan_route(#[garde(dive)] route: Route) -> Result<usize, ToolError> {
        Ok(route.a_note.map_or(0, |note| note.len()) + route.from.len() + route.to.len())
    }

    #[test]
    fn a_struct_member_count_the_schema_alone_states_is_refused() {
        // Too few members, all that are required there: the optional one
        // is left out first.
        assert_eq!(
            unenforced(PlanRoute),
            Some(("minProperties", "/route".to_owned()))
        );
        assert_eq!(
            unenforced(SetWindow),
            Some(("maxProperties", "/window".to_owned()))
        );
        assert_eq!(
            unenforced(FilterNotes),
            Some(("minProperties", "/filter".to_owned()))
        );
    }

    /// At most one member, which a closed struct of one field can never
    /// pass: the type holds the bound.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    #[schemars(extend("maxProperties" = 1))]
    pub struct One {
        #[garde(skip)]
        pub only: u32,
    }

    /// Take one.
    #[tool(effect = read)]
    pub fn take_one(#[garde(dive)] one: One) -> Result<u32, ToolError> {
        Ok(one.only)
    }

    #[test]
    fn a_member_count_the_type_holds_registers_and_is_read_in_one_pass() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(TakeOne).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "take_one"), Some(false));
    }

    fn known_aisle(aisle: &str, _: &()) -> garde::Result {
        match aisle {
            "north" | "south" => Ok(()),
            _ => Err(garde::Error::new("is not an aisle")),
        }
    }

    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Bins {
        /// At most two entries, by the schema alone, which states no other
        /// bound.
        #[schemars(extend("maxProperties" = 2))]
        #[garde(skip)]
        pub labels: HashMap<String, String>,
    }

    /// Restock an aisle: a custom rule refuses the simplest call, so
    /// registration tries nothing; the bins' size is the schema's alone.
    #[tool(effect = read)]
    pub fn restock(
        #[garde(custom(known_aisle))] aisle: String,
        #[garde(dive)] bins: Bins,
    ) -> Result<usize, ToolError> {
        Ok(aisle.len() + bins.labels.len())
    }

    #[test]
    fn member_counts_registration_cannot_try_are_checked_as_each_call_is_read() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(Restock).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "restock"), Some(true));
        let two = r#"{"aisle":"north","bins":{"labels":{"a":"x","b":"y"}}}"#;
        assert_eq!(refusal(&toolbox, "restock", two), None);
        let three = r#"{"aisle":"north","bins":{"labels":{"a":"x","b":"y","c":"z"}}}"#;
        let (code, path, message) = refusal(&toolbox, "restock", three).expect("three entries");
        assert_eq!(
            (code, path.as_str()),
            (toolgate::Code::InvalidLength, "/bins/labels")
        );
        assert!(
            message.ends_with("must have at most 2 entries"),
            "{message}"
        );
    }

    /// Stock by the schema alone, or a count: a hand-written `oneOf`,
    /// where registration tries no bound.
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    pub enum Tally {
        Counts(HashMap<String, u32>),
        Total(u32),
    }

    impl JsonSchema for Tally {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Tally".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({"oneOf": [
                {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0},
                    "minProperties": 1,
                    // A subschema that says nothing but a count.
                    "allOf": [{"maxProperties": 2}]
                },
                {"type": "integer", "minimum": 0}
            ]})
        }
    }

    /// Tally stock.
    #[tool(effect = read)]
    pub fn tally_stock(#[garde(skip)] tally: Tally) -> Result<usize, ToolError> {
        Ok(match tally {
            Tally::Counts(counts) => counts.len(),
            Tally::Total(total) => total as usize,
        })
    }

    #[test]
    fn member_counts_inside_a_union_are_checked_as_each_call_is_read() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(TallyStock).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "tally_stock"), Some(true));
        for ok in [
            r#"{"tally":{"a":1}}"#,
            r#"{"tally":{"a":1,"b":2}}"#,
            r#"{"tally":7}"#,
        ] {
            assert_eq!(refusal(&toolbox, "tally_stock", ok), None, "{ok}");
        }
        for refused in [r#"{"tally":{}}"#, r#"{"tally":{"a":1,"b":2,"c":3}}"#] {
            let (_, path, _) = refusal(&toolbox, "tally_stock", refused).expect(refused);
            assert_eq!(path, "/tally", "{refused}");
        }
        // Gate by gate, the same.
        for refused in [r#"{"tally":{}}"#, r#"{"tally":{"a":1,"b":2,"c":3}}"#] {
            let checked = toolgate::testing::check_arguments_gate_by_gate(
                &toolbox,
                "tally_stock",
                refused.as_bytes(),
            );
            assert!(checked.unwrap().is_err(), "{refused}");
        }
    }
}

/// `unevaluatedProperties: false`: an object holds only members some
/// subschema in its place lists. Registration puts an unlisted member in
/// where the schema states it; where it cannot, each call is checked.
mod unevaluated {
    use super::*;
    use toolgate::testing::{check_arguments, checked_before_serde};

    /// A sender whose schema says no other member, which the type does
    /// not hold: it ignores members it does not know.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[schemars(extend("unevaluatedProperties" = false))]
    pub struct Sender {
        #[garde(skip)]
        pub name: String,
    }

    /// Send from a sender.
    #[tool(effect = read)]
    pub fn send_from(#[garde(dive)] sender: Sender) -> Result<usize, ToolError> {
        Ok(sender.name.len())
    }

    /// The same, closed by its type.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    #[schemars(extend("unevaluatedProperties" = false))]
    pub struct Closed {
        #[garde(skip)]
        pub name: String,
    }

    /// Send from a closed sender.
    #[tool(effect = read)]
    pub fn send_closed(#[garde(dive)] sender: Closed) -> Result<usize, ToolError> {
        Ok(sender.name.len())
    }

    /// `true` says nothing: any member.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[schemars(extend("unevaluatedProperties" = true))]
    pub struct Open {
        #[garde(skip)]
        pub name: String,
    }

    /// Send from an open sender.
    #[tool(effect = read)]
    pub fn send_open(#[garde(dive)] sender: Open) -> Result<usize, ToolError> {
        Ok(sender.name.len())
    }

    #[test]
    fn a_member_no_subschema_lists_is_tried() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(SendOpen).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "send_open"), Some(false));
        assert_eq!(
            unenforced(SendFrom),
            Some(("unevaluatedProperties", "/sender".to_owned()))
        );
        toolbox.register(SendClosed).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "send_closed"), Some(false));
    }

    fn known_desk(desk: &str, _: &()) -> garde::Result {
        match desk {
            "front" | "back" => Ok(()),
            _ => Err(garde::Error::new("is not a desk")),
        }
    }

    /// A visitor: a name, and a badge or an escort named in one of two
    /// branches. The type reads any member it does not know, as the
    /// schema does not.
    #[derive(Debug, Deserialize, garde::Validate)]
    pub struct Visitor {
        #[garde(skip)]
        pub name: String,
        #[garde(skip)]
        pub badge: Option<u32>,
        #[garde(skip)]
        pub escort: Option<String>,
    }

    impl JsonSchema for Visitor {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Visitor".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
                "anyOf": [
                    {"properties": {"badge": {"type": "integer"}}, "required": ["badge"]},
                    {"properties": {"escort": {"type": "string"}}, "required": ["escort"]}
                ],
                "unevaluatedProperties": false
            })
        }
    }

    /// Sign a visitor in: a custom rule refuses the simplest call, so
    /// registration tries nothing.
    #[tool(effect = read)]
    pub fn sign_in(
        #[garde(custom(known_desk))] desk: String,
        #[garde(dive)] visitor: Visitor,
    ) -> Result<usize, ToolError> {
        let by = visitor.badge.map_or(0, |b| b as usize) + visitor.escort.map_or(0, |e| e.len());
        Ok(desk.len() + visitor.name.len() + by)
    }

    #[test]
    fn a_member_no_subschema_lists_is_refused_as_each_call_is_read() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(SignIn).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "sign_in"), Some(true));
        let check = |args: &str| check_arguments(&toolbox, "sign_in", args.as_bytes()).unwrap();
        for ok in [
            r#"{"desk":"front","visitor":{"name":"Ada","badge":7}}"#,
            r#"{"desk":"front","visitor":{"name":"Ada","escort":"Bo"}}"#,
        ] {
            assert!(check(ok).is_ok(), "{ok}: {:?}", check(ok));
        }
        let refused = check(r#"{"desk":"front","visitor":{"name":"Ada","badge":7,"vip":true}}"#)
            .expect_err("a member no branch lists");
        assert_eq!(
            (refused.code(), refused.path()),
            (toolgate::Code::UnknownField, "/visitor/vip")
        );
    }

    /// Send from a sender at a desk: a custom rule refuses the simplest
    /// call, so registration tries nothing, and nothing else is a bound.
    #[tool(effect = read)]
    pub fn send_at_desk(
        #[garde(custom(known_desk))] desk: String,
        #[garde(dive)] sender: Sender,
    ) -> Result<usize, ToolError> {
        Ok(desk.len() + sender.name.len())
    }

    #[test]
    fn an_untried_unevaluated_properties_is_checked_on_each_call() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(SendAtDesk).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "send_at_desk"), Some(true));
        let check = |args: &str| check_arguments(&toolbox, "send_at_desk", args.as_bytes());
        let ok = check(r#"{"desk":"back","sender":{"name":"Ada"}}"#).unwrap();
        assert!(ok.is_ok(), "{ok:?}");
        let refused = check(r#"{"desk":"back","sender":{"name":"Ada","cc":"Bo"}}"#).unwrap();
        let refused = refused.expect_err("a member the schema does not list");
        assert_eq!(
            (refused.code(), refused.path()),
            (toolgate::Code::UnknownField, "/sender/cc")
        );
    }

    /// Names a `patternProperties` lets through cannot be listed: the
    /// keyword is refused as one the gates do not read.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    #[schemars(extend(
        "patternProperties" = {"^x_": {"type": "string"}},
        "unevaluatedProperties" = false
    ))]
    pub struct Tagged {
        #[garde(skip)]
        pub name: String,
    }

    /// Keep a tagged thing.
    #[tool(effect = read)]
    pub fn keep_tagged(#[garde(dive)] tagged: Tagged) -> Result<usize, ToolError> {
        Ok(tagged.name.len())
    }

    #[test]
    fn unevaluated_members_beside_patterns_are_refused_as_unread() {
        match Toolbox::new(()).register(KeepTagged).unwrap_err() {
            RegisterError::UnreadKeyword { keyword, at, .. } => {
                assert_eq!(
                    (keyword, at.as_str()),
                    ("unevaluatedProperties", "/$defs/Tagged")
                );
            }
            other => panic!("refused for another reason: {other}"),
        }
    }
}

/// Where a refusal of the value put past a member count proves nothing
/// (the tool refused something else in it), or where no such value is
/// made, the bound is left untried and each call is checked against it.
mod counts_a_refusal_does_not_prove {
    use super::*;
    use std::collections::HashMap;
    use toolgate::testing::{check_arguments, checked_before_serde};

    fn verdict<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str, args: &str) -> bool {
        check_arguments(toolbox, tool, args.as_bytes())
            .unwrap()
            .is_ok()
    }

    /// Seats by row number: schemars writes `patternProperties` for the
    /// integer keys; a key of the map's own is not easy to write.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Seats {
        #[schemars(extend("maxProperties" = 1))]
        #[garde(skip)]
        pub by_row: HashMap<u32, String>,
    }

    /// Book seats.
    #[tool(effect = read)]
    pub fn book_seats(#[garde(dive)] seats: Seats) -> Result<usize, ToolError> {
        Ok(seats.by_row.len())
    }

    /// Labels and counts flattened beside them: the type takes other
    /// members, if numbers; the schema says nothing of their values.
    #[derive(Debug, Deserialize, garde::Validate)]
    pub struct Labels {
        #[garde(skip)]
        pub name: String,
        #[serde(flatten)]
        #[garde(skip)]
        pub extra: HashMap<String, u32>,
    }

    impl JsonSchema for Labels {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Labels".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
                "maxProperties": 2
            })
        }
    }

    /// Keep labels.
    #[tool(effect = read)]
    pub fn keep_counted_labels(#[garde(dive)] labels: Labels) -> Result<usize, ToolError> {
        Ok(labels.name.len() + labels.extra.len())
    }

    /// The same type, the schema saying no other member.
    #[derive(Debug, Deserialize, garde::Validate)]
    pub struct Sealed {
        #[garde(skip)]
        pub name: String,
        #[serde(flatten)]
        #[garde(skip)]
        pub extra: HashMap<String, u32>,
    }

    impl JsonSchema for Sealed {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Sealed".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
                "unevaluatedProperties": false
            })
        }
    }

    /// Keep a sealed label.
    #[tool(effect = read)]
    pub fn keep_sealed(#[garde(dive)] sealed: Sealed) -> Result<usize, ToolError> {
        Ok(sealed.name.len() + sealed.extra.len())
    }

    /// A count larger than registration writes values past.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    pub struct Wide {
        #[schemars(extend("maxProperties" = 100000))]
        #[garde(skip)]
        pub counts: HashMap<String, u32>,
    }

    /// Keep wide counts.
    #[tool(effect = read)]
    pub fn keep_wide(#[garde(dive)] wide: Wide) -> Result<usize, ToolError> {
        Ok(wide.counts.len())
    }

    #[test]
    fn a_count_past_which_no_refusal_proves_anything_is_checked_on_each_call() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(BookSeats).unwrap();
        toolbox.register(KeepCountedLabels).unwrap();
        toolbox.register(KeepSealed).unwrap();
        toolbox.register(KeepWide).unwrap();
        for tool in [
            "book_seats",
            "keep_counted_labels",
            "keep_sealed",
            "keep_wide",
        ] {
            assert_eq!(checked_before_serde(&toolbox, tool), Some(true), "{tool}");
        }
        let cases = [
            ("book_seats", r#"{"seats":{"by_row":{"1":"a"}}}"#, true),
            (
                "book_seats",
                r#"{"seats":{"by_row":{"1":"a","2":"b"}}}"#,
                false,
            ),
            (
                "keep_counted_labels",
                r#"{"labels":{"name":"a","x":1}}"#,
                true,
            ),
            (
                "keep_counted_labels",
                r#"{"labels":{"name":"a","x":1,"y":2}}"#,
                false,
            ),
            ("keep_sealed", r#"{"sealed":{"name":"a"}}"#, true),
            ("keep_sealed", r#"{"sealed":{"name":"a","x":1}}"#, false),
            ("keep_wide", r#"{"wide":{"counts":{"a":1}}}"#, true),
        ];
        for (tool, args, valid) in cases {
            assert_eq!(verdict(&toolbox, tool, args), valid, "{args}");
        }
    }

    fn set(value: &Option<String>, _: &()) -> garde::Result {
        match value {
            Some(_) => Ok(()),
            None => Err(garde::Error::new("must be sent")),
        }
    }

    /// A pair that must have both members, by the schema alone; a rule
    /// the schema does not state requires the one whose name comes last,
    /// which registration leaves out first.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    #[schemars(extend("minProperties" = 2))]
    pub struct Pair {
        #[garde(skip)]
        pub a: Option<String>,
        #[garde(custom(set))]
        pub z: Option<String>,
    }

    /// Keep a pair.
    #[tool(effect = read)]
    pub fn keep_pair(#[garde(dive)] pair: Pair) -> Result<usize, ToolError> {
        Ok(pair.a.map_or(0, |a| a.len()) + pair.z.map_or(0, |z| z.len()))
    }

    #[test]
    fn too_few_members_refused_for_a_rule_leave_the_count_untried() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(KeepPair).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "keep_pair"), Some(true));
        assert!(verdict(
            &toolbox,
            "keep_pair",
            r#"{"pair":{"a":"x","z":"y"}}"#
        ));
        assert!(!verdict(&toolbox, "keep_pair", r#"{"pair":{"z":"y"}}"#));
    }

    /// A time zone's name, of two letters or more: its type refuses a
    /// shorter one, which its schema does not say.
    #[derive(Debug, Deserialize)]
    #[serde(try_from = "String")]
    pub struct Zone(pub String);

    impl TryFrom<String> for Zone {
        type Error = &'static str;
        fn try_from(name: String) -> Result<Self, Self::Error> {
            if name.chars().count() < 2 {
                return Err("a zone's name has two letters or more");
            }
            Ok(Zone(name))
        }
    }

    impl Default for Zone {
        fn default() -> Self {
            Zone("UTC".to_owned())
        }
    }

    impl JsonSchema for Zone {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Zone".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({"type": "string"})
        }
    }

    /// A window with at most two members, by the schema alone. The
    /// simplest value of the member registration leaves out for the
    /// count, and puts back past it, is one its type refuses.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    #[schemars(extend("maxProperties" = 2))]
    pub struct Span {
        #[serde(default)]
        #[garde(skip)]
        pub from: String,
        #[serde(default)]
        #[garde(skip)]
        pub to: String,
        #[serde(default)]
        #[garde(skip)]
        pub zone: Zone,
    }

    /// Keep a span.
    #[tool(effect = read)]
    pub fn keep_span(#[garde(dive)] span: Span) -> Result<usize, ToolError> {
        Ok(span.from.len() + span.to.len() + span.zone.0.len())
    }

    #[test]
    fn too_many_members_refused_for_a_member_leave_the_count_untried() {
        let mut toolbox = Toolbox::new(());
        toolbox.register(KeepSpan).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "keep_span"), Some(true));
        assert!(verdict(
            &toolbox,
            "keep_span",
            r#"{"span":{"from":"a","zone":"CET"}}"#
        ));
        let three = r#"{"span":{"from":"a","to":"b","zone":"CET"}}"#;
        assert!(!verdict(&toolbox, "keep_span", three));
    }

    /// A count written as a float: the gates read whole numbers.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    pub struct Floated {
        #[schemars(extend("maxProperties" = 1.0))]
        #[garde(skip)]
        pub counts: HashMap<String, u32>,
    }

    /// Keep floated counts.
    #[tool(effect = read)]
    pub fn keep_floated(#[garde(dive)] floated: Floated) -> Result<usize, ToolError> {
        Ok(floated.counts.len())
    }

    /// `unevaluatedProperties` beside a map's own `additionalProperties`:
    /// every member is evaluated, so it says nothing.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    pub struct Tallied {
        #[schemars(extend("unevaluatedProperties" = false))]
        #[garde(skip)]
        pub counts: HashMap<String, String>,
    }

    /// Keep tallied counts.
    #[tool(effect = read)]
    pub fn keep_tallied(#[garde(dive)] tallied: Tallied) -> Result<usize, ToolError> {
        Ok(tallied.counts.len())
    }

    #[test]
    fn a_float_count_is_refused_and_a_keyword_that_says_nothing_registers() {
        match Toolbox::new(()).register(KeepFloated).unwrap_err() {
            RegisterError::UnreadKeyword { keyword, at, .. } => {
                assert_eq!(keyword, "maxProperties");
                assert!(at.ends_with("/counts"), "{at}");
            }
            other => panic!("refused for another reason: {other}"),
        }
        let mut toolbox = Toolbox::new(());
        toolbox.register(KeepTallied).unwrap();
        assert_eq!(checked_before_serde(&toolbox, "keep_tallied"), Some(false));
    }
}
