//! The attacks derived from a tool's schema and one valid call, and the
//! assertion that none of them reaches the side effect.

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
