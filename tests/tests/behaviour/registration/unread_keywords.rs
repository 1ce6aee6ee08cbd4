//! Registration refuses a tool whose schema states a keyword the gates do
//! not read: `if` with `then` or `else`, `dependentRequired`,
//! `dependentSchemas`, `propertyNames`, `contains`, `unevaluatedItems`,
//! `$dynamicRef`, `items` as a list, a `$ref` the gates cannot follow, and
//! `not` other than `not` of nothing or of one value. No derive writes
//! them; `#[schemars(extend(…))]` or a hand-written schema can, and
//! without this check the server would accept calls the schema it
//! publishes refuses. `not` naming one value (`{"not":{"const":0}}`, which
//! schemars writes for the signed `NonZero` integers) is tried as a bound
//! is: the value must be refused where the schema states it. The `$ref`s
//! of types whose names schemars percent-encodes are followed, by the
//! gates and by the exports.

use std::collections::BTreeMap;
use std::num::NonZeroI32;

use schemars::JsonSchema;
use serde::Deserialize;
use toolgate::{RegisterError, ToolError, Toolbox, tool};

/// The keyword and place registration names for `tool`, if it refuses it
/// for a keyword it does not read.
fn unread<T: toolgate::Tool<()> + 'static>(tool: T) -> Option<(&'static str, String)> {
    match Toolbox::new(()).register(tool).err()? {
        RegisterError::UnreadKeyword { keyword, at, .. } => Some((keyword, at)),
        other => panic!("refused for another reason: {other}"),
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
#[schemars(extend("if" = {"properties": {"kind": {"const": "card"}}}, "then" = {"required": ["last4"]}))]
pub struct Payment {
    #[garde(skip)]
    pub kind: String,
    #[garde(skip)]
    pub last4: Option<String>,
}

/// Pay.
#[tool(effect = read)]
pub fn pay(#[garde(dive)] payment: Payment) -> Result<usize, ToolError> {
    Ok(payment.kind.len() + payment.last4.map_or(0, |l| l.len()))
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
#[schemars(extend("if" = {"properties": {"kind": {"const": "card"}}}))]
pub struct Tip {
    #[garde(skip)]
    pub kind: String,
}

/// Leave a tip: `if` alone says nothing.
#[tool(effect = read)]
pub fn leave_tip(#[garde(dive)] tip: Tip) -> Result<usize, ToolError> {
    Ok(tip.kind.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
#[schemars(extend("dependentRequired" = {"city": ["country"]}))]
pub struct Address {
    #[garde(skip)]
    pub city: Option<String>,
    #[garde(skip)]
    pub country: Option<String>,
}

/// Ship somewhere.
#[tool(effect = read)]
pub fn ship(#[garde(dive)] to: Address) -> Result<bool, ToolError> {
    Ok(to.city.is_some() && to.country.is_some())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Labels {
    /// Lower-case names only, by the schema alone.
    #[schemars(extend("propertyNames" = {"pattern": "^[a-z]+$"}))]
    #[garde(skip)]
    pub labels: BTreeMap<String, String>,
}

/// Label a note.
#[tool(effect = read)]
pub fn label_note(#[garde(dive)] labels: Labels) -> Result<usize, ToolError> {
    Ok(labels.labels.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Draw {
    /// Must hold a 7, by the schema alone.
    #[schemars(extend("contains" = {"const": 7}))]
    #[garde(skip)]
    pub numbers: Vec<u8>,
}

/// Enter a draw.
#[tool(effect = read)]
pub fn enter_draw(#[garde(dive)] draw: Draw) -> Result<usize, ToolError> {
    Ok(draw.numbers.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Word {
    /// Anything but a number, by the schema alone.
    #[schemars(extend("not" = {"type": "string", "pattern": "^[0-9]+$"}))]
    #[garde(skip)]
    pub word: String,
}

/// Say a word.
#[tool(effect = read)]
pub fn say_word(#[garde(dive)] word: Word) -> Result<usize, ToolError> {
    Ok(word.word.len())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Offset {
    /// Not zero, by the type itself: schemars writes `"not":{"const":0}`.
    #[garde(skip)]
    pub by: NonZeroI32,
}

/// Move by an offset.
#[tool(effect = read)]
pub fn move_by(#[garde(dive)] offset: Offset) -> Result<i32, ToolError> {
    Ok(offset.by.get())
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Seat {
    /// Not seat 13, by the schema alone.
    #[schemars(extend("not" = {"const": 13}))]
    #[garde(skip)]
    pub seat: u8,
}

/// Book a seat.
#[tool(effect = read)]
pub fn book_seat(#[garde(dive)] seat: Seat) -> Result<u8, ToolError> {
    Ok(seat.seat)
}

fn not_thirteen(seat: &u8, _: &()) -> garde::Result {
    match seat {
        13 => Err(garde::Error::new("is not a seat")),
        _ => Ok(()),
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct CheckedSeat {
    /// Not seat 13, by the schema and a rule.
    #[schemars(extend("not" = {"const": 13}))]
    #[garde(custom(not_thirteen))]
    pub seat: u8,
}

/// Book a seat, the schema's `not` held by a rule.
#[tool(effect = read)]
pub fn book_checked_seat(#[garde(dive)] seat: CheckedSeat) -> Result<u8, ToolError> {
    Ok(seat.seat)
}

#[test]
fn each_keyword_the_gates_do_not_read_is_refused_where_it_is_stated() {
    assert_eq!(unread(Pay), Some(("if", "/$defs/Payment".to_owned())));
    assert_eq!(
        unread(Ship),
        Some(("dependentRequired", "/$defs/Address".to_owned()))
    );
    assert_eq!(
        unread(LabelNote),
        Some((
            "propertyNames",
            "/$defs/Labels/properties/labels".to_owned()
        ))
    );
    assert_eq!(
        unread(EnterDraw),
        Some(("contains", "/$defs/Draw/properties/numbers".to_owned()))
    );
    assert_eq!(
        unread(SayWord),
        Some(("not", "/$defs/Word/properties/word".to_owned()))
    );
}

#[test]
fn a_keyword_that_says_nothing_alone_registers() {
    assert_eq!(unread(LeaveTip), None);
}

/// `not` naming a value is tried: a type that refuses it registers, one
/// that takes it is refused as a bound nothing enforces.
#[test]
fn not_naming_a_value_is_tried() {
    assert_eq!(unread(MoveBy), None);
    assert_eq!(unread(BookCheckedSeat), None);
    match Toolbox::new(()).register(BookSeat).err() {
        Some(RegisterError::UnenforcedBound { keyword, at, .. }) => {
            assert_eq!((keyword, at.as_str()), ("not", "/seat/seat"));
        }
        other => panic!("expected the `not` refused as unenforced, got {other:?}"),
    }
}

/// The error names the tool, the keyword and where the schema states it,
/// and says what to do.
#[test]
fn the_refusal_says_what_and_where() {
    let Err(error) = Toolbox::new(()).register(Ship) else {
        panic!("registered");
    };
    let text = error.to_string();
    for part in ["`ship`", "`dependentRequired`", "`/$defs/Address`", "garde"] {
        assert!(text.contains(part), "{part} not in: {text}");
    }
}

/// A tool whose `NonZeroI32` the schema states as `not` zero takes every
/// other value and refuses zero, with the code the type's refusal has.
#[test]
fn a_nonzero_argument_refuses_zero_and_takes_the_rest() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(MoveBy).unwrap();
    // Zero tried and refused at registration: read in one pass.
    assert_eq!(
        toolgate::testing::checked_before_serde(&toolbox, "move_by"),
        Some(false)
    );
    for (by, valid) in [(1, true), (-7, true), (0, false)] {
        let arguments = format!(r#"{{"offset":{{"by":{by}}}}}"#);
        let checked = toolgate::testing::check_arguments(&toolbox, "move_by", arguments.as_bytes());
        assert_eq!(checked.map(|r| r.is_ok()), Some(valid), "{arguments}");
    }
}

/// A row number the schema states is not 13, by its hand-written schema
/// alone: the type takes any `u8`.
#[derive(Debug, Deserialize)]
pub struct Row(pub u8);

impl JsonSchema for Row {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Row".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "minimum": 0, "maximum": 255, "not": {"const": 13}})
    }
}

/// A place: a row, or a named area, told apart by nothing but the value.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged)]
pub enum Place {
    Row(#[garde(skip)] Row),
    Area(#[garde(skip)] String),
}

/// Sit somewhere.
#[tool(effect = read)]
pub fn sit(#[garde(dive)] place: Place) -> Result<bool, ToolError> {
    Ok(matches!(place, Place::Row(_)))
}

/// Inside an untagged union no value can be tried (another branch may
/// take it): the tool is checked against the schema's bounds before serde
/// reads each call, and the value a `not` names is one of them.
#[test]
fn a_value_not_names_where_it_cannot_be_tried_is_checked_on_each_call() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Sit).unwrap();
    assert_eq!(
        toolgate::testing::checked_before_serde(&toolbox, "sit"),
        Some(true)
    );
    for (place, valid) in [
        ("12", true),
        ("\"hall\"", true),
        ("13", false),
        ("13.0", false),
    ] {
        let arguments = format!(r#"{{"place":{place}}}"#);
        let checked = toolgate::testing::check_arguments(&toolbox, "sit", arguments.as_bytes());
        assert_eq!(checked.map(|r| r.is_ok()), Some(valid), "{arguments}");
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[garde(skip)]
    pub by: NonZeroI32,
    /// At most three characters, by the schema alone.
    #[schemars(length(max = 3))]
    #[garde(skip)]
    pub note: String,
}

/// Move, with a note.
#[tool(effect = read)]
pub fn move_with_note(#[garde(dive)] step: Step) -> Result<i32, ToolError> {
    Ok(step.by.get())
}

/// The instance registration tries bounds in writes a value the `not`
/// does not name (not zero, for a `NonZeroI32`): were it refused as
/// built, no bound beside it would be tried, and the one nothing enforces
/// here would go unnoticed.
#[test]
fn a_nonzero_argument_leaves_the_bounds_beside_it_tried() {
    match Toolbox::new(()).register(MoveWithNote).err() {
        Some(RegisterError::UnenforcedBound { keyword, at, .. }) => {
            assert_eq!((keyword, at.as_str()), ("maxLength", "/step/note"));
        }
        other => panic!("expected the note's bound refused as unenforced, got {other:?}"),
    }
}

/// Zero for a `NonZeroI32` is refused with what the schema says of it.
#[test]
fn zero_for_a_nonzero_argument_is_refused_as_the_value_not_names() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(MoveBy).unwrap();
    let refused =
        toolgate::testing::check_arguments(&toolbox, "move_by", br#"{"offset":{"by":0}}"#);
    let Some(Err(rejection)) = refused else {
        panic!("zero taken: {refused:?}");
    };
    assert_eq!(rejection.path(), "/offset/by");
    assert!(
        rejection.safe_message().contains("must not be 0"),
        "{}",
        rejection.safe_message()
    );
}

/// Documented and empty: schemars writes `{"not":{}}` with the
/// description, which accepts nothing, as the type does.
#[derive(Debug, Deserialize, JsonSchema)]
pub enum Never {}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub enum Outcome {
    Done(#[garde(skip)] u8),
    Failed(#[garde(skip)] Never),
}

/// Record an outcome.
#[tool(effect = read)]
pub fn record_outcome(#[garde(dive)] outcome: Outcome) -> Result<bool, ToolError> {
    Ok(matches!(outcome, Outcome::Done(_)))
}

#[test]
fn not_of_nothing_accepts_nothing_and_registers() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(RecordOutcome).unwrap();
    // Not a bound: read in one pass.
    assert_eq!(
        toolgate::testing::checked_before_serde(&toolbox, "record_outcome"),
        Some(false)
    );
    for (outcome, valid) in [(r#"{"Done":1}"#, true), (r#"{"Failed":null}"#, false)] {
        let arguments = format!(r#"{{"outcome":{outcome}}}"#);
        let checked =
            toolgate::testing::check_arguments(&toolbox, "record_outcome", arguments.as_bytes());
        assert_eq!(checked.map(|r| r.is_ok()), Some(valid), "{arguments}");
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NonZeroRow(pub NonZeroI32);

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct BesideRef {
    /// Not 13, beside the `$ref` to a type that refuses 0 itself.
    #[schemars(extend("not" = {"const": 13}))]
    #[garde(skip)]
    pub row: NonZeroRow,
    /// At most 5, beside the `$ref` to a plain number's newtype.
    #[schemars(extend("maximum" = 5))]
    #[garde(skip)]
    pub rank: Rank,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Rank(pub u8);

/// Sit in a row.
#[tool(effect = read)]
pub fn sit_beside(#[garde(dive)] at: BesideRef) -> Result<i32, ToolError> {
    Ok(at.row.0.get() + i32::from(at.rank.0))
}

/// The keywords beside a `$ref` are never tried (the target's are, where
/// the `$ref` stands): the target's own `not` or `maximum` must not count
/// for them, and each call is checked against them before serde reads it.
#[test]
fn bounds_beside_a_ref_are_not_taken_for_the_targets() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(SitBeside).unwrap();
    assert_eq!(
        toolgate::testing::checked_before_serde(&toolbox, "sit_beside"),
        Some(true)
    );
    for (at, valid) in [
        (r#"{"row":12,"rank":5}"#, true),
        (r#"{"row":13,"rank":5}"#, false),
        (r#"{"row":12,"rank":9}"#, false),
    ] {
        let arguments = format!(r#"{{"at":{at}}}"#);
        let checked =
            toolgate::testing::check_arguments(&toolbox, "sit_beside", arguments.as_bytes());
        assert_eq!(checked.map(|r| r.is_ok()), Some(valid), "{arguments}");
    }
    // The refusal states the bound crossed, the one beside the `$ref`,
    // with the target's own below it.
    let refused = toolgate::testing::check_arguments(
        &toolbox,
        "sit_beside",
        br#"{"at":{"row":12,"rank":9}}"#,
    );
    let refused = refused.unwrap().unwrap_err();
    assert_eq!(
        (refused.code(), refused.path()),
        (toolgate::Code::OutOfRange, "/at/rank")
    );
    assert!(
        refused.safe_message().ends_with("must be between 0 and 5"),
        "{refused:?}"
    );
}

/// A type renamed with a space: schemars percent-encodes the name in the
/// `$ref` (`#/$defs/Seat%20Request`), which the gates decode.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(rename = "Seat Request", deny_unknown_fields)]
pub struct SeatRequest {
    #[garde(range(max = 5))]
    pub row: u8,
}

/// Request a seat.
#[tool(effect = read)]
pub fn request_seat(#[garde(dive)] seat: SeatRequest) -> Result<u8, ToolError> {
    Ok(seat.row)
}

#[test]
fn a_ref_to_a_name_with_a_space_is_followed() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(RequestSeat).unwrap();
    let schema = toolbox
        .definition("request_seat")
        .unwrap()
        .schema()
        .to_string();
    assert!(schema.contains("Seat%20Request"), "{schema}");
    // serde's struct reads an array by position; the schema says object.
    for (seat, valid) in [(r#"{"row":1}"#, true), ("[1]", false)] {
        let arguments = format!(r#"{{"seat":{seat}}}"#);
        let checked =
            toolgate::testing::check_arguments(&toolbox, "request_seat", arguments.as_bytes());
        assert_eq!(checked.map(|r| r.is_ok()), Some(valid), "{arguments}");
    }
    // An export keeps the definition the `$ref` names.
    let exported = toolgate::providers::anthropic::tool(
        RequestSeat::definition(),
        toolgate::providers::Strictness::NonStrict,
    )
    .unwrap();
    assert!(
        exported["input_schema"]["$defs"]
            .get("Seat Request")
            .is_some(),
        "{exported}"
    );
}

/// Its schema names, through a `$ref`, a subschema kept under a keyword
/// no schema stands under, which holds an unread keyword.
pub struct HiddenOdd(pub i64);

impl<'de> Deserialize<'de> for HiddenOdd {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        i64::deserialize(d).map(HiddenOdd)
    }
}

impl JsonSchema for HiddenOdd {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HiddenOdd".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "x-library": {"odd": {"type": "integer", "not": {"multipleOf": 2}}},
            "$ref": "#/$defs/HiddenOdd/x-library/odd"
        })
    }
}

/// Count odd.
#[tool(effect = read)]
pub fn count_odd(#[garde(skip)] n: HiddenOdd) -> Result<i64, ToolError> {
    Ok(n.0)
}

/// Its schema names a subschema by an `$anchor`, which the gates do not
/// follow.
pub struct Anchored(pub i64);

impl<'de> Deserialize<'de> for Anchored {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        i64::deserialize(d).map(Anchored)
    }
}

impl JsonSchema for Anchored {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Anchored".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "$defs": {"Small": {"$anchor": "small", "type": "integer", "maximum": 5}},
            "$ref": "#small"
        })
    }
}

/// Count small.
#[tool(effect = read)]
pub fn count_small(#[garde(skip)] n: Anchored) -> Result<i64, ToolError> {
    Ok(n.0)
}

#[test]
fn a_keyword_reached_only_by_a_ref_and_a_ref_not_followed_are_refused() {
    assert_eq!(unread(CountOdd).map(|(keyword, _)| keyword), Some("not"));
    assert_eq!(unread(CountSmall).map(|(keyword, _)| keyword), Some("$ref"));
    let Err(error) = Toolbox::new(()).register(CountSmall) else {
        panic!("registered");
    };
    assert!(error.to_string().contains("cannot follow"), "{error}");
}

fn multiple_of_five(n: &NonZeroI32, _: &()) -> garde::Result {
    match n.get() % 5 {
        0 => Ok(()),
        _ => Err(garde::Error::new("must be a multiple of 5")),
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Jump {
    /// A multiple of five, not zero.
    #[schemars(extend("multipleOf" = 5))]
    #[garde(custom(multiple_of_five))]
    pub by: NonZeroI32,
}

/// Stride.
#[tool(effect = read)]
pub fn stride(#[garde(dive)] jump: Jump) -> Result<i32, ToolError> {
    Ok(jump.by.get())
}

/// No multiple of five but zero is among the first few integers the
/// instance is built from: a multiple itself is one of them.
#[test]
fn a_nonzero_multiple_is_written_for_the_instance() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Stride).unwrap();
    assert_eq!(
        toolgate::testing::checked_before_serde(&toolbox, "stride"),
        Some(false)
    );
}

/// Takes any value; its schema, by hand, takes none.
pub struct Nothing;

impl<'de> Deserialize<'de> for Nothing {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| Nothing)
    }
}

impl JsonSchema for Nothing {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Nothing".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"not": {}, "description": "Nothing at all."})
    }
}

/// Take nothing.
#[tool(effect = read)]
pub fn take_nothing(#[garde(skip)] nothing: Option<Nothing>) -> Result<bool, ToolError> {
    Ok(nothing.is_some())
}

/// `not` of nothing is read as `false` by the gates, whatever the type
/// takes.
#[test]
fn not_of_nothing_is_refused_whatever_the_type_takes() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(TakeNothing).unwrap();
    for (arguments, valid) in [
        ("{}", true),
        (r#"{"nothing":1}"#, false),
        (r#"{"nothing":{}}"#, false),
    ] {
        let checked =
            toolgate::testing::check_arguments(&toolbox, "take_nothing", arguments.as_bytes());
        assert_eq!(checked.map(|r| r.is_ok()), Some(valid), "{arguments}");
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
pub struct Holder {
    /// Documented: the export inlines the definition, its description
    /// beside the `$ref`.
    #[garde(dive)]
    pub seat: SeatRequest,
}

/// Hold a seat.
#[tool(effect = read)]
pub fn hold_seat(#[garde(dive)] holder: Holder) -> Result<u8, ToolError> {
    Ok(holder.seat.row)
}

/// Every dialect follows a percent-encoded `$ref`, inlined or kept.
#[test]
fn exports_follow_a_percent_encoded_ref() {
    use toolgate::providers::{Strictness, anthropic, gemini, openai};
    let def = HoldSeat::definition();
    gemini::function_declaration(def).unwrap();
    for strictness in [Strictness::Strict, Strictness::NonStrict] {
        anthropic::tool(def, strictness).unwrap();
        openai::chat_tool(def, strictness).unwrap();
    }
}

/// `$defs` written as a list, which no schema keyword's walk descends:
/// a `$ref` into it names a place the walk never read.
pub struct Listed(pub i64);

impl<'de> Deserialize<'de> for Listed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        i64::deserialize(d).map(Listed)
    }
}

impl JsonSchema for Listed {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Listed".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "$defs": [{"type": "integer", "not": {"multipleOf": 2}}],
            "$ref": "#/$defs/Listed/$defs/0"
        })
    }
}

/// Count listed.
#[tool(effect = read)]
pub fn count_listed(#[garde(skip)] n: Listed) -> Result<i64, ToolError> {
    Ok(n.0)
}

/// Tuples as draft 7 writes them: `items` a list, which the gates do not
/// read (they read `prefixItems`).
pub struct Pair(pub Vec<i64>);

impl<'de> Deserialize<'de> for Pair {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<i64>::deserialize(d).map(Pair)
    }
}

impl JsonSchema for Pair {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Pair".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "array",
            "items": [{"type": "integer", "maximum": 5}, {"type": "integer"}]
        })
    }
}

/// Take a pair.
#[tool(effect = read)]
pub fn take_pair(#[garde(skip)] pair: Pair) -> Result<usize, ToolError> {
    Ok(pair.0.len())
}

#[test]
fn a_ref_into_a_keyword_of_the_wrong_kind_and_a_list_of_items_are_refused() {
    assert_eq!(unread(CountListed).map(|(keyword, _)| keyword), Some("not"));
    assert_eq!(unread(TakePair).map(|(keyword, _)| keyword), Some("items"));
}
