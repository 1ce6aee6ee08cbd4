//! Patterns mean one thing: every `pattern` (and `patternProperties` key)
//! in a tool's schema reads alike to the server's regex (Rust's `regex`,
//! through garde and the shape guard) and to JSON Schema validators and
//! providers (ECMA-262).
//!
//! `#[tool]` rewrites the pattern literals on a tool's own parameters into
//! a subset both dialects read alike (`.` becomes `[^\n\r\u2028\u2029]`,
//! `\d` becomes `[0-9]`, …). Patterns on the fields of the user's own nested
//! types, and patterns given as expressions, never pass through the macro:
//! [`Toolbox::register`](crate::Toolbox::register) refuses those whose
//! meaning differs, with what to write instead.
//!
//! What differs, and why it is refused:
//! - `.` matches `\r`, U+2028 and U+2029 on the server, not in ECMA-262
//!   (`"a memo\r"` would pass `^.{1,10}$` on the server only);
//! - `\d`, `\w`, `\s`, `\b` and Unicode classes are Unicode-aware on the
//!   server, ASCII (or another set) in ECMA-262: `٣` is a digit on the
//!   server, U+FEFF a space only in ECMA-262;
//! - ECMA-262 has no inline flags (`(?i)`), no `\A`, `\z`, `\x{…}`, `\a`,
//!   `(?P<name>…)`, nested classes or class set operations: it reads them as
//!   other characters or refuses the pattern.
//!
//! `^` and `$` are left alone: without the `m` flag both dialects read them
//! as the start and the end of the text (neither lets `$` match before a
//! final newline). Identity escapes of punctuation (`\-`, `\#`) mean the
//! character itself in both.

use regex_syntax::ast::{
    self, Assertion, AssertionKind, Ast, ClassAsciiKind, ClassPerl, ClassPerlKind, ClassSet,
    ClassSetItem, GroupKind, HexLiteralKind, Literal, LiteralKind, SpecialLiteralKind,
};
use serde_json::Value;

use crate::RegisterError;

/// Refuses the tool if a pattern in its schema means one thing to the
/// server and another to ECMA-262.
pub(crate) fn check(
    tool: &'static str,
    schema: &Value,
    compiled: &mut Compiled,
) -> Result<(), RegisterError> {
    match walk(schema, &mut Vec::new(), compiled) {
        None => Ok(()),
        Some(found) => Err(RegisterError::Pattern {
            tool,
            pattern: found.pattern,
            at: found.at,
            fix: found.fix,
        }),
    }
}

/// The patterns registration compiles, each once: to check that the
/// server's regex compiles it, and to write strings it does or does not
/// match (see [`crate::register::instance`]).
#[derive(Default)]
pub(crate) struct Compiled(Vec<(String, Result<regex::Regex, regex::Error>)>);

impl Compiled {
    fn compile(&mut self, pattern: &str) -> Option<&Result<regex::Regex, regex::Error>> {
        let at = match self.0.iter().position(|(p, _)| p == pattern) {
            Some(at) => at,
            None => {
                self.0
                    .push((pattern.to_owned(), regex::Regex::new(pattern)));
                self.0.len() - 1
            }
        };
        self.0.get(at).map(|(_, compiled)| compiled)
    }

    /// `pattern` compiled, if the server's regex compiles it.
    pub(crate) fn regex(&mut self, pattern: &str) -> Option<&regex::Regex> {
        self.compile(pattern)?.as_ref().ok()
    }
}

/// A pattern in a schema whose meaning differs between the dialects.
struct Disagreement {
    pattern: String,
    /// Where in the schema (a JSON Pointer).
    at: String,
    /// What to write instead.
    fix: String,
}

/// The [`Disagreement`] of `pattern`, at `at`, if there is one.
fn found(pattern: &str, at: &[String], compiled: &mut Compiled) -> Option<Disagreement> {
    fix(pattern, compiled).map(|fix| Disagreement {
        pattern: pattern.to_owned(),
        at: at
            .iter()
            .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
            .collect(),
        fix,
    })
}

