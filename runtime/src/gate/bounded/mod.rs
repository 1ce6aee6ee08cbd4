//! Gate 1: the bounded parse.
//!
//! One pass over the input proves that it is a single JSON object within
//! [`Limits`]: no longer than the byte limit, no deeper, no more values, no
//! longer strings, valid UTF-8, no lone surrogate escapes, no duplicate
//! keys at any depth, nothing after the closing brace.
//!
//! A toolbox enforces the same inside gate 2's reading (see
//! [`crate::gate::structural::reader`]) and runs this scan before serde only when that
//! reader stops, to say what was wrong and where; [`Limits::check`] runs
//! it on its own.
//!
//! The pass allocates only a stack of open containers (at most the depth
//! limit) and the keys of open objects (at most the node limit), so refusing
//! a hostile document costs what the limits allow, not what the attacker sent:
//! a document over the byte limit is refused before its first byte is read.

pub(crate) mod limits;

use smallvec::SmallVec;

use crate::json::pointer::{self, Segment};
use crate::{Code, Limits, Rejection};

/// Argument JSON on its way through gate 1: within the byte limit, and
/// either checked in full by [`Limits::check`] or, as a
/// [`Toolbox`](crate::Toolbox) makes it, checked while gate 2 reads it
/// (one pass over the bytes). Either way, once gate 2 has accepted the
/// arguments, they are one object within the limits, valid UTF-8, with no
/// duplicate keys, no lone surrogates and nothing after the closing brace.
///
/// Only [`Limits::check`] and the toolbox make these; the later gates
/// consume them.
#[derive(Clone, Copy, Debug)]
pub struct RawArgs<'a> {
    bytes: &'a [u8],
    /// The bytes as text, once known to be UTF-8.
    json: Option<&'a str>,
    /// The limits gate 2 enforces as it reads, if the full scan has not
    /// run.
    pending: Option<&'a Limits>,
    /// Whether the document holds a number that is an integer by value
    /// without being written as one (`2.0`, `1e2`, `-0`): JSON Schema reads
    /// it as an integer, serde_json as a float.
    spelled_integers: bool,
    /// Whether gate 2 checks the document against every bound the schema
    /// states before serde reads it: for a tool whose schema states a bound
    /// registration could not try (see `register::unenforced`). Set while
    /// gate 1 is pending, which the full scan never leaves it, it marks
    /// registration's proof instead ([`RawArgs::probing`]).
    bounds_first: bool,
}

impl<'a> RawArgs<'a> {
    /// The JSON text. Checked in full once gate 2 has accepted it.
    pub fn as_str(&self) -> &'a str {
        match self.json {
            Some(json) => json,
            // Before gate 2 reads them, a toolbox's arguments may not be
            // known to be text: they are then read as it.
            None => core::str::from_utf8(self.bytes).unwrap_or_default(),
        }
    }

    pub(crate) fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The bytes as text, if already known to be UTF-8.
    pub(crate) fn text(&self) -> Option<&'a str> {
        self.json
    }

    /// Marks the arguments accepted by gate 2: known to be text, gate 1
    /// done. In place, as the generated call keeps them.
    pub(crate) fn accept(&mut self) {
        if self.json.is_none() {
            self.json = Some(self.as_str());
        }
        self.pending = None;
    }

    /// The limits left to enforce while reading, if the scan has not run.
    pub(crate) fn pending(&self) -> Option<&'a Limits> {
        self.pending
    }

    pub(crate) fn has_spelled_integers(&self) -> bool {
        self.spelled_integers
    }

    /// These arguments, checked against the schema's bounds before serde
    /// reads them if `first`.
    pub(crate) fn with_bounds_first(self, first: bool) -> Self {
        RawArgs {
            bounds_first: first,
            ..self
        }
    }

    pub(crate) fn bounds_first(&self) -> bool {
        self.bounds_first
    }

    /// These arguments, not yet scanned, read for registration's proof:
    /// the single pass alone decides, and records the enums it reads by
    /// name (see [`crate::register::proven`]).
    pub(crate) fn probing(self) -> Self {
        debug_assert!(self.pending.is_some());
        self.with_bounds_first(true)
    }
}

