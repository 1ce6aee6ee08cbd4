//! JSON Pointers (RFC 6901) into the arguments, with the wire names the model
//! used, cut short where the input stops being safe to echo.

use core::fmt::Write as _;

/// Longest key echoed back to the model. A longer key, or one with anything
/// but letters, digits, `_`, `-` and `.`, ends the pointer: the model sent
/// it, and a rejection must not become a way to reflect text (an injected
/// instruction, say) back into its context.
const MAX_SEGMENT: usize = 40;

/// Longest pointer in a rejection.
const MAX_POINTER: usize = 128;

/// One step of a pointer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// One step of a path that its walker owns: a key it decoded, or an index.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

impl Step {
    pub(crate) fn segment(&self) -> Segment<'_> {
        match self {
            Step::Key(k) => Segment::Key(k),
            Step::Index(i) => Segment::Index(*i),
        }
    }
}

/// [`build`] over owned steps.
pub(crate) fn of_steps(steps: &[Step]) -> String {
    build(steps.iter().map(Step::segment))
}

/// Whether a key may be shown to the model as written.
pub(crate) fn is_echoable(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= MAX_SEGMENT
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Builds a pointer from segments, stopping before the first one that may not
/// be echoed.
pub(crate) fn build<'a>(segments: impl IntoIterator<Item = Segment<'a>>) -> String {
    let mut out = String::new();
    for segment in segments {
        let before = out.len();
        match segment {
            Segment::Key(key) if !is_echoable(key) => break,
            segment => push(&mut out, &segment),
        }
        if out.len() > MAX_POINTER {
            out.truncate(before);
            break;
        }
    }
    out
}

/// The whole pointer to a value, every key escaped, whatever it holds: for
/// looking the value's subschema up, never for showing. [`shown`] cuts it
/// to what may be shown.
pub(crate) fn exact<'a>(segments: impl IntoIterator<Item = Segment<'a>>) -> String {
    let mut out = String::new();
    for segment in segments {
        push(&mut out, &segment);
    }
    out
}

/// Appends `/` and the segment, a key escaped as RFC 6901 says.
fn push(out: &mut String, segment: &Segment<'_>) {
    match segment {
        Segment::Key(key) => {
            out.push('/');
            for c in key.chars() {
                match c {
                    '~' => out.push_str("~0"),
                    '/' => out.push_str("~1"),
                    c => out.push(c),
                }
            }
        }
        Segment::Index(index) => {
            let _ = write!(out, "/{index}");
        }
    }
}

/// The value a schema's `$ref` names within `root`: a URI fragment
/// (`#/$defs/Seat%20Request`), percent-decoded and then read as a JSON
/// Pointer, as RFC 6901 reads one in a URI. `None` for any other
/// reference (an `$id`, an `$anchor`, another document), and for a
/// fragment that names nothing.
pub(crate) fn target<'s>(
    root: &'s serde_json::Value,
    reference: &str,
) -> Option<&'s serde_json::Value> {
    root.pointer(&fragment(reference)?)
}

/// The JSON Pointer a `$ref` of the form `#…` holds, percent-decoded.
pub(crate) fn fragment(reference: &str) -> Option<std::borrow::Cow<'_, str>> {
    let fragment = reference.strip_prefix('#')?;
    match fragment.contains('%') {
        false => Some(std::borrow::Cow::Borrowed(fragment)),
        true => decoded(fragment).map(std::borrow::Cow::Owned),
    }
}

/// The name of the definition a `$ref` of the form `#/$defs/…` names, its
/// percent-encoding and pointer escapes undone.
pub(crate) fn definition_name(reference: &str) -> Option<String> {
    let fragment = decoded(reference.strip_prefix('#')?)?;
    let mut steps = segments(&fragment);
    match (steps.next(), steps.next(), steps.next()) {
        (Some(defs), Some(name), None) if defs == "$defs" => Some(name),
        _ => None,
    }
}

