//! A `pattern(r"…")` rule, rewritten so that it means the same to the
//! server (Rust's `regex`, through garde) and to every JSON Schema validator
//! and provider (ECMA-262), since the one literal feeds both.
//!
//! The dialects read the same text differently: Rust's `.` matches `\r`,
//! U+2028 and U+2029, and its `\d`, `\w`, `\s`, `\b` and `(?i)` are
//! Unicode-aware where ECMA-262's are ASCII (and ECMA-262 has no inline
//! flags at all). So the pattern is parsed with regex-syntax, the parser
//! the server's regex uses, and written back node by node in a subset both
//! dialects read alike: `.`, `\d`, `\w`, `\s` and their negations become
//! explicit classes, a leading `(?i)` becomes `[aA]`-style classes, and a
//! construct with no equivalent in that subset is an error that names the
//! fix. The runtime refuses the same constructs in nested types'
//! patterns when a tool is registered (`toolgate::RegisterError::Pattern`).
//!
//! regex-syntax costs nothing extra: garde's derive macro already compiles
//! it, with the same features, to check every pattern literal.

use std::fmt::Write;

use regex_syntax::ast::{
    self, AssertionKind, Ast, ClassAsciiKind, ClassPerl, ClassPerlKind, ClassSet, ClassSetItem,
    Flag, FlagsItemKind, GroupKind, RepetitionKind, RepetitionRange,
};

/// ECMA-262's `\s`: WhiteSpace (TAB, VT, FF, ZWNBSP and every `Zs`) and
/// LineTerminator, written as the inside of a class.
const SPACE: &str = r"\t\n\v\f\r \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF";
const DIGIT: &str = "0-9";
const WORD: &str = "A-Za-z0-9_";
/// What ECMA-262's `.` excludes: its four line terminators.
const LINE_TERMINATORS: &str = r"\n\r\u2028\u2029";

/// The pattern as both dialects read it alike, or why it cannot be.
///
/// A pattern the server's regex cannot parse is an error here, on the
/// literal, rather than garde's later (which would leave the argument
/// struct without its `Validate` impl and bury the cause under errors
/// about generated types).
pub(crate) fn portable(pattern: &str) -> Result<String, String> {
    let parsed = match ast::parse::Parser::new().parse(pattern) {
        Ok(parsed) => parsed,
        Err(error) => {
            let at = error.span().start.offset;
            return Err(format!(
                "not a regular expression: {} (at character {} of the pattern)",
                error.kind(),
                pattern
                    .get(..at)
                    .map_or(at, |before| before.chars().count())
                    + 1,
            ));
        }
    };
    let mut writer = Writer {
        source: pattern,
        out: String::with_capacity(pattern.len() * 2),
        fold: false,
    };
    // `(?i)` is accepted only as the pattern's first item, where it covers
    // the whole pattern and can be dropped once the letters are folded.
    let rest: &[Ast] = match &parsed {
        Ast::Concat(concat) => match concat.asts.split_first() {
            Some((first, rest)) if is_leading_case_insensitive(first) => {
                writer.fold = true;
                rest
            }
            _ => std::slice::from_ref(&parsed),
        },
        single if is_leading_case_insensitive(single) => &[],
        single => std::slice::from_ref(single),
    };
    for node in rest {
        writer.ast(node)?;
    }
    Ok(writer.out)
}

fn is_leading_case_insensitive(node: &Ast) -> bool {
    matches!(node, Ast::Flags(set) if matches!(
        set.flags.items.as_slice(),
        [item] if item.kind == FlagsItemKind::Flag(Flag::CaseInsensitive)
    ))
}

struct Writer<'a> {
    source: &'a str,
    out: String,
    /// Under a leading `(?i)`: every ASCII letter stands for both cases.
    fold: bool,
}

