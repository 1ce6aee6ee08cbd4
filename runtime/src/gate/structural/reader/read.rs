//! The reader's own reading: tokens, strings and their escapes, numbers,
//! the limits of gate 1, and each value's verdict against the schema.

use core::fmt;

use serde::de::{self, DeserializeSeed, Visitor};
use smallvec::SmallVec;

use crate::Limits;
use crate::gate::bounded::plain_text_end;
use crate::gate::structural::shape::{self, Id, Shape, Tagged};
use crate::json::pointer::Step;

use super::deserializer::*;
use super::guide::*;
use super::state::*;

impl<'de> Reader<'de> {
    /// A reader at the start of `bytes`.
    pub(super) fn new(
        bytes: &'de [u8],
        text: Option<&'de str>,
        limits: &Limits,
        shape: &'de Shape,
    ) -> Self {
        let flat = shape.reads_flat();
        let mixed = flat && shape.has_guided();
        Reader {
            shape,
            flat,
            expect: match shape.root() {
                Some(root) if !flat => Expect::One(root),
                _ => Expect::Any,
            },
            // Read without the schema, each value's verdict is taken where
            // it is wanted: by `mixed_key`, before the first member too.
            verdict: if mixed { u64::MAX } else { 0 },
            text,
            bytes,
            pos: 0,
            depth_limit: limits.depth().min(SERDE_JSON_DEPTH),
            node_limit: limits.nodes(),
            string_limit: limits.string_bytes(),
            depth: 0,
            nodes: 0,
            closed: false,
            stopped: false,
            keys: SmallVec::new(),
            arena: String::new(),
            scratch: String::new(),
            unplain: 0,
            items: SmallVec::new(),
            probe: None,
            recording: false,
            named: None,
            mixed,
            trail: None,
        }
    }

