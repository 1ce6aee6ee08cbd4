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
            Segment::Key(key) if is_echoable(key) => {
                out.push('/');
                for c in key.chars() {
                    match c {
                        '~' => out.push_str("~0"),
                        '/' => out.push_str("~1"),
                        c => out.push(c),
                    }
                }
            }
            Segment::Key(_) => break,
            Segment::Index(index) => {
                let _ = write!(out, "/{index}");
            }
        }
        if out.len() > MAX_POINTER {
            out.truncate(before);
            break;
        }
    }
    out
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
