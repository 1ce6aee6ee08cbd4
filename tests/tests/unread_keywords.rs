//! Registration refuses a tool whose schema states a keyword the gates do
//! not read: `if` with `then` or `else`, `dependentRequired`,
//! `dependentSchemas`, `propertyNames`, `contains`, `unevaluatedItems`,
//! `$dynamicRef`, and `not` other than the values a type refuses. No
//! derive writes them; `#[schemars(extend(…))]` or a hand-written schema
//! can, and without this check the server would accept calls the schema it
//! publishes refuses. `not` naming values (`{"not":{"const":0}}`, which
//! schemars writes for the signed `NonZero` integers) is tried as a bound
//! is: the value must be refused where the schema states it.

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
fn not_naming_values_is_tried() {
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
