//! Compiling a schema into nodes: each subschema once, its `$ref`s
//! followed, its keywords read into a node's fields.

use std::collections::HashMap;

use regex::Regex;
use serde_json::Value;

use super::node::*;

pub(super) struct Builder<'s> {
    pub(super) root: &'s Value,
    pub(super) nodes: Vec<Node>,
    pub(super) refs: HashMap<&'s str, Id>,
    pub(super) untagged: bool,
}

impl<'s> Builder<'s> {
    pub(super) fn child(&mut self, schema: &'s Value) -> Child {
        match schema {
            Value::Bool(false) => Child::Never,
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str)
                    && map
                        .keys()
                        .all(|k| k == "$ref" || crate::schema::is_annotation(k))
                {
                    return self.reference(reference);
                }
                let node = self.node(schema);
                if is_trivial(&node) {
                    Child::Any
                } else {
                    let id = self.push(node);
                    Child::Node(id)
                }
            }
            _ => Child::Any,
        }
    }

    /// A subschema that is one list of choices and nothing else.
    pub(super) fn is_choice(&self, id: Id) -> bool {
        self.nodes
            .get(id as usize)
            .is_some_and(|n| n.choices.len() == 1 && n.is_bare())
    }

    pub(super) fn push(&mut self, node: Node) -> Id {
        let id = Id::try_from(self.nodes.len()).unwrap_or(Id::MAX);
        self.nodes.push(node);
        id
    }

    /// A local `$ref`, compiled once however often (and however
    /// recursively) it is used.
    pub(super) fn reference(&mut self, reference: &'s str) -> Child {
        if let Some(id) = self.refs.get(reference) {
            return Child::Node(*id);
        }
        let Some(target) = crate::json::pointer::target(self.root, reference) else {
            return Child::Any;
        };
        let id = self.push(Node::default());
        self.refs.insert(reference, id);
        let node = match target {
            Value::Bool(false) => Node {
                kinds: 0,
                ..Node::default()
            },
            _ => self.node(target),
        };
        if let Some(slot) = self.nodes.get_mut(id as usize) {
            *slot = node;
        }
        Child::Node(id)
    }

    pub(super) fn node(&mut self, schema: &'s Value) -> Node {
        let mut node = Node::default();
        let Value::Object(map) = schema else {
            return node;
        };
        if let Some(kinds) = map.get("type").and_then(kinds_of) {
            node.kinds = kinds;
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            node.properties = properties
                .iter()
                .map(|(name, s)| (name.as_str().into(), self.child(s), false))
                .collect();
        }
        if let Some(Value::Array(required)) = map.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !node.required.iter().any(|r| &**r == name) {
                    node.required.push(name.into());
                }
            }
        }
        for (name, _, required) in &mut node.properties {
            *required = node.required.iter().any(|r| r == name);
        }
        if let Some(Value::Object(patterns)) = map.get("patternProperties") {
            for (pattern, s) in patterns {
                match Regex::new(pattern) {
                    Ok(regex) => {
                        let child = self.child(s);
                        node.patterns.push((regex, child));
                    }
                    // A pattern this walk cannot read admits every key.
                    Err(_) => {
                        node.patterns.clear();
                        node.additional = Child::Any;
                        break;
                    }
                }
            }
        }
        if let Some(additional) = map.get("additionalProperties") {
            node.additional = self.child(additional);
        }
        if let Some(Value::Array(prefix)) = map.get("prefixItems") {
            node.prefix = prefix.iter().map(|s| self.child(s)).collect();
        }
        if let Some(items) = map.get("items") {
            node.items = self.child(items);
        }
        node.range = (
            map.get("minimum").and_then(Number::of),
            map.get("maximum").and_then(Number::of),
        );
        node.exclusive = (
            map.get("exclusiveMinimum").and_then(Number::of),
            map.get("exclusiveMaximum").and_then(Number::of),
        );
        node.multiple = map
            .get("multipleOf")
            .and_then(Number::of)
            .filter(|m| m.cmp(Number::Integer(0)) == Some(core::cmp::Ordering::Greater));
        node.length = (
            map.get("minLength").and_then(Value::as_u64),
            map.get("maxLength").and_then(Value::as_u64),
        );
        node.pattern = map.get("pattern").and_then(Value::as_str).map(Pattern::new);
        node.count = (
            map.get("minItems").and_then(Value::as_u64),
            map.get("maxItems").and_then(Value::as_u64),
        );
        node.entries = (
            map.get("minProperties").and_then(Value::as_u64),
            map.get("maxProperties").and_then(Value::as_u64),
        );
        if let Some((min, max)) = crate::schema::key_lengths(map) {
            node.names = (Some(min), max);
        }
        if let Some(crate::schema::Evaluated::Names(names)) =
            crate::schema::unevaluated(self.root, map)
        {
            node.unevaluated = Some(names.into_iter().map(Box::from).collect());
        }
        node.unique = map.get("uniqueItems") == Some(&Value::Bool(true));
        node.excluded = crate::schema::excluded(map).cloned();
        // `not` of a subschema that says nothing accepts nothing: schemars
        // writes `{"not":{}}` with a description for an empty enum.
        if map.get("not").is_some_and(crate::schema::says_nothing) {
            node.kinds = 0;
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            node.choices.push(values.clone());
        }
        if let Some(value) = map.get("const") {
            node.choices.push(vec![value.clone()]);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let mut group = Vec::new();
                let mut open = false;
                for branch in branches {
                    match self.child(branch) {
                        Child::Node(id) => group.push(id),
                        Child::Any => open = true,
                        Child::Never => {}
                    }
                }
                // A union of constants (an enum whose variants carry docs)
                // is one list of choices.
                if !open && group.len() > 1 && group.iter().all(|id| self.is_choice(*id)) {
                    let mut kinds = 0;
                    let mut values = Vec::new();
                    for id in &group {
                        if let Some(branch) = self.nodes.get(*id as usize) {
                            kinds |= branch.kinds;
                            values.extend(branch.choices.iter().flatten().cloned());
                        }
                    }
                    node.kinds &= kinds;
                    node.choices.push(values);
                    continue;
                }
                // Any other union of two or more readings, none of them null,
                // is one serde tries variant by variant.
                let null = |b: &Value| b.get("type").and_then(Value::as_str) == Some("null");
                if key == "anyOf" && branches.iter().filter(|b| !null(b)).count() > 1 {
                    self.untagged = true;
                }
                // A branch that accepts everything makes the union accept
                // everything; none at all accepts nothing.
                if !open {
                    if group.is_empty() {
                        node.kinds = 0;
                    } else {
                        node.any_of.push(group);
                    }
                }
            }
        }
        if let [values] = node.choices.as_slice() {
            let strings = values.iter().filter_map(Value::as_str);
            if strings.clone().all(|s| !s.contains('\\')) {
                node.plain_choices = Some(strings.map(Box::from).collect());
            }
        }
        if let Some(Value::Array(all)) = map.get("allOf") {
            for part in all {
                match self.child(part) {
                    Child::Node(id) => node.all_of.push(id),
                    Child::Any => {}
                    Child::Never => node.kinds = 0,
                }
            }
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            match self.reference(reference) {
                Child::Node(id) => node.all_of.push(id),
                Child::Any => {}
                Child::Never => node.kinds = 0,
            }
        }
        node
    }
}

pub(super) fn is_trivial(node: &Node) -> bool {
    node.kinds == ANY && node.choices.is_empty() && node.is_bare()
}

pub(super) fn kinds_of(types: &Value) -> Option<u8> {
    let one = |t: &str| match t {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "integer" => INTEGER,
        "number" => INTEGER | FRACTION,
        "string" => STRING,
        "array" => ARRAY,
        "object" => OBJECT,
        _ => ANY,
    };
    match types {
        Value::String(t) => Some(one(t)),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .map(one)
                .fold(0, |a, b| a | b),
        ),
        _ => None,
    }
}
