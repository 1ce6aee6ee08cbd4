//! Tools for the validator agreement test
//! (`behaviour/schema/validator_agreement.rs`): between them, every shape
//! of argument the macro accepts, with rules whose meaning JSON Schema
//! states exactly. Their fields are read by serde and garde only.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::Deserialize;
use toolgate::{ToolError, Toolbox, tool};

/// A nested struct with renamed fields.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Point {
    #[garde(range(min = -100, max = 100))]
    pub x_pos: i32,
    #[garde(skip)]
    pub y_pos: i16,
}

/// Strings with a length, a pattern, and both.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Label {
    #[garde(length(chars, min = 2, max = 6))]
    pub text: String,
    #[serde(rename = "code")]
    #[garde(pattern(r"^[A-Z]{2}-[0-9]{1,4}$"))]
    pub code_value: Option<String>,
    #[garde(pattern(r"^(red|green)_[a-z]+$"), length(chars, min = 5, max = 9))]
    pub tint: Option<String>,
}

/// Nested structs, options, vectors and renamed fields.
#[tool(effect = read)]
pub fn nested(
    #[garde(dive)] origin: Point,
    #[garde(dive)] target: Option<Point>,
    #[garde(length(min = 1, max = 4), dive)] labels: Vec<Label>,
    #[serde(rename = "noteText")]
    #[garde(length(min = 0, max = 5))]
    note: Option<String>,
    // `inner` on an option of a value: the value's own rules.
    #[garde(inner(length(min = 1, max = 3)))] nickname: Option<String>,
    #[garde(inner(range(min = 1, max = 9)))] rank: Option<u8>,
) -> Result<(), ToolError> {
    let _ = (origin, target, labels, note, nickname, rank);
    Ok(())
}

/// Integers of every width, and floats.
#[tool(effect = read)]
#[allow(clippy::too_many_arguments)]
pub fn widths(
    a: u8,
    b: u16,
    c: u32,
    d: u64,
    e: i8,
    f: i16,
    g: i32,
    h: i64,
    #[garde(range(min = 10, max = 20))] r: u8,
    #[garde(range(min = -3, max = 3))] s: i64,
    #[garde(range(min = -1.5, max = 2.5))] x: f64,
    y: f64,
) -> Result<(), ToolError> {
    let _ = (a, b, c, d, e, f, g, h, r, s, x, y);
    Ok(())
}

/// Maps by string key, fixed arrays and tuples.
#[tool(effect = read)]
pub fn collections(
    #[garde(skip)] scores: HashMap<String, u8>,
    #[garde(dive)] places: BTreeMap<String, Point>,
    #[garde(skip)] rgb: [u8; 3],
    #[garde(skip)] pair: (u8, String),
    #[garde(length(max = 2), inner(length(min = 1, max = 3)))] tags: Vec<String>,
) -> Result<(), ToolError> {
    let _ = (scores, places, rgb, pair, tags);
    Ok(())
}

/// Maps the schema and the server once read differently (issue 9 items 1
/// and 2, issue 50 item 19): a `length` rule on a map, integer keys past
/// the key type's range or written with escapes.
pub mod open {
    use std::num::{NonZeroI64, NonZeroU8, NonZeroU32};

    use super::*;

    /// A map with a size rule.
    #[tool(effect = read)]
    pub fn sized_map(
        #[garde(length(min = 1, max = 3))] scores: HashMap<String, u8>,
    ) -> Result<(), ToolError> {
        let _ = scores;
        Ok(())
    }

