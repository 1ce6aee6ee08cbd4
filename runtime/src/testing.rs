//! Adversarial cases for any tool, and the assertion that none of them gets
//! through. Enable the `testing` feature in your dev-dependencies.
//!
//! Given a tool's definition and one valid call, [`attacks`] derives the
//! calls an attacker would make: every required field removed; unknown
//! fields (`price`, `tenant_id`, `admin`, `__proto__`); every field with every
//! wrong JSON type and with `null`; values one step outside each range and
//! length; pattern breakers; values outside each enum; integers beyond 64
//! bits; floats for integers; duplicate keys; depth bombs; oversize payloads;
//! non-object roots; trailing garbage; invalid UTF-8; lone surrogates; and,
//! with [`Attacks::cross_tenant`], references to another tenant's objects.
//!
//! [`assert_all_rejected`] runs them through a toolbox. It first makes the
//! valid call and requires it to succeed and to move the side-effect count
//! you give it: a count that does not see the side effect would prove
//! nothing. Then it fails unless each attack is rejected with an expected
//! code and leaves the count where it was, naming every attack that did not.
//!
//! ```
//! use toolgate::testing;
//! # use toolgate::{tool, ToolContext, ToolError, Toolbox};
//! # use std::sync::atomic::{AtomicUsize, Ordering};
//! # #[derive(Default)] struct Hotels { bookings: AtomicUsize }
//! # /// Book a hotel.
//! # #[tool(effect = write)]
//! # fn book_hotel(h: &Hotels, #[garde(pattern(r"^h_[a-z0-9]{8}$"))] hotel_id: String, #[garde(range(min = 1, max = 30))] nights: u8) -> Result<(), ToolError> {
//! #     h.bookings.fetch_add(1, Ordering::SeqCst); let _ = (hotel_id, nights); Ok(())
//! # }
//! # let mut toolbox = Toolbox::new(Hotels::default());
//! # toolbox.register(BookHotel).unwrap();
//! # let ctx = ToolContext::new("u", "t", "r").allow_tools(["book_hotel"]);
//! # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! # rt.block_on(async {
//! let attacks = testing::attacks(BookHotel::definition(), r#"{"hotel_id":"h_seaview1","nights":2}"#)?;
//! testing::assert_all_rejected(&toolbox, &ctx, &attacks, |h| h.bookings.load(Ordering::SeqCst)).await;
//! # Ok::<(), testing::AttackError>(())
//! # }).unwrap();
//! ```

#![allow(clippy::panic)] // the assertion below is a test assertion

use std::fmt;

use serde_json::{Map, Value};

use crate::schema::{nodes_at, resolve};
use crate::{Code, Outcome, ToolContext, ToolDef, Toolbox};

/// One hostile call: what it tries, the exact argument bytes, and the codes
/// that count as a correct refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attack {
    /// The tool attacked.
    pub tool: &'static str,
    /// What the case tries, for failure reports.
    pub name: String,
    /// The argument JSON (or not-JSON) as sent.
    pub arguments: Vec<u8>,
    /// Any of these codes is a correct refusal.
    pub expected: Vec<Code>,
}

/// The example call is not a JSON object.
#[derive(Debug)]
pub struct AttackError(String);

impl fmt::Display for AttackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AttackError {}

/// The valid call an attack suite was derived from, and the attacks.
///
/// [`assert_all_rejected`] makes the valid call first: it must succeed and
/// move the side-effect count, or the count could not show that an attack
/// got through.
///
/// ```
/// # use toolgate::{tool, ToolError};
/// # /// Book a hotel.
/// # #[tool(effect = write)]
/// # fn book_hotel(#[garde(range(min = 1, max = 30))] nights: u8) -> Result<(), ToolError> { let _ = nights; Ok(()) }
/// let suite = toolgate::testing::attacks(BookHotel::definition(), r#"{"nights":2}"#)?;
/// assert_eq!(suite.example, br#"{"nights":2}"#);
/// assert!(suite.cases.iter().any(|a| a.name == "/nights: 31 (above the maximum)"));
/// # Ok::<(), toolgate::testing::AttackError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttackSuite {
    /// The tool attacked.
    pub tool: &'static str,
    /// The valid call, as given: it must succeed and cause the side effect.
    pub example: Vec<u8>,
    /// The hostile calls; add your own with `cases.push`.
    pub cases: Vec<Attack>,
}

/// The attack cases for `def`, derived from its schema and one valid call.
pub fn attacks(def: &ToolDef, example: &str) -> Result<AttackSuite, AttackError> {
    Attacks::new(def, example).map(Attacks::build)
}

/// A builder for attack cases, for adding references to other tenants'
/// objects.
#[derive(Debug)]
pub struct Attacks<'d> {
    def: &'d ToolDef,
    text: String,
    example: Map<String, Value>,
    foreign: Vec<(String, Value)>,
}

impl<'d> Attacks<'d> {
    /// Starts from `def` and a valid call.
    pub fn new(def: &'d ToolDef, example: &str) -> Result<Self, AttackError> {
        match serde_json::from_str(example) {
            Ok(Value::Object(map)) => Ok(Attacks {
                def,
                text: example.to_owned(),
                example: map,
                foreign: Vec::new(),
            }),
            _ => Err(AttackError(format!(
                "the example call for `{}` must be a JSON object",
                def.name()
            ))),
        }
    }

    /// Adds a case that puts `value` (a reference to an object of another
    /// tenant) at `pointer`; it must be refused with `NOT_PERMITTED`.
    #[must_use]
    pub fn cross_tenant(mut self, pointer: &str, value: Value) -> Self {
        self.foreign.push((pointer.to_owned(), value));
        self
    }

    /// Every case, with the valid call they were derived from.
    pub fn build(self) -> AttackSuite {
        let mut out = Cases {
            tool: self.def.name(),
            schema: self.def.schema(),
            cases: Vec::new(),
        };
        let example = Value::Object(self.example);
        out.document(&example);
        out.unknown_fields(&example);
        out.fields(&example, &example, "");
        for (pointer, value) in self.foreign {
            if let Some(call) = replaced(&example, &pointer, value) {
                out.push(
                    format!("another tenant's object at {pointer}"),
                    call,
                    &[Code::NotPermitted],
                );
            }
        }
        AttackSuite {
            tool: self.def.name(),
            example: self.text.into_bytes(),
            cases: out.cases,
        }
    }
}