/// How a tool's calls are read, as registration decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Reading {
    /// In one pass, checked against the schema as serde reads them where
    /// serde does not hold all it states (see [`crate::register::proven`]).
    #[default]
    OnePass,
    /// Gate by gate, checked against every bound the schema states before
    /// serde reads them: the schema states a bound registration could not
    /// try (see `register::unenforced`).
    BoundsFirst,
}

/// Starts gate 1 over `input` for a toolbox: the byte limit now, the
/// rest while gate 2 reads (see [`crate::gate::structural::reader`]). Refuses exactly as
/// [`scan`] does.
///
/// A document no longer than one string may be is checked for UTF-8 at
/// once, in one quick pass that the limits bound; a longer one string by
/// string as it is read, so that refusing it never reads past what the
/// limits allow. `text` is `input` itself when the arguments arrived as
/// text: UTF-8 already, whatever their length.
pub(crate) fn begin<'a>(
    input: &'a [u8],
    text: Option<&'a str>,
    limits: &'a Limits,
) -> Result<RawArgs<'a>, Rejection> {
    if input.len() > limits.bytes() || input.len() > MAX_DOCUMENT {
        return scan(input, limits);
    }
    debug_assert!(text.is_none_or(|text| text.as_bytes() == input));
    let json = if text.is_some() {
        text
    } else if input.len() <= limits.string_bytes() {
        match core::str::from_utf8(input) {
            Ok(json) => Some(json),
            // Not text: whatever the scan refuses first (a limit, or the text).
            Err(_) => return scan(input, limits),
        }
    } else {
        None
    };
    Ok(RawArgs {
        bytes: input,
        json,
        pending: Some(limits),
        spelled_integers: false,
        bounds_first: false,
    })
}

/// Starts gate 1 over `input` for a tool of a toolbox, read as `reading`
/// says: [`begin`], or where each call of the tool is checked against its
/// schema's bounds before serde reads it, the full [`scan`], as the gates
/// one by one then read it.
pub(crate) fn start<'a>(
    input: &'a [u8],
    text: Option<&'a str>,
    limits: &'a Limits,
    reading: Reading,
) -> Result<RawArgs<'a>, Rejection> {
    if reading == Reading::BoundsFirst {
        return scan_first(input, limits);
    }
    begin(input, text, limits)
}

/// [`scan`], the arguments then checked against the schema's bounds
/// before serde reads them. Out of the way of [`begin`].
#[cold]
#[inline(never)]
fn scan_first<'a>(input: &'a [u8], limits: &Limits) -> Result<RawArgs<'a>, Rejection> {
    scan(input, limits).map(|raw| raw.with_bounds_first(true))
}

/// Runs gate 1 over `input`.
pub(crate) fn scan<'a>(input: &'a [u8], limits: &Limits) -> Result<RawArgs<'a>, Rejection> {
    if input.len() > limits.bytes() || input.len() > MAX_DOCUMENT {
        return Err(Rejection::new(
            Code::PayloadTooLarge,
            format!(
                "arguments must be at most {} bytes of JSON; send less data",
                limits.bytes()
            ),
        ));
    }
    let mut scanner = Scanner {
        bytes: input,
        pos: 0,
        limits,
        nodes: 0,
        frames: SmallVec::new(),
        keys: SmallVec::new(),
        // A key takes at least four bytes of text (`"":0,` less one), so this
        // is the most keys the document can hold.
        max_keys: limits.nodes().min(input.len() / 4),
        arena: Vec::new(),
        spelled_integers: false,
    };
    scanner.document()?;
    // UTF-8 is checked last, over a document the scan accepted: refusing a
    // hostile document never reads past what the limits allow.
    let Ok(json) = core::str::from_utf8(input) else {
        return Err(malformed("", "the text is not valid UTF-8"));
    };
    Ok(RawArgs {
        bytes: input,
        json: Some(json),
        pending: None,
        spelled_integers: scanner.spelled_integers,
        bounds_first: false,
    })
}

