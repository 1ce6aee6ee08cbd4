//! Whether a `#[tool]` function sits directly in an `impl` or `trait` block.
//!
//! An attribute macro sees only its item, and the items `#[tool]` writes
//! (a marker struct, its impls) cannot live in an impl block: there rustc
//! reports three errors about structs and `const _` that the user never
//! wrote. So when a function without `self` reaches `#[tool]`, the macro
//! reads the file the function is in and looks at the block around it. If
//! that block is an `impl`, the user forgot `#[tools]` on it, and one error
//! says so.
//!
//! The reading is a lexer of braces, comments and literals, not a parser:
//! when anything is unclear (no file, a name not where its span says, a
//! header it does not recognise) it answers "no", and the expansion goes on as for
//! a free function. It never turns working code into an error: a wrong
//! "no" only leaves rustc's errors in place.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

/// What a block is the body of, as far as `#[tool]` cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Impl,
    Trait,
    Other,
}

/// A `{ … }` block of a file: where it opens and closes (1-based line,
/// 1-based column in characters, as rustc counts), and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    open: (usize, usize),
    close: (usize, usize),
    kind: Kind,
}

/// The kind of block `ident`, a function's name, is directly inside, in
/// the file it was written in; `Other` when that cannot be told.
pub(crate) fn enclosing_block(ident: &proc_macro2::Ident) -> Kind {
    if !proc_macro::is_available() {
        return Kind::Other;
    }
    let span = ident.span().unwrap();
    let Some(path) = span.local_file() else {
        return Kind::Other;
    };
    let at = (span.line(), span.column());
    let Some(file) = read(path) else {
        return Kind::Other;
    };
    // The file as read must be the text the compiler has: the name stands
    // where the span says (an editor's unsaved buffer, or a file changed
    // since, would not).
    if !file.has_at(at, &ident.to_string()) {
        return Kind::Other;
    }
    innermost(&file.blocks, at).map_or(Kind::Other, |block| block.kind)
}

/// A file as the lexer read it: its lines, and its blocks.
struct File {
    /// Each line's text.
    lines: Vec<String>,
    blocks: Vec<Block>,
    /// The length and modification time it was read at: a long-lived
    /// process (an editor's macro server) reads it again once it changes.
    stamp: (u64, Option<std::time::SystemTime>),
}

impl File {
    /// Whether `word` starts at 1-based `(line, column)`.
    fn has_at(&self, (line, column): (usize, usize), word: &str) -> bool {
        line.checked_sub(1)
            .and_then(|l| self.lines.get(l))
            .is_some_and(|text| {
                let rest: String = text.chars().skip(column.saturating_sub(1)).collect();
                rest.starts_with(word)
            })
    }
}

/// A file's lines and blocks, read once per file and version.
fn read(path: PathBuf) -> Option<Rc<File>> {
    thread_local! {
        static FILES: RefCell<HashMap<PathBuf, Rc<File>>> = RefCell::new(HashMap::new());
    }
    let meta = std::fs::metadata(&path).ok()?;
    let stamp = (meta.len(), meta.modified().ok());
    FILES.with(|files| {
        if let Some(known) = files.borrow().get(&path)
            && known.stamp == stamp
        {
            return Some(known.clone());
        }
        let text = std::fs::read_to_string(&path).ok()?;
        let file = Rc::new(File {
            blocks: blocks(&text)?,
            lines: text.lines().map(str::to_owned).collect(),
            stamp,
        });
        files.borrow_mut().insert(path, file.clone());
        Some(file)
    })
}

/// The innermost block that contains `at`.
fn innermost(blocks: &[Block], at: (usize, usize)) -> Option<&Block> {
    blocks
        .iter()
        .filter(|b| b.open < at && at < b.close)
        .max_by_key(|b| b.open)
}

/// Every block of `text`, or `None` if its braces do not balance (then the
/// lexer has misread something, and nothing it says can be trusted).
fn blocks(text: &str) -> Option<Vec<Block>> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = Positions::default();
    let mut out = Vec::new();
    // Each open block: where it opened, and its kind.
    let mut open: Vec<((usize, usize), Kind)> = Vec::new();
    // Where the current item or statement began: after the last `;`, `{`
    // or `}`. Its text up to a `{` is that block's header.
    let mut header_start = 0;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        let skip_to = match (c, next) {
            ('/', Some('/')) => line_end(&chars, i),
            ('/', Some('*')) => block_comment_end(&chars, i)?,
            ('"', _) => string_end(&chars, i + 1)?,
            ('\'', _) => char_end(&chars, i),
            ('r' | 'b' | 'c', _) if starts_literal(&chars, i) => literal_end(&chars, i)?,
            _ if c.is_alphanumeric() || c == '_' => ident_end(&chars, i),
            _ => i + 1,
        };
        match c {
            '{' if skip_to == i + 1 => {
                let header: String = chars.get(header_start..i)?.iter().collect();
                open.push((pos.at(&chars, i), header_kind(&header)));
                header_start = i + 1;
            }
            '}' if skip_to == i + 1 => {
                let (start, kind) = open.pop()?;
                out.push(Block {
                    open: start,
                    close: pos.at(&chars, i),
                    kind,
                });
                header_start = i + 1;
            }
            ';' => header_start = i + 1,
            _ => {}
        }
        // Comments inside a header are blanked by `header_kind`; only the
        // boundaries matter here.
        i = skip_to.max(i + 1);
    }
    open.is_empty().then_some(out)
}

