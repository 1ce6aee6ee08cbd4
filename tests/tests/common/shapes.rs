//! Tools for the differential test: between them, every shape of argument
//! the macro accepts, with rules whose meaning JSON Schema states exactly.
//! Their fields are read by serde and garde only.
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

/// Maps the schema and the server read differently (issue 9 items 1 and
/// 2): a `length` rule on a map, integer keys past the key type's range.
pub mod open {
    use super::*;

    /// A map with a size rule.
    #[tool(effect = read)]
    pub fn sized_map(
        #[garde(length(min = 1, max = 3))] scores: HashMap<String, u8>,
    ) -> Result<(), ToolError> {
        let _ = scores;
        Ok(())
    }

    /// Maps by integer key.
    #[tool(effect = read)]
    pub fn integer_keys(
        #[garde(skip)] by_id: BTreeMap<u32, String>,
        #[garde(skip)] by_offset: BTreeMap<i8, u8>,
    ) -> Result<(), ToolError> {
        let _ = (by_id, by_offset);
        Ok(())
    }

    /// A toolbox holding the tools of this module.
    pub fn toolbox() -> Toolbox<()> {
        let mut toolbox = Toolbox::new(());
        toolbox.register(SizedMap).unwrap();
        toolbox.register(IntegerKeys).unwrap();
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

/// A toolbox holding each tool of this file.
pub fn toolbox() -> Toolbox<()> {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Nested).unwrap();
    toolbox.register(Widths).unwrap();
    toolbox.register(Collections).unwrap();
    toolbox.register(Enums).unwrap();
    toolbox.register(PlantTree).unwrap();
    toolbox
}