fn walk(node: &Value, at: &mut Vec<String>, compiled: &mut Compiled) -> Option<Disagreement> {
    match node {
        Value::Object(map) => {
            for (key, child) in map {
                at.push(key.clone());
                let result = match (key.as_str(), child) {
                    ("pattern", Value::String(pattern)) => found(pattern, at, compiled),
                    ("patternProperties", Value::Object(patterns)) => {
                        let mut result = None;
                        for pattern in patterns.keys() {
                            at.push(pattern.clone());
                            result = found(pattern, at, compiled);
                            at.pop();
                            if result.is_some() {
                                break;
                            }
                        }
                        result.or_else(|| walk(child, at, compiled))
                    }
                    // Values, not schemas: a `"pattern"` key in them is data.
                    ("enum" | "const" | "default" | "examples", _) => None,
                    _ => walk(child, at, compiled),
                };
                at.pop();
                if result.is_some() {
                    return result;
                }
            }
            None
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(i.to_string());
                let result = walk(child, at, compiled);
                at.pop();
                if result.is_some() {
                    return result;
                }
            }
            None
        }
        _ => None,
    }
}

/// What to write instead of `pattern`, if the dialects read it differently.
fn fix(pattern: &str, compiled: &mut Compiled) -> Option<String> {
    match ast::parse::Parser::new().parse(pattern) {
        Ok(parsed) => Check { pattern }.ast(&parsed).err().or_else(|| {
            // Read, but past what the server's regex compiles (its size
            // limit): nothing could enforce it.
            let error = compiled.compile(pattern)?.as_ref().err()?;
            let reason = match error {
                regex::Error::CompiledTooBig(_) => "it compiles too large".to_owned(),
                other => other.to_string(),
            };
            Some(format!(
                "the server's regex cannot compile it ({reason}), so the server cannot enforce it; write a smaller pattern (fewer or shorter counted repetitions), or check the value in a garde `custom` rule"
            ))
        }),
        Err(error) => Some(format!(
            "the server's regex cannot read it ({}), so the server cannot enforce it; write a pattern both read, without lookaround or backreferences",
            error.kind()
        )),
    }
}

struct Check<'a> {
    pattern: &'a str,
}

