//! Gate 2's rewrite of numbers that are integers by value (see
//! [`crate::json::number`]) into the integers they equal, wherever the
//! schema's shape reads an integer, before serde reads the document.

use std::borrow::Cow;

use smallvec::SmallVec;

use crate::gate::structural::shape::{Child, Id, Shape};
use crate::json::number::integral;

/// `json` with each number that is an integer by value (see [`integral`])
/// written as that integer, where a subschema of `shape` that may describe
/// it takes integers only (`"type": "integer"`): there serde reads it into
/// an integer type, which takes no float. Any other number is left as the
/// model wrote it: a free-form value (`serde_json::Value`, whose schema
/// states no type) or a float receives what serde_json reads of the text
/// itself, `1E2` the float `100.0` and `-0` the float `-0.0`, not the
/// integers they equal. Strings are left as they are.
pub(crate) fn with_plain_integers<'j>(json: &'j str, shape: &Shape) -> Cow<'j, str> {
    let Some(root) = shape.root() else {
        return Cow::Borrowed(json);
    };
    let mut spelled = Spelled {
        json,
        bytes: json.as_bytes(),
        pos: 0,
        shape,
        out: String::new(),
        copied: 0,
    };
    spelled.value(&[root]);
    if spelled.copied == 0 {
        return Cow::Borrowed(json);
    }
    spelled
        .out
        .push_str(json.get(spelled.copied..).unwrap_or_default());
    Cow::Owned(spelled.out)
}

/// The walk of [`with_plain_integers`] over a document gate 1 accepted.
struct Spelled<'j, 's> {
    json: &'j str,
    bytes: &'j [u8],
    pos: usize,
    shape: &'s Shape,
    /// The document up to `copied`, with integers rewritten.
    out: String,
    copied: usize,
}

impl Spelled<'_, '_> {
    /// Reads the value at `pos`, described by the subschemas of `set`
    /// (none: by none that states a type, and nothing below is rewritten).
    fn value(&mut self, set: &[Id]) {
        self.skip_ws();
        if set.is_empty() {
            return self.skip();
        }
        let atoms = self.shape.atoms(set);
        match self.bytes.get(self.pos) {
            Some(b'{') => {
                self.pos += 1;
                loop {
                    self.skip_ws();
                    match self.bytes.get(self.pos) {
                        Some(b'"') => {}
                        Some(b',') => {
                            self.pos += 1;
                            continue;
                        }
                        _ => break,
                    }
                    let key = self.key();
                    let children: SmallVec<[Id; 8]> =
                        children(atoms.iter().map(|id| self.shape.member(*id, &key).0));
                    self.value(&children);
                }
                self.pos += 1;
            }
            Some(b'[') => {
                self.pos += 1;
                let mut index = 0;
                loop {
                    self.skip_ws();
                    match self.bytes.get(self.pos) {
                        Some(b']') | None => break,
                        Some(b',') => {
                            self.pos += 1;
                            continue;
                        }
                        Some(_) => {}
                    }
                    let items: SmallVec<[Id; 8]> =
                        children(atoms.iter().map(|id| self.shape.item(*id, index)));
                    self.value(&items);
                    index += 1;
                }
                self.pos += 1;
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                self.pos += self.number_len();
                let token = self.bytes.get(start..self.pos).unwrap_or_default();
                if let Some(integer) = integral(token)
                    && atoms.iter().any(|id| self.shape.integer_only(*id))
                {
                    use core::fmt::Write as _;
                    self.out
                        .push_str(self.json.get(self.copied..start).unwrap_or_default());
                    let _ = write!(self.out, "{integer}");
                    self.copied = self.pos;
                }
            }
            _ => self.skip(),
        }
    }

