//! The reader's state and the types its parts share.

use core::cell::Cell;
use core::fmt;
use std::sync::OnceLock;

use serde::de::{self, DeserializeOwned};
use smallvec::SmallVec;

use crate::Limits;
use crate::gate::structural::parsed::Parsed;
use crate::gate::structural::shape::{Id, Shape};
use crate::json::pointer::Step;

/// serde_json refuses to nest deeper than this, whatever gate 1 allows;
/// the reader stops there, so that the separate gates decide.
pub(super) const SERDE_JSON_DEPTH: usize = 127;

/// An object's keys are compared on arrival while it has at most this
/// many; past it, they are sorted and compared when it closes.
pub(super) const EARLY_KEYS: usize = 16;

/// Why the reader stopped or refused. Reading in one pass it is never
/// shown: the separate gates then say what went wrong, and where. When
/// explaining, serde's message (a visitor's, or serde_json's own for what
/// serde_json refuses) is kept beside it, in [`MESSAGE`].
// Of no size, so that a result is laid out as an `Option` of what it
// holds: a `Result<Format, Stop>` is one byte, returned in a register.
// One that carried its message (one word) was twice the size of most
// results, made piece by piece and copied whole, which the processor
// cannot forward from the pieces' stores: the single pass stalled on
// every value it returned.
#[derive(Debug)]
pub(crate) struct Stop(pub(super) ());

thread_local! {
    /// Whether a reader on this thread is explaining (see
    /// [`explain_with`]): only then is a refusal's message read, and so
    /// only then is it made. A repeated field that serde refuses in one
    /// pass then costs no formatting and no allocation.
    pub(super) static EXPLAINING: Cell<bool> = const { Cell::new(false) };

    /// Explaining, the message of the refusal made last (`None` for one
    /// made without a message). A refusal is passed up as soon as it is
    /// made (serde's own, serde_json's, every type's that `derive`
    /// writes): the one that reaches the top is the one made last, and
    /// this is its message.
    pub(super) static MESSAGE: Cell<Option<String>> = const { Cell::new(None) };
}

/// A stop with no message: one that refuses while explaining says that
/// the arguments could not be read ([`UNREAD`]).
#[cold]
pub(super) fn stop() -> Stop {
    if EXPLAINING.get() {
        MESSAGE.set(None);
    }
    Stop(())
}

thread_local! {
    /// While registration watches ([`watching_wide`]): whether serde
    /// refused to read a 128-bit integer from its buffer.
    pub(super) static WIDE: Cell<Option<bool>> = const { Cell::new(None) };
}

/// serde's own refusals of a 128-bit integer read from a deserializer that
/// has none: its buffer of an internally tagged or untagged enum's content,
/// or of the fields a `#[serde(flatten)]` struct shares.
pub(super) const WIDE_UNSUPPORTED: [&str; 2] = ["i128 is not supported", "u128 is not supported"];

/// Runs `check`, and says whether serde refused, while explaining, to read
/// a 128-bit integer from its buffer (see [`WIDE_UNSUPPORTED`]).
pub(crate) fn watching_wide<T>(check: impl FnOnce() -> T) -> (T, bool) {
    struct Watch(Option<bool>);
    impl Drop for Watch {
        fn drop(&mut self) {
            WIDE.set(self.0);
        }
    }
    let watch = Watch(WIDE.replace(Some(false)));
    let checked = check();
    let refused = WIDE.get() == Some(true);
    drop(watch);
    (checked, refused)
}

/// Marks this thread as explaining while it lives, even if serde panics,
/// and then gives back what it found: an explanation inside another's
/// (a type that explains as it reads) leaves the outer one's message.
pub(super) struct Explaining(bool, Option<String>);

impl Explaining {
    pub(super) fn start() -> Self {
        Explaining(EXPLAINING.replace(true), MESSAGE.take())
    }
}

impl Drop for Explaining {
    fn drop(&mut self) {
        EXPLAINING.set(self.0);
        MESSAGE.set(self.1.take());
    }
}

