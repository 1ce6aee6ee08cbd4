//! Conformance checkers: the provider rules of `shared/PROVIDERS.md`,
//! written independently of the exporter, applied to exported tools.
//!
//! Each checker takes a tool in its provider's envelope and returns every
//! rule it breaks (empty when it conforms). They are tested with tools that
//! must fail them (`tests/behaviour/providers/conformance.rs`).

use serde_json::{Map, Value};

/// A provider dialect, with its envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    OpenAiChat { strict: bool },
    OpenAiResponses { strict: bool },
    Anthropic { strict: bool },
    Gemini,
    GeminiLegacy,
    Mcp,
}

impl Dialect {
    pub const ALL: [Dialect; 9] = [
        Dialect::OpenAiChat { strict: true },
        Dialect::OpenAiChat { strict: false },
        Dialect::OpenAiResponses { strict: true },
        Dialect::OpenAiResponses { strict: false },
        Dialect::Anthropic { strict: true },
        Dialect::Anthropic { strict: false },
        Dialect::Gemini,
        Dialect::GeminiLegacy,
        Dialect::Mcp,
    ];

    pub fn slug(self) -> &'static str {
        match self {
            Dialect::OpenAiChat { strict: true } => "openai_chat_strict",
            Dialect::OpenAiChat { strict: false } => "openai_chat",
            Dialect::OpenAiResponses { strict: true } => "openai_responses_strict",
            Dialect::OpenAiResponses { strict: false } => "openai_responses",
            Dialect::Anthropic { strict: true } => "anthropic_strict",
            Dialect::Anthropic { strict: false } => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::GeminiLegacy => "gemini_legacy",
            Dialect::Mcp => "mcp",
        }
    }
}

const OPENAI_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Every rule `tool` breaks in `dialect`.
pub fn check(dialect: Dialect, tool: &Value) -> Vec<String> {
    let mut v = Violations(Vec::new());
    let (name, description, schema) = match envelope(dialect, tool) {
        Ok(parts) => parts,
        Err(problem) => return vec![problem],
    };
    v.name(dialect, name);
    if matches!(
        dialect,
        Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. }
    ) && description.chars().count() > 1024
    {
        v.add("description over 1024 characters");
    }
    let object = if dialect == Dialect::GeminiLegacy {
        "OBJECT"
    } else {
        "object"
    };
    if schema.get("type").and_then(Value::as_str) != Some(object) {
        v.add(format!("root type is not {object}"));
    }
    if dialect != Dialect::Mcp {
        for key in ["anyOf", "oneOf", "allOf"] {
            if schema.get(key).is_some() {
                v.add(format!("root has {key}"));
            }
        }
    }
    walk(dialect, schema, schema, "#", &mut v);
    if let Some(Value::Object(defs)) = schema.get("$defs") {
        for (name, def) in defs {
            walk(dialect, schema, def, &format!("#/$defs/{name}"), &mut v);
        }
    }
    match dialect {
        Dialect::OpenAiChat { strict: true } | Dialect::OpenAiResponses { strict: true } => {
            openai_limits(schema, &mut v)
        }
        Dialect::Anthropic { strict: true } => {
            let (optional, unions) = anthropic_parameters(schema);
            if optional > 24 {
                v.add("more than 24 optional parameters");
            }
            if unions > 16 {
                v.add("more than 16 union-typed parameters");
            }
            if let Some(name) = first_cycle(schema) {
                v.add(format!("`{name}` is recursive"));
            }
        }
        Dialect::Mcp => mcp_extras(tool, &mut v),
        _ => {}
    }
    v.0
}

struct Violations(Vec<String>);

impl Violations {
    fn add(&mut self, problem: impl Into<String>) {
        self.0.push(problem.into());
    }

    fn name(&mut self, dialect: Dialect, name: &str) {
        let ok = match dialect {
            Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. } => {
                (1..=64).contains(&name.len())
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            }
            Dialect::Anthropic { .. } => {
                (1..=128).contains(&name.len())
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            }
            Dialect::Gemini | Dialect::GeminiLegacy => {
                let mut bytes = name.bytes();
                matches!(bytes.next(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_'))
                    && name.len() <= 64
                    && bytes.all(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-')
                    })
            }
            Dialect::Mcp => {
                (1..=128).contains(&name.len())
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
            }
        };
        if !ok {
            self.add(format!("tool name `{name}` is not accepted"));
        }
    }
}

