//! One schema transform, configured per dialect: inline what must be
//! inlined, rename what must be renamed, remove what a dialect cannot say
//! (stating it in the description instead), and refuse what it cannot
//! represent at all.

use serde_json::{Map, Value};

use super::ExportError;
use crate::schema::keywords::{self, Dialects};
use crate::{ToolDef, outcome::message};

/// How a dialect treats `$ref`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refs {
    /// Inline a `$ref` that has sibling keywords; keep bare ones.
    InlineWithSiblings,
    /// Inline every `$ref`; a recursive type cannot be exported.
    InlineAll,
}

/// What a dialect does with a value whose shape the caller chooses: a map
/// (`additionalProperties` is a schema: keys the model picks) or a value of
/// any JSON type (the schema `true`, or a node without a type).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Open {
    /// Keep it as the canonical schema says.
    Keep,
    /// The dialect cannot say it (strict modes need every object closed and
    /// every value typed): an export error naming the field, never a closed
    /// empty object in its place.
    Refuse,
}

/// How a dialect writes "this value may also be null".
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nullable {
    /// `type: ["string", "null"]` and `anyOf: [X, {type: null}]` as they are.
    AsIs,
    /// `anyOf: [X, {type: null}]` folded into X's `type` array where it can
    /// be, so that `anyOf` only appears alone on its node.
    TypeArray,
    /// OpenAPI's `nullable: true`.
    Keyword,
}

/// What one dialect accepts.
pub(crate) struct Rules {
    pub(crate) name: &'static str,
    pub(crate) refs: Refs,
    pub(crate) nullable: Nullable,
    /// Every property required; optional ones must already admit null.
    pub(crate) all_required: bool,
    /// `additionalProperties: false` on every object that lists its fields.
    pub(crate) close_objects: bool,
    /// The dialect rejects `additionalProperties`.
    pub(crate) no_additional_properties: bool,
    pub(crate) open: Open,
    /// The dialect accepts a `$ref` that refers to itself, directly or not.
    pub(crate) recursion: bool,
    pub(crate) one_of_as_any_of: bool,
    /// `anyOf` must stand alone on its node.
    pub(crate) lone_any_of: bool,
    pub(crate) const_as_enum: bool,
    pub(crate) uppercase_types: bool,
    pub(crate) keep_schema_keyword: bool,
    /// The dialect, as the keyword table names it: which validation
    /// keywords it keeps (see [`crate::schema::keywords`]).
    pub(crate) dialect: Dialects,
    /// String formats the dialect accepts.
    pub(crate) formats: &'static [&'static str],
    /// Patterns must avoid lookaround, backreferences and `\b`.
    pub(crate) simple_patterns: bool,
    /// The largest `minItems` the dialect accepts.
    pub(crate) max_min_items: Option<u64>,
    pub(crate) string_enums_only: bool,
    pub(crate) property_name: Option<PropertyNames>,
}