/// Explaining, the message of the refusal made last (a type that wraps
/// the refusal it was given in its own message reads it here); else that
/// the single pass stopped.
impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const STOPPED: &str = "the single-pass reader stopped";
        if !EXPLAINING.get() {
            return f.write_str(STOPPED);
        }
        let message = MESSAGE.take();
        let shown = f.write_str(message.as_deref().unwrap_or(STOPPED));
        MESSAGE.set(message);
        shown
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    #[cold]
    fn custom<T: fmt::Display>(message: T) -> Self {
        if !EXPLAINING.get() {
            return Stop(());
        }
        let message = message.to_string();
        if WIDE.get() == Some(false) && WIDE_UNSUPPORTED.contains(&message.as_str()) {
            WIDE.set(Some(true));
        }
        MESSAGE.set(Some(message));
        Stop(())
    }

    #[cold]
    fn invalid_type(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        de::Error::custom(format_args!(
            "invalid type: {}, expected {expected}",
            AsJson(unexpected)
        ))
    }

    #[cold]
    fn invalid_value(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        de::Error::custom(format_args!(
            "invalid value: {}, expected {expected}",
            AsJson(unexpected)
        ))
    }
}

/// A value serde describes, as serde_json's messages describe it: `null`
/// for the unit value, and floats as serde_json writes them.
pub(super) struct AsJson<'a>(de::Unexpected<'a>);

impl fmt::Display for AsJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            de::Unexpected::Unit => f.write_str("null"),
            de::Unexpected::Float(value) => {
                let written = serde_json::to_string(&value).map_err(|_| fmt::Error)?;
                write!(f, "floating point `{written}`")
            }
            unexpected => unexpected.fmt(f),
        }
    }
}

/// Why serde refused the arguments, read as serde_json and
/// serde_path_to_error would say it: serde's message, and the path to the
/// innermost value the refusal passed through.
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) path: Vec<Step>,
    pub(crate) message: String,
}

pub(super) type Result<T> = core::result::Result<T, Stop>;

/// Reads `json` into `A` in one pass, gate 1 enforced and the document
/// checked against `shape` as it is read. `None` if the reader stopped.
///
/// `text` is `bytes` as text if already known to be UTF-8; otherwise each
/// string is checked as it is read.
#[cfg(test)]
pub(crate) fn read<'de, A: DeserializeOwned>(
    bytes: &'de [u8],
    text: Option<&'de str>,
    limits: &Limits,
    shape: &'de Shape,
) -> Option<A> {
    // Only serde's part is generic: the rest is compiled once, not once
    // for each tool.
    let mut value = Read::<A>(None);
    let read = read_with(bytes, text, limits, shape, &mut value, false);
    match (read, value.0) {
        (true, Some(Parsed(value))) => Some(value),
        _ => None,
    }
}

/// serde into a type, driving the reader it is given: the only part of
/// reading that is generic, so that the rest is compiled once, not once for
/// each tool. A trait of the reader's own rather than `dyn FnMut`: its
/// vtable holds this one method, where a closure's would hold `call_once`
/// shims, compiled for each tool.
pub(crate) trait Serde {
    /// Reads what `reader` is at.
    fn read(&mut self, reader: &mut Reader<'_>) -> Result<()>;
}

/// The [`Serde`] of type `A`: what it read, if it did.
pub(crate) struct Read<A>(pub(crate) Option<Parsed<A>>);

impl<A: DeserializeOwned> Serde for Read<A> {
    fn read(&mut self, reader: &mut Reader<'_>) -> Result<()> {
        // Matched rather than mapped: one function fewer for each tool.
        match A::deserialize(reader) {
            Ok(read) => {
                self.0 = Some(Parsed(read));
                Ok(())
            }
            Err(stop) => Err(stop),
        }
    }
}

/// The part of `read` that is not generic: whether `serde` read the
/// document and the reader accepts it. `closed`: whether serde reads the
/// arguments object into a type that refuses a repeated or unlisted key
/// itself (see `Reader::closed`).
#[inline]
pub(crate) fn read_with<'de>(
    bytes: &'de [u8],
    text: Option<&'de str>,
    limits: &Limits,
    shape: &'de Shape,
    serde: &mut dyn Serde,
    closed: bool,
) -> bool {
    if !numbers_are_plain() {
        return false;
    }
    let mut reader = Reader::new(bytes, text, limits, shape);
    reader.closed = closed;
    reader.reads(serde)
}