fn envelope(dialect: Dialect, tool: &Value) -> Result<(&str, &str, &Value), String> {
    fn get<'v>(v: &'v Value, key: &str) -> Result<&'v Value, String> {
        v.get(key).ok_or_else(|| format!("envelope lacks `{key}`"))
    }
    fn text(v: &Value, key: &str) -> Result<String, String> {
        get(v, key)?
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("`{key}` is not a string"))
    }
    let (holder, schema_key) = match dialect {
        Dialect::OpenAiChat { strict } => {
            if text(tool, "type")? != "function" {
                return Err("`type` is not \"function\"".into());
            }
            let function = get(tool, "function")?;
            if function.get("strict") != Some(&Value::Bool(strict)) {
                return Err("`strict` is missing or wrong".into());
            }
            (function, "parameters")
        }
        Dialect::OpenAiResponses { strict } => {
            if text(tool, "type")? != "function" {
                return Err("`type` is not \"function\"".into());
            }
            if tool.get("strict") != Some(&Value::Bool(strict)) {
                return Err("`strict` is missing or wrong".into());
            }
            (tool, "parameters")
        }
        // Non-strict: no `strict` key at all, since some endpoints refuse
        // `"strict": false`.
        Dialect::Anthropic { strict } => {
            let expected = strict.then_some(&Value::Bool(true));
            if tool.get("strict") != expected {
                return Err("`strict` is missing or wrong".into());
            }
            (tool, "input_schema")
        }
        Dialect::Gemini => {
            if tool.get("parameters").is_some() {
                return Err("`parameters` and `parametersJsonSchema` are exclusive".into());
            }
            (tool, "parametersJsonSchema")
        }
        Dialect::GeminiLegacy => {
            if tool.get("parametersJsonSchema").is_some() {
                return Err("`parameters` and `parametersJsonSchema` are exclusive".into());
            }
            (tool, "parameters")
        }
        Dialect::Mcp => (tool, "inputSchema"),
    };
    let name = holder
        .get("name")
        .and_then(Value::as_str)
        .ok_or("envelope lacks a string `name`")?;
    let description = holder
        .get("description")
        .and_then(Value::as_str)
        .ok_or("envelope lacks a string `description`")?;
    let schema = holder
        .get(schema_key)
        .ok_or_else(|| format!("envelope lacks `{schema_key}`"))?;
    Ok((name, description, schema))
}

/// Keywords each dialect accepts on a schema node.
fn allowed(dialect: Dialect) -> &'static [&'static str] {
    match dialect {
        Dialect::OpenAiChat { strict: true } | Dialect::OpenAiResponses { strict: true } => &[
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "const",
            "anyOf",
            "$ref",
            "$defs",
            "description",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
        ],
        Dialect::OpenAiChat { strict: false } | Dialect::OpenAiResponses { strict: false } => &[
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "const",
            "anyOf",
            "$ref",
            "$defs",
            "description",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
            "minLength",
            "maxLength",
        ],
        Dialect::Anthropic { strict: true } => &[
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "const",
            "anyOf",
            "allOf",
            "$ref",
            "$defs",
            "description",
            "pattern",
            "format",
            "minItems",
        ],
        Dialect::Anthropic { strict: false } => &[
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "const",
            "anyOf",
            "allOf",
            "$ref",
            "$defs",
            "description",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
            "minLength",
            "maxLength",
            "uniqueItems",
        ],
        Dialect::Gemini => &[
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "anyOf",
            "description",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "minItems",
            "maxItems",
            "minLength",
            "maxLength",
        ],
        Dialect::GeminiLegacy => &[
            "type",
            "properties",
            "required",
            "items",
            "enum",
            "anyOf",
            "description",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "minItems",
            "maxItems",
            "minLength",
            "maxLength",
            "nullable",
        ],
        Dialect::Mcp => &[],
    }
}