impl Check<'_> {
    fn text(&self, span: &ast::Span) -> &str {
        self.pattern
            .get(span.start.offset..span.end.offset)
            .unwrap_or_default()
    }

    fn ast(&self, node: &Ast) -> Result<(), String> {
        match node {
            Ast::Empty(_) => Ok(()),
            Ast::Flags(set) => Err(flags(self.text(&set.span))),
            Ast::Literal(literal) => self.literal(literal),
            Ast::Dot(_) => Err(
                r"write `[^\n\r\u2028\u2029]` for `.`: the server's `.` also matches `\r`, U+2028 and U+2029".to_owned(),
            ),
            Ast::Assertion(assertion) => self.assertion(assertion),
            Ast::ClassUnicode(class) => Err(unicode_class(self.text(&class.span))),
            Ast::ClassPerl(class) => {
                let (class_text, members) = perl(class);
                Err(format!(
                    "write `[{}{members}]` for `{class_text}`: the server's `{class_text}` is Unicode-aware, ECMA-262's is not",
                    if class.negated { "^" } else { "" }
                ))
            }
            Ast::ClassBracketed(class) => self.class_set(&class.kind),
            Ast::Repetition(repetition) => match &*repetition.ast {
                Ast::Assertion(assertion) => Err(format!(
                    "remove the quantifier after `{}`: ECMA-262 cannot repeat an anchor",
                    self.text(&assertion.span)
                )),
                Ast::Repetition(inner) => Err(format!(
                    "write `(?:{})` and then the quantifier after it: ECMA-262 cannot repeat a repetition",
                    self.text(&inner.span)
                )),
                inner => self.ast(inner),
            },
            Ast::Group(group) => {
                match &group.kind {
                    GroupKind::CaptureIndex(_) => {}
                    GroupKind::CaptureName {
                        starts_with_p: true,
                        name,
                    } => {
                        return Err(format!(
                            "write `(?<{0}>…)` or `(…)` for `(?P<{0}>…)`, which ECMA-262 does not read",
                            name.name
                        ));
                    }
                    GroupKind::CaptureName { name, .. } => {
                        let mut chars = name.name.chars();
                        let identifier = chars
                            .next()
                            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
                        if !identifier {
                            return Err(format!(
                                "name the group `{}` with ASCII letters, digits and `_` only, as ECMA-262 requires, or write `(…)`",
                                name.name
                            ));
                        }
                    }
                    GroupKind::NonCapturing(f) if f.items.is_empty() => {}
                    GroupKind::NonCapturing(f) => {
                        return Err(flags(&format!("(?{}:…)", self.text(&f.span))));
                    }
                }
                self.ast(&group.ast)
            }
            Ast::Alternation(alternation) => alternation.asts.iter().try_for_each(|a| self.ast(a)),
            Ast::Concat(concat) => concat.asts.iter().try_for_each(|a| self.ast(a)),
        }
    }

    fn assertion(&self, assertion: &Assertion) -> Result<(), String> {
        match assertion.kind {
            AssertionKind::StartLine | AssertionKind::EndLine => Ok(()),
            AssertionKind::StartText => {
                Err("write `^` for `\\A`, which ECMA-262 reads as the letter `A`".to_owned())
            }
            AssertionKind::EndText => {
                Err("write `$` for `\\z`, which ECMA-262 reads as the letter `z`".to_owned())
            }
            _ => Err(format!(
                "`{}` is a Unicode word boundary on the server and an ASCII one (or a letter) in ECMA-262: anchor the pattern with `^` and `$`, or match the separator itself, like `[^A-Za-z0-9_]`",
                self.text(&assertion.span)
            )),
        }
    }

    fn literal(&self, literal: &Literal) -> Result<(), String> {
        let text = self.text(&literal.span);
        match literal.kind {
            LiteralKind::Verbatim
            | LiteralKind::Meta
            | LiteralKind::Superfluous
            | LiteralKind::HexFixed(HexLiteralKind::X | HexLiteralKind::UnicodeShort)
            | LiteralKind::Special(
                SpecialLiteralKind::FormFeed
                | SpecialLiteralKind::Tab
                | SpecialLiteralKind::LineFeed
                | SpecialLiteralKind::CarriageReturn
                | SpecialLiteralKind::VerticalTab,
            ) => Ok(()),
            _ => {
                let c = u32::from(literal.c);
                let instead = if c <= 0xFFFF {
                    format!("\\u{c:04X}")
                } else {
                    literal.c.to_string()
                };
                Err(format!(
                    "write `{instead}` for `{text}`, which ECMA-262 reads as other characters"
                ))
            }
        }
    }

    fn class_set(&self, set: &ClassSet) -> Result<(), String> {
        match set {
            ClassSet::BinaryOp(op) => Err(format!(
                "write the class `{}` out: class set operations (`&&`, `--`, `~~`) are Rust-only",
                self.text(&op.span)
            )),
            ClassSet::Item(item) => self.class_item(item),
        }
    }

    fn class_item(&self, item: &ClassSetItem) -> Result<(), String> {
        match item {
            ClassSetItem::Empty(_) => Ok(()),
            // Unescaped, first in a class: the server reads the character,
            // ECMA-262 the end of an empty class (`[]`, or `[^]`, any
            // character).
            ClassSetItem::Literal(literal)
                if literal.c == ']' && literal.kind == LiteralKind::Verbatim =>
            {
                Err(
                    "write `\\]` for a `]` inside a class: ECMA-262 reads `[]` as an empty class"
                        .to_owned(),
                )
            }
            ClassSetItem::Literal(literal) => self.literal(literal),
            ClassSetItem::Range(range) => {
                self.literal(&range.start)?;
                self.literal(&range.end)
            }
            ClassSetItem::Ascii(class) => {
                let text = self.text(&class.span);
                if class.negated {
                    Err(format!(
                        "`{text}` is Rust-only; write the characters it excludes as a class of their own"
                    ))
                } else {
                    Err(format!(
                        "write `{}` for `{text}`, which ECMA-262 reads as the characters `[:…`",
                        ascii(&class.kind)
                    ))
                }
            }
            ClassSetItem::Unicode(class) => Err(unicode_class(self.text(&class.span))),
            ClassSetItem::Perl(class) => {
                let (text, members) = perl(class);
                if class.negated {
                    Err(format!(
                        "take `{text}` out of the class as an alternative, `(?:[…]|[^{members}])`: the server's `{text}` is Unicode-aware, ECMA-262's is not"
                    ))
                } else {
                    Err(format!(
                        "write `{members}` for `{text}` inside the class: the server's `{text}` is Unicode-aware, ECMA-262's is not"
                    ))
                }
            }
            ClassSetItem::Bracketed(class) => Err(format!(
                "merge `{}` into the class around it: ECMA-262 reads `[` inside a class as a character",
                self.text(&class.span)
            )),
            ClassSetItem::Union(union) => union.items.iter().try_for_each(|i| self.class_item(i)),
        }
    }
}

