//! `uniqueItems`: whether the items of an array are all different, as JSON
//! Schema compares them, by value: `"a"` and `"\u0061"` are one string,
//! `1`, `1.0` and `1e0` one number, and two objects with the same members
//! in another order one object.
//!
//! serde reads a set (`HashSet`, `BTreeSet`) from an array with repeats,
//! keeping one of each, while its schema says `uniqueItems`: gate 2
//! compares the items, so that the server takes what the schema states.

use std::borrow::Cow;
use std::io::Write as _;

use serde_json::Value;

/// Up to this many items are compared pair by pair; past it, sorted.
pub(crate) const PAIRWISE: usize = 8;

/// Whether `items`, each a value's text, are all different by value.
pub(crate) fn all_different(items: &[&[u8]]) -> bool {
    differ(
        items
            .iter()
            .map(|item| {
                if plain(item) {
                    Cow::Borrowed(*item)
                } else {
                    Cow::Owned(canonical(item))
                }
            })
            .collect::<Vec<_>>(),
    )
}

/// Whether `items`, compared as they are, are all different: pair by pair
/// while few, else sorted, so that a long array costs `n log n`.
pub(crate) fn differ<T: Ord, I: AsMut<[T]>>(mut items: I) -> bool {
    let items = items.as_mut();
    if items.len() <= PAIRWISE {
        return items
            .iter()
            .enumerate()
            .all(|(i, a)| items.iter().skip(i + 1).all(|b| a != b));
    }
    items.sort_unstable();
    items.windows(2).all(|pair| match pair {
        [a, b] => a != b,
        _ => true,
    })
}

/// Whether `item` is written exactly as one of the first [`PAIRWISE`] of
/// `before`: a repeat by value, whatever the rest holds, found before
/// the array ends.
pub(crate) fn written_before(before: &[&[u8]], item: &[u8]) -> bool {
    before.iter().take(PAIRWISE).any(|b| *b == item)
}

/// Whether a value's text is the only text of its value: a string
/// without escapes, an integer written as digits that fits 64 bits (but
/// `-0`, which is `0`), `true`, `false` or `null`. Equal plain values are
/// written alike. An integer past 64 bits is not: serde reads it as the
/// double it rounds to, and so does a validator of the schema, for which
/// two such integers that round alike are a repeat.
fn plain(item: &[u8]) -> bool {
    match item {
        [b'"', inner @ .., b'"'] => !inner.contains(&b'\\'),
        b"true" | b"false" | b"null" => true,
        b"-0" => false,
        [b'-', digits @ ..] | digits => {
            !digits.is_empty()
                && digits.iter().all(u8::is_ascii_digit)
                && crate::json::number::fits_64_bits(item)
        }
    }
}

/// The one text of a value equal to `item`'s: strings as serde_json writes
/// them (the plain text of a plain string), numbers by value (an integer
/// as its digits, however written), members sorted by key.
fn canonical(item: &[u8]) -> Vec<u8> {
    match serde_json::from_slice::<Value>(item) {
        Ok(value) => {
            let mut out = Vec::new();
            crate::json::canonical::write(&value, ByValue, &mut out);
            out
        }
        // Gate 1 has proven it a value; were it not, it is itself.
        Err(_) => item.to_vec(),
    }
}

/// Canonical JSON with numbers by value, as JSON Schema compares them:
/// an integer as its digits however it was written (`2.0`, `2e0` and `2`
/// alike, `-0.0` as `0`).
#[derive(Clone, Copy)]
struct ByValue;