fn walk(dialect: Dialect, root: &Value, node: &Value, at: &str, v: &mut Violations) {
    if node == &Value::Bool(true) && is_strict(dialect) {
        v.add(format!("{at}: the schema `true` takes any value"));
    }
    let Some(map) = node.as_object() else { return };
    if dialect == Dialect::Mcp {
        if let Some(Value::String(r)) = map.get("$ref")
            && !r.starts_with('#')
        {
            v.add(format!("{at}: $ref {r} is not local"));
        }
    } else {
        let allowed = allowed(dialect);
        for key in map.keys() {
            let root_defs = key == "$defs" && at == "#";
            if !allowed.contains(&key.as_str()) || (key == "$defs" && !root_defs) {
                v.add(format!("{at}: keyword `{key}` is not accepted"));
            }
        }
        node_rules(dialect, root, map, at, v);
    }
    for (key, child) in map {
        match key.as_str() {
            "properties" | "$defs" => {
                if key == "$defs" {
                    continue; // walked from the root
                }
                for (name, schema) in child.as_object().into_iter().flatten() {
                    property_name(dialect, name, at, v);
                    walk(dialect, root, schema, &format!("{at}/properties/{name}"), v);
                }
            }
            "items" | "additionalProperties" | "not" | "contains" => {
                walk(dialect, root, child, &format!("{at}/{key}"), v)
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                for (i, branch) in child.as_array().into_iter().flatten().enumerate() {
                    walk(dialect, root, branch, &format!("{at}/{key}/{i}"), v);
                }
            }
            _ => {}
        }
    }
}

fn property_name(dialect: Dialect, name: &str, at: &str, v: &mut Violations) {
    let ok = match dialect {
        Dialect::Anthropic { .. } => {
            (1..=64).contains(&name.len())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        }
        Dialect::Gemini | Dialect::GeminiLegacy => {
            let mut bytes = name.bytes();
            matches!(bytes.next(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_'))
                && name.len() <= 64
                && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }
        _ => true,
    };
    if !ok {
        v.add(format!("{at}: property name `{name}` is not accepted"));
    }
}

fn node_rules(
    dialect: Dialect,
    root: &Value,
    map: &Map<String, Value>,
    at: &str,
    v: &mut Violations,
) {
    let strict = is_strict(dialect);
    let openai = matches!(
        dialect,
        Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. }
    );
    let gemini = matches!(dialect, Dialect::Gemini | Dialect::GeminiLegacy);
    let is_object = map
        .get("type")
        .is_some_and(|t| t == "object" || t == "OBJECT")
        || map.contains_key("properties");
    if strict && is_object && map.get("additionalProperties") != Some(&Value::Bool(false)) {
        v.add(format!("{at}: object without additionalProperties: false"));
    }
    // Strict decoding needs to know what to generate: a node with nothing
    // that says its type takes any value. The root's `$defs` holder and
    // `$defs` themselves are judged on their own.
    let says_type = [
        "type",
        "enum",
        "const",
        "anyOf",
        "allOf",
        "oneOf",
        "$ref",
        "not",
        "properties",
        "items",
    ]
    .iter()
    .any(|k| map.contains_key(*k));
    if strict && !says_type {
        v.add(format!("{at}: a node without a type takes any value"));
    }
    if matches!(
        dialect,
        Dialect::OpenAiChat { strict: true } | Dialect::OpenAiResponses { strict: true }
    ) && is_object
    {
        let properties: Vec<&String> = map
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for property in properties {
            if !required.contains(&property.as_str()) {
                v.add(format!("{at}: property `{property}` is not required"));
            }
        }
    }
    if openai && map.contains_key("$ref") && map.len() > 1 {
        v.add(format!("{at}: $ref has siblings"));
    }
    if openai && map.get("type").is_some_and(|t| t == "array") && !map.contains_key("items") {
        v.add(format!("{at}: array without items"));
    }
    if let Some(format) = map.get("format").and_then(Value::as_str) {
        let ok = match dialect {
            Dialect::Anthropic { .. } => OPENAI_FORMATS.contains(&format) || format == "uri",
            _ if openai => OPENAI_FORMATS.contains(&format),
            _ if gemini => format == "date-time" || format == "enum",
            _ => true,
        };
        if !ok {
            v.add(format!("{at}: format `{format}` is not accepted"));
        }
    }
    if dialect == (Dialect::Anthropic { strict: true }) {
        if map
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 1)
        {
            v.add(format!("{at}: minItems above 1"));
        }
        if let Some(pattern) = map.get("pattern").and_then(Value::as_str)
            && ["(?=", "(?!", "(?<=", "(?<!", "\\b"]
                .iter()
                .any(|c| pattern.contains(c))
        {
            v.add(format!("{at}: pattern is not a simple regex"));
        }
        if map.get("allOf").is_some() && map.get("$ref").is_some() {
            v.add(format!("{at}: allOf with $ref"));
        }
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        if gemini && values.iter().any(|x| !x.is_string()) {
            v.add(format!("{at}: enum with values that are not strings"));
        }
        if matches!(dialect, Dialect::Anthropic { .. })
            && values.iter().any(|x| x.is_object() || x.is_array())
        {
            v.add(format!("{at}: enum with values that are not primitives"));
        }
    }
    if gemini && map.contains_key("anyOf") && map.len() > 1 {
        v.add(format!("{at}: anyOf is not alone on its node"));
    }
    if dialect == Dialect::GeminiLegacy {
        match map.get("type") {
            Some(Value::Array(_)) => v.add(format!("{at}: type array")),
            Some(Value::String(t)) if t.chars().any(|c| c.is_ascii_lowercase()) => {
                v.add(format!("{at}: type `{t}` is not uppercase"))
            }
            _ => {}
        }
    }
    if let Some(Value::String(r)) = map.get("$ref")
        && (!r.starts_with("#/$defs/")
            || r.strip_prefix('#').and_then(|p| root.pointer(p)).is_none())
    {
        v.add(format!("{at}: $ref {r} does not resolve locally"));
    }
}