struct Cases<'s> {
    tool: &'static str,
    schema: &'s Value,
    cases: Vec<Attack>,
}

const STRUCTURE: &[Code] = &[Code::WrongType, Code::InvalidValue];

impl Cases<'_> {
    fn push(&mut self, name: impl Into<String>, call: Value, expected: &[Code]) {
        self.push_bytes(
            name,
            literal_numbers(&call.to_string()).into_bytes(),
            expected,
        );
    }

    fn push_bytes(&mut self, name: impl Into<String>, arguments: Vec<u8>, expected: &[Code]) {
        self.cases.push(Attack {
            tool: self.tool,
            name: name.into(),
            arguments,
            expected: expected.to_vec(),
        });
    }

    /// Gate 1: the document itself.
    fn document(&mut self, example: &Value) {
        let text = example.to_string();
        let inner = text
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .unwrap_or_default();
        // The first key by name, whatever order `serde_json`'s maps keep.
        if let Some((key, value)) = example
            .as_object()
            .and_then(|m| m.iter().min_by(|a, b| a.0.cmp(b.0)))
        {
            let dup = format!("{{{inner},{}:{value}}}", Value::String(key.clone()));
            self.push_bytes(
                format!("duplicate key {key}"),
                dup.into_bytes(),
                &[Code::DuplicateKey],
            );
        }
        let bomb = format!("{{\"a\":{}{}}}", "[".repeat(2000), "]".repeat(2000));
        self.push_bytes(
            "depth bomb",
            bomb.into_bytes(),
            &[Code::TooDeep, Code::PayloadTooLarge],
        );
        let wide = format!("{{\"a\":[{}0]}}", "0,".repeat(20_000));
        self.push_bytes(
            "100k values",
            wide.into_bytes(),
            &[Code::TooManyNodes, Code::PayloadTooLarge],
        );
        let big = format!("{{{inner},\"padding\":\"{}\"}}", "x".repeat(1 << 20));
        self.push_bytes(
            "1 MiB of arguments",
            big.into_bytes(),
            &[Code::PayloadTooLarge, Code::StringTooLong],
        );
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(60_000));
        self.push_bytes(
            "a 60 KB string",
            long.into_bytes(),
            &[Code::StringTooLong, Code::PayloadTooLarge],
        );
        for root in ["[]", "\"text\"", "1", "null", "true", "[{}]"] {
            self.push_bytes(
                format!("root {root}"),
                root.as_bytes().to_vec(),
                &[Code::NotAnObject],
            );
        }
        for (name, bytes) in [
            ("empty input", Vec::new()),
            ("trailing garbage", format!("{text}x").into_bytes()),
            ("a second object", format!("{text}{{}}").into_bytes()),
            (
                "an unclosed object",
                text.get(..text.len().saturating_sub(1))
                    .unwrap_or_default()
                    .as_bytes()
                    .to_vec(),
            ),
            (
                "invalid UTF-8",
                [b"{\"a\":\"\xff\xfe\"," as &[u8], inner.as_bytes(), b"}"].concat(),
            ),
            (
                "a lone surrogate",
                format!("{{\"\\ud800\":1,{inner}}}").into_bytes(),
            ),
            ("single quotes", format!("{{'a':1,{inner}}}").into_bytes()),
        ] {
            self.push_bytes(name, bytes, &[Code::MalformedJson]);
        }
    }

    fn unknown_fields(&mut self, example: &Value) {
        for (key, value) in [
            ("price", Value::from(1)),
            ("tenant_id", Value::from("tenant_other")),
            ("admin", Value::Bool(true)),
            ("__proto__", serde_json::json!({"admin": true})),
            (
                "constructor",
                serde_json::json!({"prototype": {"admin": true}}),
            ),
        ] {
            let mut call = example.clone();
            if let Value::Object(map) = &mut call {
                if map.contains_key(key) {
                    continue;
                }
                map.insert(key.to_owned(), value);
            }
            self.push(format!("unknown field {key}"), call, &[Code::UnknownField]);
        }
    }

    /// Every field of the example, recursively: removed, retyped, pushed
    /// past its bounds.
    fn fields(&mut self, example: &Value, node: &Value, at: &str) {
        match node {
            Value::Object(map) => {
                // In a union, the branches this object is an instance of (a
                // tagged enum's by its tag): a field is required if each of
                // them requires it.
                let mut branches = Vec::new();
                for schema in nodes_at(self.schema, at) {
                    flatten(self.schema, schema, &mut branches, 0);
                }
                branches.retain(|b| matches_constants(b, map));
                let required: Vec<&str> = map
                    .keys()
                    .map(String::as_str)
                    .filter(|key| {
                        !branches.is_empty()
                            && branches.iter().all(|b| {
                                b.get("required")
                                    .and_then(Value::as_array)
                                    .is_some_and(|r| r.iter().any(|x| x == *key))
                            })
                    })
                    .collect();
                for (key, child) in map {
                    let pointer = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                    if required.contains(&key.as_str())
                        && let Some(call) = removed(example, &pointer)
                    {
                        self.push(format!("{pointer} removed"), call, &[Code::MissingField]);
                    }
                    self.value(example, child, &pointer);
                    self.fields(example, child, &pointer);
                }
            }
            Value::Array(items) => {
                if let Some(first) = items.first() {
                    let pointer = format!("{at}/0");
                    self.value(example, first, &pointer);
                    self.fields(example, first, &pointer);
                }
            }
            _ => {}
        }
    }

    /// Mutations of one value, from what its schema accepts.
    fn value(&mut self, example: &Value, current: &Value, pointer: &str) {
        let schemas: Vec<&Value> = nodes_at(self.schema, pointer)
            .into_iter()
            .filter_map(|s| resolve(self.schema, s))
            .collect();
        let Some(schema) = schemas.first().copied() else {
            return;
        };
        let accepts = Accepts::of(self.schema, &schemas);
        let put = |cases: &mut Self, name: String, value: Value, expected: &[Code]| {
            if let Some(call) = replaced(example, pointer, value) {
                cases.push(format!("{pointer}: {name}"), call, expected);
            }
        };
        // Every JSON type the field does not accept.
        for (kind, value) in [
            ("a string", Value::from("text")),
            ("an integer", Value::from(7)),
            ("a float", Value::from(1.5)),
            ("a boolean", Value::Bool(true)),
            ("null", Value::Null),
            ("an array", serde_json::json!([1])),
            ("an object", serde_json::json!({"k": 1})),
        ] {
            if !accepts.value(&value) {
                put(self, kind.to_owned(), value, STRUCTURE);
            }
        }
        if accepts.integer {
            put(
                self,
                "beyond 64 bits".into(),
                big_number("18446744073709551616"),
                &[Code::OutOfRange],
            );
            put(
                self,
                "below -2^63".into(),
                big_number("-9223372036854775809"),
                &[Code::OutOfRange],
            );
            if !accepts.number {
                put(
                    self,
                    "a float for an integer".into(),
                    Value::from(2.5),
                    &[Code::WrongType],
                );
            }
        }
        // One step outside each bound.
        let int = |k: &str| schema.get(k).and_then(Value::as_i64);
        if let Some(min) = int("minimum") {
            put(
                self,
                format!("{} (below the minimum)", min - 1),
                Value::from(min - 1),
                &[Code::OutOfRange],
            );
        }
        if let Some(max) = int("maximum") {
            put(
                self,
                format!("{} (above the maximum)", max + 1),
                Value::from(max + 1),
                &[Code::OutOfRange],
            );
        }
        let text = current.as_str().unwrap_or("a");
        let filler = text.chars().next().unwrap_or('a');
        let string = |n: u64| -> String {
            text.chars()
                .chain(std::iter::repeat(filler))
                .take(n as usize)
                .collect()
        };
        let length_codes = &[Code::InvalidLength, Code::PatternMismatch];
        if let Some(min) = schema
            .get("minLength")
            .and_then(Value::as_u64)
            .filter(|m| *m > 0)
        {
            put(
                self,
                format!("{} characters", min - 1),
                Value::from(string(min - 1)),
                length_codes,
            );
        }
        if let Some(max) = schema
            .get("maxLength")
            .and_then(Value::as_u64)
            .filter(|m| *m < 10_000)
        {
            put(
                self,
                format!("{} characters", max + 1),
                Value::from(string(max + 1)),
                length_codes,
            );
        }
        let items = current.as_array().cloned().unwrap_or_default();
        let item_codes = &[Code::InvalidLength, Code::InvalidValue];
        if let Some(min) = schema
            .get("minItems")
            .and_then(Value::as_u64)
            .filter(|m| *m > 0)
        {
            let fewer: Vec<Value> = items.iter().take((min - 1) as usize).cloned().collect();
            put(
                self,
                format!("{} items", min - 1),
                Value::Array(fewer),
                item_codes,
            );
        }
        if let (Some(max), Some(first)) = (
            schema.get("maxItems").and_then(Value::as_u64),
            items.first(),
        ) && max < 10_000
        {
            let more = vec![first.clone(); (max + 1) as usize];
            put(
                self,
                format!("{} items", max + 1),
                Value::Array(more),
                item_codes,
            );
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true))
            && let Some(first) = items.first()
        {
            put(
                self,
                "a repeated item".into(),
                Value::Array(vec![first.clone(), first.clone()]),
                item_codes,
            );
        }
        // Strings the pattern refuses.
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
            && let Ok(regex) = regex::Regex::new(pattern)
        {
            let candidates = [
                String::new(),
                " ".to_owned(),
                format!("{text}!"),
                format!("!{text}"),
                text.to_uppercase(),
                "../../etc/passwd".to_owned(),
                "' OR 1=1 --".to_owned(),
                format!("{text}\n"),
            ];
            for candidate in candidates.into_iter().filter(|c| !regex.is_match(c)) {
                put(
                    self,
                    format!("{candidate:?} (pattern breaker)"),
                    Value::from(candidate),
                    length_codes,
                );
            }
        }
        // Values outside an enum.
        if accepts.choices.iter().all(Value::is_string) && !accepts.choices.is_empty() {
            for outside in ["__not_one_of_them__".to_owned(), text.to_uppercase()] {
                if !accepts.choices.contains(&Value::from(outside.clone())) {
                    put(
                        self,
                        format!("{outside:?} (not in the enum)"),
                        Value::from(outside),
                        &[Code::InvalidValue],
                    );
                }
            }
        }
    }
}