    /// The key at `pos`, its escapes decoded, and the colon after it.
    fn key(&mut self) -> Vec<u8> {
        let start = self.pos;
        let escaped = self.skip_string();
        let raw = self.bytes.get(start..self.pos).unwrap_or_default();
        let key = match escaped {
            true => serde_json::from_slice::<String>(raw)
                .unwrap_or_default()
                .into_bytes(),
            false => raw
                .get(1..raw.len().saturating_sub(1))
                .unwrap_or_default()
                .to_vec(),
        };
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b':') {
            self.pos += 1;
        }
        key
    }

    /// Skips the value at `pos`, whatever it holds.
    fn skip(&mut self) {
        let mut depth = 0usize;
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'"' => {
                    self.skip_string();
                    if depth == 0 {
                        return;
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return;
                    }
                }
                b',' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return,
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Skips the string at `pos`; says whether it has escapes.
    fn skip_string(&mut self) -> bool {
        let mut escaped = false;
        self.pos += 1;
        while let Some(&b) = self.bytes.get(self.pos) {
            self.pos += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.pos += 1;
                }
                _ => {}
            }
        }
        escaped
    }

    /// The length of the number token at `pos`.
    fn number_len(&self) -> usize {
        self.bytes
            .get(self.pos..)
            .unwrap_or_default()
            .iter()
            .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .unwrap_or(self.bytes.len() - self.pos)
    }

    fn skip_ws(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }
}

/// The subschemas `children` name, each once; `Any` and `Never` name none.
fn children(children: impl Iterator<Item = Child>) -> SmallVec<[Id; 8]> {
    let mut ids = SmallVec::new();
    for child in children {
        if let Child::Node(id) = child
            && !ids.contains(&id)
        {
            ids.push(id);
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`with_plain_integers`] under `schema`.
    fn rewritten(schema: serde_json::Value, json: &str) -> String {
        with_plain_integers(json, &Shape::new(&schema)).into_owned()
    }

    #[test]
    fn a_number_is_rewritten_where_the_schema_reads_an_integer_outside_strings() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {"type": "string"},
                "c\"": {"type": "array", "items": {"type": ["integer", "null"]}},
                "d": {"$ref": "#/$defs/Count"},
                "e": {"type": "object", "additionalProperties": {"type": "integer"}}
            },
            "$defs": {"Count": {"type": "integer", "minimum": 0}}
        });
        assert_eq!(
            rewritten(
                schema.clone(),
                r#"{"a":2.0,"b":"2.0","c\"":[-0,1e2,2.5, null],"d":-0.0,"e":{"k":1E1}}"#
            ),
            r#"{"a":2,"b":"2.0","c\"":[0,100,2.5, null],"d":0,"e":{"k":10}}"#
        );
        assert!(matches!(
            with_plain_integers(r#"{"a":2,"b":2.5}"#, &Shape::new(&schema)),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn a_number_the_schema_does_not_read_as_an_integer_is_left_as_sent() {
        // A free-form value (`serde_json::Value`: no type), a float, and a
        // value a union takes as either: none is an integer field.
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "any": true,
                "open": {},
                "ratio": {"type": "number"},
                "either": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                "map": {"type": "object", "additionalProperties": true},
                "n": {"type": "integer"}
            }
        });
        let json = r#"{"any":{"x":[1E2,-0,{"n":2.0}]},"open":-0.0,"ratio":1e2,"either":2.0,"map":{"n":1.0},"n":1.0}"#;
        assert_eq!(
            rewritten(schema, json),
            r#"{"any":{"x":[1E2,-0,{"n":2.0}]},"open":-0.0,"ratio":1e2,"either":2.0,"map":{"n":1.0},"n":1}"#
        );
        // A union of an integer and another type: serde may read the
        // integer branch, which takes no float.
        let union = serde_json::json!({"anyOf": [{"type": "integer"}, {"type": "string"}]});
        assert_eq!(rewritten(union, "1e2"), "100");
        // No schema at all: nothing said to be an integer.
        assert_eq!(with_plain_integers("[-0]", &Shape::default()), "[-0]");
    }

    #[test]
    fn a_number_that_ends_the_text_is_read_whole() {
        let integers = serde_json::json!({"type": "array", "items": {"type": "integer"}});
        assert_eq!(rewritten(integers, "[1 , 2.0]"), "[1 , 2]");
        assert_eq!(rewritten(serde_json::json!({"type": "integer"}), "-0"), "0");
    }
}