fn openai_limits(schema: &Value, v: &mut Violations) {
    fn count(node: &Value, nesting: usize, totals: &mut (usize, usize, usize)) {
        match node {
            Value::Object(map) => {
                let mut nesting = nesting;
                if let Some(Value::Object(props)) = map.get("properties") {
                    nesting += 1;
                    totals.0 += props.len();
                    totals.2 = totals.2.max(nesting);
                }
                if let Some(Value::Array(values)) = map.get("enum") {
                    totals.1 += values.len();
                }
                for (key, child) in map {
                    if key != "enum" && key != "required" && key != "const" {
                        count(child, nesting, totals);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| count(i, nesting, totals)),
            _ => {}
        }
    }
    let mut totals = (0, 0, 0);
    count(schema, 0, &mut totals);
    if totals.0 > 5000 {
        v.add("more than 5000 properties");
    }
    if totals.1 > 1000 {
        v.add("more than 1000 enum values");
    }
    if totals.2 > 10 {
        v.add("objects nest more than 10 deep");
    }
    if schema.to_string().chars().count() > 120_000 {
        v.add("schema over 120000 characters");
    }
}

fn mcp_extras(tool: &Value, v: &mut Violations) {
    if let Some(annotations) = tool.get("annotations") {
        for (key, value) in annotations.as_object().into_iter().flatten() {
            let known = [
                "title",
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ];
            if !known.contains(&key.as_str()) {
                v.add(format!("unknown annotation `{key}`"));
            } else if key != "title" && !value.is_boolean() {
                v.add(format!("annotation `{key}` is not a boolean"));
            }
        }
    }
    if let Some(output) = tool.get("outputSchema")
        && output.get("type").and_then(Value::as_str) != Some("object")
    {
        v.add("outputSchema root type is not object");
    }
}

fn is_strict(dialect: Dialect) -> bool {
    matches!(
        dialect,
        Dialect::OpenAiChat { strict: true }
            | Dialect::OpenAiResponses { strict: true }
            | Dialect::Anthropic { strict: true }
    )
}

/// Every schema node under `node` (itself included), wherever it sits:
/// property values, items, branches and definitions.
fn schema_nodes<'v>(node: &'v Value, out: &mut Vec<&'v Map<String, Value>>) {
    let Some(map) = node.as_object() else { return };
    out.push(map);
    for (key, child) in map {
        let children: Vec<&Value> = match key.as_str() {
            "properties" | "$defs" => child
                .as_object()
                .map_or(Vec::new(), |m| m.values().collect()),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                child.as_array().map_or(Vec::new(), |a| a.iter().collect())
            }
            "items" | "additionalProperties" | "not" | "contains" => vec![child],
            _ => Vec::new(),
        };
        for c in children {
            schema_nodes(c, out);
        }
    }
}