impl Writer<'_> {
    fn text(&self, span: &ast::Span) -> &str {
        self.source
            .get(span.start.offset..span.end.offset)
            .unwrap_or_default()
    }

    fn ast(&mut self, node: &Ast) -> Result<(), String> {
        match node {
            Ast::Empty(_) => {}
            Ast::Flags(set) => {
                let text = self.text(&set.span);
                return Err(if text == "(?i)" {
                    "`(?i)` is rewritten only as the very first item of the pattern, before any alternative (write `(?i)(?:a|b)`, not `(?i)a|b`); elsewhere write the letters' cases as classes, like `[aA]`".to_owned()
                } else {
                    flags_message(text)
                });
            }
            Ast::Literal(literal) => self.literal(literal.c)?,
            Ast::Dot(_) => write_class(&mut self.out, true, LINE_TERMINATORS),
            Ast::Assertion(assertion) => match assertion.kind {
                // Without the `m` flag (refused) both dialects read `^` and
                // `$` as the start and end of the text; `$` does not match
                // before a final newline in either.
                AssertionKind::StartLine | AssertionKind::StartText => self.out.push('^'),
                AssertionKind::EndLine | AssertionKind::EndText => self.out.push('$'),
                _ => return Err(word_boundary_message(self.text(&assertion.span))),
            },
            Ast::ClassUnicode(class) => return Err(unicode_class_message(self.text(&class.span))),
            Ast::ClassPerl(class) => {
                let (negated, members) = perl(class);
                write_class(&mut self.out, negated, members);
            }
            Ast::ClassBracketed(class) => {
                let mut members = String::new();
                self.class_set(&class.kind, &mut members)?;
                write_class(&mut self.out, class.negated, &members);
            }
            Ast::Repetition(repetition) => {
                if let Ast::Assertion(assertion) = &*repetition.ast {
                    return Err(format!(
                        "`{}` repeats an anchor, which ECMA-262 refuses: remove the quantifier",
                        self.text(&assertion.span)
                    ));
                }
                let atom = matches!(
                    &*repetition.ast,
                    Ast::Literal(_)
                        | Ast::Dot(_)
                        | Ast::ClassPerl(_)
                        | Ast::ClassBracketed(_)
                        | Ast::Group(_)
                );
                if !atom {
                    self.out.push_str("(?:");
                }
                self.ast(&repetition.ast)?;
                if !atom {
                    self.out.push(')');
                }
                match &repetition.op.kind {
                    RepetitionKind::ZeroOrOne => self.out.push('?'),
                    RepetitionKind::ZeroOrMore => self.out.push('*'),
                    RepetitionKind::OneOrMore => self.out.push('+'),
                    RepetitionKind::Range(RepetitionRange::Exactly(n)) => {
                        let _ = write!(self.out, "{{{n}}}");
                    }
                    RepetitionKind::Range(RepetitionRange::AtLeast(n)) => {
                        let _ = write!(self.out, "{{{n},}}");
                    }
                    RepetitionKind::Range(RepetitionRange::Bounded(m, n)) => {
                        let _ = write!(self.out, "{{{m},{n}}}");
                    }
                }
                if !repetition.greedy {
                    self.out.push('?');
                }
            }
            Ast::Group(group) => {
                match &group.kind {
                    GroupKind::CaptureIndex(_) => self.out.push('('),
                    GroupKind::CaptureName {
                        starts_with_p: true,
                        name,
                    } => {
                        return Err(format!(
                            "`(?P<{0}>…)` is not ECMA-262 syntax: write `(?<{0}>…)`, or `(…)`",
                            name.name
                        ));
                    }
                    GroupKind::CaptureName { name, .. } => {
                        if !is_group_name(&name.name) {
                            return Err(format!(
                                "the group name `{}` is not one ECMA-262 accepts: use letters, digits and `_`, starting with a letter or `_`",
                                name.name
                            ));
                        }
                        let _ = write!(self.out, "(?<{}>", name.name);
                    }
                    GroupKind::NonCapturing(flags) if flags.items.is_empty() => {
                        self.out.push_str("(?:");
                    }
                    GroupKind::NonCapturing(flags) => {
                        return Err(flags_message(&format!("(?{}:…)", self.text(&flags.span))));
                    }
                }
                self.ast(&group.ast)?;
                self.out.push(')');
            }
            Ast::Alternation(alternation) => {
                for (i, branch) in alternation.asts.iter().enumerate() {
                    if i > 0 {
                        self.out.push('|');
                    }
                    self.ast(branch)?;
                }
            }
            Ast::Concat(concat) => {
                for item in &concat.asts {
                    self.ast(item)?;
                }
            }
        }
        Ok(())
    }

    fn literal(&mut self, c: char) -> Result<(), String> {
        if self.fold && c.is_ascii_alphabetic() {
            let mut members = String::new();
            members.push(c.to_ascii_lowercase());
            members.push(c.to_ascii_uppercase());
            write_class(&mut self.out, false, &members);
            return Ok(());
        }
        self.check_fold(c)?;
        escape(&mut self.out, c, false);
        Ok(())
    }

    /// Under `(?i)`, Rust folds non-ASCII letters by Unicode's rules and
    /// also matches `K` (Kelvin sign) for `k` and `ſ` for `s`; those are not
    /// rewritten but refused, so the folded letters are exactly `A-Za-z`.
    fn check_fold(&self, c: char) -> Result<(), String> {
        if self.fold && !c.is_ascii() && !c.to_lowercase().eq(c.to_uppercase()) {
            return Err(format!(
                "`(?i)` here folds ASCII letters only, and `{c}` is not one: write its cases yourself, like `[{}{}]`, or remove `(?i)`",
                c.to_lowercase(),
                c.to_uppercase()
            ));
        }
        Ok(())
    }

    /// The members of a bracketed class, written into `members` (without
    /// the brackets).
    fn class_set(&self, set: &ClassSet, members: &mut String) -> Result<(), String> {
        match set {
            ClassSet::BinaryOp(op) => Err(format!(
                "`{}`: class set operations (`&&`, `--`, `~~`) are Rust-only; write the resulting class out",
                self.text(&op.span)
            )),
            ClassSet::Item(item) => self.class_item(item, members),
        }
    }

    fn class_item(&self, item: &ClassSetItem, members: &mut String) -> Result<(), String> {
        match item {
            ClassSetItem::Empty(_) => {}
            ClassSetItem::Literal(literal) => self.range(literal.c, literal.c, members)?,
            ClassSetItem::Range(range) => self.range(range.start.c, range.end.c, members)?,
            ClassSetItem::Ascii(class) => {
                let text = self.text(&class.span);
                if class.negated {
                    return Err(format!(
                        "`{text}` inside a class is Rust-only; write the characters it stands for"
                    ));
                }
                for &(lo, hi) in ascii(&class.kind) {
                    self.range(lo, hi, members)?;
                }
            }
            ClassSetItem::Unicode(class) => {
                return Err(unicode_class_message(self.text(&class.span)));
            }
            ClassSetItem::Perl(class) => {
                let (negated, inner) = perl(class);
                if negated {
                    let text = self.text(&class.span);
                    return Err(format!(
                        "`{text}` inside a class is Unicode-aware on the server and has no ASCII form inside brackets: take it out as an alternative, like `(?:[…]|[^{inner}])`"
                    ));
                }
                members.push_str(inner);
            }
            ClassSetItem::Bracketed(class) => {
                return Err(format!(
                    "`{}`: a class inside a class is Rust-only (ECMA-262 reads `[` there as a character); merge the two into one class",
                    self.text(&class.span)
                ));
            }
            ClassSetItem::Union(union) => {
                for item in &union.items {
                    self.class_item(item, members)?;
                }
            }
        }
        Ok(())
    }

    /// `lo-hi` as class members, with both cases of its ASCII letters when
    /// folding.
    fn range(&self, lo: char, hi: char, members: &mut String) -> Result<(), String> {
        self.check_fold(lo)?;
        if self.fold && !hi.is_ascii() {
            return Err(format!(
                "`(?i)` here folds ASCII letters only, and the range `{lo}-{hi}` reaches past ASCII: write the cases you mean yourself, or remove `(?i)`"
            ));
        }
        write_range(members, lo, hi);
        if self.fold {
            for (first, last) in [('a', 'z'), ('A', 'Z')] {
                let (from, to) = (lo.max(first), hi.min(last));
                if from <= to {
                    // ASCII: flipping bit 5 swaps the case of a letter.
                    let swap = |c: char| char::from(c as u8 ^ 0x20);
                    write_range(members, swap(from), swap(to));
                }
            }
        }
        Ok(())
    }
}