/// A rule for property names: the check, and the rule in words.
pub(crate) type PropertyNames = (fn(&str) -> bool, &'static str);

/// Number formats schemars adds for Rust types: an integer's bounds are
/// stated by `minimum` and `maximum`, and `float` and `double` say no more
/// than `"type": "number"` to a model ("must be a valid double" would only
/// puzzle it), so dropping them loses nothing.
const RUST_FORMATS: [&str; 14] = [
    "int8", "int16", "int32", "int64", "int128", "uint8", "uint16", "uint32", "uint64", "uint128",
    "uint", "int", "float", "double",
];

pub(crate) fn export(def: &ToolDef, rules: &Rules) -> Result<Value, ExportError> {
    let root = def.schema();
    let mut cx = Cx {
        root,
        rules,
        tool: def.name(),
        stack: Vec::new(),
        path: Vec::new(),
        within: None,
        notes: def.has_notes(),
    };
    let mut out = cx.walk(root)?;
    if rules.refs != Refs::InlineAll
        && let (Some(defs), Value::Object(out_map)) =
            (root.get("$defs").and_then(Value::as_object), &mut out)
    {
        // Only the definitions still referenced, directly or through
        // another kept definition: an unused one is neither sent nor judged.
        let mut used = Vec::new();
        references(&Value::Object(out_map.clone()), &mut used);
        let mut walked = Map::new();
        let mut i = 0;
        while let Some(name) = used.get(i).cloned() {
            if let Some(schema) = defs.get(&name) {
                cx.within = Some(name.clone());
                let def = cx.walk(schema)?;
                references(&def, &mut used);
                walked.insert(name, def);
            }
            i += 1;
        }
        if !rules.recursion
            && let Some(name) = recursive(&walked)
        {
            return Err(cx.error(format!(
                "`{name}` is recursive, and this dialect accepts no recursive schema"
            )));
        }
        let kept: Map<String, Value> = defs
            .keys()
            .filter_map(|name| Some((name.clone(), walked.remove(name)?)))
            .collect();
        if !kept.is_empty() {
            out_map.insert("$defs".to_owned(), Value::Object(kept));
        }
    }
    Ok(out)
}

/// The first definition that refers back to itself, through any chain of
/// other definitions.
fn recursive(defs: &Map<String, Value>) -> Option<&str> {
    // By name, whatever order `serde_json`'s maps keep.
    let mut names: Vec<&str> = defs.keys().map(String::as_str).collect();
    names.sort_unstable();
    names.into_iter().find(|&name| {
        let mut reached = Vec::new();
        references(&defs[name], &mut reached);
        let mut i = 0;
        while let Some(next) = reached.get(i).cloned() {
            if next == name {
                return true;
            }
            if let Some(def) = defs.get(&next) {
                references(def, &mut reached);
            }
            i += 1;
        }
        false
    })
}

/// The `$defs` names that `node` refers to, added to `used` once each.
fn references(node: &Value, used: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(crate::json::pointer::definition_name)
                && !used.contains(&name)
            {
                used.push(name);
            }
            map.values().for_each(|v| references(v, used));
        }
        Value::Array(items) => items.iter().for_each(|v| references(v, used)),
        _ => {}
    }
}

struct Cx<'a> {
    root: &'a Value,
    rules: &'a Rules,
    tool: &'static str,
    /// The `$ref`s being inlined, to find recursion.
    stack: Vec<String>,
    /// The property names from the schema being walked down to this node,
    /// `[]` for an array's items: how an error names the field.
    path: Vec<String>,
    /// The definition being walked, when it is walked on its own.
    within: Option<String>,
    /// Whether to state in descriptions what the dialect dropped
    /// ([`ToolDef::has_notes`]).
    notes: bool,
}

