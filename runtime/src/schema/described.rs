//! The generated argument struct's JSON Schema, written here once rather
//! than derived for each tool.
//!
//! `#[tool]` used to derive schemars' `JsonSchema` on the struct's wire
//! twin. The derive writes a long function for each struct: a constant for
//! each field's title and another for its description, a call for each
//! keyword, and a formatted id. The macro now reads the same attributes as
//! the derive (the fields' docs, serde's `default` and `rename`, garde's
//! rules and the `schemars(extend(…), inner(…))` the macro adds) and hands
//! them here as data: one call a struct, its fields a list that is a
//! constant where their rules are literals. The schema is the derive's, key
//! for key and in the same order; `tests/tests/behaviour/schema/described.rs`
//! holds the two side by side.

use std::borrow::Cow;

use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value};

/// A keyword that a field's garde rules state, in the form schemars'
/// derive reads them. Written by the macro as data: rules whose bounds
/// and patterns are literals are a constant, which the compiler keeps in
/// static memory, and cost the tool no code.
pub enum Rule<'a> {
    /// `length(min, max)` (`equal` is both): `minLength` and `maxLength` on
    /// a string, `minItems` and `maxItems` on an array.
    Length(Option<Bound>, Option<Bound>),
    /// `range(min, max)` (`equal` is both): `minimum` and `maximum` on a
    /// number or an integer.
    Range(Option<Bound>, Option<Bound>),
    /// `pattern(…)`: the regular expression, on a string.
    Pattern(Cow<'a, str>),
    /// `contains(…)`: the text, escaped into a pattern, on a string.
    Contains(Cow<'a, str>),
    /// `inner(…)`: the rules of the items, where the schema has `items`.
    Inner(&'a [Rule<'a>]),
    /// `schemars(extend(key = value))`: a keyword written as given, after
    /// all the others.
    Extend(&'a str, Value),
}

/// A bound of a `length` or a `range`, as the number the schema states.
/// A literal is written as one of the first four, which are constants; any
/// other expression as the value it converts to.
pub enum Bound {
    /// An integer literal.
    Int(i64),
    /// An integer literal above `i64::MAX`.
    Uint(u64),
    /// A literal of type `f32` (`0.5f32`, or `1f32` on an `f32` field),
    /// widened as serde_json widens it.
    F32(f32),
    /// Any other floating-point literal (`0.5`, or `1f64` on an `f64`
    /// field).
    F64(f64),
    /// Any other expression, converted as the derive converts it.
    Value(Value),
}

impl Bound {
    fn value(&self) -> Value {
        match self {
            Bound::Int(n) => Value::from(*n),
            Bound::Uint(n) => Value::from(*n),
            Bound::F32(x) => Value::from(*x),
            Bound::F64(x) => Value::from(*x),
            Bound::Value(value) => value.clone(),
        }
    }
}

/// A field of a generated argument struct, as its schema states it.
pub struct Field<'a> {
    /// Its name, as the wire spells it.
    pub name: &'a str,
    /// Whether its type is read as an option.
    pub is_option: fn() -> bool,
    /// Its type's schema.
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// serde's `default`: the field may be left out.
    pub defaulted: bool,
    /// garde's `required`: the field may not be left out, nor be `null`.
    pub required: bool,
    /// Its doc comment.
    pub doc: &'a str,
    /// Its rules.
    pub rules: &'a [Rule<'a>],
}

/// The schema of a generated argument struct: an object that allows no
/// other keys, with `fields` in order and the struct's doc comment. One
/// call for each tool, its fields handed over as data.
pub fn described(generator: &mut SchemaGenerator, fields: &[Field<'_>], doc: &str) -> Schema {
    let mut object = Map::new();
    object.insert("type".to_owned(), Value::from("object"));
    object.insert("additionalProperties".to_owned(), Value::Bool(false));
    let mut schema = Schema::from(object);
    for field in fields {
        let optional = optional(
            generator,
            (field.is_option)(),
            field.defaulted,
            field.required,
        );
        let mut own = (field.schema)(generator);
        describe(&mut own, field.doc);
        apply(&mut own, field.rules);
        schemars::_private::insert_object_property(&mut schema, field.name, optional, own);
    }
    describe(&mut schema, doc);
    schema
}

/// Whether a field whose type is read as an option (`is_option`) may be
/// left out, as schemars' derive decides it: under a deserializing
/// contract, a field with serde's `default` may, and one with garde's
/// `required` may not.
fn optional(generator: &SchemaGenerator, is_option: bool, defaulted: bool, required: bool) -> bool {
    generator.contract().is_deserialize() && (defaulted || (!required && is_option))
}

/// The title and description a doc comment gives, as schemars' derive
/// splits it: a first line that starts with `#` is the title.
fn describe(schema: &mut Schema, doc: &str) {
    let (title, description) = schemars::_private::get_title_and_description(doc);
    schemars::_private::insert_metadata_property_if_nonempty(schema, "title", title);
    schemars::_private::insert_metadata_property_if_nonempty(schema, "description", description);
}

/// Writes `rules` into `schema`, in the order given: the macro lists them
/// in the derive's (lengths, ranges, the pattern, `contains`, the items'
/// rules, then the extensions).
fn apply(schema: &mut Schema, rules: &[Rule<'_>]) {
    let insert = |schema: &mut Schema, kind: &str, key: &str, value: Value| {
        schemars::_private::insert_validation_property(schema, kind, key, value);
    };
    for rule in rules {
        match rule {
            Rule::Length(min, max) => {
                for (kind, lower, upper) in [
                    ("string", "minLength", "maxLength"),
                    ("array", "minItems", "maxItems"),
                ] {
                    if let Some(min) = min {
                        insert(schema, kind, lower, min.value());
                    }
                    if let Some(max) = max {
                        insert(schema, kind, upper, max.value());
                    }
                }
            }
            Rule::Range(min, max) => {
                if let Some(min) = min {
                    insert(schema, "number", "minimum", min.value());
                }
                if let Some(max) = max {
                    insert(schema, "number", "maximum", max.value());
                }
            }
            Rule::Pattern(pattern) => insert(schema, "string", "pattern", Value::from(&**pattern)),
            Rule::Contains(text) => schemars::_private::must_contain(schema, text),
            Rule::Inner(rules) => {
                let items = schema
                    .get_mut("items")
                    .and_then(|i| <&mut Schema>::try_from(i).ok());
                if let Some(items) = items {
                    apply(items, rules);
                }
            }
            Rule::Extend(key, value) => {
                schema.insert((*key).to_owned(), value.clone());
            }
        }
    }
}