    /// A floor: maps by integer key inside a struct, inside a list.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Floor {
        #[garde(skip)]
        pub rooms: BTreeMap<u16, String>,
        #[garde(skip)]
        pub doors: Option<HashMap<NonZeroU8, bool>>,
    }

    /// Maps by integer key: every integer type, at the top and nested.
    #[tool(effect = read)]
    pub fn integer_keys(
        #[garde(skip)] by_id: BTreeMap<u32, String>,
        #[garde(skip)] by_offset: BTreeMap<i8, u8>,
        #[garde(skip)] by_byte: Option<HashMap<u8, bool>>,
        #[garde(skip)] by_short: Option<BTreeMap<i16, bool>>,
        #[garde(skip)] by_int: Option<HashMap<i32, bool>>,
        #[garde(skip)] by_long: Option<BTreeMap<i64, bool>>,
        #[garde(skip)] by_unsigned: Option<HashMap<u64, bool>>,
        #[garde(skip)] by_wide: Option<BTreeMap<i128, bool>>,
        #[garde(skip)] by_unsigned_wide: Option<BTreeMap<u128, bool>>,
        #[garde(skip)] by_size: Option<BTreeMap<usize, bool>>,
        #[garde(skip)] by_signed_size: Option<HashMap<isize, bool>>,
        #[garde(skip)] by_nonzero: Option<BTreeMap<NonZeroU32, bool>>,
        #[garde(skip)] by_nonzero_signed: Option<BTreeMap<NonZeroI64, bool>>,
        #[garde(skip)] grid: Option<BTreeMap<u8, BTreeMap<i8, bool>>>,
        #[garde(dive)] floors: Vec<Floor>,
    ) -> Result<(), ToolError> {
        let _ = (by_id, by_offset, by_byte, by_short, by_int, by_long);
        let _ = (
            by_unsigned,
            by_wide,
            by_unsigned_wide,
            by_size,
            by_signed_size,
        );
        let _ = (by_nonzero, by_nonzero_signed, grid, floors);
        Ok(())
    }

    /// A shade, each variant documented: schemars writes its names as a
    /// union of constants, which says nothing of a map keyed by it.
    #[derive(Debug, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
    #[serde(rename_all = "snake_case")]
    pub enum Shade {
        /// As pale as it comes.
        Light,
        /// As deep as it comes.
        Dark,
    }

    /// A room number: a newtype over an integer, read as the integer.
    #[derive(Debug, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub struct RoomNumber(pub u16);

    /// A switchboard: maps by `bool`, `char`, documented enum and
    /// integer newtype keys inside a struct, inside a list.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Board {
        #[garde(skip)]
        pub by_state: HashMap<bool, u8>,
        #[garde(skip)]
        pub by_initial: Option<BTreeMap<char, bool>>,
        #[garde(skip)]
        pub by_shade: Option<BTreeMap<Shade, u8>>,
        #[garde(skip)]
        pub by_room: Option<BTreeMap<RoomNumber, bool>>,
    }

    /// Maps by `bool` and `char` keys: at the top, nested in a list and
    /// in a map's values.
    #[tool(effect = read)]
    pub fn scalar_keys(
        #[garde(skip)] by_flag: BTreeMap<bool, u8>,
        #[garde(skip)] by_letter: BTreeMap<char, u8>,
        #[garde(skip)] grid: Option<BTreeMap<bool, BTreeMap<char, bool>>>,
        #[garde(skip)] spelled: Option<HashMap<char, BTreeMap<bool, u8>>>,
        #[garde(dive)] boards: Vec<Board>,
    ) -> Result<(), ToolError> {
        let _ = (by_flag, by_letter, grid, spelled, boards);
        Ok(())
    }

    /// A toolbox holding the tools of this module.
    pub fn toolbox() -> Toolbox<()> {
        let mut toolbox = Toolbox::new(());
        toolbox.register(SizedMap).unwrap();
        toolbox.register(IntegerKeys).unwrap();
        toolbox.register(ScalarKeys).unwrap();
        toolbox
    }
}

/// Internally tagged: unit, struct and newtype variants.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Figure {
    Dot,
    Circle {
        #[garde(range(min = 1, max = 1000))]
        radius: u16,
    },
    Labelled(#[garde(dive)] Label),
}