impl Cx<'_> {
    fn error(&self, reason: impl Into<String>) -> ExportError {
        ExportError {
            tool: self.tool,
            dialect: self.rules.name,
            reason: reason.into(),
        }
    }

    /// The field at the current node, as an error names it: `labels`,
    /// `meta.extra`, `items[]`, or `extra` of the definition `Meta`.
    fn field(&self) -> String {
        let path = self.path.join(".").replace(".[]", "[]");
        match (&self.within, path.is_empty()) {
            (Some(name), true) => format!("`{name}`"),
            (Some(name), false) => format!("field `{path}` of `{name}`"),
            (None, true) => "the arguments".to_owned(),
            (None, false) => format!("field `{path}`"),
        }
    }

    fn walk(&mut self, node: &Value) -> Result<Value, ExportError> {
        match node {
            Value::Object(map) => self.walk_object(map),
            other => Ok(other.clone()),
        }
    }

    /// Walks the schema of a field (`name`) or of an array's items (`[]`),
    /// refusing a value of any type where the dialect needs one.
    fn walk_field(&mut self, name: &str, schema: &Value) -> Result<Value, ExportError> {
        self.path.push(name.to_owned());
        let walked = self.walk(schema).and_then(|walked| {
            if self.rules.open == Open::Refuse && accepts_any_value(&walked) {
                Err(self.error(format!(
                    "{} takes any JSON value (such as `serde_json::Value`), and this dialect needs a type for every value; give the field a typed Rust type",
                    self.field()
                )))
            } else {
                Ok(walked)
            }
        });
        self.path.pop();
        walked
    }

    fn walk_object(&mut self, map: &Map<String, Value>) -> Result<Value, ExportError> {
        if let Some(Value::String(reference)) = map.get("$ref") {
            return self.reference(reference, map);
        }
        let rules = self.rules;
        let mut out = Map::new();
        let mut removed = Map::new();
        let mut default = None;
        let mut patterns = None;
        let mut key_lengths = None;
        for (key, value) in map {
            match key.as_str() {
                "$schema" if rules.keep_schema_keyword => {
                    out.insert(key.clone(), value.clone());
                }
                "$schema" | "$defs" | "definitions" | "$comment" | "examples" | "title" => {}
                // No provider dialect here promises to keep `default`: the
                // description states it.
                "default" => {
                    default = Some(value);
                }
                "properties" => {
                    let mut properties = Map::new();
                    for (name, schema) in value.as_object().into_iter().flatten() {
                        if let Some((is_valid, rule)) = rules.property_name
                            && !is_valid(name)
                        {
                            return Err(self
                                .error(format!("property name `{name}` is not accepted: {rule}")));
                        }
                        properties.insert(name.clone(), self.walk_field(name, schema)?);
                    }
                    out.insert(key.clone(), Value::Object(properties));
                }
                "items" => {
                    out.insert(key.clone(), self.walk_field("[]", value)?);
                }
                "patternProperties" => {
                    patterns = Some(value);
                }
                // The lengths of a map's keys (a `char`'s one character):
                // no dialect here is known to keep `propertyNames`, so
                // its description states them, still enforced.
                "propertyNames" if crate::schema::key_lengths(map).is_some() => {
                    key_lengths = crate::schema::key_lengths(map);
                }
                "additionalProperties" | "not" | "contains" | "propertyNames" => {
                    out.insert(key.clone(), self.walk(value)?);
                }
                "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                    let mut branches = Vec::new();
                    for branch in value.as_array().into_iter().flatten() {
                        branches.push(self.walk(branch)?);
                    }
                    out.insert(key.clone(), Value::Array(branches));
                }
                "const" if rules.const_as_enum => {
                    out.insert("enum".to_owned(), Value::Array(vec![value.clone()]));
                }
                "format" => match value.as_str() {
                    Some(f) if RUST_FORMATS.contains(&f) => {}
                    Some(f) if rules.formats.contains(&f) => {
                        out.insert(key.clone(), value.clone());
                    }
                    _ => {
                        removed.insert(key.clone(), value.clone());
                    }
                },
                "pattern"
                    if rules.simple_patterns
                        && !is_simple_pattern(value.as_str().unwrap_or_default()) =>
                {
                    removed.insert(key.clone(), value.clone());
                }
                "minItems"
                    if rules
                        .max_min_items
                        .is_some_and(|max| value.as_u64().is_some_and(|v| v > max)) =>
                {
                    removed.insert(key.clone(), value.clone());
                }
                k if let Some(kept) = keywords::find(k).and_then(|keyword| keyword.validation) => {
                    if kept.has(rules.dialect) {
                        out.insert(key.clone(), value.clone());
                    } else {
                        removed.insert(key.clone(), value.clone());
                    }
                }
                "type" | "enum" | "const" | "required" | "description" | "nullable" => {
                    out.insert(key.clone(), value.clone());
                }
                // Anything else is an annotation no dialect needs.
                _ => {}
            }
        }
        if rules.string_enums_only
            && let Some(values) = out.get("enum").and_then(Value::as_array)
            && values.iter().any(|v| !v.is_string())
        {
            return Err(self.error(
                "an enum has values that are not strings, and this dialect takes string enums only",
            ));
        }
        let mut notes = message::rules_of(&removed);
        if let Some(patterns) = patterns {
            self.keyed_by_pattern(patterns, &mut out, &mut notes)?;
        }
        notes.extend(key_lengths.map(crate::schema::map_keys::lengths_in_words));
        self.unions(&mut out, &mut notes);
        self.objects(&mut out, &mut notes)?;
        self.nullable(&mut out);
        if rules.uppercase_types {
            uppercase(&mut out);
        }
        let mut sentences = Vec::new();
        // Turned off, the rules stay enforced, unstated.
        if self.notes
            && let Some(value) = default
        {
            sentences.push(format!("Default: {value}, if null or left out."));
        }
        if self.notes && !notes.is_empty() {
            sentences.push(format!("Server checks: {}.", notes.join("; ")));
        }
        if !sentences.is_empty() {
            let text = sentences.join(" ");
            let description = match out.get("description").and_then(Value::as_str) {
                Some(d) if !d.is_empty() => format!("{d} {text}"),
                _ => text,
            };
            out.insert("description".to_owned(), Value::String(description));
        }
        Ok(Value::Object(out))
    }

    fn reference(
        &mut self,
        reference: &str,
        map: &Map<String, Value>,
    ) -> Result<Value, ExportError> {
        let siblings: Map<String, Value> = map
            .iter()
            .filter(|(k, _)| *k != "$ref")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let inline = match self.rules.refs {
            Refs::InlineAll => true,
            Refs::InlineWithSiblings => !siblings.is_empty(),
        };
        let name = reference.rsplit('/').next().unwrap_or(reference).to_owned();
        if !inline || self.stack.iter().any(|r| r == reference) {
            if self.rules.refs == Refs::InlineAll {
                return Err(self.error(format!(
                    "`{name}` is recursive, and this dialect accepts no `$ref`"
                )));
            }
            // A bare `$ref` (recursion keeps it bare: siblings cannot be inlined there).
            let mut out = Map::new();
            out.insert("$ref".to_owned(), Value::String(reference.to_owned()));
            if !inline && let Value::Object(rest) = self.walk_object(&siblings)? {
                out.extend(rest);
            }
            return Ok(Value::Object(out));
        }
        let Some(target) = crate::json::pointer::target(self.root, reference) else {
            return Err(self.error(format!("`$ref` {reference} does not point into the schema")));
        };
        self.stack.push(reference.to_owned());
        let inlined = self.walk(target);
        self.stack.pop();
        let mut inlined = inlined?;
        if let (Value::Object(out), Value::Object(rest)) =
            (&mut inlined, self.walk_object(&siblings)?)
        {
            for (key, value) in rest {
                match (key.as_str(), out.get("description").and_then(Value::as_str)) {
                    // The field's own description comes first, then the type's.
                    ("description", Some(inner)) => {
                        let joined = join(value.as_str().unwrap_or_default(), inner);
                        out.insert(key, Value::String(joined));
                    }
                    _ => {
                        out.insert(key, value);
                    }
                }
            }
            self.lone_any_of(out);
        }
        Ok(inlined)
    }

    /// A map whose keys a pattern states (`patternProperties` beside
    /// `additionalProperties: false`: what schemars writes for integer
    /// keys, and the runtime for `bool` keys), which no dialect here is
    /// known to keep: its values' schema goes under `additionalProperties`,
    /// and the keys' rule into the description (`keys must be whole
    /// numbers from 0 to 255, written in digits`, `keys must be true or
    /// false`), still enforced. Dropped, the map would read as an object
    /// that takes no keys at all.
    fn keyed_by_pattern(
        &mut self,
        patterns: &Value,
        out: &mut Map<String, Value>,
        notes: &mut Vec<String>,
    ) -> Result<(), ExportError> {
        let Some(patterns) = patterns.as_object().filter(|p| !p.is_empty()) else {
            return Ok(());
        };
        let mut values = patterns.values();
        let first = values.next();
        let closed = out.get("additionalProperties") == Some(&Value::Bool(false));
        let (Some(values_schema), true, true) = (first, closed, values.all(|v| Some(v) == first))
        else {
            return Err(self.error(format!(
                "{} states its keys by patterns (`patternProperties`) that this dialect cannot express; give it a struct, or one map of string keys",
                self.field()
            )));
        };
        let walked = self.walk(values_schema)?;
        out.insert("additionalProperties".to_owned(), walked);
        for pattern in patterns.keys() {
            notes.push(
                crate::schema::map_keys::pattern_in_words(pattern)
                    .unwrap_or_else(|| format!("keys must match the pattern {pattern}")),
            );
        }
        Ok(())
    }

    /// `oneOf` as `anyOf` where the dialect needs it; the same meaning when
    /// the branches cannot overlap, and said in words when they might.
    fn unions(&self, out: &mut Map<String, Value>, notes: &mut Vec<String>) {
        string_constants_as_enum(out);
        if !self.rules.one_of_as_any_of {
            return;
        }
        if let Some(branches) = out.remove("oneOf") {
            if !disjoint(self.root, branches.as_array().map_or(&[], Vec::as_slice)) {
                notes.push("exactly one of these shapes must match".to_owned());
            }
            out.insert("anyOf".to_owned(), branches);
        }
    }

    fn objects(
        &self,
        out: &mut Map<String, Value>,
        notes: &mut Vec<String>,
    ) -> Result<(), ExportError> {
        let is_object =
            out.get("type").is_some_and(|t| t == "object") || out.contains_key("properties");
        if !is_object {
            return Ok(());
        }
        // A map names its values' schema in `additionalProperties`; a free
        // object has neither that nor fields. Closing either would tell the
        // model to send `{}`.
        let is_map = out
            .get("additionalProperties")
            .is_some_and(|a| a.is_object() || *a == Value::Bool(true))
            || (!out.contains_key("properties") && !out.contains_key("additionalProperties"));
        if is_map && self.rules.open == Open::Refuse {
            return Err(self.error(format!(
                "{} is a map whose keys the model chooses, and this dialect needs every object to list its fields; give it a struct, or a list of key-value pairs",
                self.field()
            )));
        }
        if self.rules.no_additional_properties {
            match out.remove("additionalProperties") {
                // Every closed object says so, nested ones too: the model
                // cannot see it in the schema any more.
                Some(Value::Bool(false)) => {
                    notes.push("fields not listed here are rejected".to_owned());
                }
                Some(Value::Object(_)) => {
                    return Err(self.error(format!(
                        "{} is a map whose values have a schema, and this dialect has no `additionalProperties` to state it; export it with `function_declaration` (`parametersJsonSchema`) instead",
                        self.field()
                    )));
                }
                _ => {}
            }
        } else if self.rules.close_objects && !is_map {
            out.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
        if self.rules.all_required {
            let required: Vec<String> = out
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            let properties = out
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            for (name, schema) in &properties {
                if !required.contains(name) && !admits_null(self.root, schema) {
                    return Err(self.error(format!(
                        "optional field `{name}` does not accept null, which strict mode sends for an absent value; make it an `Option`"
                    )));
                }
            }
            // By name, whatever order `serde_json`'s maps keep.
            let mut all: Vec<&String> = properties.keys().collect();
            all.sort_unstable();
            let all = all.into_iter().cloned().map(Value::String).collect();
            out.insert("required".to_owned(), Value::Array(all));
        }
        Ok(())
    }

    fn nullable(&self, out: &mut Map<String, Value>) {
        match self.rules.nullable {
            Nullable::AsIs => {}
            Nullable::TypeArray => {
                if let Some(inner) = fold_null_branch(out) {
                    match inner.get("type").cloned() {
                        Some(Value::String(t)) if !inner.contains_key("anyOf") => {
                            merge(out, inner);
                            out.insert(
                                "type".to_owned(),
                                Value::Array(vec![Value::String(t), Value::from("null")]),
                            );
                        }
                        _ => {
                            // Not foldable: keep the union, alone on its node.
                            let mut branches =
                                vec![Value::Object(inner), serde_json::json!({"type": "null"})];
                            push_description_into(out, &mut branches);
                            out.insert("anyOf".to_owned(), Value::Array(branches));
                        }
                    }
                }
            }
            Nullable::Keyword => {
                if let Some(Value::Array(types)) = out.get("type").cloned() {
                    let rest: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                    if rest.len() < types.len() {
                        out.insert("nullable".to_owned(), Value::Bool(true));
                    }
                    if let [only] = rest.as_slice() {
                        out.insert("type".to_owned(), only.clone());
                    }
                }
                if let Some(inner) = fold_null_branch(out) {
                    merge(out, inner);
                    out.insert("nullable".to_owned(), Value::Bool(true));
                }
            }
        }
        self.lone_any_of(out);
    }

    fn lone_any_of(&self, out: &mut Map<String, Value>) {
        if self.rules.lone_any_of && out.contains_key("anyOf") && out.len() > 1 {
            let mut branches = out
                .remove("anyOf")
                .and_then(|b| b.as_array().cloned())
                .unwrap_or_default();
            push_description_into(out, &mut branches);
            out.insert("anyOf".to_owned(), Value::Array(branches));
        }
    }
}