/// The object schemas a node stands for: itself, or its union's branches.
fn flatten<'s>(root: &'s Value, node: &'s Value, out: &mut Vec<&'s Value>, depth: usize) {
    let Some(node) = resolve(root, node) else {
        return;
    };
    let branches: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| node.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    if branches.is_empty() || depth > 8 {
        out.push(node);
    } else {
        for branch in branches {
            flatten(root, branch, out, depth + 1);
        }
    }
}

/// Whether every constant property of `schema` (a tag) has the value the
/// object holds.
fn matches_constants(schema: &Value, object: &Map<String, Value>) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .all(|(key, property)| match property.get("const") {
            Some(constant) => object.get(key) == Some(constant),
            None => true,
        })
}

/// What a schema node accepts, by JSON type.
#[derive(Default)]
struct Accepts {
    string: bool,
    integer: bool,
    number: bool,
    boolean: bool,
    null: bool,
    array: bool,
    object: bool,
    /// Constants of an enum or tagged union, if the node is one.
    choices: Vec<Value>,
}

impl Accepts {
    fn of(root: &Value, schemas: &[&Value]) -> Accepts {
        let mut accepts = Accepts::default();
        for schema in schemas {
            accepts.add(root, schema, 0);
        }
        accepts
    }

    fn add(&mut self, root: &Value, schema: &Value, depth: usize) {
        let Some(schema) = resolve(root, schema) else {
            return;
        };
        if depth > 8 {
            return;
        }
        let mut typed = false;
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for t in types {
            typed = true;
            match t {
                "string" => self.string = true,
                "integer" => self.integer = true,
                "number" => {
                    self.number = true;
                    self.integer = true;
                }
                "boolean" => self.boolean = true,
                "null" => self.null = true,
                "array" => self.array = true,
                "object" => self.object = true,
                _ => {}
            }
        }
        for constant in schema
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .chain(schema.get("const"))
        {
            typed = true;
            self.choices.push(constant.clone());
            match constant {
                Value::String(_) => self.string = true,
                Value::Null => self.null = true,
                Value::Bool(_) => self.boolean = true,
                Value::Number(_) => self.number = true,
                Value::Array(_) => self.array = true,
                Value::Object(_) => self.object = true,
            }
        }
        for branch in ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| schema.get(*k).and_then(Value::as_array))
            .flatten()
        {
            typed = true;
            self.add(root, branch, depth + 1);
        }
        if !typed {
            // An unconstrained node accepts everything.
            *self = Accepts {
                string: true,
                integer: true,
                number: true,
                boolean: true,
                null: true,
                array: true,
                object: true,
                choices: Vec::new(),
            };
        }
    }

    fn value(&self, value: &Value) -> bool {
        match value {
            Value::String(_) => self.string,
            Value::Number(n) if n.is_f64() => self.number,
            Value::Number(_) => self.integer,
            Value::Bool(_) => self.boolean,
            Value::Null => self.null,
            Value::Array(_) => self.array,
            Value::Object(_) => self.object,
        }
    }
}

