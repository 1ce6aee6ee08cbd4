//! Conformance checkers: the provider rules of `shared/PROVIDERS.md`,
//! written independently of the exporter, applied to exported tools.
//!
//! Each checker takes a tool in its provider's envelope and returns every
//! rule it breaks (empty when it conforms). They are tested with tools that
//! must fail them (`tests/conformance.rs`).

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
            let properties = schema
                .get("properties")
                .and_then(Value::as_object)
                .map_or(0, Map::len);
            let required = schema
                .get("required")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if properties.saturating_sub(required) > 24 {
                v.add("more than 24 optional parameters");
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
        Dialect::Anthropic { strict } => {
            if tool.get("strict") != Some(&Value::Bool(strict)) {
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
    let strict = matches!(
        dialect,
        Dialect::OpenAiChat { strict: true }
            | Dialect::OpenAiResponses { strict: true }
            | Dialect::Anthropic { strict: true }
    );
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