/// Bytes that end a run of plain string content: control characters, the
/// quote and the backslash.
#[allow(clippy::indexing_slicing)] // evaluated at compile time, every index below 256
static STOPS_STRING: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Where the run of plain string text from `from` ends, at `to` at the
/// latest: at a quote, a backslash or a control character.
#[inline]
pub(crate) fn plain_text_end(bytes: &[u8], from: usize, to: usize) -> usize {
    // Eight bytes at a time, as a word, while eight remain in `bytes`, even
    // past `to` (the end found is then cut at `to`): a short string is one
    // or two words, not a word and a tail read byte by byte. The first
    // byte that stops the run is the lowest flagged (flags above it may be
    // false, below never).
    let mut at = from;
    while at < to {
        let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) else {
            break;
        };
        let stops = stops_in(u64::from_le_bytes(*word));
        if stops != 0 {
            return to.min(at + (stops.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    if at >= to {
        return to.max(from);
    }
    // Fewer than eight bytes left in `bytes`.
    let tail = bytes.get(at..to).unwrap_or_default();
    at + tail
        .iter()
        .position(|&b| STOPS_STRING.get(usize::from(b)).copied().unwrap_or(true))
        .unwrap_or(tail.len())
}

/// The high bit of each byte of `word` that may stop a run of plain string
/// text, exactly for the lowest such byte: a control character, a quote
/// or a backslash.
#[inline(always)]
fn stops_in(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    control | zero_in(word ^ (ONES * u64::from(b'"'))) | zero_in(word ^ (ONES * u64::from(b'\\')))
}

/// New keys are compared with the object's earlier keys as they arrive
/// while the object has at most this many; past it, the object's keys are
/// sorted and compared when it closes. Either way a document is refused
/// after reading no more than the limits allow, and a run of repeats of an
/// early key stops at the first repeat.
const EARLY_KEYS: usize = 16;

fn malformed(path: impl Into<String>, reason: &str) -> Rejection {
    Rejection::new(
        Code::MalformedJson,
        format!("arguments must be one well-formed JSON object: {reason}"),
    )
    .at(path.into())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Object,
    Array,
}

/// An open object or array.
struct Frame {
    kind: Kind,
    /// For an object, where its keys start in `Scanner::keys`.
    keys_start: usize,
    /// The key (an index into `Scanner::keys`) or array index of the value
    /// being read inside this container, for error pointers.
    current: usize,
}

/// `Frame::current` of an object whose next key is not read yet.
const NO_KEY: usize = usize::MAX;

/// Where a key's decoded bytes live: a span of the input (no escapes) or,
/// with [`ARENA`] set in `start`, of the arena its escapes were decoded
/// into. Eight bytes, so the keys of a document at the node limit fit in
/// one small allocation.
#[derive(Clone, Copy)]
struct Key {
    start: u32,
    end: u32,
}

const ARENA: u32 = 1 << 31;

/// Documents are refused past this size whatever the limits say, so every
/// offset fits a key.
const MAX_DOCUMENT: usize = (ARENA - 1) as usize;

struct Scanner<'a, 'l> {
    bytes: &'a [u8],
    pos: usize,
    limits: &'l Limits,
    nodes: usize,
    /// Open containers; the default depth fits without allocating.
    frames: SmallVec<[Frame; 16]>,
    /// Keys of the open objects; a typical call's fit without allocating.
    keys: SmallVec<[Key; 32]>,
    /// When `keys` outgrows its inline space it takes this many at once,
    /// so a wide object costs one allocation, not a doubling series.
    max_keys: usize,
    arena: Vec<u8>,
    spelled_integers: bool,
}

impl Scanner<'_, '_> {
    fn document(&mut self) -> Result<(), Rejection> {
        self.skip_ws();
        match self.peek() {
            Some(b'{') => {}
            Some(b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                return Err(Rejection::new(
                    Code::NotAnObject,
                    "arguments must be a JSON object of named fields, like {\"field\": value}",
                ));
            }
            Some(_) => return Err(malformed("", "it does not start with '{'")),
            None => return Err(malformed("", "the arguments are empty")),
        }
        self.values()?;
        self.skip_ws();
        if self.pos != self.bytes.len() {
            return Err(malformed("", "there is data after the closing '}'"));
        }
        Ok(())
    }

    /// Reads values until the root container closes, without recursion.
    fn values(&mut self) -> Result<(), Rejection> {
        'value: loop {
            self.skip_ws();
            self.nodes += 1;
            if self.nodes > self.limits.nodes() {
                return Err(Rejection::new(
                    Code::TooManyNodes,
                    format!(
                        "arguments may hold at most {} values; send fewer items",
                        self.limits.nodes()
                    ),
                )
                .at(self.pointer()));
            }
            match self.peek() {
                Some(b'{') => {
                    self.open(Kind::Object)?;
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        self.close_object()?;
                    } else {
                        self.key()?;
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.open(Kind::Array)?;
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        self.frames.pop();
                    } else {
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    self.string()?;
                }
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(_) => return Err(malformed(self.pointer(), "a value is expected here")),
                None => return Err(malformed(self.pointer(), "the text ends too early")),
            }
            // A value is complete: continue the innermost open container.
            loop {
                let Some(frame) = self.frames.last_mut() else {
                    return Ok(());
                };
                let kind = frame.kind;
                self.skip_ws();
                match (kind, self.peek()) {
                    (_, Some(b',')) => {
                        self.pos += 1;
                        if kind == Kind::Object {
                            self.skip_ws();
                            self.key()?;
                        } else if let Some(frame) = self.frames.last_mut() {
                            frame.current += 1;
                        }
                        continue 'value;
                    }
                    (Kind::Object, Some(b'}')) => {
                        self.pos += 1;
                        self.close_object()?;
                    }
                    (Kind::Array, Some(b']')) => {
                        self.pos += 1;
                        self.frames.pop();
                    }
                    (_, None) => return Err(malformed(self.pointer(), "the text ends too early")),
                    (Kind::Object, Some(_)) => {
                        return Err(malformed(self.pointer(), "expected ',' or '}'"));
                    }
                    (Kind::Array, Some(_)) => {
                        return Err(malformed(self.pointer(), "expected ',' or ']'"));
                    }
                }
            }
        }
    }

    fn open(&mut self, kind: Kind) -> Result<(), Rejection> {
        if self.frames.len() >= self.limits.depth() {
            return Err(Rejection::new(
                Code::TooDeep,
                format!(
                    "arguments may nest objects and arrays at most {} levels deep",
                    self.limits.depth()
                ),
            )
            .at(self.pointer()));
        }
        self.pos += 1;
        self.frames.push(Frame {
            kind,
            keys_start: self.keys.len(),
            current: if kind == Kind::Array { 0 } else { NO_KEY },
        });
        Ok(())
    }

    /// Reads `"key"` and the `:` after it; the key becomes the current one.
    fn key(&mut self) -> Result<(), Rejection> {
        if let Some(frame) = self.frames.last_mut() {
            frame.current = NO_KEY;
        }
        if self.peek() != Some(b'"') {
            return Err(malformed(self.pointer(), "object keys must be strings"));
        }
        let key = self.string_key()?;
        let start = self.frames.last().map_or(0, |f| f.keys_start);
        let earlier = self.keys.get(start..).unwrap_or_default();
        if earlier.len() < EARLY_KEYS {
            let new = key_bytes(self.bytes, &self.arena, key);
            if earlier
                .iter()
                .any(|k| key_bytes(self.bytes, &self.arena, *k) == new)
            {
                return Err(self.duplicate(new));
            }
        }
        let index = self.keys.len();
        if index == self.keys.capacity() && !self.keys.spilled() {
            self.keys.reserve_exact(self.max_keys.saturating_sub(index));
        }
        self.keys.push(key);
        if let Some(frame) = self.frames.last_mut() {
            frame.current = index;
        }
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(malformed(self.pointer(), "expected ':' after a key"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Checks a wide object's keys for duplicates, then closes it.
    fn close_object(&mut self) -> Result<(), Rejection> {
        let start = self.frames.last().map_or(0, |f| f.keys_start);
        let (bytes, arena) = (self.bytes, &self.arena);
        let resolve = |key: &Key| key_bytes(bytes, arena, *key);
        let mut duplicate = None;
        if let Some(keys) = self.keys.get_mut(start..).filter(|k| k.len() > EARLY_KEYS) {
            keys.sort_unstable_by(|a, b| resolve(a).cmp(resolve(b)));
            duplicate = keys.windows(2).find_map(|w| match w {
                [a, b] if resolve(a) == resolve(b) => Some(*a),
                _ => None,
            });
        }
        if let Some(key) = duplicate {
            // The object is still open: its pointer is the frames' keys
            // without its own current one.
            if let Some(frame) = self.frames.last_mut() {
                frame.current = NO_KEY;
            }
            return Err(self.duplicate(key_bytes(self.bytes, &self.arena, key)));
        }
        self.keys.truncate(start);
        if self.keys.is_empty() {
            self.arena.clear();
        }
        self.frames.pop();
        Ok(())
    }

    /// `DUPLICATE_KEY` at the object being read (whose current key is unset).
    fn duplicate(&self, key: &[u8]) -> Rejection {
        let key = String::from_utf8_lossy(key);
        let message = if pointer::is_echoable(&key) {
            format!("the key \"{key}\" appears more than once in one object; send each key once")
        } else {
            "a key appears more than once in one object; send each key once".to_owned()
        };
        Rejection::new(Code::DuplicateKey, message).at(self.pointer())
    }

    fn string(&mut self) -> Result<(), Rejection> {
        self.string_span().map(|_| ())
    }

    fn string_key(&mut self) -> Result<Key, Rejection> {
        let (start, end, escaped) = self.string_span()?;
        // Offsets fit: the document is shorter than MAX_DOCUMENT, and the
        // arena is never longer than the document.
        if !escaped {
            return Ok(Key {
                start: start as u32,
                end: end as u32,
            });
        }
        let arena_start = self.arena.len();
        let raw = self.bytes.get(start..end).unwrap_or_default();
        decode_into(raw, &mut self.arena);
        Ok(Key {
            start: arena_start as u32 | ARENA,
            end: self.arena.len() as u32,
        })
    }

    /// Reads a string; returns the span between the quotes and whether it
    /// contains escapes. Rejects control characters, bad escapes, lone
    /// surrogates and strings over the per-string limit.
    fn string_span(&mut self) -> Result<(usize, usize, bool), Rejection> {
        self.pos += 1; // the opening quote
        let start = self.pos;
        let max_end = start.saturating_add(self.limits.string_bytes());
        let mut escaped = false;
        loop {
            // Skip plain text in one tight loop; stop at a quote, a
            // backslash, a control character, or the per-string limit.
            let window_end = self.bytes.len().min(max_end.saturating_add(1));
            self.pos = plain_text_end(self.bytes, self.pos, window_end);
            if self.pos > max_end {
                return Err(Rejection::new(
                    Code::StringTooLong,
                    format!(
                        "strings may be at most {} bytes long; send a shorter value",
                        self.limits.string_bytes()
                    ),
                )
                .at(self.pointer()));
            }
            match self.peek() {
                Some(b'"') => {
                    let end = self.pos;
                    self.pos += 1;
                    return Ok((start, end, escaped));
                }
                Some(b'\\') => {
                    escaped = true;
                    self.escape()?;
                }
                Some(0x00..=0x1f) => {
                    return Err(malformed(
                        self.pointer(),
                        "strings may not contain raw control characters",
                    ));
                }
                Some(_) => self.pos += 1,
                None => return Err(malformed(self.pointer(), "a string is not terminated")),
            }
        }
    }

    fn escape(&mut self) -> Result<(), Rejection> {
        self.pos += 1; // the backslash
        match self.peek() {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.pos += 1;
                Ok(())
            }
            Some(b'u') => {
                let unit = self.hex4()?;
                match unit {
                    0xD800..=0xDBFF => {
                        let low = if self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u") {
                            self.pos += 1;
                            self.hex4()?
                        } else {
                            0
                        };
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(self.lone_surrogate());
                        }
                        Ok(())
                    }
                    0xDC00..=0xDFFF => Err(self.lone_surrogate()),
                    _ => Ok(()),
                }
            }
            _ => Err(malformed(self.pointer(), "a string has an invalid escape")),
        }
    }

    /// Reads `uXXXX` (the `u` at `pos`) and returns the code unit.
    fn hex4(&mut self) -> Result<u32, Rejection> {
        let digits = self.bytes.get(self.pos + 1..self.pos + 5);
        let unit = digits.and_then(|d| {
            d.iter()
                .try_fold(0u32, |acc, &b| Some(acc * 16 + (b as char).to_digit(16)?))
        });
        match unit {
            Some(unit) => {
                self.pos += 5;
                Ok(unit)
            }
            None => Err(malformed(
                self.pointer(),
                "a string has an invalid \\u escape",
            )),
        }
    }

    fn lone_surrogate(&self) -> Rejection {
        malformed(
            self.pointer(),
            "a string has a lone surrogate escape, which is not text",
        )
    }

    fn number(&mut self) -> Result<(), Rejection> {
        let token_start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.bad_number()),
        }
        let digits_end = self.pos;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.bad_number());
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.bad_number());
            }
            self.digits();
        }
        // Plain digits (the common integer) are no spelled integer, but
        // for `-0`; only a fraction or an exponent is worth reading.
        let token = self.bytes.get(token_start..self.pos).unwrap_or_default();
        if !self.spelled_integers
            && (self.pos > digits_end || token == b"-0")
            && crate::json::number::integral(token).is_some()
        {
            self.spelled_integers = true;
        }
        Ok(())
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    fn bad_number(&self) -> Rejection {
        malformed(self.pointer(), "a number is not written as JSON allows")
    }

    fn literal(&mut self, word: &'static [u8]) -> Result<(), Rejection> {
        if self.bytes.get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(malformed(self.pointer(), "a value is not valid JSON"))
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The segments leading to the value being read.
    /// Only the innermost object can be between keys, so skipping a frame
    /// without a current key still names the value being read.
    fn pointer_segments(&self) -> Vec<Segment<'_>> {
        self.frames
            .iter()
            .filter_map(|frame| match frame.kind {
                Kind::Array => Some(Segment::Index(frame.current)),
                Kind::Object => self
                    .keys
                    .get(frame.current)
                    .map(|key| Segment::Key(text(key_bytes(self.bytes, &self.arena, *key)))),
            })
            .collect()
    }

    fn render(&self, segments: &[Segment<'_>]) -> String {
        pointer::build(segments.iter().cloned())
    }

    /// The pointer of the value being read.
    fn pointer(&self) -> String {
        self.render(&self.pointer_segments())
    }
}