/// The class as written, and its members as ECMA-262 reads them.
fn perl(class: &ClassPerl) -> (&'static str, &'static str) {
    match (&class.kind, class.negated) {
        (ClassPerlKind::Digit, false) => (r"\d", "0-9"),
        (ClassPerlKind::Digit, true) => (r"\D", "0-9"),
        (ClassPerlKind::Word, false) => (r"\w", "A-Za-z0-9_"),
        (ClassPerlKind::Word, true) => (r"\W", "A-Za-z0-9_"),
        (ClassPerlKind::Space, false) => (r"\s", SPACE),
        (ClassPerlKind::Space, true) => (r"\S", SPACE),
    }
}

/// ECMA-262's `\s`: WhiteSpace (TAB, VT, FF, ZWNBSP and every `Zs`) and
/// LineTerminator.
const SPACE: &str = r"\t\n\v\f\r \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF";

fn ascii(kind: &ClassAsciiKind) -> &'static str {
    match kind {
        ClassAsciiKind::Alnum => "0-9A-Za-z",
        ClassAsciiKind::Alpha => "A-Za-z",
        ClassAsciiKind::Ascii => r"\x00-\x7F",
        ClassAsciiKind::Blank => r"\t ",
        ClassAsciiKind::Cntrl => r"\x00-\x1F\x7F",
        ClassAsciiKind::Digit => "0-9",
        ClassAsciiKind::Graph => "!-~",
        ClassAsciiKind::Lower => "a-z",
        ClassAsciiKind::Print => " -~",
        ClassAsciiKind::Punct => r"!-\/:-@\[-`{-~",
        ClassAsciiKind::Space => r"\t-\r ",
        ClassAsciiKind::Upper => "A-Z",
        ClassAsciiKind::Word => "0-9A-Za-z_",
        ClassAsciiKind::Xdigit => "0-9A-Fa-f",
    }
}

fn flags(text: &str) -> String {
    format!(
        "remove `{text}`: ECMA-262 has no inline flags. For `i`, write both cases as a class, like `[aA]` (a leading `(?i)` on a `#[tool]` parameter is rewritten so); for `s`, write `(?:[^\\n]|\\n)` where any character is meant; the other flags have no form both dialects read"
    )
}

fn unicode_class(text: &str) -> String {
    format!(
        "list the characters you mean as a class, like `[A-Za-z\\u00C0-\\u00FF]`, for `{text}`: Unicode classes differ between the server's regex and ECMA-262"
    )
}

#[cfg(test)]
mod tests {
    use super::{Compiled, fix, walk};
    use serde_json::json;