/// A URI fragment, percent-decoded; `None` where that is not UTF-8 or a
/// `%` is not followed by two hex digits.
fn decoded(fragment: &str) -> Option<String> {
    let bytes = fragment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if byte == b'%' {
            // Two hex digits, and nothing else (`from_str_radix` would
            // take a sign).
            let digit = |i: usize| char::from(*bytes.get(i)?).to_digit(16);
            let (high, low) = (digit(at + 1)?, digit(at + 2)?);
            decoded.push(u8::try_from(high * 16 + low).ok()?);
            at += 3;
        } else {
            decoded.push(byte);
            at += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// [`exact`] over owned steps.
pub(crate) fn exact_of_steps(steps: &[Step]) -> String {
    exact(steps.iter().map(Step::segment))
}

/// The part of an [`exact`] pointer that may be shown to the model: what
/// [`build`] makes of the same segments. An escaped key holds `~`, which
/// no echoable key does, so the escaped form decides alike.
pub(crate) fn shown(exact: &str) -> &str {
    let mut end = 0;
    for segment in exact.split('/').skip(1) {
        let next = end + 1 + segment.len();
        if !is_echoable(segment) || next > MAX_POINTER {
            break;
        }
        end = next;
    }
    exact.get(..end).unwrap_or_default()
}

/// Splits a pointer built by [`build`] back into its unescaped segments.
pub(crate) fn segments(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `$ref`'s fragment is percent-decoded, then read as a JSON
    /// Pointer; a `%` must be followed by two hex digits and nothing else.
    #[test]
    fn a_ref_is_decoded_then_read_as_a_pointer() {
        let root = serde_json::json!({"$defs": {
            "Seat Request": 1, "a/b": 2, "a%41": 3, "\u{1}": 4, "Séance": 5, "%+1": 6
        }});
        for (reference, found) in [
            ("#/$defs/Seat%20Request", Some(1)),
            ("#/$defs/a~1b", Some(2)),
            ("#/$defs/a%7E1b", Some(2)),
            ("#/$defs/a%2541", Some(3)),
            ("#/$defs/S%C3%A9ance", Some(5)),
            ("#/$defs/%01", Some(4)),
            ("#/$defs/%+1", None),
            ("#/$defs/%zz", None),
            ("#/$defs/%C3", None),
            ("#/$defs/%4", None),
            ("other.json#/$defs/a~1b", None),
            ("#small", None),
        ] {
            let value = target(&root, reference).and_then(serde_json::Value::as_u64);
            assert_eq!(value, found, "{reference}");
        }
        assert_eq!(definition_name("#/$defs/a%7E1b").as_deref(), Some("a/b"));
        assert_eq!(definition_name("#/$defs/A/properties/x"), None);
    }

    #[test]
    fn escapes_and_stops_at_unsafe_keys() {
        let p = build([Segment::Key("a.b"), Segment::Key("c-d"), Segment::Index(3)]);
        assert_eq!(p, "/a.b/c-d/3");
        assert_eq!(build([Segment::Key("ok"), Segment::Key("a b")]), "/ok");
        assert_eq!(build([Segment::Key("a/b")]), "");
        let long = "x".repeat(41);
        assert_eq!(
            build([Segment::Key("ok"), Segment::Key(&long), Segment::Key("z")]),
            "/ok"
        );
        assert_eq!(build([Segment::Key("tab\there")]), "");
        assert_eq!(
            segments("/a~1b/~0/3").collect::<Vec<_>>(),
            ["a/b", "~", "3"]
        );
    }

    #[test]
    fn the_shown_part_of_an_exact_pointer_is_the_built_one() {
        let long = "x".repeat(41);
        let edge = "k".repeat(40);
        let fits = "k".repeat(39);
        let cases: [&[Segment<'_>]; 9] = [
            &[],
            &[Segment::Key("a.b"), Segment::Key("c-d"), Segment::Index(3)],
            &[Segment::Key("ok"), Segment::Key("a b"), Segment::Key("z")],
            &[Segment::Key("a/b")],
            &[Segment::Key("~")],
            &[Segment::Key(""), Segment::Key("x")],
            &[Segment::Key("ok"), Segment::Key(&long), Segment::Key("z")],
            &[
                Segment::Key(&edge),
                Segment::Key(&edge),
                Segment::Key(&edge),
                Segment::Index(12_345),
                Segment::Key("z"),
            ],
            // Exactly the longest pointer shown.
            &[
                Segment::Key(&fits),
                Segment::Key(&fits),
                Segment::Key(&fits),
                Segment::Index(1_234_567),
            ],
        ];
        for segments in cases {
            let exact = exact(segments.iter().cloned());
            assert_eq!(shown(&exact), build(segments.iter().cloned()), "{exact}");
            assert_eq!(
                self::segments(&exact).collect::<Vec<_>>(),
                segments
                    .iter()
                    .map(|s| match s {
                        Segment::Key(k) => (*k).to_owned(),
                        Segment::Index(i) => i.to_string(),
                    })
                    .collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn a_pointer_keeps_each_segment_up_to_its_length_limit_and_no_more() {
        let key = "k".repeat(39);
        // Three keys of 40 characters with their slashes, and an index of
        // eight: exactly 128, kept whole.
        let full = [
            Segment::Key(&key),
            Segment::Key(&key),
            Segment::Key(&key),
            Segment::Index(1_234_567),
        ];
        assert_eq!(build(full.clone()).len(), MAX_POINTER);
        // One more segment passes the limit: the pointer stops before it,
        // however far past the limit it would go.
        let past = full.iter().cloned().chain([Segment::Key("abc")]);
        assert_eq!(build(past), build(full));
    }
}