/// A union of string constants (a Rust enum of unit variants with doc
/// comments) is an `enum`: the form every dialect accepts. The variants'
/// descriptions move into the node's description.
fn string_constants_as_enum(out: &mut Map<String, Value>) {
    let Some(key) = ["oneOf", "anyOf"]
        .into_iter()
        .find(|k| out.contains_key(*k))
    else {
        return;
    };
    let Some(branches) = out.get(key).and_then(Value::as_array) else {
        return;
    };
    let mut values = Vec::new();
    let mut described = Vec::new();
    for branch in branches {
        let constant = branch.get("const").or_else(|| {
            branch
                .get("enum")
                .and_then(Value::as_array)
                .filter(|e| e.len() == 1)
                .and_then(|e| e.first())
        });
        let Some(Value::String(value)) = constant else {
            return;
        };
        let extra = branch.as_object().is_some_and(|b| {
            b.keys()
                .any(|k| !["const", "enum", "type", "description"].contains(&k.as_str()))
        });
        let is_string = |t: &Value| t.as_str().is_some_and(|t| t.eq_ignore_ascii_case("string"));
        if extra || branch.get("type").is_some_and(|t| !is_string(t)) {
            return;
        }
        if let Some(d) = branch.get("description").and_then(Value::as_str) {
            described.push(format!("{value}: {d}"));
        }
        values.push(Value::String(value.clone()));
    }
    let string_type = branches
        .iter()
        .find_map(|b| b.get("type").cloned())
        .unwrap_or_else(|| Value::from("string"));
    out.remove(key);
    out.insert("type".to_owned(), string_type);
    out.insert("enum".to_owned(), Value::Array(values));
    if !described.is_empty() {
        let list = described.join("; ");
        let text = match out.get("description").and_then(Value::as_str) {
            Some(d) => format!("{d} ({list})"),
            None => list,
        };
        out.insert("description".to_owned(), Value::String(text));
    }
}