    #[test]
    fn group_names_are_ascii_identifiers() {
        for pattern in [r"(?<_x>a)", r"(?<a_b>a)", r"(?<a1>a)"] {
            assert_eq!(fix(pattern, &mut Compiled::default()), None, "{pattern}");
        }
        for pattern in [r"(?<éa>a)", r"(?<aé>a)"] {
            let fix = fix(pattern, &mut Compiled::default())
                .unwrap_or_else(|| panic!("{pattern} passed"));
            assert!(fix.contains("ASCII letters"), "{pattern}: {fix}");
        }
    }

    #[test]
    fn every_pattern_of_a_schema_is_read_and_no_value_is() {
        let at = |schema: serde_json::Value| {
            walk(&schema, &mut Vec::new(), &mut Compiled::default()).map(|d| d.at)
        };
        // Inside the branches of a union, and as a map's key pattern.
        assert_eq!(
            at(json!({"oneOf": [{"type": "string"}, {"type": "string", "pattern": r"^\d$"}]})),
            Some("/oneOf/1/pattern".to_owned())
        );
        assert_eq!(
            at(json!({"type": "object", "patternProperties": {r"^\w+$": {"type": "integer"}}})),
            Some(r"/patternProperties/^\w+$".to_owned())
        );
        // A default, an enum value or an example is data: a `pattern` key
        // in it is no pattern.
        for keyword in ["default", "const", "examples", "enum"] {
            assert_eq!(
                at(json!({"type": "object", keyword: {"pattern": r"\d"}})),
                None,
                "{keyword}"
            );
        }
    }

    #[test]
    fn portable_patterns_pass() {
        for pattern in [
            r"^h_[a-z0-9]{8}$",
            r"^acct_[a-zA-Z0-9]+$",
            r"^(0|-?[1-9][0-9]*)$",
            r"^[^\n\r\u2028\u2029]{1,10}$",
            r"^[\t\n\v\f\r \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]$",
            r"[aA][bB]",
            r"(?<year>[0-9]{4})-(?:a|b)+?",
            r"a\-b\.c\#",
            r"[\x26\x7E\-]",
            "",
        ] {
            assert_eq!(fix(pattern, &mut Compiled::default()), None, "{pattern}");
        }
    }

    #[test]
    fn constructs_that_differ_are_refused_with_a_fix() {
        for (pattern, advice) in [
            (r"^.{1,10}$", r"[^\n\r\u2028\u2029]"),
            (r"^\d+$", "[0-9]"),
            (r"\D", "[^0-9]"),
            (r"\w", "[A-Za-z0-9_]"),
            (r"\s", r"\u3000\uFEFF]"),
            (r"[\d_]", "write `0-9`"),
            (r"[\W_]", "(?:[…]|[^A-Za-z0-9_])"),
            (r"\bword", "anchor"),
            (r"\B", "anchor"),
            (r"\Aa", "write `^`"),
            (r"a\z", "write `$`"),
            (r"(?i)abc", "[aA]"),
            (r"(?i:a)", "remove `(?i:…)`"),
            (r"(?s)a", "remove `(?s)`"),
            (r"\p{L}", "list the characters"),
            (r"[\pN]", "list the characters"),
            (r"(?P<n>a)", "(?<n>…)"),
            (r"[[:alpha:]]", "write `A-Za-z`"),
            (r"[a[b]]", "merge"),
            (r"[a-z&&b]", "set operations"),
            (r"\x{e9}", r"\u00E9"),
            (r"\a", r"\u0007"),
            (r"^*", "quantifier"),
            (r"(?=a)", "cannot read"),
            (r"^[]a]$", r"write `\]`"),
            (r"^[^]a]$", r"write `\]`"),
            (r"^a{1}{2}$", "(?:a{1})"),
            (
                r"^[a-z]{1,100000}$",
                "cannot compile it (it compiles too large)",
            ),
        ] {
            let fix = fix(pattern, &mut Compiled::default())
                .unwrap_or_else(|| panic!("{pattern} passed"));
            assert!(fix.contains(advice), "{pattern}: {fix}");
        }
    }
}