fn key_bytes<'a>(input: &'a [u8], arena: &'a [u8], key: Key) -> &'a [u8] {
    let (source, start) = if key.start & ARENA == 0 {
        (input, key.start)
    } else {
        (arena, key.start & !ARENA)
    };
    source
        .get(start as usize..key.end as usize)
        .unwrap_or_default()
}

fn text(bytes: &[u8]) -> &str {
    core::str::from_utf8(bytes).unwrap_or("")
}

/// Decodes the JSON escapes of an already-validated string body.
fn decode_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let unit = |at: usize| -> u32 {
            raw.get(at..at + 4)
                .and_then(|d| core::str::from_utf8(d).ok())
                .and_then(|d| u32::from_str_radix(d, 16).ok())
                .unwrap_or(0xFFFD)
        };
        let (c, len) = match raw.get(i + 1) {
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'n') => ('\n', 2),
            Some(b'r') => ('\r', 2),
            Some(b't') => ('\t', 2),
            Some(b'u') => {
                let high = unit(i + 2);
                if (0xD800..=0xDBFF).contains(&high) {
                    let low = unit(i + 8);
                    let code =
                        0x10000 + ((high - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                    (char::from_u32(code).unwrap_or('\u{FFFD}'), 12)
                } else {
                    (char::from_u32(high).unwrap_or('\u{FFFD}'), 6)
                }
            }
            Some(&other) => (other as char, 2),
            None => break,
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        i += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run of plain string text ends where a byte-by-byte reading
    /// ends it, whatever the window and wherever the stops fall in a word.
    #[test]
    fn plain_text_ends_at_the_first_stop_as_byte_by_byte() {
        let by_byte = |bytes: &[u8], from: usize, to: usize| {
            (from..to)
                .find(|&i| STOPS_STRING[usize::from(bytes[i])])
                .unwrap_or(to)
        };
        // Plain bytes around every kind of stop, and bytes next to them.
        let alphabet = [
            b'a', b'~', 0x7f, 0x80, 0xff, b'"', b'\\', 0x00, 0x1f, 0x20, b'!', b'#', b'[', b']',
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    let pick = (state >> (i % 48)) as usize;
                    // Mostly plain, so that stops fall anywhere in a word.
                    if pick.is_multiple_of(5) {
                        alphabet[pick / 5 % alphabet.len()]
                    } else {
                        b'a' + (pick % 26) as u8
                    }
                })
                .collect();
            let from = if len == 0 {
                0
            } else {
                (state >> 50) as usize % len
            };
            for to in from..=len {
                assert_eq!(
                    plain_text_end(&bytes, from, to),
                    by_byte(&bytes, from, to),
                    "{bytes:?} {from}..{to}"
                );
            }
        }
    }

    fn code(input: &str) -> Option<Code> {
        scan(input.as_bytes(), &Limits::default())
            .err()
            .map(|r| r.code())
    }

    #[test]
    fn accepts_well_formed_objects() {
        for ok in [
            "{}",
            " {\"a\": [1, -2.5e3, true, false, null, {\"b\": \"\\u00e9\\ud83d\\ude00\"}]} ",
            "{\"a\":{},\"b\":[]}",
            // Exponents with and without a sign, in either case.
            "{\"a\":[1e2,1E2,1e+2,1E-2,-0.5e-10,0e0]}",
        ] {
            assert_eq!(code(ok), None, "{ok}");
        }
    }

    #[test]
    fn rejects_what_json_forbids() {
        for (bad, expected) in [
            ("", Code::MalformedJson),
            ("[1]", Code::NotAnObject),
            ("\"x\"", Code::NotAnObject),
            ("{\"a\":1} x", Code::MalformedJson),
            ("{\"a\":1}{}", Code::MalformedJson),
            ("{\"a\":01}", Code::MalformedJson),
            ("{\"a\":1.}", Code::MalformedJson),
            ("{\"a\":\"\\ud800\"}", Code::MalformedJson),
            ("{\"a\":\"\\udc00\"}", Code::MalformedJson),
            ("{\"a\":\"\\ud800\\u0041\"}", Code::MalformedJson),
            ("{\"a\":\"tab\there\"}", Code::MalformedJson),
            ("{\"a\":tru}", Code::MalformedJson),
            ("{\"a\" 1}", Code::MalformedJson),
            ("{\"a\":1,}", Code::MalformedJson),
            ("{\"a\":[1,]}", Code::MalformedJson),
            ("{a:1}", Code::MalformedJson),
            ("{\"a\":1", Code::MalformedJson),
            ("{\"a\":1,\"a\":2}", Code::DuplicateKey),
            ("{\"a\":1,\"\\u0061\":2}", Code::DuplicateKey),
            ("{\"x\":[{\"b\":1,\"b\":1}]}", Code::DuplicateKey),
        ] {
            assert_eq!(code(bad), Some(expected), "{bad}");
        }
    }

    #[test]
    fn duplicate_key_points_at_the_object() {
        let r = scan(br#"{"x":[{"b":1},{"c":1,"c":2}]}"#, &Limits::default()).unwrap_err();
        assert_eq!(r.path(), "/x/1");
    }

    #[test]
    fn same_keys_in_sibling_objects_are_fine() {
        assert_eq!(code(r#"{"a":{"k":1},"b":{"k":2},"k":3}"#), None);
    }

    /// `{"k0":0,…` with `keys` distinct keys, then `"k0":0` once more and
    /// no closing brace: which error comes first says when the repeat was
    /// compared.
    fn repeat_after(keys: usize) -> String {
        let members: String = (0..keys).map(|i| format!("\"k{i}\":0,")).collect();
        format!("{{{members}\"k0\":0")
    }

    #[test]
    fn keys_are_compared_on_arrival_up_to_the_early_limit_then_at_the_close() {
        // The repeat is the object's EARLY_KEYS-th key: compared on arrival.
        assert_eq!(
            code(&repeat_after(EARLY_KEYS - 1)),
            Some(Code::DuplicateKey)
        );
        // One key later it waits for the close, which this text never reaches.
        assert_eq!(code(&repeat_after(EARLY_KEYS)), Some(Code::MalformedJson));
        // Closed, the wide object's repeat is found all the same.
        let closed = format!("{}}}", repeat_after(EARLY_KEYS));
        assert_eq!(code(&closed), Some(Code::DuplicateKey));
    }
}