impl crate::json::canonical::Form for ByValue {
    fn number(self, n: &serde_json::Number, out: &mut Vec<u8>) {
        if let Some(i) = n.as_i64() {
            let _ = write!(out, "{i}");
        } else if let Some(u) = n.as_u64() {
            let _ = write!(out, "{u}");
        } else {
            let f = n.as_f64().unwrap_or_default();
            #[allow(clippy::cast_possible_truncation)] // integral, within 128 bits
            if f.fract() == 0.0 && f.abs() < 1.0e38 {
                let _ = write!(out, "{}", f as i128);
            } else {
                let _ = write!(out, "{f}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the items of `array`, as written, are all different.
    fn different(array: &str) -> bool {
        let items = split(array);
        all_different(&items.iter().map(|s| s.as_bytes()).collect::<Vec<_>>())
    }

    /// The items of a flat array, or of one whose items hold no comma.
    fn split(array: &str) -> Vec<&str> {
        let inner = array
            .trim()
            .strip_prefix('[')
            .unwrap()
            .strip_suffix(']')
            .unwrap();
        if inner.trim().is_empty() {
            return Vec::new();
        }
        let mut items = Vec::new();
        let (mut depth, mut start, mut string) = (0, 0, false);
        let bytes = inner.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' if string => i += 1,
                b'"' => string = !string,
                b'{' | b'[' if !string => depth += 1,
                b'}' | b']' if !string => depth -= 1,
                b',' if !string && depth == 0 => {
                    items.push(inner[start..i].trim());
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        items.push(inner[start..].trim());
        items
    }

    #[test]
    fn equal_values_are_found_however_they_are_written() {
        for same in [
            r#"["a","a"]"#,
            r#"["a","\u0061"]"#,
            r#"["\"","\u0022"]"#,
            "[1,1.0]",
            "[0,-0]",
            "[0,-0.0]",
            "[10,1e1]",
            "[100000000000000000000,1e20]",
            // Past 64 bits, integers are the doubles they round to.
            "[100000000000000000001,100000000000000000000]",
            "[1e38,99999999999999997748809823456034029568]",
            "[0.5,5e-1]",
            "[true,true]",
            "[null,null]",
            r#"[{"x":1,"y":2},{"y":2.0,"x":1}]"#,
            r#"[[1,"a"],[1.0,"\u0061"]]"#,
            r#"["a","b","c","d","e","f","g","h","i","j","k","c"]"#,
        ] {
            assert!(!different(same), "{same}");
        }
        for distinct in [
            "[]",
            r#"["a"]"#,
            r#"["a","b"]"#,
            r#"["1",1]"#,
            "[1,2]",
            "[1,1.5]",
            "[true,false,null,0,\"\",[],{}]",
            r#"[{"x":1},{"x":1,"y":2}]"#,
            r#"[[1,2],[2,1]]"#,
            r#"["a","b","c","d","e","f","g","h","i","j","k"]"#,
            "[18446744073709551615,18446744073709551614]",
            // Numbers side by side stay apart in the canonical form.
            "[[1,23],[12,3]]",
            "[[1.5,2],[1,5.2]]",
        ] {
            assert!(different(distinct), "{distinct}");
        }
    }

    #[test]
    fn few_are_compared_pair_by_pair_and_many_sorted() {
        let ok = |items: &[&str]| differ(items.iter().map(|i| i.as_bytes()).collect::<Vec<_>>());
        assert!(ok(&[]));
        assert!(ok(&["a", "b"]));
        assert!(!ok(&["a", "b", "a"]));
        let many: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        let mut items: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(ok(&items));
        items.push("7");
        assert!(!ok(&items));
    }

    #[test]
    fn a_value_is_plain_where_it_is_written_one_way_only() {
        for plain in [
            r#""a""#,
            r#""""#,
            "0",
            "12",
            "-12",
            "18446744073709551615",
            "-9223372036854775808",
            "true",
            "false",
            "null",
        ] {
            assert!(super::plain(plain.as_bytes()), "{plain}");
        }
        for not in [
            r#""\u0061""#,
            r#""a\"b""#,
            "-0",
            "1.0",
            "1e2",
            "1E2",
            "18446744073709551616",
            "-9223372036854775809",
            "[1]",
            r#"{"a":1}"#,
        ] {
            assert!(!super::plain(not.as_bytes()), "{not}");
        }
    }
}