/// Anthropic's count of optional and of union-typed parameters in one
/// input schema: every property of every object, `$defs` included.
fn anthropic_parameters(schema: &Value) -> (usize, usize) {
    let mut nodes = Vec::new();
    schema_nodes(schema, &mut nodes);
    let (mut optional, mut unions) = (0, 0);
    for node in nodes {
        let Some(Value::Object(properties)) = node.get("properties") else {
            continue;
        };
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        optional += properties
            .keys()
            .filter(|k| !required.contains(&k.as_str()))
            .count();
        for property in properties.values() {
            let target = match property.get("$ref").and_then(Value::as_str) {
                Some(r) => r
                    .strip_prefix('#')
                    .and_then(|p| schema.pointer(p))
                    .unwrap_or(property),
                None => property,
            };
            if target.get("anyOf").is_some() || matches!(target.get("type"), Some(Value::Array(_)))
            {
                unions += 1;
            }
        }
    }
    (optional, unions)
}

/// A definition that reaches itself through `$ref`s, if any.
fn first_cycle(schema: &Value) -> Option<String> {
    fn refs(node: &Value, out: &mut Vec<String>) {
        match node {
            Value::Object(map) => {
                for (key, child) in map {
                    match (key.as_str(), child) {
                        ("$ref", Value::String(r)) => {
                            if let Some(name) = r.strip_prefix("#/$defs/") {
                                out.push(name.to_owned());
                            }
                        }
                        _ => refs(child, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| refs(i, out)),
            _ => {}
        }
    }
    let defs = schema.get("$defs")?.as_object()?;
    for start in defs.keys() {
        let mut seen: Vec<String> = Vec::new();
        let mut todo = Vec::new();
        refs(&defs[start], &mut todo);
        while let Some(name) = todo.pop() {
            if &name == start {
                return Some(name);
            }
            if !seen.contains(&name) {
                seen.push(name.clone());
                if let Some(def) = defs.get(&name) {
                    refs(def, &mut todo);
                }
            }
        }
    }
    None
}

/// The rules that hold for the tools of one request together, each tool
/// in `dialect`'s envelope: Anthropic's limits over all its strict tools
/// (20 tools, 24 optional parameters, 16 union-typed parameters).
pub fn check_request(dialect: Dialect, tools: &[Value]) -> Vec<String> {
    let mut v = Violations(Vec::new());
    if let Dialect::Anthropic { .. } = dialect {
        let strict: Vec<&Value> = tools
            .iter()
            .filter(|t| t.get("strict") == Some(&Value::Bool(true)))
            .collect();
        if strict.len() > 20 {
            v.add(format!("{} strict tools in one request", strict.len()));
        }
        let (optional, unions) = strict
            .iter()
            .filter_map(|t| t.get("input_schema"))
            .map(anthropic_parameters)
            .fold((0, 0), |(o, u), (a, b)| (o + a, u + b));
        if optional > 24 {
            v.add(format!("{optional} optional parameters in one request"));
        }
        if unions > 16 {
            v.add(format!("{unions} union-typed parameters in one request"));
        }
    }
    v.0
}

/// The phrase by which a description says an object is closed.
pub const CLOSED: &str = "fields not listed here are rejected";

/// Every place where `tool`, exported to `dialect`, means something other
/// than `canonical` (the tool's draft 2020-12 schema): a closed object
/// that is neither closed nor says so, a map that is no longer a map, a
/// value of any type that was given one.
pub fn check_meaning(dialect: Dialect, canonical: &Value, tool: &Value) -> Vec<String> {
    let mut v = Violations(Vec::new());
    match envelope(dialect, tool) {
        Ok((_, _, exported)) => {
            same_meaning(canonical, canonical, exported, exported, "#", 0, &mut v)
        }
        Err(problem) => v.add(problem),
    }
    v.0
}

fn same_meaning(
    canonical_root: &Value,
    canonical: &Value,
    exported_root: &Value,
    exported: &Value,
    at: &str,
    depth: usize,
    v: &mut Violations,
) {
    // A recursive type is compared as deep as any example needs.
    if depth > 16 {
        return;
    }
    let follow = |root: &'_ Value, node: &'_ Value| -> Value {
        let mut node = node.clone();
        for _ in 0..8 {
            let Some(target) = node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|p| root.pointer(p))
            else {
                break;
            };
            node = target.clone();
        }
        node
    };
    let c = follow(canonical_root, canonical);
    let e = follow(exported_root, exported);
    let takes_anything = |n: &Value| match n {
        Value::Bool(b) => *b,
        Value::Object(m) => ![
            "type",
            "enum",
            "const",
            "anyOf",
            "oneOf",
            "allOf",
            "$ref",
            "not",
            "properties",
            "items",
            "nullable",
        ]
        .iter()
        .any(|k| m.contains_key(*k)),
        _ => false,
    };
    if takes_anything(&c) {
        if !takes_anything(&e) {
            v.add(format!(
                "{at}: takes any value in the canonical schema, not here"
            ));
        }
        return;
    }
    let additional = |n: &Value| n.get("additionalProperties").cloned();
    // A map whose keys a pattern states (integer keys): the exported
    // schema keeps the patterns, or takes the values under
    // `additionalProperties` and says what the keys must be.
    let patterns = |n: &Value| {
        n.get("patternProperties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty())
            .cloned()
    };
    if let Some(keyed) = patterns(&c) {
        let stated = e
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.contains("keys must"));
        match (patterns(&e), additional(&e)) {
            (Some(kept), _) if kept.keys().eq(keyed.keys()) => {
                for (pattern, values) in &keyed {
                    same_meaning(
                        canonical_root,
                        values,
                        exported_root,
                        &kept[pattern],
                        &format!("{at}/patternProperties/{pattern}"),
                        depth + 1,
                        v,
                    );
                }
            }
            (None, Some(values @ Value::Object(_))) if stated => {
                for (pattern, canonical_values) in &keyed {
                    same_meaning(
                        canonical_root,
                        canonical_values,
                        exported_root,
                        &values,
                        &format!("{at}/patternProperties/{pattern}"),
                        depth + 1,
                        v,
                    );
                }
            }
            _ => v.add(format!(
                "{at}: a map whose keys a pattern states in the canonical schema, neither kept nor said to be here"
            )),
        }
    } else {
        match additional(&c) {
            Some(Value::Bool(false)) => {
                let says = e
                    .get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|d| d.contains(CLOSED));
                if additional(&e) != Some(Value::Bool(false)) && !says {
                    v.add(format!(
                        "{at}: closed in the canonical schema, neither closed nor said to be here"
                    ));
                }
            }
            Some(values) => {
                if matches!(additional(&e), None | Some(Value::Bool(false))) {
                    v.add(format!(
                        "{at}: a map in the canonical schema ({values}), not here"
                    ));
                }
            }
            None => {}
        }
    }
    // A map whose keys `propertyNames` states (`char` keys): the exported
    // schema keeps it, or says what the keys must be.
    if let Some(names) = c.get("propertyNames") {
        let stated = e
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.contains("keys must"));
        if e.get("propertyNames") != Some(names) && !stated {
            v.add(format!(
                "{at}: a map whose keys `propertyNames` states in the canonical schema, neither kept nor said to be here"
            ));
        }
    }
    let mut recurse = |c: &Value, e: &Value, at: String| {
        same_meaning(canonical_root, c, exported_root, e, &at, depth + 1, v)
    };
    if let (Some(Value::Object(cp)), Some(Value::Object(ep))) =
        (c.get("properties"), e.get("properties"))
    {
        for (name, schema) in cp {
            if let Some(exported) = ep.get(name) {
                recurse(schema, exported, format!("{at}/properties/{name}"));
            }
        }
    }
    if let (Some(ci), Some(ei)) = (c.get("items"), e.get("items")) {
        recurse(ci, ei, format!("{at}/items"));
    }
    let union = |n: &Value| {
        ["anyOf", "oneOf"]
            .iter()
            .find_map(|k| n.get(*k).and_then(Value::as_array).cloned())
    };
    let is_null = |n: &Value| n.get("type").is_some_and(|t| t == "null");
    match (union(&c), union(&e)) {
        (Some(cb), Some(eb)) if cb.len() == eb.len() => {
            for (i, (cb, eb)) in cb.iter().zip(&eb).enumerate() {
                recurse(cb, eb, format!("{at}/anyOf/{i}"));
            }
        }
        // `anyOf: [X, null]` folded into X (`type` array or `nullable`).
        (Some(cb), None) if cb.len() == 2 && cb.iter().any(is_null) => {
            if let Some(inner) = cb.iter().find(|b| !is_null(b)) {
                recurse(inner, &e, at.to_owned());
            }
        }
        _ => {}
    }
}