    /// Records what a type asked to read the value at `pos` (after
    /// whitespace) for registration's proof; nothing on a call.
    #[inline]
    pub(super) fn asked(&mut self, asked: Asked) {
        if self.recording {
            self.record(asked);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn record(&mut self, asked: Asked) {
        self.skip_ws();
        let at = self.pos;
        ASKED.with_borrow_mut(|all| all.push((at, asked)));
    }

    /// Whether `serde` reads the document, an object, and the reader
    /// accepts it.
    #[inline(always)]
    pub(super) fn reads(&mut self, serde: &mut dyn Serde) -> bool {
        self.at_object() && serde.read(self).is_ok() && self.finished()
    }

    /// Whether the document is an object: the only one the reader reads.
    pub(super) fn at_object(&mut self) -> bool {
        self.skip_ws();
        self.peek() == Some(b'{')
    }

    /// Whether the document serde read is accepted: the schema's verdict,
    /// no stop, nothing after the value.
    pub(super) fn finished(&mut self) -> bool {
        self.skip_ws();
        let shaped = self.shape.root().is_none() || self.verdict & 1 != 0;
        shaped && !self.stopped && self.pos == self.bytes.len()
    }

    /// Whether the reader reads as serde_json does, to explain a refusal.
    pub(super) fn explaining(&self) -> bool {
        self.trail.is_some()
    }

    #[cold]
    #[inline(never)]
    pub(super) fn stop(&mut self) -> Stop {
        self.stop_as(UNREAD)
    }

    /// Stops; when explaining, refuses with serde_json's `message` for
    /// what it refuses here.
    #[cold]
    #[inline(never)]
    pub(super) fn stop_as(&mut self, message: impl fmt::Display) -> Stop {
        if self.explaining() {
            return self.refuse(message);
        }
        self.stopped = true;
        stop()
    }

    /// A refusal with serde_json's `message`, noted where it is seen.
    #[cold]
    #[inline(never)]
    pub(super) fn refuse(&mut self, message: impl fmt::Display) -> Stop {
        self.refused(de::Error::custom(message))
    }

    /// `refusal`, noted where it is seen.
    pub(super) fn refused(&mut self, refusal: Stop) -> Stop {
        self.stopped = true;
        self.note(None);
        refusal
    }

    /// Refuses the value at `pos` as not what `expected` reads, as
    /// serde_json does when explaining (its message names the value);
    /// else stops.
    #[cold]
    #[inline(never)]
    pub(super) fn mismatch(&mut self, expected: &dyn de::Expected) -> Stop {
        if !self.explaining() {
            return self.stop();
        }
        let refusal = match self.peek() {
            Some(b'n') => de::Error::invalid_type(de::Unexpected::Unit, expected),
            Some(b't') => de::Error::invalid_type(de::Unexpected::Bool(true), expected),
            Some(b'f') => de::Error::invalid_type(de::Unexpected::Bool(false), expected),
            Some(b'[') => de::Error::invalid_type(de::Unexpected::Seq, expected),
            Some(b'{') => de::Error::invalid_type(de::Unexpected::Map, expected),
            Some(b'"') => match self.string() {
                Ok((_, _, true)) => {
                    de::Error::invalid_type(de::Unexpected::Str(&self.scratch), expected)
                }
                Ok((start, end, false)) => match self.slice(start, end) {
                    Some(text) => de::Error::invalid_type(de::Unexpected::Str(text), expected),
                    None => return self.refuse(UNREAD),
                },
                Err(refused) => return refused,
            },
            Some(b'-' | b'0'..=b'9') => match self.number() {
                Ok(number) => de::Error::invalid_type(number.unexpected(), expected),
                Err(refused) => return refused,
            },
            _ => return self.refuse("expected value"),
        };
        self.refused(refusal)
    }

    /// Explaining: notes the path of the first refusal, at the value being
    /// read, or at `below` inside it.
    pub(super) fn note(&mut self, below: Option<Step>) {
        let Some(trail) = self.trail.as_deref_mut() else {
            return;
        };
        if trail.failed.is_none() {
            let named = trail.path.iter().map_while(Option::as_ref);
            let mut path: Vec<Step> = named.cloned().collect();
            if path.len() == trail.path.len() {
                path.extend(below);
            }
            trail.failed = Some(path);
        }
    }

    /// Explaining: the step below which the member whose key was just
    /// read is read.
    pub(super) fn take_key(&mut self) -> Option<Step> {
        let name = self.trail.as_deref_mut()?.key.take()?;
        let text = match name {
            Name::Text(text) => text,
            Name::At(start, end) => self.slice(start, end)?.to_owned(),
        };
        Some(Step::Key(text))
    }

    /// Explaining: takes what a key's type read of its text, noting a
    /// refusal under the key where its type read it (and, for
    /// registration, a key read as text: see [`keys_read_as_text`]).
    #[cold]
    pub(super) fn key_read(&mut self, captured: Option<String>, refused: bool) {
        self.key_read_as_text();
        if !refused {
            if let Some(trail) = self.trail.as_deref_mut() {
                trail.key = captured.map(Name::Text);
            }
            return;
        }
        match captured {
            Some(key) => self.note(Some(Step::Key(key))),
            None => {
                self.enter(None);
                self.note(None);
                self.leave();
            }
        }
    }

    /// Explaining: notes where the key just read ends, if serde asked for
    /// it as any value or a field's name (see [`keys_read_as_text`]).
    pub(super) fn key_read_as_text(&self) {
        if !READ_AS_TEXT.replace(false) {
            return;
        }
        TEXT_KEYS.with_borrow_mut(|keys| {
            if let Some(keys) = keys {
                keys.push(self.pos);
            }
        });
    }

    /// Explaining: reads a variant's name into `seed` as serde_json does,
    /// with the reader itself, keeping the name for the path below it:
    /// where it is written, if it had no escape (see [`Name`]).
    #[cold]
    #[inline(never)]
    pub(super) fn variant_name<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        self.skip_ws();
        let (at, unplain) = (self.pos, self.unplain);
        let quoted = self.peek() == Some(b'"');
        if let Some(trail) = self.trail.as_deref_mut() {
            trail.key = None;
        }
        let read = seed.deserialize(&mut *self);
        let read = self.watch(read)?;
        if quoted {
            // Read as one string, as every derived name is: where it ends,
            // and its text in `scratch` if it had escapes. Else the name's
            // string is read again.
            let whole = self.pos > at + 1 && self.bytes.get(self.pos - 1) == Some(&b'"');
            let name = match (whole, self.unplain - unplain) {
                (true, 0) => Some(Name::At(at + 1, self.pos - 1)),
                (true, 1) => Some(Name::Text(self.scratch.clone())),
                _ => self.name_at(at),
            };
            if let Some(trail) = self.trail.as_deref_mut() {
                trail.key = name;
            }
        }
        Ok(read)
    }

    /// The name written as the string at `at`, read again.
    #[cold]
    pub(super) fn name_at(&mut self, at: usize) -> Option<Name> {
        let pos = core::mem::replace(&mut self.pos, at);
        let name = match self.string() {
            Ok((start, end, false)) => Some(Name::At(start, end)),
            Ok((_, _, true)) => Some(Name::Text(self.scratch.clone())),
            Err(_) => None,
        };
        self.pos = pos;
        name
    }

    /// Explaining: refuses a unit variant's name where a variant with
    /// content (`expected`) was asked for, as serde_json does, under the
    /// variant's name; else stops.
    #[cold]
    pub(super) fn not_unit(&mut self, expected: &'static str) -> Stop {
        if !self.explaining() {
            return self.stop();
        }
        let refusal = de::Error::invalid_type(de::Unexpected::UnitVariant, &expected);
        let variant = self.take_key();
        self.enter(variant);
        let refusal = self.refused(refusal);
        self.leave();
        refusal
    }

    /// Explaining: steps into a member at `step`.
    pub(super) fn enter(&mut self, step: Option<Step>) {
        if let Some(trail) = self.trail.as_deref_mut() {
            trail.path.push(step);
        }
    }

    /// Explaining: steps out of a member. (A refusal inside it was noted
    /// there, at the latest by [`Reader::member`]: serde_path_to_error
    /// notes a member's refusal at the member, even one its type made
    /// before reading anything.)
    pub(super) fn leave(&mut self) {
        if let Some(trail) = self.trail.as_deref_mut() {
            trail.path.pop();
        }
    }

    /// Notes a refusal that `result` passes on, if it is one. Matched in
    /// place, so that each of the many types it is compiled for adds little.
    #[allow(clippy::redundant_pattern_matching)] // `is_err` is one more function a type
    pub(super) fn watch<T>(&mut self, result: Result<T>) -> Result<T> {
        if let Err(_) = &result {
            self.refused_below();
        }
        result
    }

    /// A refusal came up from below: the reader stops, and notes where.
    pub(super) fn refused_below(&mut self) {
        self.stopped = true;
        self.note(None);
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The text between `start` and `end`, which lie next to ASCII bytes
    /// (quotes, backslashes): a slice of the text known to be UTF-8, or
    /// else checked now.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(super) fn slice(&self, start: usize, end: usize) -> Option<&'de str> {
        match self.text {
            Some(text) => text.get(start..end),
            None => core::str::from_utf8(self.bytes.get(start..end)?).ok(),
        }
    }

    /// Judges the scalar of `kind` written as `raw` against what it was
    /// expected to satisfy.
    #[inline]
    pub(super) fn judge(&mut self, kind: u8, raw: &[u8]) -> Result<()> {
        // Inline for anything, the flat schema's every scalar but `null`.
        if let (Expect::Any, false) = (&self.expect, self.flat && kind == shape::NULL) {
            self.verdict = u64::MAX;
            return Ok(());
        }
        self.judge_against(kind, raw)
    }

    /// [`judge`](Self::judge) against a subschema, out of line.
    #[inline(never)]
    pub(super) fn judge_against(&mut self, kind: u8, raw: &[u8]) -> Result<()> {
        if self.flat && kind == shape::NULL && matches!(self.expect, Expect::Any) {
            return Err(self.stop());
        }
        let shape = self.shape;
        self.verdict = match core::mem::take(&mut self.expect) {
            Expect::Any => u64::MAX,
            Expect::One(id) => match shape.takes_scalar(id, kind, raw) {
                Some(taken) => u64::from(taken),
                None => self.judge_many(&[id], kind, raw)?,
            },
            Expect::Many(set) => self.judge_many(&set, kind, raw)?,
        };
        Ok(())
    }

    pub(super) fn judge_many(&mut self, set: &[Id], kind: u8, raw: &[u8]) -> Result<u64> {
        let atoms = self.shape.atoms(set);
        if atoms.len() > 64 {
            return Err(self.stop());
        }
        let local = self.shape.scalar_bits(&atoms, kind, raw);
        Ok(self.shape.verdicts(set, &atoms, local))
    }

    /// Starts the check of the object or array (`kind`) being opened, in
    /// `guide` (`None` until then): written in place, as a union's guide is
    /// large to move.
    #[inline]
    pub(super) fn guide(&mut self, kind: u8, guide: &mut Option<Guide>) -> Result<()> {
        // Inline for anything: the flat schema's arguments object and arrays.
        if let (Expect::Any, false) = (&self.expect, self.flat && self.nested(kind)) {
            return Ok(());
        }
        self.guide_by(kind, guide)
    }

    /// Whether the object or array (`kind`) being opened is one a flat
    /// schema leaves to the gates one by one: an object below the
    /// arguments object, or a container inside an array.
    pub(super) fn nested(&self, kind: u8) -> bool {
        self.depth + usize::from(kind == shape::OBJECT) > 1
    }

    /// [`guide`](Self::guide) by a subschema, out of line.
    #[inline(never)]
    pub(super) fn guide_by(&mut self, kind: u8, guide: &mut Option<Guide>) -> Result<()> {
        if self.flat && self.nested(kind) && matches!(self.expect, Expect::Any) {
            return Err(self.stop());
        }
        let shape = self.shape;
        let set = match core::mem::take(&mut self.expect) {
            Expect::Any => return Ok(()),
            Expect::One(id) if shape.simple(id) => {
                *guide = Some(Guide::one(shape, id, kind, NO_TAG));
                return Ok(());
            }
            // A tagged union's object is the branch its tag names, found
            // ahead; where it is not found, every branch is followed.
            Expect::One(id) => {
                if kind == shape::OBJECT
                    && let Some((branch, tag)) = shape.tagged(id).and_then(|t| self.branch_ahead(t))
                {
                    *guide = Some(Guide::one(shape, branch, kind, tag));
                    return Ok(());
                }
                SmallVec::from_elem(id, 1)
            }
            Expect::Many(set) => set,
        };
        let atoms = shape.atoms(&set);
        if atoms.len() > 64 {
            return Err(self.stop());
        }
        *guide = Some(Guide::Many(Many {
            asked: Set::new(),
            alive: shape.container_bits(&atoms, kind),
            found: SmallVec::from_elem(0, atoms.len()),
            children: SmallVec::new(),
            set,
            atoms,
        }));
        Ok(())
    }

    /// The branch of `tagged` that the object at `pos` names by its tag,
    /// read ahead over the members before it. `None` where one of them is
    /// an object or array, where a key before it or the tag has an escape,
    /// and where the tag names no branch: the reader then follows every
    /// branch. Reading ahead never enters a container, so no byte is read
    /// ahead more than once, however deep the unions nest.
    ///
    /// With the branch, where the tag's key starts and the tag's bit among
    /// the members the branch lists (see [`Guide::tag_read`]), where the
    /// tag was matched in place and has such a bit; else [`NO_TAG`].
    pub(super) fn branch_ahead(&self, tagged: &Tagged) -> Option<(Id, (usize, u64))> {
        let bytes = self.bytes;
        let mut pos = self.pos + 1;
        loop {
            pos = skip_ws(bytes, pos);
            // The tag's key and value, each written as it is, are matched
            // in place, without a scan for where each string ends.
            if tagged.plain() && shape::quoted_at(bytes, pos, tagged.key()) {
                let quote = pos;
                pos = skip_ws(bytes, pos + tagged.key().len() + 2);
                if bytes.get(pos) != Some(&b':') {
                    return None;
                }
                let (branch, bit) = tagged.branch_at(bytes, skip_ws(bytes, pos + 1))?;
                return Some((branch, bit.map_or(NO_TAG, |bit| (quote, bit))));
            }
            let (key, next) = plain_string(bytes, pos)?;
            pos = skip_ws(bytes, next);
            if bytes.get(pos) != Some(&b':') {
                return None;
            }
            pos = skip_ws(bytes, pos + 1);
            if key == tagged.key() {
                let (tag, _) = plain_string(bytes, pos)?;
                return Some((tagged.branch(tag)?, NO_TAG));
            }
            pos = match bytes.get(pos)? {
                b'"' => string_end(bytes, pos)?,
                b'{' | b'[' => return None,
                _ => {
                    pos + bytes
                        .get(pos..)?
                        .iter()
                        .take_while(|b| !b",} \t\n\r".contains(b))
                        .count()
                }
            };
            pos = skip_ws(bytes, pos);
            if bytes.get(pos) != Some(&b',') {
                return None;
            }
            pos += 1;
        }
    }

    /// Ends the check of a closed object or array.
    #[inline]
    pub(super) fn conclude(&mut self, guide: &Option<Guide>) {
        self.verdict = match guide {
            None => u64::MAX,
            Some(Guide::One {
                id, alive, found, ..
            }) => u64::from(*alive && *found >= self.shape.required(*id)),
            Some(Guide::Many(many)) => self.concluded(many),
        };
    }

    /// The verdict on a container checked against several subschemas.
    #[inline(never)]
    pub(super) fn concluded(&self, many: &Many) -> u64 {
        let mut local = many.alive;
        for (i, (id, found)) in many.atoms.iter().zip(&many.found).enumerate() {
            if *found < self.shape.required(*id) {
                local &= !(1 << i);
            }
        }
        self.shape.verdicts(&many.set, &many.atoms, local)
    }

    /// Reading without the schema where some members of the arguments
    /// object are read against their subschemas (see [`Shape::guided`]):
    /// stops where the member just read was refused, and sets what the
    /// member of `key`, if guided, must satisfy. `Entries::next_key`
    /// calls it only where that may matter, and checks the object's end
    /// itself.
    #[inline(never)]
    pub(super) fn mixed_key(&mut self, key: Key) -> Result<()> {
        if self.verdict & 1 == 0 {
            return Err(self.stop());
        }
        if let Some(id) = self.shape.guided(text_of(self.bytes, &self.arena, key)) {
            self.expect = Expect::One(id);
            self.verdict = 0;
        }
        Ok(())
    }

    /// Reads a member of a container into `seed`, expected to satisfy
    /// what `guide` says.
    #[inline(always)]
    pub(super) fn member<T: DeserializeSeed<'de>>(
        &mut self,
        guide: &mut Option<Guide>,
        seed: T,
    ) -> Result<T::Value> {
        let Some(guide) = guide else {
            // Each value takes what it was expected to satisfy as it
            // starts, so nothing is expected here but a member read
            // against its subschema (see `Reader::mixed_key`).
            let read = seed.deserialize(&mut *self);
            return self.watch(read);
        };
        guide.expect(&mut self.expect);
        self.verdict = 0;
        // Returned as serde gave it, not taken out and put back: each move
        // of a large value copies it whole from the pieces its type just
        // wrote, which the processor cannot forward, and this one is
        // copied once, not twice.
        let read = seed.deserialize(&mut *self);
        match &read {
            Ok(_) => guide.member_read(self.verdict),
            Err(_) => self.refused_below(),
        }
        read
    }