/// A number too large for `serde_json::Value` to hold exactly: it is kept
/// as a marked string and spliced into the text as its literal digits.
fn big_number(digits: &str) -> Value {
    Value::String(format!("{NUMBER}{digits}"))
}

const NUMBER: &str = "\u{0}number:";

/// Replaces each marked string (`"\u0000number:123"`) with its digits.
fn literal_numbers(text: &str) -> String {
    const MARKED: &str = "\"\\u0000number:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARKED) {
        out.push_str(rest.get(..at).unwrap_or_default());
        let after = rest.get(at + MARKED.len()..).unwrap_or_default();
        let end = after.find('"').unwrap_or(after.len());
        out.push_str(after.get(..end).unwrap_or_default());
        rest = after.get(end + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// A copy of `root` with the value at `pointer` replaced.
fn replaced(root: &Value, pointer: &str, value: Value) -> Option<Value> {
    let mut copy = root.clone();
    *copy.pointer_mut(pointer)? = value;
    Some(copy)
}

/// A copy of `root` without the member at `pointer`.
fn removed(root: &Value, pointer: &str) -> Option<Value> {
    let (parent, key) = pointer.rsplit_once('/')?;
    let mut copy = root.clone();
    let key = key.replace("~1", "/").replace("~0", "~");
    copy.pointer_mut(parent)?.as_object_mut()?.remove(&key)?;
    Some(copy)
}

/// Gates 1–3 alone for a call of `tool`: what the server decides about
/// these argument bytes, without admission, resources or the body. `None`
/// if no tool has the name. For differential tests against a JSON Schema
/// validator.
pub fn check_arguments<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
    arguments: &[u8],
) -> Option<Result<(), crate::Rejection>> {
    toolbox.check_arguments(tool, arguments)
}

/// Whether each call of `tool` is checked against every bound its schema
/// states before serde reads it, and so goes gate by gate rather than in
/// one pass: where the schema has an untagged union (`anyOf`), or states
/// a bound registration could not try (see
/// [`RegisterError::UnenforcedBound`](crate::RegisterError::UnenforcedBound)).
/// `None` for a tool the toolbox does not have.
///
/// ```
/// # use toolgate::{tool, ToolError, Toolbox};
/// /// Book a hotel.
/// #[tool(effect = read)]
/// fn book(#[garde(range(min = 1, max = 30))] nights: u8) -> Result<u8, ToolError> {
///     Ok(nights)
/// }
/// let mut toolbox = Toolbox::new(());
/// toolbox.register(Book).unwrap();
/// assert_eq!(toolgate::testing::checked_before_serde(&toolbox, "book"), Some(false));
/// ```
pub fn checked_before_serde<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
) -> Option<bool> {
    toolbox.checked_before_serde(tool)
}

/// Whether the single pass reads the calls of `tool` without its schema:
/// every member a scalar or an array of scalars, of types whose verdict is
/// the schema's, and each other member read against its own subschema.
/// Where the schema lists choices or says an array's items must differ,
/// registration proves that serde and the tool's rules hold them as the
/// schema does, or the calls are read with the schema. `None` for a tool
/// the toolbox does not have.
///
/// ```
/// # use toolgate::{tool, ToolError, Toolbox};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "snake_case")]
/// enum Size {
///     Small,
///     Large,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "snake_case")]
/// enum Roast {
///     Light,
///     #[serde(alias = "espresso")]
///     Dark,
/// }
///
/// /// Order a coffee.
/// #[tool(effect = read)]
/// fn order(#[garde(skip)] size: Size) -> Result<(), ToolError> {
///     Ok(())
/// }
///
/// /// Order beans: serde reads `espresso` as `dark`, which the schema
/// /// does not list.
/// #[tool(effect = read)]
/// fn order_beans(#[garde(skip)] roast: Roast) -> Result<(), ToolError> {
///     Ok(())
/// }
///
/// let mut toolbox = Toolbox::new(());
/// toolbox.register(Order).unwrap();
/// toolbox.register(OrderBeans).unwrap();
/// assert_eq!(toolgate::testing::read_without_schema(&toolbox, "order"), Some(true));
/// assert_eq!(toolgate::testing::read_without_schema(&toolbox, "order_beans"), Some(false));
/// ```
pub fn read_without_schema<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
) -> Option<bool> {
    toolbox.read_without_schema(tool)
}

/// [`check_arguments`] gate by gate: gate 1's full scan first, then serde,
/// the shape check and the rules, as the toolbox decides a call its
/// single-pass reader stops on. Every call must get the same answer from
/// both, rejections word for word; for differential tests and fuzzing of
/// the single-pass reader.
pub fn check_arguments_gate_by_gate<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
    arguments: &[u8],
) -> Option<Result<(), crate::Rejection>> {
    toolbox.check_arguments_gate_by_gate(tool, arguments)
}

