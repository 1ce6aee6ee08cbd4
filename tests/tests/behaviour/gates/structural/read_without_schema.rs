//! A tool whose schema is flat but for choices, items that must differ and
//! members that are objects is read in one pass without its schema where
//! registration proves that serde and the tool's rules hold the rest as
//! the schema does, each object member read against its own subschema;
//! where it cannot, the schema is checked as the call is read. Either way, each
//! call below is refused as the published schema refuses it, and the
//! single pass answers exactly as the gates one by one.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use toolgate::testing::{check_arguments, check_arguments_gate_by_gate, read_without_schema};
use toolgate::{Code, ToolError, Toolbox, tool};
use toolgate_examples::{export, invoice};

/// Registers `tool` alone and says whether its calls are read without the
/// schema.
fn reads_flat<S: Send + Sync + 'static>(
    toolbox: &mut Toolbox<S>,
    tool: impl toolgate::Tool<S> + 'static,
) -> bool {
    let name = tool.definition().name();
    toolbox.register(tool).expect("registers");
    read_without_schema(toolbox, name).expect("registered")
}

/// The code both paths refuse `arguments` with, after checking that they
/// give the same answer; `None` if both accept.
fn refusal<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    name: &str,
    arguments: &str,
) -> Option<Code> {
    let one_pass = check_arguments(toolbox, name, arguments.as_bytes()).expect("registered");
    let by_gate =
        check_arguments_gate_by_gate(toolbox, name, arguments.as_bytes()).expect("registered");
    assert_eq!(one_pass, by_gate, "{name}: {arguments}");
    one_pass.err().map(|rejection| rejection.code())
}