fn write_range(members: &mut String, lo: char, hi: char) {
    escape(members, lo, true);
    if hi != lo {
        members.push('-');
        escape(members, hi, true);
    }
}

fn write_class(out: &mut String, negated: bool, members: &str) {
    out.push('[');
    if negated {
        out.push('^');
    }
    out.push_str(members);
    out.push(']');
}

/// `c` written so that both dialects read it as itself, inside a class or
/// outside: ECMA-262's syntax characters escaped, `&`, `~` and `-` in a
/// class escaped (Rust reads `&&`, `~~` and `--` as set operations, and
/// ECMA-262 with the `u` flag refuses `\&`), control and invisible
/// characters as `\xHH` or `\uHHHH`.
fn escape(out: &mut String, c: char, in_class: bool) {
    match c {
        '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' => {
            out.push('\\');
            out.push(c);
        }
        '-' if in_class => out.push_str(r"\-"),
        '&' | '~' if in_class => {
            let _ = write!(out, "\\x{:02X}", u32::from(c));
        }
        '\t' => out.push_str(r"\t"),
        '\n' => out.push_str(r"\n"),
        '\x0B' => out.push_str(r"\v"),
        '\x0C' => out.push_str(r"\f"),
        '\r' => out.push_str(r"\r"),
        c if c.is_ascii_control() => {
            let _ = write!(out, "\\x{:02X}", u32::from(c));
        }
        c if u32::from(c) <= 0xFFFF
            && !c.is_ascii()
            && (c.is_whitespace() || c.is_control() || is_invisible(c)) =>
        {
            let _ = write!(out, "\\u{:04X}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// Format characters a reader of the schema would not see.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
}

/// Whether the class is negated, and its members as ECMA-262 reads them.
fn perl(class: &ClassPerl) -> (bool, &'static str) {
    let members = match class.kind {
        ClassPerlKind::Digit => DIGIT,
        ClassPerlKind::Word => WORD,
        ClassPerlKind::Space => SPACE,
    };
    (class.negated, members)
}

/// Rust's ASCII classes (`[[:alpha:]]`), as ranges.
fn ascii(kind: &ClassAsciiKind) -> &'static [(char, char)] {
    match kind {
        ClassAsciiKind::Alnum => &[('0', '9'), ('A', 'Z'), ('a', 'z')],
        ClassAsciiKind::Alpha => &[('A', 'Z'), ('a', 'z')],
        ClassAsciiKind::Ascii => &[('\x00', '\x7F')],
        ClassAsciiKind::Blank => &[('\t', '\t'), (' ', ' ')],
        ClassAsciiKind::Cntrl => &[('\x00', '\x1F'), ('\x7F', '\x7F')],
        ClassAsciiKind::Digit => &[('0', '9')],
        ClassAsciiKind::Graph => &[('!', '~')],
        ClassAsciiKind::Lower => &[('a', 'z')],
        ClassAsciiKind::Print => &[(' ', '~')],
        ClassAsciiKind::Punct => &[('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
        ClassAsciiKind::Space => &[('\t', '\r'), (' ', ' ')],
        ClassAsciiKind::Upper => &[('A', 'Z')],
        ClassAsciiKind::Word => &[('0', '9'), ('A', 'Z'), ('a', 'z'), ('_', '_')],
        ClassAsciiKind::Xdigit => &[('0', '9'), ('A', 'F'), ('a', 'f')],
    }
}

fn is_group_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn flags_message(text: &str) -> String {
    format!(
        "`{text}`: ECMA-262 has no inline flags, so validators would read this pattern otherwise. Only a leading `(?i)` is rewritten (to `[aA]`-style classes); for `s`, write `(?:[^\\n]|\\n)` where any character is meant; the other flags have no form both dialects read"
    )
}

fn word_boundary_message(text: &str) -> String {
    format!(
        "`{text}` is a Unicode word boundary on the server and an ASCII one (or no assertion) in ECMA-262: anchor the pattern with `^` and `$`, or match the separator itself, like `[^A-Za-z0-9_]`"
    )
}

fn unicode_class_message(text: &str) -> String {
    format!(
        "`{text}`: Unicode classes differ between the server's regex and ECMA-262 (which needs the `u` flag and reads names otherwise): list the characters as a class, like `[A-Za-z\\u00C0-\\u00FF]`"
    )
}

#[cfg(test)]
mod tests {
    use super::portable;

    #[track_caller]
    fn rewrites(from: &str, to: &str) {
        assert_eq!(portable(from).as_deref(), Ok(to), "{from}");
        // The output is its own rewrite: the subset is closed.
        assert_eq!(portable(to).as_deref(), Ok(to), "{to}");
    }

    #[test]
    fn rewrites_what_both_dialects_can_say() {
        rewrites(r"^h_[a-z0-9]{8}$", r"^h_[a-z0-9]{8}$");
        rewrites(r"^.{1,10}$", r"^[^\n\r\u2028\u2029]{1,10}$");
        rewrites(r"\d{3}\D", r"[0-9]{3}[^0-9]");
        rewrites(r"\w+\W", r"[A-Za-z0-9_]+[^A-Za-z0-9_]");
        rewrites(
            r"\s\S",
            r"[\t\n\v\f\r \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF][^\t\n\v\f\r \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]",
        );
        rewrites(r"[\d_-]", r"[0-9_\-]");
        rewrites(r"(?i)abc", r"[aA][bB][cC]");
        rewrites(r"(?i)^[a-c0-9]+$", r"^[a-cA-C0-9]+$");
        rewrites(r"(?i)[X-c]", r"[X-cA-Cx-z]");
        rewrites(r"(?i)", r"");
        rewrites(r"\Aab\z", r"^ab$");
        rewrites(r"(ab)+?(?:c|d)*", r"(ab)+?(?:c|d)*");
        rewrites(r"(?<year>\d{4})", r"(?<year>[0-9]{4})");
        rewrites(r"[[:alpha:]]", r"[A-Za-z]");
        rewrites(r"\x{e9}\u{1F600}\#\&", "é\u{1F600}#&");
        rewrites(r"[&~]", r"[\x26\x7E]");
        rewrites(r"\{\}\]", r"\{\}\]");
        rewrites("\u{FEFF}\u{85}", r"\uFEFF\u0085");
    }

    #[test]
    fn refuses_what_they_cannot() {
        for refused in [
            r"\bword\b",
            r"\B",
            r"\b{start}",
            r"\pL",
            r"\p{Greek}",
            r"[\P{L}]",
            r"(?s).",
            r"(?m)^a$",
            r"a(?i)b",
            r"(?i:a)",
            r"(?-i)a",
            r"(?P<n>a)",
            r"[\D]",
            r"[a[b]]",
            r"[a-z&&[^aeiou]]",
            r"[[:^alpha:]]",
            r"(?i)é",
            r"(?i)[a-é]",
            r"^*",
        ] {
            assert!(portable(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn a_broken_pattern_is_reported_here_with_where_it_breaks() {
        assert_eq!(
            portable("("),
            Err(
                "not a regular expression: unclosed group (at character 1 of the pattern)"
                    .to_owned()
            )
        );
        assert_eq!(
            portable("^é[a-z+$"),
            Err("not a regular expression: unclosed character class (at character 3 of the pattern)".to_owned())
        );
    }
}
