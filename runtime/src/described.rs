//! The generated argument struct's JSON Schema, written here once rather
//! than derived for each tool.
//!
//! `#[tool]` used to derive schemars' `JsonSchema` on the struct's wire
//! twin. The derive writes a long function for each struct: a constant for
//! each field's title and another for its description, a call for each
//! keyword, and a formatted id. The macro now reads the same attributes as
//! the derive (the fields' docs, serde's `default` and `rename`, garde's
//! rules and the `schemars(extend(…), inner(…))` the macro adds) and hands
//! them here as data: one call a field. The schema is the derive's, key
//! for key and in the same order; `tests/tests/described.rs` holds the two
//! side by side.

use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value};

/// A keyword that a field's garde rules state, in the form schemars'
/// derive reads them.
pub enum Rule {
    /// `length(min, max)` (`equal` is both): `minLength` and `maxLength` on
    /// a string, `minItems` and `maxItems` on an array.
    Length(Option<Value>, Option<Value>),
    /// `range(min, max)` (`equal` is both): `minimum` and `maximum` on a
    /// number or an integer.
    Range(Option<Value>, Option<Value>),
    /// `pattern(…)`: the regular expression, on a string.
    Pattern(String),
    /// `contains(…)`: the text, escaped into a pattern, on a string.
    Contains(String),
    /// `inner(…)`: the rules of the items, where the schema has `items`.
    Inner(Vec<Rule>),
    /// `schemars(extend(key = value))`: a keyword written as given, after
    /// all the others.
    Extend(&'static str, Value),
}

/// The schema of a generated argument struct, a field at a time.
pub struct Described(Schema);

impl Described {
    /// An object that allows no other keys, with no fields yet.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        let mut object = Map::new();
        object.insert("type".to_owned(), Value::from("object"));
        object.insert("additionalProperties".to_owned(), Value::Bool(false));
        Described(Schema::from(object))
    }

    /// Adds the field `name` (as the wire spells it), whose type's schema
    /// is `schema`, with its doc comment and its rules; `optional` says
    /// whether it may be left out.
    pub fn field(
        &mut self,
        name: &str,
        optional: bool,
        mut schema: Schema,
        doc: &str,
        rules: &[Rule],
    ) {
        describe(&mut schema, doc);
        apply(&mut schema, rules);
        schemars::_private::insert_object_property(&mut self.0, name, optional, schema);
    }

    /// The schema, with the struct's doc comment.
    pub fn finish(mut self, doc: &str) -> Schema {
        describe(&mut self.0, doc);
        self.0
    }
}

/// Whether a field whose type is read as an option (`is_option`) may be
/// left out, as schemars' derive decides it: under a deserializing
/// contract, a field with serde's `default` may, and one with garde's
/// `required` may not.
pub fn optional(
    generator: &SchemaGenerator,
    is_option: bool,
    defaulted: bool,
    required: bool,
) -> bool {
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
fn apply(schema: &mut Schema, rules: &[Rule]) {
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
                        insert(schema, kind, lower, min.clone());
                    }
                    if let Some(max) = max {
                        insert(schema, kind, upper, max.clone());
                    }
                }
            }
            Rule::Range(min, max) => {
                if let Some(min) = min {
                    insert(schema, "number", "minimum", min.clone());
                }
                if let Some(max) = max {
                    insert(schema, "number", "maximum", max.clone());
                }
            }
            Rule::Pattern(pattern) => {
                insert(schema, "string", "pattern", Value::from(pattern.as_str()))
            }
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