/// Takes `X` out of `anyOf: [X, {type: null}]`, leaving the node without
/// its `anyOf`; `None` (and the node untouched) for any other shape.
fn fold_null_branch(out: &mut Map<String, Value>) -> Option<Map<String, Value>> {
    let branches = out.get("anyOf")?.as_array()?;
    let [a, b] = branches.as_slice() else {
        return None;
    };
    let is_null = |v: &Value| v.get("type").is_some_and(|t| t == "null");
    let inner = match (is_null(a), is_null(b)) {
        (false, true) => a,
        (true, false) => b,
        _ => return None,
    };
    let inner = inner.as_object()?.clone();
    out.remove("anyOf");
    Some(inner)
}

/// Two descriptions as one: the field's own first, the type's after,
/// without saying the same thing twice.
fn join(own: &str, inner: &str) -> String {
    if own.contains(inner) {
        own.to_owned()
    } else if inner.contains(own) {
        inner.to_owned()
    } else {
        format!("{own} {inner}")
    }
}

/// Merges `inner` into `out`; `out`'s own description comes first.
fn merge(out: &mut Map<String, Value>, inner: Map<String, Value>) {
    for (key, value) in inner {
        match (key.as_str(), out.get("description").and_then(Value::as_str)) {
            ("description", Some(own)) => {
                let joined = join(own, value.as_str().unwrap_or_default());
                out.insert(key, Value::String(joined));
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
}

/// A union must stand alone on its node: the node's description moves into
/// each branch that is not `null`.
fn push_description_into(out: &mut Map<String, Value>, branches: &mut [Value]) {
    let Some(Value::String(description)) = out.remove("description") else {
        return;
    };
    for branch in branches.iter_mut().filter_map(Value::as_object_mut) {
        if branch.get("type").is_some_and(|t| t == "null") {
            continue;
        }
        let text = match branch.get("description").and_then(Value::as_str) {
            Some(own) => join(&description, own),
            None => description.clone(),
        };
        branch.insert("description".to_owned(), Value::String(text));
    }
    out.retain(|k, _| k == "anyOf");
}

fn uppercase(out: &mut Map<String, Value>) {
    if let Some(Value::String(t)) = out.get_mut("type") {
        *t = t.to_ascii_uppercase();
    }
}

/// Whether a walked schema takes any JSON value: `true`, or a node that
/// says nothing about its type.
fn accepts_any_value(schema: &Value) -> bool {
    match schema {
        Value::Bool(any) => *any,
        Value::Object(map) => !map
            .keys()
            .any(|k| keywords::find(k).is_some_and(|keyword| keyword.typing)),
        _ => false,
    }
}

/// Whether `schema` accepts `null`.
pub(crate) fn admits_null(root: &Value, schema: &Value) -> bool {
    let schema = crate::schema::resolve(root, schema).unwrap_or(schema);
    match schema.get("type") {
        Some(Value::String(t)) if t == "null" => return true,
        Some(Value::Array(types)) if types.iter().any(|t| t == "null") => return true,
        _ => {}
    }
    if schema.get("nullable") == Some(&Value::Bool(true))
        || schema.get("const") == Some(&Value::Null)
    {
        return true;
    }
    if schema
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| e.contains(&Value::Null))
    {
        return true;
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_array))
        .flatten()
        .any(|b| admits_null(root, b))
}

/// Whether no value can match two of the branches, so that "any of" means
/// "exactly one of": each has a different `const` on a required tag, or a
/// different single type, or is a different constant.
pub(crate) fn disjoint(root: &Value, branches: &[Value]) -> bool {
    let resolved: Vec<&Value> = branches
        .iter()
        .map(|b| crate::schema::resolve(root, b).unwrap_or(b))
        .collect();
    let constant = |b: &Value| {
        b.get("const")
            .cloned()
            .or_else(|| match b.get("enum")?.as_array()?.as_slice() {
                [only] => Some(only.clone()),
                _ => None,
            })
    };
    let distinct = |values: Vec<Option<Value>>| {
        values.iter().all(Option::is_some)
            && values
                .iter()
                .enumerate()
                .all(|(i, v)| !values.iter().take(i).any(|earlier| earlier == v))
    };
    if distinct(resolved.iter().map(|b| constant(b)).collect()) {
        return true;
    }
    if distinct(
        resolved
            .iter()
            .map(|b| b.get("type").filter(|t| t.is_string()).cloned())
            .collect(),
    ) {
        return true;
    }
    // A tag: one property every branch requires, with a different constant in each.
    let Some(first) = resolved
        .first()
        .and_then(|b| b.get("required"))
        .and_then(Value::as_array)
    else {
        return false;
    };
    first.iter().filter_map(Value::as_str).any(|tag| {
        resolved.iter().all(|b| {
            b.get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|x| x == tag))
        }) && distinct(
            resolved
                .iter()
                .map(|b| {
                    b.get("properties")
                        .and_then(|p| p.get(tag))
                        .and_then(constant)
                })
                .collect(),
        )
    })
}

/// No lookaround, no backreference, no `\b`.
fn is_simple_pattern(pattern: &str) -> bool {
    let complex = ["(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B"];
    if complex.iter().any(|c| pattern.contains(c)) {
        return false;
    }
    !pattern
        .as_bytes()
        .windows(2)
        .any(|w| matches!(w, [b'\\', d] if d.is_ascii_digit() && *d != b'0'))
}
