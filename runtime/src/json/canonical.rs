//! Canonical JSON: one text for equal values, written once for the three
//! places that need it. An action's arguments (idempotency keys and
//! approval digests, `gate::accepted`), a schema's fingerprint (its
//! annotations left out, `schema`) and the items `uniqueItems` compares
//! (numbers by value, `gate::structural::unique`) differ only in what a
//! [`Form`] says; the text is otherwise the same: no whitespace, object
//! members in the byte order of their keys, keys and scalars as
//! serde_json writes them.

use serde_json::{Number, Value};

/// How one use of canonical JSON differs from the plain form: which
/// members it leaves out, what it makes of the values below them, and how
/// it writes a number. The defaults are the plain form.
pub(crate) trait Form: Copy {
    /// Whether an object met in this form writes its member `key`.
    fn keeps(self, _key: &str) -> bool {
        true
    }

    /// The form of the value under `key`.
    fn member(self, _key: &str) -> Self {
        self
    }

    /// The form of an array's items.
    fn item(self) -> Self {
        self
    }

    /// Writes `number` to `out`.
    fn number(self, number: &Number, out: &mut Vec<u8>) {
        write_serde(number, out);
    }
}

/// The plain form: every member kept, numbers as serde_json holds them.
#[derive(Clone, Copy)]
pub(crate) struct Plain;

impl Form for Plain {}

/// The canonical text of `value` in the plain form.
pub(crate) fn text(value: &Value) -> String {
    let mut out = Vec::new();
    write(value, Plain, &mut out);
    // serde_json writes UTF-8, and the punctuation is ASCII.
    String::from_utf8(out).unwrap_or_default()
}

/// Appends the canonical text of `value`, in `form`, to `out`.
pub(crate) fn write<F: Form>(value: &Value, form: F, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> =
                map.iter().filter(|(key, _)| form.keeps(key)).collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, member)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_key(key, out);
                out.push(b':');
                write(member, form.member(key), out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, form.item(), out);
            }
            out.push(b']');
        }
        Value::Number(number) => form.number(number, out),
        scalar => write_serde(scalar, out),
    }
}

/// Appends `key` as a JSON string, as serde_json writes it.
pub(crate) fn write_key(key: &str, out: &mut Vec<u8>) {
    write_serde(key, out);
}

fn write_serde<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    // Writing a string or a scalar into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Lower-case hex of `bytes`, as a digest of canonical text is shown:
/// each byte's two digits looked up at once, not formatted, a digest's
/// length at a time.
pub(crate) fn hex(bytes: &[u8]) -> String {
    // Indexes below 256 and 16, by construction.
    #[allow(clippy::indexing_slicing)]
    const PAIRS: [[u8; 2]; 256] = {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut pairs = [[0; 2]; 256];
        let mut byte = 0;
        while byte < 256 {
            pairs[byte] = [DIGITS[byte >> 4], DIGITS[byte & 0x0f]];
            byte += 1;
        }
        pairs
    };
    let mut out = String::with_capacity(bytes.len() * 2);
    for chunk in bytes.chunks(32) {
        let mut digits = [0; 64];
        for (pair, byte) in digits.chunks_exact_mut(2).zip(chunk) {
            pair.copy_from_slice(PAIRS.get(usize::from(*byte)).unwrap_or(&[b'0'; 2]));
        }
        let written = digits.get(..chunk.len() * 2).unwrap_or_default();
        // Every byte written is an ASCII digit or letter.
        out.push_str(core::str::from_utf8(written).unwrap_or_default());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Form, hex, text, write};
    use serde_json::json;

    #[test]
    fn members_are_sorted_by_their_keys_bytes_and_nothing_else_moves() {
        let value = json!({"b": [3, {"z": 1, "a": null}], "a": "é\"", "B": 2.5});
        assert_eq!(
            text(&value),
            r#"{"B":2.5,"a":"é\"","b":[3,{"a":null,"z":1}]}"#
        );
    }

    #[test]
    fn a_form_leaves_out_members_and_writes_numbers_its_own_way() {
        #[derive(Clone, Copy)]
        struct NoNotes;
        impl Form for NoNotes {
            fn keeps(self, key: &str) -> bool {
                key != "note"
            }
            fn number(self, _: &serde_json::Number, out: &mut Vec<u8>) {
                out.push(b'#');
            }
        }
        let mut out = Vec::new();
        write(&json!({"note": 1, "n": [1, 2.0]}), NoNotes, &mut out);
        assert_eq!(out, br#"{"n":[#,#]}"#);
    }

    #[test]
    fn hex_is_two_lower_case_digits_a_byte() {
        assert_eq!(hex(&[]), "");
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff, 0x7e]), "000fa0ff7e");
        // Longer than one chunk of 32 bytes, and not a whole number of them.
        let every: Vec<u8> = (0..=255).chain(0..7).collect();
        let formatted: String = every.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&every), formatted);
    }
}