/// Proves that no attack in `suite` reaches the side effect, and panics
/// with every failure listed otherwise.
///
/// `side_effects` reads a count from the state (rows written, calls made)
/// that grows when the tool's side effect happens. First the suite's valid
/// call is made as `ctx`: it must succeed and move the count, or the
/// assertion panics at once, since a count that does not see the side
/// effect (or a context that cannot call the tool) would let every attack
/// pass unseen. Then each attack is made in turn, and each must be rejected
/// with one of its expected codes and leave the count where it was; a
/// failure names the attack.
///
/// ```should_panic
/// # use toolgate::{tool, ToolContext, ToolError, Toolbox};
/// # /// Book a hotel.
/// # #[tool(effect = write)]
/// # fn book_hotel(#[garde(range(min = 1, max = 30))] nights: u8) -> Result<(), ToolError> { let _ = nights; Ok(()) }
/// # let mut toolbox = Toolbox::new(());
/// # toolbox.register(BookHotel).unwrap();
/// # let ctx = ToolContext::new("u", "t", "r").allow_tools(["book_hotel"]);
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let suite = toolgate::testing::attacks(BookHotel::definition(), r#"{"nights":2}"#).unwrap();
/// // A count that never moves proves nothing: this panics.
/// rt.block_on(toolgate::testing::assert_all_rejected(&toolbox, &ctx, &suite, |_| 0));
/// ```
pub async fn assert_all_rejected<S, F>(
    toolbox: &Toolbox<S>,
    ctx: &ToolContext,
    suite: &AttackSuite,
    side_effects: F,
) where
    S: Send + Sync + 'static,
    F: Fn(&S) -> usize,
{
    let before = side_effects(toolbox.state());
    let mut outcome = toolbox
        .call(ctx, suite.tool, suite.example.as_slice())
        .await;
    // A call that needs approval is approved, by the person it names or
    // else someone other than the caller holding the approver's scope, and
    // resumed: its body must still move the count.
    if let Some(approval) = outcome.approval() {
        let name = approval
            .approver
            .as_deref()
            .unwrap_or("toolgate-testing-approver");
        let approver = ToolContext::new(name, ctx.tenant(), ctx.request_id())
            .with_scopes(approval.approver_scope.clone());
        let id = approval.id.clone();
        if let Err(error) = toolbox.approve(&approver, &id).await {
            panic!(
                "the valid call to `{}` needs approval, and approving it failed: {error}",
                suite.tool
            );
        }
        outcome = toolbox.resume(ctx, &id).await;
    }
    let after = side_effects(toolbox.state());
    if !matches!(outcome, Outcome::Done(_)) {
        panic!(
            "the valid call to `{}` did not succeed, so the attacks would prove nothing: {} \
             answered {}",
            suite.tool,
            String::from_utf8_lossy(&suite.example),
            outcome.to_json()
        );
    }
    if after == before {
        panic!(
            "the valid call to `{}` succeeded but the side-effect count stayed at {before}: \
             the count does not see the side effect, so it cannot show an attack reaching it",
            suite.tool
        );
    }
    let mut failures = Vec::new();
    for attack in &suite.cases {
        let before = side_effects(toolbox.state());
        let outcome = toolbox
            .call(ctx, attack.tool, attack.arguments.as_slice())
            .await;
        let after = side_effects(toolbox.state());
        match &outcome {
            Outcome::Rejected(r) if attack.expected.contains(&r.code()) => {}
            Outcome::Rejected(r) => failures.push(format!(
                "{}: rejected with {} (\"{}\"), expected one of {:?}",
                attack.name,
                r.code(),
                r.safe_message(),
                attack.expected.iter().map(Code::as_str).collect::<Vec<_>>()
            )),
            other => failures.push(format!(
                "{}: not rejected: {}",
                attack.name,
                other.to_json()
            )),
        }
        if after != before {
            failures.push(format!(
                "{}: the side effect happened: {before} before, {after} after",
                attack.name
            ));
        }
    }
    if !failures.is_empty() {
        panic!(
            "{} failures in {} attacks:\n  {}",
            failures.len(),
            suite.cases.len(),
            failures.join("\n  ")
        );
    }
}

/// A clock for tests of gate 6's expiries: it stands still until moved.
/// Clones share one time.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolgate::{Clock, Toolbox};
/// use toolgate::testing::ManualClock;
///
/// let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
/// let toolbox = Toolbox::new(()).with_clock(clock.clone());
/// clock.advance(Duration::from_secs(16 * 60)); // past an approval's expiry
/// assert_eq!(clock.now(), SystemTime::UNIX_EPOCH + Duration::from_secs(960));
/// # let _ = toolbox;
/// ```
#[derive(Clone, Debug)]
pub struct ManualClock(std::sync::Arc<std::sync::Mutex<std::time::SystemTime>>);

impl ManualClock {
    /// A clock showing `start`.
    pub fn new(start: std::time::SystemTime) -> Self {
        ManualClock(std::sync::Arc::new(std::sync::Mutex::new(start)))
    }

    /// Moves the clock on by `by`.
    pub fn advance(&self, by: std::time::Duration) {
        let mut now = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *now += by;
    }
}

impl crate::Clock for ManualClock {
    fn now(&self) -> std::time::SystemTime {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A call that needs approval, and what [`assert_approvals_hold`] may do to
/// attack it.
pub struct ApprovalCase<'a, S> {
    /// The tool.
    pub tool: &'a str,
    /// A valid call of it that needs approval.
    pub arguments: &'a str,
    /// Other valid arguments for the same tool, if there are any: an
    /// approval of `arguments` must never run them.
    pub other_arguments: Option<&'a str>,
    /// Changes the object the call names, moving its version: an approval
    /// given before must not run against it.
    pub change: Option<&'a dyn Fn(&S)>,
    /// The toolbox's clock, if it is a [`ManualClock`]: an approval past
    /// its expiry must not run.
    pub clock: Option<&'a ManualClock>,
}

/// Proves that gate 6 holds for a tool whose call needs approval, and
/// panics with every failure listed otherwise.
///
/// The call is made as `ctx`; `approver` may approve it. `side_effects`
/// counts the tool's effect, as for [`assert_all_rejected`]. In order:
///
/// - the call asks for approval and does not run;
/// - resuming before a decision is `APPROVAL_PENDING`; a forged id,
///   another tenant's resume and another actor's are the flat
///   `NOT_PERMITTED`; none of them runs anything;
/// - with `other_arguments`, the model's call with them asks for an
///   approval of its own and runs nothing;
/// - with `change`, the approved call runs nothing after the change and
///   asks for a fresh approval, which is approved in turn;
/// - the approved call runs once, with the approved arguments; resuming it
///   again replays it, as does the model's repeat in the same conversation;
/// - the same call in another conversation asks again, and that second
///   approval, denied, never runs;
/// - with `clock`, a third approval, approved and then expired, never runs.
pub async fn assert_approvals_hold<S, F>(
    toolbox: &Toolbox<S>,
    ctx: &ToolContext,
    approver: &ToolContext,
    case: &ApprovalCase<'_, S>,
    side_effects: F,
) where
    S: Send + Sync + 'static,
    F: Fn(&S) -> usize,
{
    let tool = case.tool;
    // The conversation and the call id this run makes up are its own: on
    // a store that keeps the rows of earlier runs (a shared database),
    // another run's approvals are not this run's.
    let run = crate::gate::effect::new_id().unwrap_or_else(|_| "apr_harness".to_owned());
    let count = || side_effects(toolbox.state());
    let mut failures: Vec<String> = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            failures.push(what);
        }
    };
    let code = |outcome: &Outcome| outcome.rejection().map(crate::Rejection::code);
    let start = count();
    let asked = toolbox.call(ctx, tool, case.arguments).await;
    let Some(approval) = asked.approval().cloned() else {
        panic!(
            "the call to `{tool}` did not ask for approval, so there is nothing to prove: {}",
            asked.to_json()
        );
    };
    check(
        count() == start,
        "the call ran before it was approved".into(),
    );

    let pending = toolbox.resume(ctx, &approval.id).await;
    check(
        code(&pending) == Some(Code::ApprovalPending),
        format!("resumed before a decision: {}", pending.to_json()),
    );
    if let Err(error) = toolbox.approve(approver, &approval.id).await {
        panic!("the approver could not approve the call to `{tool}`: {error}");
    }
    let scopes = || ctx.scopes().map(str::to_owned).collect::<Vec<_>>();
    let forged = format!("{}0", approval.id);
    let outsiders = [
        ("a forged id", ctx.clone(), forged.as_str()),
        (
            "another tenant",
            ToolContext::new(
                ctx.actor(),
                "toolgate-testing-other-tenant",
                ctx.request_id(),
            )
            .with_scopes(scopes())
            .allow_all_tools(),
            approval.id.as_str(),
        ),
        (
            "another actor",
            ToolContext::new(
                "toolgate-testing-other-actor",
                ctx.tenant(),
                ctx.request_id(),
            )
            .with_scopes(scopes())
            .allow_all_tools(),
            approval.id.as_str(),
        ),
    ];
    for (who, outsider, id) in &outsiders {
        let outcome = toolbox.resume(outsider, id).await;
        check(
            code(&outcome) == Some(Code::NotPermitted),
            format!("{who} resumed the approval: {}", outcome.to_json()),
        );
    }
    if let Some(other) = case.other_arguments {
        let outcome = toolbox.call(ctx, tool, other).await;
        check(
            outcome.approval().is_some_and(|a| a.id != approval.id),
            format!(
                "other arguments did not ask for their own approval: {}",
                outcome.to_json()
            ),
        );
    }
    check(
        count() == start,
        "a refused resume or call ran the tool".into(),
    );

    let mut id = approval.id.clone();
    if let Some(change) = case.change {
        change(toolbox.state());
        let outcome = toolbox.resume(ctx, &id).await;
        check(
            count() == start,
            "the call ran against a changed object".into(),
        );
        match outcome.approval() {
            Some(fresh) if fresh.id != id => {
                id = fresh.id.clone();
                if let Err(error) = toolbox.approve(approver, &id).await {
                    panic!("the approver could not approve the fresh approval: {error}");
                }
            }
            _ => check(
                false,
                format!(
                    "a changed object did not ask for a fresh approval: {}",
                    outcome.to_json()
                ),
            ),
        }
    }

    let done = toolbox.resume(ctx, &id).await;
    check(
        matches!(done, Outcome::Done(_)) && count() == start + 1,
        format!("the approved call did not run once: {}", done.to_json()),
    );
    let again = toolbox.resume(ctx, &id).await;
    check(
        again.is_replay() && count() == start + 1,
        format!("a repeated resume was not a replay: {}", again.to_json()),
    );

    let repeat = toolbox.call(ctx, tool, case.arguments).await;
    check(
        repeat.is_replay() && count() == start + 1,
        format!(
            "the model's repeat of the approved call was not a replay: {}",
            repeat.to_json()
        ),
    );

    let elsewhere = ctx
        .clone()
        .with_session(format!("toolgate-testing-another-conversation-{run}"));
    let second = toolbox.call(&elsewhere, tool, case.arguments).await;
    match second.approval() {
        Some(second) => {
            let _ = toolbox.deny(approver, &second.id).await;
            let outcome = toolbox.resume(&elsewhere, &second.id).await;
            check(
                code(&outcome) == Some(Code::ApprovalDenied) && count() == start + 1,
                format!(
                    "a denied approval ran or answered otherwise: {}",
                    outcome.to_json()
                ),
            );
        }
        None => check(
            false,
            format!(
                "the same call in another conversation did not ask for approval: {}",
                second.to_json()
            ),
        ),
    }

    if let Some(clock) = case.clock {
        // A call id of this run's own: on a store that keeps earlier runs'
        // records (a shared database), a fixed one would find the approval
        // an earlier run asked for, still live on this run's clock.
        let call_id = match crate::gate::effect::new_id() {
            Ok(id) => format!("toolgate-testing-expiry-{id}"),
            Err(error) => panic!("no random call id for the expiry case: {error}"),
        };
        let third = toolbox
            .call(&ctx.clone().with_call_id(call_id), tool, case.arguments)
            .await;
        match third.approval() {
            Some(third) => {
                if let Err(error) = toolbox.approve(approver, &third.id).await {
                    panic!("the approver could not approve the third approval: {error}");
                }
                let ttl = third
                    .expires_at
                    .duration_since(third.created_at)
                    .unwrap_or_default();
                clock.advance(ttl);
                let outcome = toolbox.resume(ctx, &third.id).await;
                check(
                    code(&outcome) == Some(Code::ApprovalExpired) && count() == start + 1,
                    format!(
                        "an expired approval ran or answered otherwise: {}",
                        outcome.to_json()
                    ),
                );
            }
            None => check(
                false,
                format!("a third call did not ask for approval: {}", third.to_json()),
            ),
        }
    }
    if !failures.is_empty() {
        panic!(
            "gate 6 did not hold for `{tool}`, {} failures:\n  {}",
            failures.len(),
            failures.join("\n  ")
        );
    }
}

