//! Free text as a field of an audit event or a call's span: escaped as
//! Rust's `Debug` escapes it, so that no newline or control character from
//! a model, a resolver or an error can forge a log line, and cut, so that
//! no one field can flood the log.

use core::fmt::{self, Write as _};

/// Longest text field of an audit event, in characters after escaping.
pub(crate) const MAX_FIELD_CHARS: usize = 256;

/// Longest tool name in an audit event: registered names are short, and a
/// name the model invented needs no more to be recognised.
const MAX_TOOL_CHARS: usize = 64;

/// Free text as an audit field: at most [`MAX_FIELD_CHARS`] characters, with
/// `\`, newlines, control and other unprintable characters escaped as
/// `char::escape_debug` writes them (`\n`, `\u{1b}`, `\u{202e}`). Quotes stay
/// as they are: the field is recorded as a string, and each subscriber
/// quotes strings in its own format. A cut value ends in `…`.
pub(crate) fn text(raw: &str) -> String {
    escaped(raw, MAX_FIELD_CHARS)
}

/// Enough bytes for more than [`MAX_FIELD_CHARS`] characters, so that a
/// value that was cut is also cut (and marked) by [`text`].
const CAP: usize = (MAX_FIELD_CHARS + 1) * 4;

/// A value's `Display`, up to [`CAP`] bytes, formatting no more of it.
fn capped(value: &dyn fmt::Display) -> String {
    struct Capped(String);
    impl fmt::Write for Capped {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let room = CAP - self.0.len();
            if s.len() <= room {
                self.0.push_str(s);
                return Ok(());
            }
            let end = s.floor_char_boundary(room);
            self.0.push_str(s.get(..end).unwrap_or_default());
            // Stops the formatting: the rest would be cut anyway.
            Err(fmt::Error)
        }
    }
    let mut capped = Capped(String::new());
    // An `Err` here is the cap, or a `Display` that failed: either way,
    // what was written is what there is to log.
    let _ = write!(capped, "{value}");
    capped.0
}

/// [`text`] of an error and every cause beneath it, `: ` between them, as
/// far as the field can show. A cause whose text its error already ends
/// with (a library that repeats its `source` in its `Display`) is shown
/// once.
pub(crate) fn chain_of(error: &dyn std::error::Error) -> String {
    let mut out = String::new();
    let mut next: Option<&dyn std::error::Error> = Some(error);
    while let Some(error) = next {
        let shown = capped(&error);
        if !out.ends_with(&shown) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&shown);
        }
        if out.len() > CAP {
            break;
        }
        next = error.source();
    }
    text(&out)
}

/// A tool name as an audit field: registered names are short, and a name
/// the model invented is cut where it needs no more to be recognised.
pub(crate) fn tool_text(name: &str) -> String {
    escaped(name, MAX_TOOL_CHARS)
}

fn escaped(raw: &str, max: usize) -> String {
    let mut out = String::with_capacity(raw.len().min(max));
    let mut used = 0;
    // The length of `out` while one more character (the `…`) still fits.
    let mut fits = 0;
    for c in raw.chars() {
        if used > max {
            break;
        }
        if c == '"' || c == '\'' {
            out.push(c);
            used += 1;
        } else {
            for e in c.escape_debug() {
                out.push(e);
                used += 1;
            }
        }
        if used < max {
            fits = out.len();
        }
    }
    if used > max {
        out.truncate(fits);
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_bounded() {
        assert_eq!(text("not found"), "not found");
        assert_eq!(
            text("a\nb\\c\u{1b}\u{202e}\"'"),
            "a\\nb\\\\c\\u{1b}\\u{202e}\"'"
        );
        let long = text(&"x".repeat(10_000));
        assert_eq!(long.chars().count(), MAX_FIELD_CHARS);
        assert!(long.ends_with('…'));
        let exact = "y".repeat(MAX_FIELD_CHARS);
        assert_eq!(text(&exact), exact);
        // An escape is never cut in half.
        let controls = text(&"\u{1}".repeat(1_000));
        assert!(controls.chars().count() <= MAX_FIELD_CHARS);
        assert!(controls.trim_end_matches('…').ends_with("\\u{1}"));
    }

    #[test]
    fn a_display_is_formatted_no_further_than_a_field_shows() {
        struct Huge;
        impl fmt::Display for Huge {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for _ in 0..1_000_000 {
                    f.write_str("é\n")?;
                }
                Ok(())
            }
        }
        let formatted = capped(&Huge);
        assert!(formatted.len() <= CAP);
        let shown = text(&formatted);
        assert_eq!(shown.chars().count(), MAX_FIELD_CHARS);
        assert!(shown.starts_with("é\\né\\n"));
        assert_eq!(capped(&"short"), "short");
    }

    /// An error as tokio-postgres builds them: its `Display` a summary,
    /// the reason in its `source`.
    #[derive(Debug)]
    struct Summary(&'static str, Option<Box<dyn std::error::Error + 'static>>);
    impl fmt::Display for Summary {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for Summary {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref()
        }
    }

    #[test]
    fn the_chain_shows_every_cause_once() {
        let deepest = Summary("canceling statement due to lock timeout", None);
        let error = Summary("db error", Some(Box::new(deepest)));
        assert_eq!(
            chain_of(&error),
            "db error: canceling statement due to lock timeout"
        );
        // A library that repeats its cause in its own text.
        let repeated = Summary(
            "connect failed: password authentication failed",
            Some(Box::new(Summary("password authentication failed", None))),
        );
        assert_eq!(
            chain_of(&repeated),
            "connect failed: password authentication failed"
        );
        let long = Summary("x", Some(Box::new(Summary("\n", None))));
        assert_eq!(chain_of(&long), "x: \\n");
    }
}