/// [`read_with`] the argument struct for registration's proof (see
/// [`crate::register::proven`]): without the schema, what each value's type asks
/// for recorded (see [`recording`]).
pub(crate) fn probe_with<'de>(
    bytes: &'de [u8],
    text: Option<&'de str>,
    limits: &Limits,
    shape: &'de Shape,
    serde: &mut dyn Serde,
) -> bool {
    if !numbers_are_plain() {
        return false;
    }
    let mut reader = Reader::new(bytes, text, limits, shape);
    reader.closed = true;
    reader.flat = true;
    reader.mixed = shape.has_guided();
    reader.verdict = u64::MAX;
    reader.expect = Expect::Any;
    reader.recording = true;
    let read = reader.reads(serde);
    PROBE_READ.set(read);
    read
}

/// What a type asked the reader for, to read the value at a place: the
/// kinds of value the reader then takes there, whatever the type's visitor
/// would take. A type asks before it sees the value, so what it asks at a
/// place does not depend on the value there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Asked {
    /// `true` or `false` only.
    Bool,
    /// A number written as an integer: read without the schema, one with
    /// a fraction or an exponent stops the reader.
    Integer,
    /// Any number.
    Float,
    /// A string.
    Str,
    /// A string that is one of these names, where the reader reads
    /// without the schema (else as the type's visitor reads it).
    Enum(&'static [&'static str]),
    /// An array.
    Seq,
    /// Anything else, or any value (`deserialize_any`).
    Other,
}

/// Where a value starts, and what a type asked to read it.
pub(crate) type Ask = (usize, Asked);

std::thread_local! {
    pub(super) static ASKED: core::cell::RefCell<Vec<Ask>> = const { core::cell::RefCell::new(Vec::new()) };
    /// Whether the last read of registration's proof ([`probe_with`])
    /// accepted, serde and the reader, before any rule.
    pub(super) static PROBE_READ: Cell<bool> = const { Cell::new(false) };
}

/// Runs `read`, and says whether the reading of registration's proof it
/// ran, if any, accepted the document, before any rule: `false` where
/// none ran.
pub(crate) fn probe_reads(read: impl FnOnce()) -> bool {
    PROBE_READ.set(false);
    read();
    PROBE_READ.get()
}

/// Runs `read`, and gives what it gave and what types asked readers
/// probing for registration for, value by value, in the order asked. The
/// calls of a toolbox never record.
pub(crate) fn recording<T>(read: impl FnOnce() -> T) -> (T, Vec<Ask>) {
    ASKED.with_borrow_mut(Vec::clear);
    let read = read();
    (read, ASKED.with_borrow_mut(core::mem::take))
}

/// Reads `text`, which gate 1's scan accepted, into `A` exactly as
/// serde_json reads it, and on a refusal says why and where as
/// serde_path_to_error would: the separate gates' gate 2, by the same
/// deserializer as the single pass, so that each argument type's
/// `Deserialize` is compiled once, not once more for serde_json.
///
/// No schema and no limits are checked here (the scan and the shape walk
/// do that): what serde_json reads differently from the single pass (a
/// struct from an array, a unit variant written with a value, numbers past
/// 64 bits, numeric map keys, bytes, raw values) is read as serde_json
/// reads it, and what serde_json refuses is refused with its message; but
/// a numeric map key is read by its value, escapes decoded (see
/// `KeyReader::number_key`).
#[cfg(test)]
pub(crate) fn explain<A: DeserializeOwned>(text: &str) -> core::result::Result<A, Refused> {
    let mut value = Read::<A>(None);
    explain_with(text, &mut value)?;
    value.0.map(|Parsed(value)| value).ok_or_else(|| Refused {
        path: Vec::new(),
        message: UNREAD.to_owned(),
    })
}

/// The part of `explain` that is not generic.
pub(crate) fn explain_with(text: &str, serde: &mut dyn Serde) -> core::result::Result<(), Refused> {
    let _explaining = Explaining::start();
    let mut trail = Trail::default();
    let mut reader = Reader::new(text.as_bytes(), Some(text), &Limits::default(), no_shape());
    reader.trail = Some(&mut trail);
    reader.depth_limit = SERDE_JSON_DEPTH;
    reader.node_limit = usize::MAX;
    reader.string_limit = usize::MAX;
    let read = serde.read(&mut reader).and_then(|()| {
        reader.skip_ws();
        if reader.pos == reader.bytes.len() {
            Ok(())
        } else {
            Err(reader.refuse("trailing characters"))
        }
    });
    drop(reader);
    read.map_err(|Stop(())| Refused {
        path: trail.failed.take().unwrap_or_default(),
        message: MESSAGE.take().unwrap_or_else(|| UNREAD.to_owned()),
    })
}