/// Adjacently tagged: unit, newtype and struct variants.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "t", content = "c", deny_unknown_fields)]
pub enum Action {
    Stop,
    Move(#[garde(dive)] Point),
    Say {
        #[garde(length(chars, min = 1, max = 3))]
        words: String,
    },
}

/// Externally tagged: unit, newtype, struct and tuple variants.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    Reset,
    Jump(#[garde(range(max = 9))] u8),
    Walk {
        #[garde(range(min = 1))]
        steps: u8,
    },
    Pair(#[garde(skip)] u8, #[garde(skip)] i8),
}

/// Untagged: a number or a struct.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged, deny_unknown_fields)]
pub enum Amount {
    Whole(#[garde(range(max = 500))] u32),
    Named {
        #[garde(length(chars, min = 1, max = 4))]
        unit: String,
        #[garde(skip)]
        value: u8,
    },
}

/// Every kind of enum.
#[tool(effect = read)]
pub fn enums(
    #[garde(dive)] figure: Figure,
    #[garde(dive)] action: Action,
    #[garde(dive)] command: Command,
    #[garde(dive)] amount: Amount,
    #[garde(dive)] more: Option<Vec<Figure>>,
) -> Result<(), ToolError> {
    let _ = (figure, action, command, amount, more);
    Ok(())
}

/// A recursive type.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Branch {
    #[garde(length(chars, min = 1, max = 8))]
    pub name: String,
    #[garde(length(max = 3), dive)]
    pub children: Vec<Branch>,
    #[garde(dive)]
    pub next: Option<Box<Branch>>,
}

/// A tree of names.
#[tool(effect = read)]
pub fn plant_tree(#[garde(dive)] root: Branch) -> Result<(), ToolError> {
    let _ = root;
    Ok(())
}

/// A note of any shape, and the same kept as the text that was sent.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Note {
    #[garde(skip)]
    pub body: serde_json::Value,
    #[garde(skip)]
    #[schemars(with = "serde_json::Value")]
    pub raw: Box<serde_json::value::RawValue>,
}

/// Free-form values, given back as received.
#[tool(effect = read)]
pub fn free_form(
    #[garde(skip)] any: serde_json::Value,
    #[garde(skip)] maybe: Option<serde_json::Value>,
    #[garde(skip)] many: Vec<serde_json::Value>,
    #[garde(skip)] fields: serde_json::Map<String, serde_json::Value>,
    #[garde(dive)] note: Note,
) -> Result<serde_json::Value, ToolError> {
    Ok(serde_json::json!({
        "any": any,
        "maybe": maybe,
        "many": many,
        "fields": fields,
        "note": {"body": note.body, "raw": note.raw.get()},
    }))
}

/// `free_form`'s arguments as serde_json reads them itself: what the tool
/// must receive.
#[derive(Deserialize)]
struct FreeFormAsRead {
    any: serde_json::Value,
    #[serde(default)]
    maybe: Option<serde_json::Value>,
    many: Vec<serde_json::Value>,
    fields: serde_json::Map<String, serde_json::Value>,
    note: NoteAsRead,
}

#[derive(Deserialize)]
struct NoteAsRead {
    body: serde_json::Value,
    raw: Box<serde_json::value::RawValue>,
}

/// Calls `free_form` with `text`, which it accepts, and says where what it
/// received differs from what serde_json reads of the same text, if
/// anywhere.
pub fn received_as_sent(toolbox: &Toolbox<()>, text: &str) -> Option<String> {
    let reference: FreeFormAsRead = match serde_json::from_str(text) {
        Ok(read) => read,
        Err(error) => return Some(format!("serde_json refuses {text}: {error}")),
    };
    let ctx = toolgate::ToolContext::new("u", "t", "r").allow_all_tools();
    let outcome = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(toolbox.call(&ctx, "free_form", text));
    let Some(got) = outcome.value() else {
        return Some(format!("free_form refused {text}: {outcome:?}"));
    };
    let expected = serde_json::json!({
        "any": reference.any,
        "maybe": reference.maybe,
        "many": reference.many,
        "fields": reference.fields,
        "note": {"body": reference.note.body, "raw": reference.note.raw.get()},
    });
    difference(got, &expected, "").map(|at| format!("free_form received {at} otherwise than sent: {text}\n got      {got}\n expected {expected}"))
}

/// The first place where `a` and `b` differ, numbers compared by kind
/// (`u64`, `i64`, `f64`) and bits, so that `100` is not `100.0` and `0.0`
/// is not `-0.0`.
pub fn difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let same = match (x.as_u64(), x.as_i64(), y.as_u64(), y.as_i64()) {
                (Some(x), _, Some(y), _) => x == y,
                (None, Some(x), None, Some(y)) => x == y,
                (None, None, None, None) => {
                    x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
                }
                _ => false,
            };
            (!same).then(|| format!("{at} ({x} and {y})"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (x, y))| difference(x, y, &format!("{at}/{i}"))),
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
            x.iter().find_map(|(k, v)| match y.get(k) {
                Some(w) => difference(v, w, &format!("{at}/{k}")),
                None => Some(format!("{at}/{k}")),
            })
        }
        _ => (a != b).then(|| at.to_owned()),
    }
}

/// A toolbox holding each tool of this file.
pub fn toolbox() -> Toolbox<()> {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Nested).unwrap();
    toolbox.register(Widths).unwrap();
    toolbox.register(Collections).unwrap();
    toolbox.register(Enums).unwrap();
    toolbox.register(PlantTree).unwrap();
    toolbox.register(FreeForm).unwrap();
    toolbox
}
