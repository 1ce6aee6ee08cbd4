//! JSON instances around a schema, for the differential test: valid ones,
//! boundary values, and mutations of both. Deterministic for a seed.

use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Number, Value};

/// SplitMix64: small, fast, and the same on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        items.get((self.next_u64() % items.len() as u64) as usize)
    }
}

/// Generates instances of one schema.
pub struct Generator<'s> {
    root: &'s Value,
    pub rng: Rng,
}

impl<'s> Generator<'s> {
    pub fn new(root: &'s Value, seed: u64) -> Self {
        Generator {
            root,
            rng: Rng::new(seed),
        }
    }

    /// The next instance: about four in ten valid, the rest mutated.
    pub fn instance(&mut self) -> Value {
        let mut value = self.valid(self.root, 0);
        if !self.rng.chance(40) {
            let mutations = self.rng.range(1, 3);
            for _ in 0..mutations {
                self.mutate(&mut value);
            }
        }
        value
    }

    fn resolve(&self, node: &'s Value) -> &'s Value {
        let mut node = node;
        for _ in 0..8 {
            match node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
            {
                Some(pointer) => node = self.root.pointer(pointer).unwrap_or(node),
                None => break,
            }
        }
        node
    }

    /// A value the schema accepts (boundaries included).
    pub fn valid(&mut self, node: &'s Value, depth: usize) -> Value {
        if depth > 16 {
            return Value::Null;
        }
        let node = self.resolve(node);
        if let Some(branches) = node
            .get("anyOf")
            .or_else(|| node.get("oneOf"))
            .and_then(Value::as_array)
        {
            let branch = self.rng.pick(branches).unwrap_or(&Value::Null);
            return self.valid(branch, depth + 1);
        }
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            return self.rng.pick(values).cloned().unwrap_or(Value::Null);
        }
        if let Some(constant) = node.get("const") {
            return constant.clone();
        }
        let types: Vec<&str> = match node.get("type") {
            Some(Value::String(t)) => vec![t],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec!["string"],
        };
        let non_null: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        let kind = if types.contains(&"null") && (non_null.is_empty() || self.rng.chance(15)) {
            "null"
        } else {
            self.rng.pick(&non_null).copied().unwrap_or("null")
        };
        match kind {
            "object" => {
                let mut map = Map::new();
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for (name, schema) in node
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    if required.contains(&name.as_str()) || self.rng.chance(50) {
                        let value = self.valid(schema, depth + 1);
                        map.insert(name.clone(), value);
                    }
                }
                Value::Object(map)
            }
            "array" => {
                let min = node.get("minItems").and_then(Value::as_i64).unwrap_or(0);
                let max = node
                    .get("maxItems")
                    .and_then(Value::as_i64)
                    .unwrap_or(min + 3)
                    .min(min + 6);
                let len = self.rng.range(min, max);
                let unique = node.get("uniqueItems") == Some(&Value::Bool(true));
                let items = node.get("items").unwrap_or(&Value::Null);
                let mut out: Vec<Value> = Vec::new();
                let mut tries = 0;
                while (out.len() as i64) < len && tries < 50 {
                    tries += 1;
                    let item = self.valid(items, depth + 1);
                    if !(unique && out.contains(&item)) {
                        out.push(item);
                    }
                }
                Value::Array(out)
            }
            "integer" => Value::from(self.integer(node)),
            "number" => Number::from_f64(self.integer(node) as f64 + 0.25)
                .map_or(Value::Null, Value::Number),
            "boolean" => Value::Bool(self.rng.chance(50)),
            "null" => Value::Null,
            _ => Value::String(self.string(node)),
        }
    }

    fn bounds(node: &Value) -> (i64, i64) {
        let min = node.get("minimum").and_then(Value::as_i64).unwrap_or(-1000);
        let max = node
            .get("maximum")
            .and_then(Value::as_i64)
            .unwrap_or(min.saturating_add(2000));
        (min, max)
    }

    fn integer(&mut self, node: &Value) -> i64 {
        let (min, max) = Self::bounds(node);
        match self.rng.next_u64() % 5 {
            0 => min,
            1 => max,
            _ => self.rng.range(min, max),
        }
    }

    fn string(&mut self, node: &Value) -> String {
        let min = node.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = node
            .get("maxLength")
            .and_then(Value::as_u64)
            .map_or(min + 12, |m| m as usize);
        if let Some(Ok(hir)) = node
            .get("pattern")
            .and_then(Value::as_str)
            .map(regex_syntax::parse)
        {
            for _ in 0..20 {
                let mut out = String::new();
                self.matching(&hir, &mut out);
                let n = out.chars().count();
                if (min..=max).contains(&n) {
                    return out;
                }
            }
        }
        let len = self.rng.range(min as i64, max.min(min + 40) as i64) as usize;
        const ALPHABET: [char; 12] = ['a', 'z', 'A', '0', '_', '-', ' ', 'é', 'ß', '😀', '"', '\\'];
        (0..len)
            .map(|_| *self.rng.pick(&ALPHABET).unwrap_or(&'a'))
            .collect()
    }

    fn matching(&mut self, hir: &Hir, out: &mut String) {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
            HirKind::Class(Class::Unicode(class)) => {
                let ranges = class.ranges();
                if let Some(range) = self.rng.pick(ranges) {
                    let (lo, hi) = (range.start() as i64, range.end() as i64);
                    // Stay in the printable part of wide ranges.
                    let hi = hi.min(lo + 0x7f);
                    let c = char::from_u32(self.rng.range(lo, hi) as u32).unwrap_or(range.start());
                    out.push(c);
                }
            }
            HirKind::Class(Class::Bytes(class)) => {
                if let Some(range) = self.rng.pick(class.ranges()) {
                    out.push(char::from(
                        self.rng
                            .range(i64::from(range.start()), i64::from(range.end()))
                            as u8,
                    ));
                }
            }
            HirKind::Repetition(rep) => {
                let max = rep.max.unwrap_or(rep.min + 8).min(rep.min + 30);
                let n = self.rng.range(i64::from(rep.min), i64::from(max));
                for _ in 0..n {
                    self.matching(&rep.sub, out);
                }
            }
            HirKind::Capture(capture) => self.matching(&capture.sub, out),
            HirKind::Concat(parts) => parts.iter().for_each(|p| self.matching(p, out)),
            HirKind::Alternation(parts) => {
                if let Some(part) = self.rng.pick(parts) {
                    self.matching(part, out);
                }
            }
        }
    }

    /// One random change somewhere in `value`.
    pub fn mutate(&mut self, value: &mut Value) {
        let mut pointers = Vec::new();
        collect(value, String::new(), &mut pointers);
        let Some(pointer) = self.rng.pick(&pointers).cloned() else {
            return;
        };
        let Some(target) = value.pointer_mut(&pointer) else {
            return;
        };
        let replacement = match self.rng.next_u64() % 16 {
            0 => Value::from("text"),
            1 => Value::from(7),
            2 => serde_json::json!(2.5),
            3 => serde_json::json!(3.0),
            4 => Value::Bool(true),
            5 => Value::Null,
            6 => serde_json::json!([]),
            7 => serde_json::json!({}),
            8 => match target.as_i64() {
                Some(n) => Value::from(n.saturating_add(1)),
                None => Value::from(-1),
            },
            9 => match target.as_i64() {
                Some(n) => Value::from(n.saturating_sub(1)),
                None => Value::from(0),
            },
            10 => match target.as_str() {
                Some(s) => Value::from(format!("{s}x")),
                None => Value::from(""),
            },
            11 => match target.as_str() {
                Some(s) => Value::from(s.chars().skip(1).collect::<String>()),
                None => Value::from(u64::MAX),
            },
            12 => match target {
                Value::Object(map) => {
                    if let Some(key) = map.keys().next().cloned() {
                        if self.rng.chance(50) {
                            map.remove(&key);
                        } else {
                            map.insert("unexpected".to_owned(), Value::from(1));
                        }
                    }
                    return;
                }
                Value::Array(items) => {
                    if let Some(first) = items.first().cloned() {
                        items.push(first);
                    } else {
                        items.push(Value::Null);
                    }
                    return;
                }
                _ => Value::from(i64::MIN),
            },
            13 => Value::from(u64::MAX),
            14 => match target.as_str() {
                Some(s) => Value::from(s.to_uppercase()),
                None => Value::from("UPPER"),
            },
            _ => Value::from(""),
        };
        *target = replacement;
    }
}

/// Every pointer in `value`, the root included.
fn collect(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                collect(
                    child,
                    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                collect(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}