/// The message of a refusal with no message of serde's: never expected,
/// as gate 1's scan accepted the text.
pub(crate) const UNREAD: &str = "the arguments could not be read";

/// Where a map key's type asked for a parse: the byte offset just past
/// the key, and the `deserialize_*` method it asked for.
pub(crate) type KeyParse = (usize, &'static str);

std::thread_local! {
    /// Set while registration probes map keys (see [`probing_keys`]): then
    /// what the first key whose type asked to parse its text asked, once
    /// read.
    pub(super) static KEYS: Cell<Option<Option<KeyParse>>> = const { Cell::new(None) };
}

/// Runs `read`, which reads an instance through a tool's gates as
/// registration's proof does (see [`crate::register::proven::accepts`]), as
/// registration's probe of map keys instead (see [`crate::register::keys`]): the
/// first map key whose type asks to parse its text, if the reader gets
/// that far. The tool's own reading of its arguments serves both, so no
/// code is compiled for each tool to probe its keys.
pub(crate) fn probing_keys(read: impl FnOnce()) -> Option<KeyParse> {
    KEYS.set(Some(None));
    read();
    KEYS.take().flatten()
}

/// Whether registration probes map keys (see [`probing_keys`]).
pub(crate) fn keys_probed() -> bool {
    KEYS.get().is_some()
}

/// Reads `json` into what `serde` reads as registration's probe of map
/// keys (see [`probing_keys`]). No schema is checked, and only what the
/// key types asked for matters, not whether the instance deserializes.
pub(crate) fn probe_keys(json: &str, serde: &mut dyn Serde) {
    let found = Cell::new(None);
    let mut reader = Reader::new(json.as_bytes(), Some(json), &Limits::default(), no_shape());
    reader.probe = Some(&found);
    if reader.at_object() {
        let _ = serde.read(&mut reader);
    }
    drop(reader);
    KEYS.set(Some(found.get()));
}

/// A map key a probe read by its type (see [`key_reads`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeyRead {
    /// The byte offset just past the key's colon.
    pub(crate) at: usize,
    /// The `deserialize_*` method its type asked for: an integer's, a
    /// `bool`'s, a `char`'s or an enum's.
    pub(crate) reads: &'static str,
    /// Whether the type took the key, and serde then asked for the value
    /// beside it.
    pub(crate) took: bool,
    /// The names of an enum key type's variants, as `deserialize_enum`
    /// lists them; empty for any other.
    pub(crate) names: &'static [&'static str],
}

std::thread_local! {
    /// Set while [`key_reads`] runs: each key a probe read as an integer,
    /// a `bool`, a `char` or an enum, in the order read.
    pub(super) static KEY_READS: core::cell::RefCell<Option<Vec<KeyRead>>> =
        const { core::cell::RefCell::new(None) };
}

/// Runs `read`, which reads documents by [`read_keys`], and gives every
/// map key those readings read as an integer, a `bool`, a `char` or an
/// enum (see [`crate::register::keys`]). A key is taken where its type took it and
/// serde then asked for the value beside it: a key type with a range of
/// its own (a floor number, at most 200) refuses the key after its integer
/// type took it, and the value is never asked for. What registration's
/// proof records (see [`recording`]) is kept aside meanwhile.
pub(crate) fn key_reads(read: impl FnOnce()) -> Vec<KeyRead> {
    struct Restore(Option<Vec<KeyRead>>, Vec<Ask>);
    impl Drop for Restore {
        fn drop(&mut self) {
            KEY_READS.set(self.0.take());
            ASKED.set(core::mem::take(&mut self.1));
        }
    }
    let _restore = Restore(KEY_READS.replace(Some(Vec::new())), ASKED.take());
    read();
    let asked = ASKED.take();
    let keys = KEY_READS.with_borrow_mut(Option::take).unwrap_or_default();
    keys.into_iter()
        .map(|key| KeyRead {
            took: key.took && asked.iter().any(|(pos, _)| *pos == key.at),
            ..key
        })
        .collect()
}