/// The kind of block a header (the text between the previous `;`, `{` or
/// `}` and the block's `{`) opens: `impl` or `trait`, after attributes and
/// the words that may come before them.
fn header_kind(header: &str) -> Kind {
    let mut rest = strip_comments(header);
    loop {
        let trimmed = rest.trim_start();
        if let Some(attr) = trimmed.strip_prefix("#[") {
            // An attribute: skip to its closing bracket.
            let mut depth = 1usize;
            let mut end = None;
            for (at, c) in attr.char_indices() {
                match c {
                    '[' => depth += 1,
                    ']' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(at + 1);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(end) = end else { return Kind::Other };
            rest = attr.get(end..).unwrap_or_default().to_owned();
            continue;
        }
        let word_end = trimmed
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(trimmed.len());
        let (word, after) = trimmed.split_at(word_end);
        match word {
            "impl" => return Kind::Impl,
            "trait" => return Kind::Trait,
            "unsafe" | "default" | "auto" | "pub" => rest = after.to_owned(),
            _ if word.is_empty() && after.starts_with('(') => {
                // `pub(crate)`: skip the parenthesised restriction.
                let Some(close) = after.find(')') else {
                    return Kind::Other;
                };
                rest = after.get(close + 1..).unwrap_or_default().to_owned();
            }
            _ => return Kind::Other,
        }
    }
}

/// The header without its comments (each replaced by a space).
fn strip_comments(header: &str) -> String {
    let chars: Vec<char> = header.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match (c, chars.get(i + 1)) {
            ('/', Some('/')) => {
                i = line_end(&chars, i);
                out.push(' ');
            }
            ('/', Some('*')) => {
                i = block_comment_end(&chars, i).unwrap_or(chars.len());
                out.push(' ');
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn line_end(chars: &[char], from: usize) -> usize {
    (from..chars.len())
        .find(|&i| chars.get(i) == Some(&'\n'))
        .unwrap_or(chars.len())
}

/// The index after a (nested) block comment opening at `from`.
fn block_comment_end(chars: &[char], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    while i < chars.len() {
        match (chars.get(i), chars.get(i + 1)) {
            (Some('/'), Some('*')) => {
                depth += 1;
                i += 2;
            }
            (Some('*'), Some('/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The index after the closing quote of a string whose text starts at
/// `from`, escapes honoured.
fn string_end(chars: &[char], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        match chars.get(i)? {
            '\\' => i += 2,
            '"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// A character literal (`'x'`, `'\n'`, `'\u{7b}'`) ends after its closing
/// quote; a lifetime or label (`'a`) is only its quote.
fn char_end(chars: &[char], from: usize) -> usize {
    match (chars.get(from + 1), chars.get(from + 2)) {
        // After the backslash and the escaped character (itself a quote,
        // in `'\''`), the first quote closes the literal.
        (Some('\\'), _) => (from + 3..chars.len())
            .find(|&i| chars.get(i) == Some(&'\''))
            .map_or(chars.len(), |i| i + 1),
        (Some(_), Some('\'')) => from + 3,
        _ => from + 1,
    }
}

/// Whether a raw, byte or C string (or byte character) starts at `at`:
/// `r"`, `r#"`, `b"`, `b'`, `br"`, `br#"`, `c"`, `cr"`, not inside a word.
fn starts_literal(chars: &[char], at: usize) -> bool {
    if at > 0
        && chars
            .get(at - 1)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
    {
        return false;
    }
    let mut i = at;
    if matches!(chars.get(i), Some('b' | 'c')) {
        i += 1;
        if matches!(chars.get(i), Some('"' | '\'')) {
            return true;
        }
    }
    if chars.get(i) == Some(&'r') {
        i += 1;
        while chars.get(i) == Some(&'#') {
            i += 1;
        }
        return chars.get(i) == Some(&'"');
    }
    false
}

/// The index after a literal that [`starts_literal`] found.
fn literal_end(chars: &[char], at: usize) -> Option<usize> {
    let mut i = at;
    if matches!(chars.get(i), Some('b' | 'c')) {
        i += 1;
        match chars.get(i) {
            Some('"') => return string_end(chars, i + 1),
            Some('\'') => return Some(char_end(chars, i)),
            _ => {}
        }
    }
    // A raw string: `r`, n hashes, a quote, then the text up to a quote
    // followed by n hashes; no escapes.
    i += 1;
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    i += 1;
    loop {
        if chars.get(i)? == &'"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
}

fn ident_end(chars: &[char], from: usize) -> usize {
    (from..chars.len())
        .find(|&i| {
            chars
                .get(i)
                .is_none_or(|c| !(c.is_alphanumeric() || *c == '_'))
        })
        .unwrap_or(chars.len())
}

/// Line and column of a character index, counted as rustc counts them.
#[derive(Default)]
struct Positions {
    /// The last index asked for, and its position: blocks are asked for
    /// in order, so each question continues from the last.
    index: usize,
    line: usize,
    column: usize,
}

impl Positions {
    fn at(&mut self, chars: &[char], index: usize) -> (usize, usize) {
        if self.line == 0 {
            self.line = 1;
            self.column = 1;
        }
        while self.index < index {
            if chars.get(self.index) == Some(&'\n') {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
            self.index += 1;
        }
        (self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the first `fn name` of `text` is directly in an impl block.
    fn in_impl(text: &str, name: &str) -> Option<bool> {
        kind(text, name).map(|kind| kind == Kind::Impl)
    }

    fn kind(text: &str, name: &str) -> Option<Kind> {
        let blocks = blocks(text)?;
        let needle = format!("fn {name}");
        let offset = text.find(&needle)? + 3;
        let before = text.get(..offset)?;
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next()?.chars().count() + 1;
        Some(innermost(&blocks, (line, column)).map_or(Kind::Other, |b| b.kind))
    }

    #[test]
    fn a_function_in_an_impl_block_is_found() {
        let text = "struct W;\nimpl W {\n    #[tool(effect = read)]\n    fn forecast() {}\n}\n";
        assert_eq!(in_impl(text, "forecast"), Some(true));
        let generic = "impl<T: Clone> Wrapper<T> where T: Copy {\n fn a() {}\n}";
        assert_eq!(in_impl(generic, "a"), Some(true));
        let unsafe_trait = "#[cfg(x)] unsafe impl Send for W { fn b() {} }";
        assert_eq!(in_impl(unsafe_trait, "b"), Some(true));
    }

    #[test]
    fn free_functions_are_not_in_an_impl_block() {
        let text = "use x;\n#[tool(effect = read)]\nfn forecast() {}\nimpl W { fn other() {} }";
        assert_eq!(in_impl(text, "forecast"), Some(false));
        let in_mod = "mod m {\n impl W {}\n fn inner() {}\n}";
        assert_eq!(in_impl(in_mod, "inner"), Some(false));
        let in_body = "impl W { fn outer() { fn nested() {} } }";
        assert_eq!(in_impl(in_body, "nested"), Some(false));
        let after_impl = "impl W { fn a() {} }\nfn after() {}";
        assert_eq!(in_impl(after_impl, "after"), Some(false));
    }

    #[test]
    fn braces_in_literals_and_comments_are_not_blocks() {
        let text = concat!(
            "fn a() { let _ = \"{\"; let _ = '{'; let _ = r#\"}\"#; }\n",
            "// impl X {\n",
            "/* } /* nested { */ */\n",
            "fn b<'a>(x: &'a str) -> char { '}' }\n",
            "fn c() { let _ = b'{'; let _ = br\"{\"; let _ = '\\u{7b}'; }\n",
            "fn e() { let _ = ['\\'','}']; }\n",
            "impl W { fn d() {} }\n",
        );
        assert_eq!(in_impl(text, "b"), Some(false));
        assert_eq!(in_impl(text, "c"), Some(false));
        assert_eq!(in_impl(text, "e"), Some(false));
        assert_eq!(in_impl(text, "d"), Some(true));
    }

    #[test]
    fn words_that_merely_start_with_impl_are_not_impl_blocks() {
        let text = "fn f() { implements! { fn g() {} } }";
        assert_eq!(in_impl(text, "g"), Some(false));
        let text = "fn f() { let _ = x; impl_block { fn g() {} } }";
        assert_eq!(in_impl(text, "g"), Some(false));
    }

    #[test]
    fn a_function_in_a_trait_is_found() {
        let text = "pub(crate) unsafe trait T: Send {\n fn a();\n}";
        assert_eq!(kind(text, "a"), Some(Kind::Trait));
    }

    #[test]
    fn a_name_is_found_only_where_its_span_says() {
        let text = "impl W {\n    fn forecast() {}\n}\n";
        let file = File {
            lines: text.lines().map(str::to_owned).collect(),
            blocks: blocks(text).unwrap_or_default(),
            stamp: (0, None),
        };
        assert!(file.has_at((2, 8), "forecast"));
        assert!(!file.has_at((2, 9), "forecast"));
        assert!(!file.has_at((1, 8), "forecast"));
        assert!(!file.has_at((9, 1), "forecast"));
        assert!(!file.has_at((0, 1), "impl"));
    }

    #[test]
    fn unbalanced_text_says_nothing() {
        assert!(blocks("impl W { fn a() {}").is_none());
        assert!(blocks("fn a() { \"unterminated }").is_none());
    }
}