/// Proves that an [`EffectStore`](crate::EffectStore) behaves as gate 6
/// needs, and panics with every failure listed otherwise: the one suite
/// every store runs (the memory store's tests, and those of the SQLite
/// and PostgreSQL stores).
///
/// Every key and approval id it uses is fresh, so it can run against a
/// database that holds other data. Time is passed in, never read: the
/// suite moves it past leases, windows and expiries itself. `racers` calls
/// of each atomic operation are made at once on one key (polled together
/// in this task; a database store has them all in flight), and exactly one
/// must win.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// toolgate::testing::assert_store_conforms(&toolgate::MemoryStore::new(), 100).await;
/// # });
/// ```
pub async fn assert_store_conforms(store: &dyn crate::EffectStore, racers: usize) {
    use crate::{Claim, Consumed, Decided, Decision};
    use std::time::Duration;

    let mut failures: Vec<String> = Vec::new();
    let mut check = |ok: bool, what: &str| {
        if !ok {
            failures.push(what.to_owned());
        }
    };
    let run = crate::gate::effect::new_id().unwrap_or_else(|_| "apr_conformance".to_owned());
    let key = |name: &str| format!("{run}:{name}");
    let t0 = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000_000);
    let s = Duration::from_secs;
    let (lease, retain) = (s(60), s(3600));
    let outcome = serde_json::json!({"status": "done", "result": 1});

    // Idempotency keys.
    let k = key("claim");
    let claim = |k: String, digest: &'static str, at| async move {
        store.claim(&k, digest, at, lease, retain).await
    };
    check(
        matches!(claim(k.clone(), "d1", t0).await, Ok(Claim::Claimed)),
        "a new key is claimed",
    );
    check(
        matches!(claim(k.clone(), "d1", t0 + s(1)).await, Ok(Claim::InFlight)),
        "a held key is in flight",
    );
    check(
        matches!(claim(k.clone(), "d2", t0 + s(1)).await, Ok(Claim::Conflict)),
        "a key claimed with another digest conflicts",
    );
    check(
        matches!(claim(k.clone(), "d1", t0 + s(61)).await, Ok(Claim::Claimed)),
        "a lease that ran out can be claimed again",
    );
    check(
        store.complete(&k, outcome.clone()).await.is_ok(),
        "complete succeeds",
    );
    check(
        matches!(claim(k.clone(), "d1", t0 + s(200)).await, Ok(Claim::Finished(ref o)) if *o == outcome),
        "a finished key returns its outcome, past its lease",
    );
    check(store.release(&k).await.is_ok(), "release succeeds");
    check(
        matches!(
            claim(k.clone(), "d1", t0 + s(201)).await,
            Ok(Claim::Finished(_))
        ),
        "release leaves a finished key alone",
    );
    check(
        matches!(
            claim(k.clone(), "d1", t0 + s(3700)).await,
            Ok(Claim::Claimed)
        ),
        "a record past its retention is gone",
    );
    let never = key("never");
    check(
        store
            .complete(&never, serde_json::json!("an outcome"))
            .await
            .is_ok()
            && matches!(claim(never.clone(), "d1", t0).await, Ok(Claim::Claimed)),
        "an outcome for a key nobody holds is not recorded",
    );
    let first = key("first");
    let _ = claim(first.clone(), "d1", t0).await;
    let _ = store.complete(&first, outcome.clone()).await;
    let _ = store
        .complete(&first, serde_json::json!("a later outcome"))
        .await;
    check(
        matches!(claim(first.clone(), "d1", t0 + s(1)).await, Ok(Claim::Finished(ref o)) if *o == outcome),
        "the first outcome recorded stands",
    );
    let short = key("short");
    check(
        matches!(
            store.claim(&short, "d1", t0, s(60), s(10)).await,
            Ok(Claim::Claimed)
        ),
        "a key is claimed with a retention shorter than its lease",
    );
    check(
        matches!(
            store.claim(&short, "d1", t0 + s(30), s(60), s(10)).await,
            Ok(Claim::InFlight)
        ) && matches!(
            store.claim(&short, "d2", t0 + s(30), s(60), s(10)).await,
            Ok(Claim::Conflict)
        ),
        "a record is kept as long as its lease, whatever its retention",
    );
    let k2 = key("release");
    let _ = claim(k2.clone(), "d1", t0).await;
    let _ = store.release(&k2).await;
    check(
        matches!(claim(k2.clone(), "d1", t0 + s(1)).await, Ok(Claim::Claimed)),
        "a released key can be claimed at once",
    );

    // Approvals.
    let approval = |id: &str, expires| crate::Approval {
        id: id.to_owned(),
        tenant: "tenant_conformance".to_owned(),
        actor: "actor".to_owned(),
        session: Some("conversation".to_owned()),
        call_id: Some("call_7".to_owned()),
        request_id: "req_1".to_owned(),
        tool: "tool".to_owned(),
        version: 1,
        fingerprint: "sha256:0".to_owned(),
        arguments: serde_json::json!({"n": 1}),
        digest: "d".to_owned(),
        resources: Vec::new(),
        approver_scope: None,
        distinct_approver: false,
        approver: None,
        created_at: t0,
        expires_at: expires,
        state: crate::ApprovalState::Pending,
    };
    let a = key("approval");
    check(
        store
            .create_approval(approval(&a, t0 + s(900)))
            .await
            .is_ok(),
        "an approval is created",
    );
    check(
        store.approval(&a).await.ok().flatten() == Some(approval(&a, t0 + s(900))),
        "an approval reads back as written",
    );
    check(
        matches!(store.approval(&key("none")).await, Ok(None)),
        "an unknown approval is none",
    );
    check(
        matches!(store.consume(&a, t0 + s(1)).await, Ok(Consumed::Pending)),
        "a pending approval is not consumed",
    );
    check(
        matches!(
            store
                .decide(&a, Decision::Approve("boss".into()), t0 + s(2))
                .await,
            Ok(Decided::Done)
        ),
        "a pending approval is approved",
    );
    check(
        matches!(
            store
                .decide(&a, Decision::Deny("boss".into()), t0 + s(3))
                .await,
            Ok(Decided::AlreadyDecided)
        ),
        "an approval is decided once",
    );
    check(
        matches!(store.approval(&a).await, Ok(Some(ref r)) if r.state == crate::ApprovalState::Approved { by: "boss".into() }),
        "the decision and its approver are recorded",
    );
    check(
        matches!(store.consume(&a, t0 + s(4)).await, Ok(Consumed::Done)),
        "an approved approval is consumed",
    );
    check(
        matches!(store.consume(&a, t0 + s(5)).await, Ok(Consumed::Used)),
        "an approval is consumed once",
    );
    check(
        matches!(
            store
                .decide(&key("none"), Decision::Approve("boss".into()), t0)
                .await,
            Ok(Decided::Unknown)
        ),
        "an unknown approval cannot be decided",
    );
    check(
        matches!(store.consume(&key("none"), t0).await, Ok(Consumed::Unknown)),
        "an unknown approval cannot be consumed",
    );
    check(
        store
            .create_approval(approval(&a, t0 + s(900)))
            .await
            .is_err(),
        "an approval id is created once",
    );
    check(
        matches!(store.approval(&a).await, Ok(Some(ref r)) if matches!(r.state, crate::ApprovalState::Used { .. })),
        "a second approval with a taken id replaces nothing",
    );
    let late = key("late");
    let _ = store.create_approval(approval(&late, t0 + s(900))).await;
    check(
        matches!(
            store
                .decide(&late, Decision::Approve("boss".into()), t0 + s(900))
                .await,
            Ok(Decided::Expired)
        ),
        "an expired approval cannot be decided",
    );
    let stale = key("stale");
    let _ = store.create_approval(approval(&stale, t0 + s(900))).await;
    let _ = store
        .decide(&stale, Decision::Approve("boss".into()), t0)
        .await;
    check(
        matches!(
            store.consume(&stale, t0 + s(900)).await,
            Ok(Consumed::Expired)
        ),
        "an approval expired after its approval is not consumed",
    );
    let no = key("denied");
    let _ = store.create_approval(approval(&no, t0 + s(900))).await;
    let _ = store.decide(&no, Decision::Deny("boss".into()), t0).await;
    check(
        matches!(store.consume(&no, t0 + s(1)).await, Ok(Consumed::Denied)),
        "a denied approval is not consumed",
    );

    // Counters and buckets.
    let c = key("count");
    let mut counts = Vec::new();
    for at in [t0, t0 + s(1), t0 + s(2), t0 + s(61)] {
        counts.push(store.count(&c, at, s(60)).await.unwrap_or(0));
    }
    check(
        counts == [1, 2, 3, 1],
        "a counter counts within its window and starts over after it",
    );
    let b = key("bucket");
    let mut takes = Vec::new();
    for at in [t0, t0, t0, t0 + s(30)] {
        takes.push(store.take(&b, 2, s(60), at).await.ok().flatten());
    }
    check(
        matches!(
            takes.as_slice(),
            [None, None, Some(wait), None] if *wait > s(29) && *wait <= s(30)
        ),
        "a bucket gives its capacity, says how long until the next token, and refills",
    );

    // Races: exactly one winner.
    let raced = key("race");
    let claims = join_all((0..racers).map(|_| claim(raced.clone(), "d1", t0))).await;
    let won = claims
        .iter()
        .filter(|c| matches!(c, Ok(Claim::Claimed)))
        .count();
    check(
        won == 1,
        "exactly one of many concurrent claims of a key wins",
    );
    let r = key("race-approval");
    let _ = store.create_approval(approval(&r, t0 + s(900))).await;
    let decided =
        join_all((0..racers).map(|i| store.decide(&r, Decision::Approve(format!("boss_{i}")), t0)))
            .await;
    check(
        decided
            .iter()
            .filter(|d| matches!(d, Ok(Decided::Done)))
            .count()
            == 1,
        "exactly one of many concurrent decisions wins",
    );
    let consumed = join_all((0..racers).map(|_| store.consume(&r, t0 + s(1)))).await;
    check(
        consumed
            .iter()
            .filter(|c| matches!(c, Ok(Consumed::Done)))
            .count()
            == 1,
        "exactly one of many concurrent consumes wins",
    );
    let race_count = key("race-count");
    let counted = join_all((0..racers).map(|_| store.count(&race_count, t0, s(60)))).await;
    let mut seen: Vec<u32> = counted.into_iter().filter_map(Result::ok).collect();
    seen.sort_unstable();
    check(
        seen == (1..=u32::try_from(racers).unwrap_or(u32::MAX)).collect::<Vec<_>>(),
        "concurrent counts each see their own number",
    );

    if !failures.is_empty() {
        panic!(
            "the store does not conform, {} failures:\n  {}",
            failures.len(),
            failures.join("\n  ")
        );
    }
}

/// Polls every future together until all are done, in order.
async fn join_all<F: core::future::Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut pending: Vec<_> = futures.into_iter().map(|f| Some(Box::pin(f))).collect();
    let mut outputs: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    core::future::poll_fn(|cx| {
        let mut done = true;
        for (slot, output) in pending.iter_mut().zip(outputs.iter_mut()) {
            if let Some(future) = slot {
                match future.as_mut().poll(cx) {
                    core::task::Poll::Ready(value) => {
                        *output = Some(value);
                        *slot = None;
                    }
                    core::task::Poll::Pending => done = false,
                }
            }
        }
        if done {
            core::task::Poll::Ready(())
        } else {
            core::task::Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}