#[test]
fn schedule_export_is_read_without_its_schema_and_refuses_what_it_refuses() {
    let mut toolbox = Toolbox::new(export::Accounts::demo());
    assert!(reads_flat(&mut toolbox, export::ScheduleExport));
    let call = |format: &str, columns: &str| {
        format!(r#"{{"account_ref":"acct_42","format":{format},"columns":{columns}}}"#)
    };
    let name = "schedule_export";
    assert_eq!(
        refusal(&toolbox, name, &call(r#""csv""#, r#"["id","email"]"#)),
        None
    );
    // Names the schema does not list, in the member and in the array.
    assert!(refusal(&toolbox, name, &call(r#""xml""#, r#"["id"]"#)).is_some());
    assert!(refusal(&toolbox, name, &call(r#""Csv""#, r#"["id"]"#)).is_some());
    assert!(refusal(&toolbox, name, &call(r#""csv""#, r#"["id","phone"]"#)).is_some());
    // A repeat, as written and written otherwise.
    assert!(refusal(&toolbox, name, &call(r#""csv""#, r#"["id","id"]"#)).is_some());
    assert!(refusal(&toolbox, name, &call(r#""csv""#, r#"["id","\u0069d"]"#)).is_some());
    assert!(
        refusal(
            &toolbox,
            name,
            &call(r#""csv""#, r#"["status","id","\u0069d"]"#)
        )
        .is_some()
    );
}

/// `refund_invoice`'s reason is a tagged union: it is read against its
/// subschema, the invoice and the amount without the schema. Whatever the
/// reason holds and wherever it is written, both paths refuse alike.
#[test]
fn refund_invoice_is_read_without_its_schema_but_for_its_reason() {
    let mut toolbox = Toolbox::new(invoice::Billing::demo());
    assert!(reads_flat(&mut toolbox, invoice::RefundInvoice));
    let name = "refund_invoice";
    let call = |reason: &str| {
        format!(r#"{{"invoice_id":"inv_88","amount_cents":4500,"reason":{reason}}}"#)
    };
    for reason in [
        r#"{"kind":"duplicate"}"#,
        r#"{"kind":"goodwill","approver_id":"usr_lena"}"#,
        r#"{"approver_id":"usr_lena","kind":"goodwill"}"#,
    ] {
        assert_eq!(refusal(&toolbox, name, &call(reason)), None, "{reason}");
    }
    assert_eq!(
        refusal(
            &toolbox,
            name,
            r#"{"reason":{"kind":"error"},"amount_cents":1,"invoice_id":"inv_1"}"#
        ),
        None
    );
    for reason in [
        r#"{"kind":"goodwill"}"#,
        r#"{"kind":"error","approver_id":"usr_lena"}"#,
        r#"{"kind":"refund"}"#,
        r#"{"kind":"Duplicate"}"#,
        r#"{"kind":"goodwill","approver_id":7}"#,
        r#"{"kind":"goodwill","approver_id":null}"#,
        r#"{"kind":"goodwill","approver_id":"usr_lena","note":{}}"#,
        r#"{"kind":"goodwill","approver_id":"usr_lena","kind":"duplicate"}"#,
        r#"{}"#,
        r#""duplicate""#,
        r#"["duplicate"]"#,
        "null",
    ] {
        assert!(refusal(&toolbox, name, &call(reason)).is_some(), "{reason}");
        let first = format!(r#"{{"reason":{reason},"invoice_id":"inv_88","amount_cents":4500}}"#);
        assert!(refusal(&toolbox, name, &first).is_some(), "{first}");
    }
    // The rest, read without the schema, refuses as before.
    for arguments in [
        r#"{"invoice_id":"inv_88","amount_cents":4500.5,"reason":{"kind":"error"}}"#,
        r#"{"invoice_id":null,"amount_cents":4500,"reason":{"kind":"error"}}"#,
        r#"{"invoice_id":"inv_88","amount_cents":4500,"reason":{"kind":"error"},"x":1}"#,
    ] {
        assert!(refusal(&toolbox, name, arguments).is_some(), "{arguments}");
    }
}

/// A roast; serde also reads `"espresso"`, which the schema does not list.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Roast {
    Light,
    #[serde(alias = "espresso")]
    Dark,
}

/// Order beans.
#[tool(effect = read)]
fn order_beans(#[garde(skip)] roast: Roast) -> Result<(), ToolError> {
    let _ = roast;
    Ok(())
}

#[test]
fn an_alias_keeps_the_schema_read() {
    let mut toolbox = Toolbox::new(());
    assert!(!reads_flat(&mut toolbox, OrderBeans));
    assert_eq!(
        refusal(&toolbox, "order_beans", r#"{"roast":"dark"}"#),
        None
    );
    assert_eq!(
        refusal(&toolbox, "order_beans", r#"{"roast":"espresso"}"#),
        Some(Code::InvalidValue)
    );
}

/// A grind: serde reads any other name as `Other`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Grind {
    Fine,
    Coarse,
    #[serde(other)]
    Other,
}

/// Grind beans, the grind held to its choices in an array too.
#[tool(effect = read)]
fn grind_beans(
    #[garde(skip)] grind: Grind,
    #[garde(length(max = 3))] then: Vec<Grind>,
) -> Result<(), ToolError> {
    let _ = (grind, then);
    Ok(())
}

/// serde's list of its names holds `other`, as the schema's does: the
/// tool is read without its schema, and the single pass takes only a name
/// the list holds, stopping at any other for the gates one by one.
#[test]
fn a_variant_that_reads_every_other_name_is_read_by_its_names_alone() {
    let mut toolbox = Toolbox::new(());
    assert!(reads_flat(&mut toolbox, GrindBeans));
    let name = "grind_beans";
    assert_eq!(
        refusal(&toolbox, name, r#"{"grind":"other","then":["fine"]}"#),
        None
    );
    assert_eq!(
        refusal(&toolbox, name, r#"{"grind":"medium","then":[]}"#),
        Some(Code::InvalidValue)
    );
    assert_eq!(
        refusal(&toolbox, name, r#"{"grind":"fine","then":["medium"]}"#),
        Some(Code::InvalidValue)
    );
}

/// A size: choices the schema states over a plain string, which serde
/// reads whatever it says.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(extend("enum" = ["small", "large"]))]
pub struct Size(pub String);

/// Label a bag.
#[tool(effect = read)]
fn label_bag(#[garde(skip)] size: Size) -> Result<(), ToolError> {
    let _ = size;
    Ok(())
}

#[test]
fn choices_a_string_is_held_to_by_the_schema_alone_keep_the_schema_read() {
    let mut toolbox = Toolbox::new(());
    assert!(!reads_flat(&mut toolbox, LabelBag));
    assert_eq!(refusal(&toolbox, "label_bag", r#"{"size":"large"}"#), None);
    assert!(refusal(&toolbox, "label_bag", r#"{"size":"medium"}"#).is_some());
}

/// Tags that must differ by the schema alone.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
#[schemars(extend("uniqueItems" = true))]
pub struct Tags(#[garde(length(max = 4))] Vec<String>);

/// Tag beans.
#[tool(effect = read)]
fn tag_beans(#[garde(dive)] tags: Tags) -> Result<(), ToolError> {
    let _ = tags;
    Ok(())
}

/// Strings, not names from a list, that must differ: the proof cannot read
/// an array of different strings at its longest, so the schema is read.
#[test]
fn items_that_must_differ_by_the_schema_alone_keep_the_schema_read() {
    let mut toolbox = Toolbox::new(());
    assert!(!reads_flat(&mut toolbox, TagBeans));
    assert_eq!(
        refusal(&toolbox, "tag_beans", r#"{"tags":["a","b"]}"#),
        None
    );
    assert!(refusal(&toolbox, "tag_beans", r#"{"tags":["a","a"]}"#).is_some());
}

/// A word, and whether it was written with an escape: two spellings of
/// one string are two words to its `PartialEq`.
#[derive(Debug, PartialEq, JsonSchema)]
#[schemars(transparent)]
pub struct Spelled(String, #[schemars(skip)] bool);

impl<'de> Deserialize<'de> for Spelled {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Spelled;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Spelled, E> {
                Ok(Spelled(text.to_owned(), false))
            }
            fn visit_str<E>(self, text: &str) -> Result<Spelled, E> {
                Ok(Spelled(text.to_owned(), true))
            }
        }
        deserializer.deserialize_str(Visit)
    }
}

fn all_different(words: &[Spelled], _: &()) -> garde::Result {
    for (i, word) in words.iter().enumerate() {
        if words.get(..i).is_some_and(|before| before.contains(word)) {
            return Err(garde::Error::new("must list each word once"));
        }
    }
    Ok(())
}

/// Words, each once by a rule that compares how they were written.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
#[schemars(extend("uniqueItems" = true))]
pub struct Words(#[garde(length(max = 4), custom(all_different))] Vec<Spelled>);

/// Keep words.
#[tool(effect = read)]
fn keep_words(#[garde(dive)] words: Words) -> Result<(), ToolError> {
    let _ = words;
    Ok(())
}

/// As with any items that must differ and are not names from a list, the
/// schema is read, and it compares the items by value.
#[test]
fn a_rule_that_compares_spellings_keeps_the_schema_read() {
    let mut toolbox = Toolbox::new(());
    assert!(!reads_flat(&mut toolbox, KeepWords));
    let name = "keep_words";
    assert_eq!(refusal(&toolbox, name, r#"{"words":["a","b"]}"#), None);
    assert!(refusal(&toolbox, name, r#"{"words":["a","a"]}"#).is_some());
    assert!(refusal(&toolbox, name, r#"{"words":["a","\u0061"]}"#).is_some());
}

/// A bean, read by name.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Bean {
    Arabica,
    Robusta,
    Liberica,
    Excelsa,
}

fn different(beans: &[Bean], _: &()) -> garde::Result {
    for (i, bean) in beans.iter().enumerate() {
        if beans.get(..i).is_some_and(|before| before.contains(bean)) {
            return Err(garde::Error::new("must list each bean once"));
        }
    }
    Ok(())
}

/// Beans a rule holds apart.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
#[schemars(extend("uniqueItems" = true))]
pub struct Others(#[garde(length(min = 1, max = 3), custom(different))] Vec<Bean>);

/// Blend beans: a derived enum, and items its rule holds apart.
#[tool(effect = read)]
fn blend(#[garde(skip)] first: Bean, #[garde(dive)] others: Others) -> Result<(), ToolError> {
    let _ = (first, others);
    Ok(())
}

#[test]
fn a_derived_enum_and_a_rule_that_holds_items_apart_are_proven() {
    let mut toolbox = Toolbox::new(());
    assert!(reads_flat(&mut toolbox, Blend));
    let name = "blend";
    assert_eq!(
        refusal(
            &toolbox,
            name,
            r#"{"first":"arabica","others":["robusta"]}"#
        ),
        None
    );
    assert!(
        refusal(
            &toolbox,
            name,
            r#"{"first":"stenophylla","others":["robusta"]}"#
        )
        .is_some()
    );
    assert!(
        refusal(
            &toolbox,
            name,
            r#"{"first":"arabica","others":["stenophylla"]}"#
        )
        .is_some()
    );
    assert!(
        refusal(
            &toolbox,
            name,
            r#"{"first":"arabica","others":["robusta","robusta"]}"#
        )
        .is_some()
    );
    assert!(
        refusal(
            &toolbox,
            name,
            r#"{"first":"arabica","others":["robusta","rob\u0075sta"]}"#
        )
        .is_some()
    );
}

/// A letter, read by name.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Letter {
    A,
    B,
}

/// A pair whose hand-written schema holds both items to `Letter`'s
/// names, read as a `Letter` and then any text.
#[derive(Debug, Deserialize)]
pub struct Pair(Letter, #[serde(default)] Option<String>);

impl JsonSchema for Pair {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Pair".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b"]},
            "maxItems": 2
        })
    }
}

/// Spell a pair.
#[tool(effect = read)]
fn spell_pair(#[garde(skip)] pair: Pair) -> Result<(), ToolError> {
    let _ = (pair.0, pair.1);
    Ok(())
}

#[test]
fn an_array_whose_later_items_another_type_reads_keeps_the_schema_read() {
    let mut toolbox = Toolbox::new(());
    assert!(!reads_flat(&mut toolbox, SpellPair));
    let name = "spell_pair";
    assert_eq!(refusal(&toolbox, name, r#"{"pair":["a","b"]}"#), None);
    assert!(refusal(&toolbox, name, r#"{"pair":["a","zzz"]}"#).is_some());
}

/// A lane.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    Left,
    Right,
}

/// A lane whose hand-written schema says it is an integer.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct LaneCode(Lane);

impl JsonSchema for LaneCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LaneCode".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer"})
    }
}

/// Code a lane.
#[tool(effect = read)]
fn code_lane(#[garde(skip)] code: LaneCode) -> Result<(), ToolError> {
    let _ = code.0;
    Ok(())
}

/// A number or any text, whose hand-written schema says `integer`.
#[derive(Debug)]
pub struct Loose(String);

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Loose;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number or text")
            }
            fn visit_u64<E>(self, n: u64) -> Result<Loose, E> {
                Ok(Loose(n.to_string()))
            }
            fn visit_str<E>(self, text: &str) -> Result<Loose, E> {
                Ok(Loose(text.to_owned()))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

impl JsonSchema for Loose {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Loose".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "minimum": 0})
    }
}

/// Count loosely.
#[tool(effect = read)]
fn count_loosely(#[garde(skip)] n: Loose) -> Result<(), ToolError> {
    let _ = n.0;
    Ok(())
}

/// A flat schema (every member a scalar) is read without it only where
/// the types read the kinds it states and refuse the others: a
/// hand-written schema may say `integer` of a type that reads a name, or
/// that reads text as well.
#[test]
fn a_type_that_reads_another_kind_than_its_schema_keeps_the_schema_read() {
    let mut toolbox = Toolbox::new(());
    assert!(!reads_flat(&mut toolbox, CodeLane));
    assert!(!reads_flat(&mut toolbox, CountLoosely));
    assert_eq!(
        refusal(&toolbox, "code_lane", r#"{"code":"left"}"#),
        Some(Code::WrongType)
    );
    assert_eq!(refusal(&toolbox, "count_loosely", r#"{"n":3}"#), None);
    assert_eq!(
        refusal(&toolbox, "count_loosely", r#"{"n":"3"}"#),
        Some(Code::WrongType)
    );
}

/// A note, optional.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Note {
    #[garde(length(chars, max = 8))]
    pub text: String,
}

/// Count loosely, with a note: a schema with an object below the
/// arguments object, never read without it.
#[tool(effect = read)]
fn count_noted(
    #[garde(skip)] code: Loose,
    #[garde(dive)] note: Option<Note>,
) -> Result<(), ToolError> {
    let _ = (code.0, note);
    Ok(())
}

/// Any other schema is held to the kinds it states however a call goes:
/// where the single pass stops on a value its schema refuses, the gates
/// one by one walk the schema too, whatever the document holds.
#[test]
fn a_type_that_reads_another_kind_is_held_to_its_schema_in_any_schema() {
    let mut toolbox = Toolbox::new(());
    assert!(!reads_flat(&mut toolbox, CountNoted));
    let name = "count_noted";
    assert_eq!(refusal(&toolbox, name, r#"{"code":3}"#), None);
    assert_eq!(
        refusal(&toolbox, name, r#"{"code":3,"note":{"text":"a"}}"#),
        None
    );
    assert_eq!(
        refusal(&toolbox, name, r#"{"code":"left"}"#),
        Some(Code::WrongType)
    );
    assert_eq!(
        refusal(&toolbox, name, r#"{"code":"left","note":{"text":"a"}}"#),
        Some(Code::WrongType)
    );
}

/// Beans that must differ by the schema alone: no rule compares them.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
#[schemars(extend("uniqueItems" = true))]
pub struct Picks(#[garde(length(min = 1, max = 3))] Vec<Bean>);

/// Pick beans.
#[tool(effect = read)]
fn pick_beans(#[garde(dive)] picks: Picks) -> Result<(), ToolError> {
    let _ = picks;
    Ok(())
}

/// Read without its schema, an array of names that must differ is
/// compared as it is read, by each name's place in its list: a repeat,
/// however written, stops the single pass, and the gates one by one
/// refuse it.
#[test]
fn names_that_must_differ_by_the_schema_alone_are_compared_as_read() {
    let mut toolbox = Toolbox::new(());
    assert!(reads_flat(&mut toolbox, PickBeans));
    let name = "pick_beans";
    assert_eq!(
        refusal(&toolbox, name, r#"{"picks":["arabica","robusta"]}"#),
        None
    );
    for repeat in [
        r#"{"picks":["arabica","arabica"]}"#,
        r#"{"picks":["arabica","robusta","arabica"]}"#,
        r#"{"picks":["arabica","\u0061rabica"]}"#,
    ] {
        assert_eq!(
            refusal(&toolbox, name, repeat),
            Some(Code::InvalidValue),
            "{repeat}"
        );
    }
}