/// Notes a key read by a probe, if [`key_reads`] is running.
#[cold]
pub(super) fn note_key(at: usize, reads: &'static str, took: bool, names: &'static [&'static str]) {
    KEY_READS.with_borrow_mut(|keys| {
        if let Some(keys) = keys {
            keys.push(KeyRead {
                at,
                reads,
                took,
                names,
            });
        }
    });
}

/// Probing, the start of a key that an enum key type reads as the variant
/// of the index after it (see [`variant_index_key`]). No call is ever
/// read this way: only a probe's reader reads it.
pub(super) const VARIANT_INDEX: &str = "\u{0}variant ";

/// A key that a probe's reader gives an enum key type as its variant of
/// index `index`, as serde reads a variant from an integer: whether its
/// type takes it says whether it has that many variants, each name it
/// lists counted once with its aliases (see `crate::register::keys`).
pub(crate) fn variant_index_key(index: usize) -> String {
    format!("{VARIANT_INDEX}{index}")
}

/// A map key that no key type read, while explaining (see
/// [`keys_read_as_text`]): the byte offset just past its colon.
pub(crate) type TextKey = usize;

std::thread_local! {
    /// Set while [`keys_read_as_text`] runs: each key serde asked for as
    /// any value or as a field's name, in the order read.
    pub(super) static TEXT_KEYS: core::cell::RefCell<Option<Vec<TextKey>>> =
        const { core::cell::RefCell::new(None) };

    /// Explaining: set by a key's reader when serde asked for the key as
    /// any value or as a field's name, for [`Reader::key_read_as_text`]
    /// to note.
    pub(super) static READ_AS_TEXT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `check`, which explains a refusal if it refuses (as registration's
/// checks do), and gives every map key that serde asked for as any value
/// (`deserialize_any`: to buffer it, for an internally tagged or untagged
/// enum's content) or as a field's name (`deserialize_identifier`: a
/// struct's, which buffers each member it does not list for a
/// `#[serde(flatten)]` field). A map's own key type asks for what it reads
/// (an integer, a `bool`, a string); a key noted here reached its key type,
/// if at all, from serde's buffer (see [`crate::register::buffered::buffered_key`]).
pub(crate) fn keys_read_as_text<T>(check: impl FnOnce() -> T) -> (T, Vec<TextKey>) {
    struct Restore(Option<Vec<TextKey>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            TEXT_KEYS.set(self.0.take());
        }
    }
    let restore = Restore(TEXT_KEYS.replace(Some(Vec::new())));
    let checked = check();
    let keys = TEXT_KEYS.with_borrow_mut(Option::take).unwrap_or_default();
    drop(restore);
    (checked, keys)
}

/// Reads `json` into what `serde` reads, as a probe of map keys does (see
/// [`probe_keys`]), for [`key_reads`] to see how each key is read, and
/// whether the value beside it was then asked for. No schema is
/// checked and nothing is decided.
pub(crate) fn read_keys(json: &str, serde: &mut dyn Serde) {
    let found = Cell::new(None);
    let limits = crate::gate::bounded::limits::PROBE_LIMITS;
    let mut reader = Reader::new(json.as_bytes(), Some(json), &limits, no_shape());
    reader.probe = Some(&found);
    reader.recording = true;
    if reader.at_object() {
        let _ = serde.read(&mut reader);
    }
}

/// The shape of no schema: every value accepted.
pub(super) fn no_shape() -> &'static Shape {
    pub(super) static NONE: OnceLock<Shape> = OnceLock::new();
    NONE.get_or_init(Shape::default)
}

/// Whether serde_json reads numbers as numbers. A crate graph that
/// enables serde_json's `arbitrary_precision` makes it read them as text,
/// which the reader does not imitate: it then leaves every call to the
/// separate gates.
pub(super) fn numbers_are_plain() -> bool {
    pub(super) static PLAIN: OnceLock<bool> = OnceLock::new();
    *PLAIN.get_or_init(|| {
        let read = serde_json::from_str::<serde_json::Value>("2.50");
        read.is_ok_and(|value| {
            let written = value.to_string();
            written == "2.5"
        })
    })
}

/// The reader. Made only here; serde drives it.
pub(crate) struct Reader<'de> {
    pub(super) shape: &'de Shape,
    /// Registration proved the tool's types hold what the schema states
    /// (see [`Shape::reads_flat`]): read without it, stopping at a `null`,
    /// an object below the arguments object, or a container inside an
    /// array, but in a member read against its subschema (see
    /// [`Shape::guided`]). Where the reader stops, the gates one by one
    /// decide against the schema.
    pub(super) flat: bool,
    /// The subschemas the next value must satisfy; empty for any value.
    /// Each value takes them as it starts.
    pub(super) expect: Expect,
    /// The verdict on the value read last: one bit per subschema it was
    /// expected to satisfy.
    pub(super) verdict: u64,
    /// The document as text, if already known to be UTF-8.
    pub(super) text: Option<&'de str>,
    pub(super) bytes: &'de [u8],
    pub(super) pos: usize,
    pub(super) depth_limit: usize,
    pub(super) node_limit: usize,
    pub(super) string_limit: usize,
    /// Open objects and arrays.
    pub(super) depth: usize,
    pub(super) nodes: usize,
    /// The arguments object is read by a type that refuses a repeated or
    /// unlisted key itself (the argument struct `#[tool]` writes): its
    /// keys need no comparing here.
    pub(super) closed: bool,
    /// Set by every stop and every error a visitor returned, so that a
    /// type that catches an error (`T::deserialize(d).ok()`) cannot make
    /// the reader accept what it stopped on.
    pub(super) stopped: bool,
    /// Keys of the open objects.
    pub(super) keys: SmallVec<[Key; 16]>,
    /// Decoded keys that had escapes.
    pub(super) arena: String,
    /// The decoded text of the last string value that had escapes.
    pub(super) scratch: String,
    /// How many strings with an escape and numbers with a fraction or an
    /// exponent were read: a scalar read without one is written as the
    /// only text of its value, and is compared as written.
    pub(super) unplain: usize,
    /// The items read so far of each open array whose items must differ
    /// (`uniqueItems`), each where it starts and ends.
    pub(super) items: SmallVec<[(usize, usize); 8]>,
    /// Set when probing map keys: where a key's type first asked for a
    /// parse.
    pub(super) probe: Option<&'de Cell<Option<KeyParse>>>,
    /// Set for registration's proof: each value records what its type
    /// asked for (see [`recording`]).
    pub(super) recording: bool,
    /// Read without the schema, the name just read of an enum, by its list
    /// and its index there (see `Items::name_read`).
    pub(super) named: Option<(&'static [&'static str], usize)>,
    /// Read without the schema where some member of the arguments object
    /// is read against its subschema (see [`Shape::guided`]).
    pub(super) mixed: bool,
    /// Set when reading as serde_json does, to explain a refusal (see
    /// [`explain_with`]): where the reader is and where it refused.
    /// Borrowed, so that the single pass carries one word of it and
    /// nothing to drop.
    pub(super) trail: Option<&'de mut Trail>,
}