    // A loop of its own, not `skip_ws` on the bytes: on the per-call
    // path, counting a `take_while` costs about 7% more instructions.
    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.pos += 1;
        }
    }

    /// The first byte of the next value, which counts against the node
    /// limit.
    #[inline]
    pub(super) fn value(&mut self) -> Result<u8> {
        self.skip_ws();
        self.nodes += 1;
        match self.peek() {
            Some(byte) if self.nodes <= self.node_limit => Ok(byte),
            _ => Err(self.stop()),
        }
    }

    /// Steps into the object or array whose bracket is at `pos`.
    pub(super) fn open(&mut self) -> Result<()> {
        if self.depth >= self.depth_limit {
            return Err(self.stop_as("recursion limit exceeded"));
        }
        self.depth += 1;
        self.pos += 1;
        Ok(())
    }

    /// Steps out of the innermost container, whose closing bracket must
    /// come next.
    pub(super) fn close(&mut self, bracket: u8) -> Result<()> {
        self.skip_ws();
        if self.peek() != Some(bracket) {
            // A visitor that returned before the container's end.
            return Err(self.stop_as(match (bracket, self.peek()) {
                (b'}', Some(b',')) => "trailing comma",
                _ => "trailing characters",
            }));
        }
        self.pos += 1;
        self.depth -= 1;
        Ok(())
    }

    pub(super) fn literal(&mut self, word: &[u8]) -> Result<()> {
        match self.bytes.get(self.pos..self.pos + word.len()) {
            Some(found) if found == word => {
                self.pos += word.len();
                Ok(())
            }
            _ => Err(self.stop()),
        }
    }

    /// Reads the string whose opening quote is at `pos`: the span between
    /// the quotes, and whether it had escapes (then decoded in `scratch`).
    ///
    /// A string without escapes, nearly every key and value, is read
    /// inline; one with escapes, one that crosses the limit and one cut
    /// short go on out of line.
    #[inline]
    pub(super) fn string(&mut self) -> Result<(usize, usize, bool)> {
        let start = self.pos + 1;
        let max_end = start.saturating_add(self.string_limit);
        let window_end = self.bytes.len().min(max_end.saturating_add(1));
        let end = plain_text_end(self.bytes, start, window_end);
        if end <= max_end && self.bytes.get(end) == Some(&b'"') {
            self.pos = end + 1;
            return Ok((start, end, false));
        }
        self.pos = end;
        self.escaped_string(start, max_end, window_end)
    }

    /// The rest of [`string`](Self::string) from the first byte that ends
    /// a plain run at `pos` short of the closing quote.
    #[inline(never)]
    pub(super) fn escaped_string(
        &mut self,
        start: usize,
        max_end: usize,
        window_end: usize,
    ) -> Result<(usize, usize, bool)> {
        let mut run = start;
        let mut escaped = false;
        loop {
            if self.pos > max_end {
                return Err(self.stop());
            }
            match self.peek() {
                Some(b'"') => {
                    let end = self.pos;
                    self.pos += 1;
                    if escaped {
                        let Some(tail) = self.slice(run, end) else {
                            return Err(self.stop());
                        };
                        self.scratch.push_str(tail);
                    }
                    return Ok((start, end, escaped));
                }
                Some(b'\\') => {
                    if !escaped {
                        escaped = true;
                        self.unplain += 1;
                        self.scratch.clear();
                    }
                    let Some(plain) = self.slice(run, self.pos) else {
                        return Err(self.stop());
                    };
                    self.scratch.push_str(plain);
                    let decoded = self.escape()?;
                    self.scratch.push(decoded);
                    run = self.pos;
                }
                // A control character, or the end of the text.
                _ => return Err(self.stop()),
            }
            self.pos = plain_text_end(self.bytes, self.pos, window_end);
        }
    }

    /// Decodes the escape whose backslash is at `pos`.
    pub(super) fn escape(&mut self) -> Result<char> {
        let code = self.bytes.get(self.pos + 1).copied();
        self.pos += 2;
        let decoded = match code {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let unit = self.hex4()?;
                let scalar = match unit {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                            return Err(self.stop());
                        }
                        self.pos += 2;
                        let low = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(self.stop());
                        }
                        0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return Err(self.stop()),
                    _ => unit,
                };
                match char::from_u32(scalar) {
                    Some(c) => c,
                    None => return Err(self.stop()),
                }
            }
            _ => return Err(self.stop()),
        };
        Ok(decoded)
    }

    pub(super) fn hex4(&mut self) -> Result<u32> {
        let mut unit = 0;
        for _ in 0..4 {
            let digit = self.peek().and_then(|b| char::from(b).to_digit(16));
            let Some(digit) = digit else {
                return Err(self.stop());
            };
            unit = unit * 16 + digit;
            self.pos += 1;
        }
        Ok(unit)
    }

    /// Reads an object key whose quote is at `pos`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn key(&mut self) -> Result<Key> {
        let (start, end, escaped) = self.string()?;
        let key = if escaped {
            let start = self.arena.len();
            self.arena.push_str(&self.scratch);
            Key {
                start,
                end: self.arena.len(),
                decoded: true,
            }
        } else {
            Key {
                start,
                end,
                decoded: false,
            }
        };
        Ok(key)
    }

    /// Refuses `key` if the object whose keys start at `first` already
    /// has it, and remembers it.
    pub(super) fn remember(&mut self, first: usize, key: Key) -> Result<()> {
        let earlier = self.keys.get(first..).unwrap_or_default();
        if earlier.len() < EARLY_KEYS {
            let new = self.key_text(key);
            if earlier.iter().any(|k| self.key_text(*k) == new) {
                return Err(self.stop());
            }
        }
        self.keys.push(key);
        Ok(())
    }

    pub(super) fn key_text(&self, key: Key) -> &[u8] {
        text_of(self.bytes, &self.arena, key)
    }

    /// Closes an object whose keys start at `first`: compares a wide
    /// object's keys, then forgets them.
    pub(super) fn close_object(&mut self, first: usize) -> Result<()> {
        self.close(b'}')?;
        if self.keys.len() == first {
            // No key of its own to compare or forget.
            return Ok(());
        }
        self.forget_keys(first)
    }

    /// Compares a wide object's keys, from `first` on, and forgets them.
    #[inline(never)]
    pub(super) fn forget_keys(&mut self, first: usize) -> Result<()> {
        let (text, arena) = (self.bytes, self.arena.as_str());
        if let Some(keys) = self.keys.get_mut(first..).filter(|k| k.len() > EARLY_KEYS) {
            keys.sort_unstable_by(|a, b| text_of(text, arena, *a).cmp(text_of(text, arena, *b)));
            let repeated = keys.windows(2).any(|pair| match pair {
                [a, b] => text_of(text, arena, *a) == text_of(text, arena, *b),
                _ => false,
            });
            if repeated {
                return Err(self.stop());
            }
        }
        self.keys.truncate(first);
        if self.keys.is_empty() {
            self.arena.clear();
        }
        Ok(())
    }

    /// Reads the number at `pos` as serde_json would hand it to a visitor.
    /// Stops on what the separate gates read otherwise: a number that
    /// equals an integer without being written as one (`2.0`, `-0`; gate 2
    /// reads it as that integer) and an integer past 64 bits.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(super) fn number(&mut self) -> Result<Number> {
        // Inline for a short unsigned integer, the usual number: a run of
        // digits without a leading zero, short enough not to overflow,
        // that no fraction or exponent follows.
        let start = self.pos;
        let mut end = start;
        let mut magnitude = 0u64;
        while let Some(digit @ b'0'..=b'9') = self.bytes.get(end).copied() {
            magnitude = magnitude * 10 + u64::from(digit - b'0');
            end += 1;
            if end - start == 19 {
                break;
            }
        }
        let first = self.bytes.get(start).copied();
        let next = self.bytes.get(end).copied();
        let plain = !matches!(next, Some(b'0'..=b'9' | b'.' | b'e' | b'E'));
        if end > start && plain && (first != Some(b'0') || end == start + 1) {
            self.pos = end;
            return Ok(Number::U64(magnitude));
        }
        self.any_number()
    }

    /// [`number`](Self::number), any number, out of line.
    #[inline(never)]
    pub(super) fn any_number(&mut self) -> Result<Number> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let mut magnitude: Option<u64> = Some(0);
        match self.peek() {
            // There can be only one leading zero (a map key's, which gate
            // 1's scan has not looked at).
            Some(b'0') if matches!(self.bytes.get(self.pos + 1), Some(b'0'..=b'9')) => {
                return Err(self.stop_as("invalid number"));
            }
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while let Some(digit @ b'0'..=b'9') = self.peek() {
                    magnitude = magnitude
                        .and_then(|m| m.checked_mul(10))
                        .and_then(|m| m.checked_add(u64::from(digit - b'0')));
                    self.pos += 1;
                }
            }
            _ => return Err(self.stop_as("invalid number")),
        }
        let mut plain = true;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits()?;
            plain = false;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.digits()?;
            plain = false;
        }
        let token = self.bytes.get(start..self.pos).unwrap_or_default();
        if plain {
            match (negative, magnitude) {
                (false, Some(m)) => return Ok(Number::U64(m)),
                (true, Some(m)) if m > 0 => {
                    if let Some(v) = 0i64.checked_sub_unsigned(m) {
                        return Ok(Number::I64(v));
                    }
                }
                _ => {}
            }
            // `-0` and integers past 64 bits, which serde_json reads as
            // floats: left to the separate gates.
            if !self.explaining() {
                return Err(self.stop());
            }
        } else if !self.explaining() && crate::json::number::integral(token).is_some() {
            return Err(self.stop());
        }
        self.unplain += 1;
        match serde_json::from_slice::<f64>(token) {
            Ok(value) => Ok(Number::F64(value)),
            Err(refused) => Err(self.stop_as(refused)),
        }
    }

    /// One or more digits.
    pub(super) fn digits(&mut self) -> Result<()> {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.stop_as("invalid number"));
        }
        Ok(())
    }

    /// Every number type: serde_json hands each number to the visitor as
    /// what it is (`u64`, `i64` or `f64`), whatever type was asked for.
    pub(super) fn number_value<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.value()? {
            b'-' | b'0'..=b'9' => self.visit_number(visitor, false),
            _ => Err(self.mismatch(&visitor)),
        }
    }

    /// [`number_value`](Self::number_value) for an integer type. Read
    /// without the schema, a number with a fraction stops the reader, so
    /// that an integer type takes only integers whatever its visitor takes
    /// (see [`Asked::Integer`]); the integer types refuse it anyway.
    pub(super) fn integer_value<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.value()? {
            b'-' | b'0'..=b'9' => self.visit_number(visitor, true),
            _ => Err(self.mismatch(&visitor)),
        }
    }

    /// Reads the number at `pos` into `visitor`; for an `integer` type, read
    /// without the schema, only one written as an integer.
    pub(super) fn visit_number<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        integer: bool,
    ) -> Result<V::Value> {
        let start = self.pos;
        let number = self.number()?;
        let kind = match number {
            Number::F64(_) => shape::FRACTION,
            Number::U64(_) | Number::I64(_) => shape::INTEGER,
        };
        if integer && self.flat && kind == shape::FRACTION {
            return Err(self.stop());
        }
        self.judge(kind, self.bytes.get(start..self.pos).unwrap_or_default())?;
        let visited = number.visit(visitor);
        self.watch(visited)
    }

    pub(super) fn visit_string<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let quote = self.pos;
        let (start, end, escaped) = self.string()?;
        self.judge(
            shape::STRING,
            self.bytes.get(quote..self.pos).unwrap_or_default(),
        )?;
        let visited = if escaped {
            visitor.visit_str(&self.scratch)
        } else {
            match self.slice(start, end) {
                Some(text) => visitor.visit_borrowed_str(text),
                None => return Err(self.stop()),
            }
        };
        self.watch(visited)
    }

    /// Reads the object at `pos` into `visitor`. What is not generic is in
    /// [`open_map`](Self::open_map) and [`close_map`](Self::close_map),
    /// compiled once, not once for each struct; matched in place rather
    /// than with `?` for the same reason.
    #[allow(clippy::question_mark)] // `?` is one more function a struct
    pub(super) fn visit_map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let mut guide = None;
        let first = match self.open_map(&mut guide) {
            Ok(first) => first,
            Err(stop) => return Err(stop),
        };
        let visited = visitor.visit_map(Entries {
            reader: self,
            guide: &mut guide,
            first,
            started: false,
        });
        // Returned as serde gave it (see `member`).
        let closed = match &visited {
            Ok(_) => self.close_map(first, &guide),
            Err(_) => {
                self.refused_below();
                return visited;
            }
        };
        match closed {
            Ok(()) => visited,
            Err(stop) => Err(stop),
        }
    }

    /// Steps into the object at `pos`, its check started in `guide`: where
    /// its keys start in `keys`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn open_map(&mut self, guide: &mut Option<Guide>) -> Result<usize> {
        self.guide(shape::OBJECT, guide)?;
        self.open()?;
        Ok(self.keys.len())
    }

    /// Steps out of the object whose keys start at `first`, and ends its
    /// check.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn close_map(&mut self, first: usize, guide: &Option<Guide>) -> Result<()> {
        self.close_object(first)?;
        self.conclude(guide);
        Ok(())
    }

    pub(super) fn visit_seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let mut guide = None;
        self.guide(shape::ARRAY, &mut guide)?;
        let unique = match &guide {
            Some(Guide::One {
                id, alive: true, ..
            }) if self.shape.unique(*id) => Some(self.items.len()),
            // Without the schema: every array's items, where some array's
            // must differ. A repeat stops the reader, and the gates one by
            // one decide.
            None if self.flat && self.shape.any_unique() => Some(self.items.len()),
            _ => None,
        };
        self.open()?;
        let visited = visitor.visit_seq(Items {
            reader: self,
            guide: &mut guide,
            index: 0,
            unique,
            names: None,
        });
        let value = self.watch(visited)?;
        self.close(b']')?;
        self.conclude(&guide);
        if let Some(first) = unique {
            self.all_read(first)?;
        }
        Ok(value)
    }

    /// Notes the item of an array whose items must differ (`uniqueItems`),
    /// read from `start` on, `unplain` as it was before, its array's items
    /// noted from `first` on. An item written only one way (a string
    /// without escapes, an integer, a literal) is compared as written with
    /// the few before it; any other, or a repeat, is a stop, and the walk
    /// compares the items by value.
    #[inline(never)]
    pub(super) fn item_read(&mut self, start: usize, unplain: usize, first: usize) -> Result<()> {
        let end = self.pos;
        if self.unplain != unplain || matches!(self.bytes.get(start), Some(b'{' | b'[')) {
            return Err(self.stop());
        }
        let (bytes, len) = (self.bytes, end - start);
        let before = self.items.get(first..).unwrap_or_default();
        for &(s, e) in before
            .iter()
            .take(crate::gate::structural::unique::PAIRWISE)
        {
            if e - s == len
                && crate::json::text::same_text(
                    bytes.get(s..e).unwrap_or_default(),
                    bytes.get(start..end).unwrap_or_default(),
                )
            {
                return Err(self.stop());
            }
        }
        self.items.push((start, end));
        Ok(())
    }

    /// Ends the array whose items, noted from `first` on, must differ:
    /// past the few compared as they came, all are compared, sorted.
    #[inline]
    pub(super) fn all_read(&mut self, first: usize) -> Result<()> {
        if self.items.len() - first > crate::gate::structural::unique::PAIRWISE {
            let bytes = self.bytes;
            let items = self.items.get(first..).unwrap_or_default();
            let texts = items
                .iter()
                .map(|&(s, e)| bytes.get(s..e).unwrap_or_default());
            if !crate::gate::structural::unique::differ(texts.collect::<Vec<_>>()) {
                return Err(self.stop());
            }
        }
        self.items.truncate(first);
        Ok(())
    }

    /// Reads past the value at `pos`, checking it as any other. serde_json
    /// skips a value without its depth limit: explaining, so does this.
    pub(super) fn skip(&mut self) -> Result<()> {
        let limit = self.depth_limit;
        if self.explaining() {
            self.depth_limit = usize::MAX;
        }
        let skipped = de::Deserializer::deserialize_any(&mut *self, de::IgnoredAny);
        self.depth_limit = limit;
        skipped.map(|_| ())
    }

    /// The text of the value at `pos`, read past.
    pub(super) fn raw_value(&mut self) -> Result<&'de str> {
        self.skip_ws();
        let start = self.pos;
        self.skip()?;
        match self.slice(start, self.pos) {
            Some(text) => Ok(text),
            None => Err(self.stop()),
        }
    }

    /// Reads the value at `pos` with serde_json itself, when explaining,
    /// for what serde_json reads by a path of its own (bytes); else stops.
    /// Generic only over the visitors that ask for it, not over each
    /// tool's types.
    pub(super) fn by_serde_json<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        read: impl FnOnce(&mut JsonReader<'de>, V) -> serde_json::Result<V::Value>,
    ) -> Result<V::Value> {
        if !self.explaining() {
            return Err(self.stop());
        }
        let text = self.raw_value()?;
        let mut json = serde_json::Deserializer::from_str(text);
        let read = read(&mut json, visitor).and_then(|value| json.end().map(|()| value));
        read.map_err(|refused| self.refuse(refused))
    }

    /// A 128-bit integer, when explaining, read as serde_json reads it: a
    /// sign and digits, whatever follows them (which the container then
    /// refuses); else a stop.
    pub(super) fn wide<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        read: impl FnOnce(&mut JsonReader<'de>, V) -> serde_json::Result<V::Value>,
    ) -> Result<V::Value> {
        if !self.explaining() {
            return Err(self.stop());
        }
        self.skip_ws();
        let start = self.pos;
        let end = start + integer_len(self.bytes.get(start..).unwrap_or_default());
        let integer = match self.slice(start, end) {
            Some("") | None => return Err(self.refuse("invalid number")),
            Some(integer) => integer,
        };
        let mut json = serde_json::Deserializer::from_str(integer);
        let read = read(&mut json, visitor).map_err(|refused| self.refuse(refused))?;
        self.pos = end;
        Ok(read)
    }

    pub(super) fn visit_literal<V: Visitor<'de>>(
        &mut self,
        first: u8,
        visitor: V,
    ) -> Result<V::Value> {
        let (word, kind): (&[u8], u8) = match first {
            b't' => (b"true", shape::BOOLEAN),
            b'f' => (b"false", shape::BOOLEAN),
            _ => (b"null", shape::NULL),
        };
        self.literal(word)?;
        self.judge(kind, word)?;
        let visited = match first {
            b't' => visitor.visit_bool(true),
            b'f' => visitor.visit_bool(false),
            _ => visitor.visit_unit(),
        };
        self.watch(visited)
    }
}

/// Where the whitespace at `pos` ends.
pub(super) fn skip_ws(bytes: &[u8], pos: usize) -> usize {
    let rest = bytes.get(pos..).unwrap_or_default();
    pos + rest
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        .count()
}

/// The text of the string at `pos` if it has no escape, and where it ends.
pub(super) fn plain_string(bytes: &[u8], pos: usize) -> Option<(&[u8], usize)> {
    if bytes.get(pos) != Some(&b'"') {
        return None;
    }
    let end = plain_text_end(bytes, pos + 1, bytes.len());
    match bytes.get(end) {
        Some(b'"') => Some((bytes.get(pos + 1..end)?, end + 1)),
        _ => None,
    }
}

/// Where the string at `pos` ends, escapes and all.
pub(super) fn string_end(bytes: &[u8], pos: usize) -> Option<usize> {
    let mut pos = pos + 1;
    loop {
        pos = plain_text_end(bytes, pos, bytes.len());
        match bytes.get(pos)? {
            b'"' => return Some(pos + 1),
            b'\\' => pos += 2,
            _ => return None,
        }
    }
}