/// A name on the path: a key's text, or where a variant's name is written
/// without escapes, copied only if a path below it is ever needed (most
/// variants are read whole, and an array of many would otherwise copy
/// each name).
pub(super) enum Name {
    Text(String),
    At(usize, usize),
}

/// Where an explaining reader is, and where it first refused.
#[derive(Default)]
pub(super) struct Trail {
    /// The path to the value being read; `None` for a step
    /// serde_path_to_error cannot name (a key not read as text), below
    /// which nothing is named.
    pub(super) path: Vec<Option<Step>>,
    /// The key just read, if its type read it as text or a number (what
    /// serde_path_to_error captures), or the variant name just read.
    pub(super) key: Option<Name>,
    /// The path of the first refusal, serde_path_to_error's rule (the
    /// innermost value a refusal passed through, first seen).
    pub(super) failed: Option<Vec<Step>>,
}

/// How long the 128-bit integer at the start of `text` is, as serde_json
/// reads one: a sign, then digits.
pub(super) fn integer_len(text: &[u8]) -> usize {
    let signed = usize::from(text.first() == Some(&b'-'));
    let digits = text.get(signed..).unwrap_or_default();
    signed + digits.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// Where a key's text lives: a span of the input (no escapes), or of the
/// arena its escapes were decoded into.
#[derive(Clone, Copy)]
pub(super) struct Key {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) decoded: bool,
}

pub(super) fn text_of<'s>(bytes: &'s [u8], arena: &'s str, key: Key) -> &'s [u8] {
    let source = if key.decoded { arena.as_bytes() } else { bytes };
    source.get(key.start..key.end).unwrap_or_default()
}

pub(super) type Set = SmallVec<[Id; 4]>;

/// What the next value must satisfy: the subschemas that describe it,
/// each of which gets a verdict (a bit of `Reader::verdict`, in order).
#[derive(Default)]
pub(super) enum Expect {
    /// Anything.
    #[default]
    Any,
    /// One subschema, the common case.
    One(Id),
    /// Several, as inside a union.
    Many(Set),
}
