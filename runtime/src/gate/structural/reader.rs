//! Gates 1 and 2 in one pass: a JSON reader that serde drives and that
//! enforces gate 1 and the schema's shape as it reads.
//!
//! A call's bytes are read once, straight into the tool's argument struct.
//! As it reads, the reader counts depth, values and string bytes against
//! the [`Limits`], compares each object's keys, refuses lone
//! surrogates and text that is not UTF-8, and requires nothing after the
//! closing brace: what the bounded scan of [`bounded`](crate::gate::bounded)
//! proves before serde, proved while serde reads. It also checks each
//! value against the schema's structural keywords, as the shape walk of
//! [`shape`] does over the text, one value at a time (see
//! [`Guide`]): so serde's laxities (a struct read from an array, a unit
//! variant with other keys, a key the schema does not list) are refused
//! in the same pass.
//!
//! The reader only ever accepts. Wherever it would refuse, or is unsure
//! (a limit crossed, a duplicate key, a number written as a float that
//! equals an integer, a map key read as a number), it stops, and the call
//! goes through the gates one by one, whose refusals say what and where
//! ([`structural::read`](crate::gate::structural::read)). So a refusal keeps its code,
//! path and message, and the reader's job is narrower: what it accepts,
//! the separate gates accept, with the same value. It reads every value
//! exactly as serde_json does: strings borrowed unless escaped, integers as
//! `u64` or `i64`, every other number parsed by serde_json itself.
//!
//! Stopping costs what the limits allow: the reader stops at the first
//! limit crossed, and the separate gates then stop there too.

use core::cell::Cell;
use core::fmt;
use std::sync::OnceLock;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};
use smallvec::SmallVec;

use crate::Limits;
use crate::gate::bounded::plain_text_end;
use crate::gate::structural::parsed::Parsed;
use crate::gate::structural::shape::{self, Child, Id, Shape, Tagged};
use crate::json::pointer::Step;

/// serde_json refuses to nest deeper than this, whatever gate 1 allows;
/// the reader stops there, so that the separate gates decide.
const SERDE_JSON_DEPTH: usize = 127;

/// An object's keys are compared on arrival while it has at most this
/// many; past it, they are sorted and compared when it closes.
const EARLY_KEYS: usize = 16;

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
pub(crate) struct Stop(());

thread_local! {
    /// Whether a reader on this thread is explaining (see
    /// [`explain_with`]): only then is a refusal's message read, and so
    /// only then is it made. A repeated field that serde refuses in one
    /// pass then costs no formatting and no allocation.
    static EXPLAINING: Cell<bool> = const { Cell::new(false) };

    /// Explaining, the message of the refusal made last (`None` for one
    /// made without a message). A refusal is passed up as soon as it is
    /// made (serde's own, serde_json's, every type's that `derive`
    /// writes): the one that reaches the top is the one made last, and
    /// this is its message.
    static MESSAGE: Cell<Option<String>> = const { Cell::new(None) };
}

/// A stop with no message: one that refuses while explaining says that
/// the arguments could not be read ([`UNREAD`]).
#[cold]
fn stop() -> Stop {
    if EXPLAINING.get() {
        MESSAGE.set(None);
    }
    Stop(())
}

thread_local! {
    /// While registration watches ([`watching_wide`]): whether serde
    /// refused to read a 128-bit integer from its buffer.
    static WIDE: Cell<Option<bool>> = const { Cell::new(None) };
}

/// serde's own refusals of a 128-bit integer read from a deserializer that
/// has none: its buffer of an internally tagged or untagged enum's content,
/// or of the fields a `#[serde(flatten)]` struct shares.
const WIDE_UNSUPPORTED: [&str; 2] = ["i128 is not supported", "u128 is not supported"];

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
struct Explaining(bool, Option<String>);

impl Explaining {
    fn start() -> Self {
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
struct AsJson<'a>(de::Unexpected<'a>);

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

type Result<T> = core::result::Result<T, Stop>;

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

/// The part of [`read`] that is not generic: whether `serde` read the
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
    static ASKED: core::cell::RefCell<Vec<Ask>> = const { core::cell::RefCell::new(Vec::new()) };
    /// Whether the last read of registration's proof ([`probe_with`])
    /// accepted, serde and the reader, before any rule.
    static PROBE_READ: Cell<bool> = const { Cell::new(false) };
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

/// The part of [`explain`] that is not generic.
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
    static KEYS: Cell<Option<Option<KeyParse>>> = const { Cell::new(None) };
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
    static KEY_READS: core::cell::RefCell<Option<Vec<KeyRead>>> =
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
fn note_key(at: usize, reads: &'static str, took: bool, names: &'static [&'static str]) {
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
const VARIANT_INDEX: &str = "\u{0}variant ";

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
    static TEXT_KEYS: core::cell::RefCell<Option<Vec<TextKey>>> =
        const { core::cell::RefCell::new(None) };

    /// Explaining: set by a key's reader when serde asked for the key as
    /// any value or as a field's name, for [`Reader::key_read_as_text`]
    /// to note.
    static READ_AS_TEXT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `check`, which explains a refusal if it refuses (as registration's
/// checks do), and gives every map key that serde asked for as any value
/// (`deserialize_any`: to buffer it, for an internally tagged or untagged
/// enum's content) or as a field's name (`deserialize_identifier`: a
/// struct's, which buffers each member it does not list for a
/// `#[serde(flatten)]` field). A map's own key type asks for what it reads
/// (an integer, a `bool`, a string); a key noted here reached its key type,
/// if at all, from serde's buffer (see [`crate::register::lengths::buffered_key`]).
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
    let limits = crate::register::lengths::PROBE_LIMITS;
    let mut reader = Reader::new(json.as_bytes(), Some(json), &limits, no_shape());
    reader.probe = Some(&found);
    reader.recording = true;
    if reader.at_object() {
        let _ = serde.read(&mut reader);
    }
}

/// The shape of no schema: every value accepted.
fn no_shape() -> &'static Shape {
    static NONE: OnceLock<Shape> = OnceLock::new();
    NONE.get_or_init(Shape::default)
}

/// Whether serde_json reads numbers as numbers. A crate graph that
/// enables serde_json's `arbitrary_precision` makes it read them as text,
/// which the reader does not imitate: it then leaves every call to the
/// separate gates.
fn numbers_are_plain() -> bool {
    static PLAIN: OnceLock<bool> = OnceLock::new();
    *PLAIN.get_or_init(|| {
        let read = serde_json::from_str::<serde_json::Value>("2.50");
        read.is_ok_and(|value| {
            let written = value.to_string();
            written == "2.5"
        })
    })
}

/// Where a key's text lives: a span of the input (no escapes), or of the
/// arena its escapes were decoded into.
#[derive(Clone, Copy)]
struct Key {
    start: usize,
    end: usize,
    decoded: bool,
}

fn text_of<'s>(bytes: &'s [u8], arena: &'s str, key: Key) -> &'s [u8] {
    let source = if key.decoded { arena.as_bytes() } else { bytes };
    source.get(key.start..key.end).unwrap_or_default()
}

type Set = SmallVec<[Id; 4]>;

/// What the next value must satisfy: the subschemas that describe it,
/// each of which gets a verdict (a bit of `Reader::verdict`, in order).
#[derive(Default)]
enum Expect {
    /// Anything.
    #[default]
    Any,
    /// One subschema, the common case.
    One(Id),
    /// Several, as inside a union.
    Many(Set),
}

/// An object's or array's check against the schema as it is read: the
/// quick walk of [`shape`], one value at a time.
// On the stack while one container is read; boxing the larger variant
// would allocate for every union read.
#[allow(clippy::large_enum_variant)]
enum Guide {
    /// One subschema without unions, whose own keywords decide.
    One {
        id: Id,
        /// Whether it still accepts the container.
        alive: bool,
        /// How many of its required members were seen.
        found: usize,
        /// What describes the member being read.
        child: Child,
        /// The listed properties seen so far, by index (the first 64).
        seen: u64,
        /// A tagged union's branch, found ahead by its tag: where the tag's
        /// key was read ahead (its opening quote) and its bit in `seen`.
        /// [`NO_TAG`] for any other subschema.
        tag: (usize, u64),
    },
    Many(Many),
}

/// No tag read ahead (see [`Reader::branch_ahead`]): at no place, of no bit.
const NO_TAG: (usize, u64) = (usize::MAX, 0);

/// Whether a key is one of the properties a [`Guide`] lists, which it
/// then checks for repeats itself: two keys that are the same property
/// are the same text, and a listed key is never an unlisted one.
enum Listed {
    New,
    Repeated,
    /// Not listed (or no single subschema to list it): the reader compares
    /// it with the object's other such keys.
    No,
}

impl Guide {
    /// The check of an object or array (`kind`) against subschema `id`,
    /// which has no union, before its first member.
    /// `tag`: see [`Reader::branch_ahead`].
    #[inline]
    fn one(shape: &Shape, id: Id, kind: u8, tag: (usize, u64)) -> Guide {
        Guide::One {
            id,
            alive: shape.takes_one(id, kind),
            found: 0,
            child: Child::Any,
            seen: 0,
            tag,
        }
    }

    /// Whether the key whose opening quote is at `quote` is the tag read
    /// ahead to find the branch this guide checks (see
    /// `Reader::branch_ahead`).
    #[inline]
    fn is_tag_at(&self, quote: usize) -> bool {
        matches!(self, Guide::One { tag: (at, _), .. } if *at == quote)
    }

    /// [`key`](Self::key) for the tag read ahead: a required member the
    /// branch lists, whose value was read ahead too and is the branch's
    /// constant (so it needs no judging again), seen for the first time:
    /// the tag was the first key of its name the reading ahead met.
    fn tag_read(&mut self) -> Listed {
        if let Guide::One {
            alive,
            found,
            child,
            seen,
            tag: (_, bit),
            ..
        } = self
        {
            *child = Child::Any;
            *found += usize::from(*alive);
            *seen |= *bit;
        }
        Listed::New
    }

    fn key(&mut self, shape: &Shape, key: &[u8]) -> Listed {
        match self {
            Guide::One {
                id,
                alive,
                found,
                child,
                seen,
                ..
            } => {
                // Looked up even once the subschema refused the object: its
                // listed keys are compared here, alive or not.
                let (index, member, required) = shape.member_at(*id, key);
                *child = Child::Any;
                if *alive {
                    *found += usize::from(required);
                    *alive = member != Child::Never;
                    *child = member;
                }
                match index.and_then(shape::property_bit) {
                    Some(bit) if *seen & bit != 0 => Listed::Repeated,
                    Some(bit) => {
                        *seen |= bit;
                        Listed::New
                    }
                    None => Listed::No,
                }
            }
            Guide::Many(many) => {
                many.key(shape, key);
                Listed::No
            }
        }
    }

    fn index(&mut self, shape: &Shape, index: usize) {
        match self {
            Guide::One {
                id, alive, child, ..
            } => {
                *child = Child::Any;
                if *alive {
                    let item = shape.item(*id, index);
                    *alive = item != Child::Never;
                    *child = item;
                }
            }
            Guide::Many(many) => many.index(shape, index),
        }
    }

    /// Sets what the member being read must satisfy. Written in place:
    /// an `Expect` made apart and then moved is copied whole from the
    /// pieces just written, which the processor cannot forward.
    #[inline]
    fn expect(&mut self, expect: &mut Expect) {
        match self {
            Guide::One {
                alive: true,
                child: Child::Node(id),
                ..
            } => *expect = Expect::One(*id),
            Guide::One { .. } => *expect = Expect::Any,
            Guide::Many(many) => *expect = many.expect(),
        }
    }

    /// Takes the verdict on the member just read, as [`expect`](Self::expect)
    /// asked for it.
    #[inline]
    fn member_read(&mut self, verdict: u64) {
        match self {
            // Once dead, a subschema stays dead whatever the verdict.
            Guide::One {
                alive,
                child: Child::Node(_),
                ..
            } => *alive &= verdict & 1 != 0,
            Guide::One { .. } => {}
            Guide::Many(many) => many.member_read(verdict),
        }
    }
}

/// [`Guide`] for several subschemas, or one with unions.
struct Many {
    set: Set,
    /// What the member being read was expected to satisfy.
    asked: Set,
    /// The set and the branches of its unions.
    atoms: SmallVec<[Id; 8]>,
    /// The atoms that still accept the container.
    alive: u64,
    /// For each atom, how many of its required members were seen.
    found: SmallVec<[usize; 8]>,
    /// For each atom, what describes the member being read.
    children: SmallVec<[Child; 8]>,
}

impl Many {
    /// The subschemas the member being read must satisfy, for the atoms
    /// still alive.
    fn member_set(&self) -> Set {
        let mut set = Set::new();
        for (i, child) in self.children.iter().enumerate() {
            if let (true, Child::Node(id)) = (self.alive & (1 << i) != 0, child)
                && !set.contains(id)
            {
                set.push(*id);
            }
        }
        set
    }

    /// What the member being read must satisfy, kept for its verdict.
    #[inline(never)]
    fn expect(&mut self) -> Expect {
        self.asked = self.member_set();
        match self.asked.as_slice() {
            [] => Expect::Any,
            [id] => Expect::One(*id),
            set => Expect::Many(set.into()),
        }
    }

    /// Takes the verdict on the member just read against what it was
    /// asked to satisfy.
    #[inline(never)]
    fn member_read(&mut self, verdict: u64) {
        for (i, child) in self.children.iter().enumerate() {
            if let Child::Node(id) = child
                && let Some(j) = self.asked.iter().position(|s| s == id)
                && verdict & (1 << j) == 0
            {
                self.alive &= !(1 << i);
            }
        }
    }

    /// Each atom's reading of member `key`.
    fn key(&mut self, shape: &Shape, key: &[u8]) {
        self.children.clear();
        for (i, (id, found)) in self.atoms.iter().zip(self.found.iter_mut()).enumerate() {
            let child = if self.alive & (1 << i) == 0 {
                Child::Any
            } else {
                let (child, required) = shape.member(*id, key);
                *found += usize::from(required);
                child
            };
            if child == Child::Never {
                self.alive &= !(1 << i);
            }
            self.children.push(child);
        }
    }

    /// Each atom's reading of element `index`. Out of line, so that the
    /// step to an element of one subschema saves no registers for it.
    #[inline(never)]
    fn index(&mut self, shape: &Shape, index: usize) {
        self.children.clear();
        for (i, id) in self.atoms.iter().enumerate() {
            let child = if self.alive & (1 << i) == 0 {
                Child::Any
            } else {
                shape.item(*id, index)
            };
            if child == Child::Never {
                self.alive &= !(1 << i);
            }
            self.children.push(child);
        }
    }
}

/// A number as serde_json hands it to a visitor.
enum Number {
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Number {
    fn unexpected(&self) -> de::Unexpected<'static> {
        match *self {
            Number::U64(v) => de::Unexpected::Unsigned(v),
            Number::I64(v) => de::Unexpected::Signed(v),
            Number::F64(v) => de::Unexpected::Float(v),
        }
    }

    fn visit<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Number::U64(v) => visitor.visit_u64(v),
            Number::I64(v) => visitor.visit_i64(v),
            Number::F64(v) => visitor.visit_f64(v),
        }
    }
}

/// The reader. Made only here; serde drives it.
pub(crate) struct Reader<'de> {
    shape: &'de Shape,
    /// Registration proved the tool's types hold what the schema states
    /// (see [`Shape::reads_flat`]): read without it, stopping at a `null`,
    /// an object below the arguments object, or a container inside an
    /// array, but in a member read against its subschema (see
    /// [`Shape::guided`]). Where the reader stops, the gates one by one
    /// decide against the schema.
    flat: bool,
    /// The subschemas the next value must satisfy; empty for any value.
    /// Each value takes them as it starts.
    expect: Expect,
    /// The verdict on the value read last: one bit per subschema it was
    /// expected to satisfy.
    verdict: u64,
    /// The document as text, if already known to be UTF-8.
    text: Option<&'de str>,
    bytes: &'de [u8],
    pos: usize,
    depth_limit: usize,
    node_limit: usize,
    string_limit: usize,
    /// Open objects and arrays.
    depth: usize,
    nodes: usize,
    /// The arguments object is read by a type that refuses a repeated or
    /// unlisted key itself (the argument struct `#[tool]` writes): its
    /// keys need no comparing here.
    closed: bool,
    /// Set by every stop and every error a visitor returned, so that a
    /// type that catches an error (`T::deserialize(d).ok()`) cannot make
    /// the reader accept what it stopped on.
    stopped: bool,
    /// Keys of the open objects.
    keys: SmallVec<[Key; 16]>,
    /// Decoded keys that had escapes.
    arena: String,
    /// The decoded text of the last string value that had escapes.
    scratch: String,
    /// How many strings with an escape and numbers with a fraction or an
    /// exponent were read: a scalar read without one is written as the
    /// only text of its value, and is compared as written.
    unplain: usize,
    /// The items read so far of each open array whose items must differ
    /// (`uniqueItems`), each where it starts and ends.
    items: SmallVec<[(usize, usize); 8]>,
    /// Set when probing map keys: where a key's type first asked for a
    /// parse.
    probe: Option<&'de Cell<Option<KeyParse>>>,
    /// Set for registration's proof: each value records what its type
    /// asked for (see [`recording`]).
    recording: bool,
    /// Read without the schema, the name just read of an enum, by its list
    /// and its index there (see `Items::name_read`).
    named: Option<(&'static [&'static str], usize)>,
    /// Read without the schema where some member of the arguments object
    /// is read against its subschema (see [`Shape::guided`]).
    mixed: bool,
    /// Set when reading as serde_json does, to explain a refusal (see
    /// [`explain_with`]): where the reader is and where it refused.
    /// Borrowed, so that the single pass carries one word of it and
    /// nothing to drop.
    trail: Option<&'de mut Trail>,
}

/// A name on the path: a key's text, or where a variant's name is written
/// without escapes, copied only if a path below it is ever needed (most
/// variants are read whole, and an array of many would otherwise copy
/// each name).
enum Name {
    Text(String),
    At(usize, usize),
}

/// Where an explaining reader is, and where it first refused.
#[derive(Default)]
struct Trail {
    /// The path to the value being read; `None` for a step
    /// serde_path_to_error cannot name (a key not read as text), below
    /// which nothing is named.
    path: Vec<Option<Step>>,
    /// The key just read, if its type read it as text or a number (what
    /// serde_path_to_error captures), or the variant name just read.
    key: Option<Name>,
    /// The path of the first refusal, serde_path_to_error's rule (the
    /// innermost value a refusal passed through, first seen).
    failed: Option<Vec<Step>>,
}

impl<'de> Reader<'de> {
    /// A reader at the start of `bytes`.
    fn new(bytes: &'de [u8], text: Option<&'de str>, limits: &Limits, shape: &'de Shape) -> Self {
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
    fn asked(&mut self, asked: Asked) {
        if self.recording {
            self.record(asked);
        }
    }

    #[cold]
    #[inline(never)]
    fn record(&mut self, asked: Asked) {
        self.skip_ws();
        let at = self.pos;
        ASKED.with_borrow_mut(|all| all.push((at, asked)));
    }

    /// Whether `serde` reads the document, an object, and the reader
    /// accepts it.
    #[inline(always)]
    fn reads(&mut self, serde: &mut dyn Serde) -> bool {
        self.at_object() && serde.read(self).is_ok() && self.finished()
    }

    /// Whether the document is an object: the only one the reader reads.
    fn at_object(&mut self) -> bool {
        self.skip_ws();
        self.peek() == Some(b'{')
    }

    /// Whether the document serde read is accepted: the schema's verdict,
    /// no stop, nothing after the value.
    fn finished(&mut self) -> bool {
        self.skip_ws();
        let shaped = self.shape.root().is_none() || self.verdict & 1 != 0;
        shaped && !self.stopped && self.pos == self.bytes.len()
    }

    /// Whether the reader reads as serde_json does, to explain a refusal.
    fn explaining(&self) -> bool {
        self.trail.is_some()
    }

    #[cold]
    #[inline(never)]
    fn stop(&mut self) -> Stop {
        self.stop_as(UNREAD)
    }

    /// Stops; when explaining, refuses with serde_json's `message` for
    /// what it refuses here.
    #[cold]
    #[inline(never)]
    fn stop_as(&mut self, message: impl fmt::Display) -> Stop {
        if self.explaining() {
            return self.refuse(message);
        }
        self.stopped = true;
        stop()
    }

    /// A refusal with serde_json's `message`, noted where it is seen.
    #[cold]
    #[inline(never)]
    fn refuse(&mut self, message: impl fmt::Display) -> Stop {
        self.refused(de::Error::custom(message))
    }

    /// `refusal`, noted where it is seen.
    fn refused(&mut self, refusal: Stop) -> Stop {
        self.stopped = true;
        self.note(None);
        refusal
    }

    /// Refuses the value at `pos` as not what `expected` reads, as
    /// serde_json does when explaining (its message names the value);
    /// else stops.
    #[cold]
    #[inline(never)]
    fn mismatch(&mut self, expected: &dyn de::Expected) -> Stop {
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
    fn note(&mut self, below: Option<Step>) {
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
    fn take_key(&mut self) -> Option<Step> {
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
    fn key_read(&mut self, captured: Option<String>, refused: bool) {
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
    fn key_read_as_text(&self) {
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
    fn variant_name<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
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
    fn name_at(&mut self, at: usize) -> Option<Name> {
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
    fn not_unit(&mut self, expected: &'static str) -> Stop {
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
    fn enter(&mut self, step: Option<Step>) {
        if let Some(trail) = self.trail.as_deref_mut() {
            trail.path.push(step);
        }
    }

    /// Explaining: steps out of a member. (A refusal inside it was noted
    /// there, at the latest by [`Reader::member`]: serde_path_to_error
    /// notes a member's refusal at the member, even one its type made
    /// before reading anything.)
    fn leave(&mut self) {
        if let Some(trail) = self.trail.as_deref_mut() {
            trail.path.pop();
        }
    }

    /// Notes a refusal that `result` passes on, if it is one. Matched in
    /// place, so that each of the many types it is compiled for adds little.
    #[allow(clippy::redundant_pattern_matching)] // `is_err` is one more function a type
    fn watch<T>(&mut self, result: Result<T>) -> Result<T> {
        if let Err(_) = &result {
            self.refused_below();
        }
        result
    }

    /// A refusal came up from below: the reader stops, and notes where.
    fn refused_below(&mut self) {
        self.stopped = true;
        self.note(None);
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The text between `start` and `end`, which lie next to ASCII bytes
    /// (quotes, backslashes): a slice of the text known to be UTF-8, or
    /// else checked now.
    #[cfg_attr(not(debug_assertions), inline)]
    fn slice(&self, start: usize, end: usize) -> Option<&'de str> {
        match self.text {
            Some(text) => text.get(start..end),
            None => core::str::from_utf8(self.bytes.get(start..end)?).ok(),
        }
    }

    /// Judges the scalar of `kind` written as `raw` against what it was
    /// expected to satisfy.
    #[inline]
    fn judge(&mut self, kind: u8, raw: &[u8]) -> Result<()> {
        // Inline for anything, the flat schema's every scalar but `null`.
        if let (Expect::Any, false) = (&self.expect, self.flat && kind == shape::NULL) {
            self.verdict = u64::MAX;
            return Ok(());
        }
        self.judge_against(kind, raw)
    }

    /// [`judge`](Self::judge) against a subschema, out of line.
    #[inline(never)]
    fn judge_against(&mut self, kind: u8, raw: &[u8]) -> Result<()> {
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

    fn judge_many(&mut self, set: &[Id], kind: u8, raw: &[u8]) -> Result<u64> {
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
    fn guide(&mut self, kind: u8, guide: &mut Option<Guide>) -> Result<()> {
        // Inline for anything: the flat schema's arguments object and arrays.
        if let (Expect::Any, false) = (&self.expect, self.flat && self.nested(kind)) {
            return Ok(());
        }
        self.guide_by(kind, guide)
    }

    /// Whether the object or array (`kind`) being opened is one a flat
    /// schema leaves to the gates one by one: an object below the
    /// arguments object, or a container inside an array.
    fn nested(&self, kind: u8) -> bool {
        self.depth + usize::from(kind == shape::OBJECT) > 1
    }

    /// [`guide`](Self::guide) by a subschema, out of line.
    #[inline(never)]
    fn guide_by(&mut self, kind: u8, guide: &mut Option<Guide>) -> Result<()> {
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
    fn branch_ahead(&self, tagged: &Tagged) -> Option<(Id, (usize, u64))> {
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
    fn conclude(&mut self, guide: &Option<Guide>) {
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
    fn concluded(&self, many: &Many) -> u64 {
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
    fn mixed_key(&mut self, key: Key) -> Result<()> {
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
    fn member<T: DeserializeSeed<'de>>(
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
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.pos += 1;
        }
    }

    /// The first byte of the next value, which counts against the node
    /// limit.
    #[inline]
    fn value(&mut self) -> Result<u8> {
        self.skip_ws();
        self.nodes += 1;
        match self.peek() {
            Some(byte) if self.nodes <= self.node_limit => Ok(byte),
            _ => Err(self.stop()),
        }
    }

    /// Steps into the object or array whose bracket is at `pos`.
    fn open(&mut self) -> Result<()> {
        if self.depth >= self.depth_limit {
            return Err(self.stop_as("recursion limit exceeded"));
        }
        self.depth += 1;
        self.pos += 1;
        Ok(())
    }

    /// Steps out of the innermost container, whose closing bracket must
    /// come next.
    fn close(&mut self, bracket: u8) -> Result<()> {
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

    fn literal(&mut self, word: &[u8]) -> Result<()> {
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
    fn string(&mut self) -> Result<(usize, usize, bool)> {
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
    fn escaped_string(
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
    fn escape(&mut self) -> Result<char> {
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

    fn hex4(&mut self) -> Result<u32> {
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
    fn key(&mut self) -> Result<Key> {
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
    fn remember(&mut self, first: usize, key: Key) -> Result<()> {
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

    fn key_text(&self, key: Key) -> &[u8] {
        text_of(self.bytes, &self.arena, key)
    }

    /// Closes an object whose keys start at `first`: compares a wide
    /// object's keys, then forgets them.
    fn close_object(&mut self, first: usize) -> Result<()> {
        self.close(b'}')?;
        if self.keys.len() == first {
            // No key of its own to compare or forget.
            return Ok(());
        }
        self.forget_keys(first)
    }

    /// Compares a wide object's keys, from `first` on, and forgets them.
    #[inline(never)]
    fn forget_keys(&mut self, first: usize) -> Result<()> {
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
    fn number(&mut self) -> Result<Number> {
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
    fn any_number(&mut self) -> Result<Number> {
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
    fn digits(&mut self) -> Result<()> {
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
    fn number_value<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.value()? {
            b'-' | b'0'..=b'9' => self.visit_number(visitor, false),
            _ => Err(self.mismatch(&visitor)),
        }
    }

    /// [`number_value`](Self::number_value) for an integer type. Read
    /// without the schema, a number with a fraction stops the reader, so
    /// that an integer type takes only integers whatever its visitor takes
    /// (see [`Asked::Integer`]); the integer types refuse it anyway.
    fn integer_value<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.value()? {
            b'-' | b'0'..=b'9' => self.visit_number(visitor, true),
            _ => Err(self.mismatch(&visitor)),
        }
    }

    /// Reads the number at `pos` into `visitor`; for an `integer` type, read
    /// without the schema, only one written as an integer.
    fn visit_number<V: Visitor<'de>>(&mut self, visitor: V, integer: bool) -> Result<V::Value> {
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

    fn visit_string<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
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
    fn visit_map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
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
    fn open_map(&mut self, guide: &mut Option<Guide>) -> Result<usize> {
        self.guide(shape::OBJECT, guide)?;
        self.open()?;
        Ok(self.keys.len())
    }

    /// Steps out of the object whose keys start at `first`, and ends its
    /// check.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn close_map(&mut self, first: usize, guide: &Option<Guide>) -> Result<()> {
        self.close_object(first)?;
        self.conclude(guide);
        Ok(())
    }

    fn visit_seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
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
    fn item_read(&mut self, start: usize, unplain: usize, first: usize) -> Result<()> {
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
    fn all_read(&mut self, first: usize) -> Result<()> {
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
    fn skip(&mut self) -> Result<()> {
        let limit = self.depth_limit;
        if self.explaining() {
            self.depth_limit = usize::MAX;
        }
        let skipped = de::Deserializer::deserialize_any(&mut *self, de::IgnoredAny);
        self.depth_limit = limit;
        skipped.map(|_| ())
    }

    /// The text of the value at `pos`, read past.
    fn raw_value(&mut self) -> Result<&'de str> {
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
    fn by_serde_json<V: Visitor<'de>>(
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
    fn wide<V: Visitor<'de>>(
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

    fn visit_literal<V: Visitor<'de>>(&mut self, first: u8, visitor: V) -> Result<V::Value> {
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
fn skip_ws(bytes: &[u8], pos: usize) -> usize {
    let rest = bytes.get(pos..).unwrap_or_default();
    pos + rest
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        .count()
}

/// The text of the string at `pos` if it has no escape, and where it ends.
fn plain_string(bytes: &[u8], pos: usize) -> Option<(&[u8], usize)> {
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
fn string_end(bytes: &[u8], pos: usize) -> Option<usize> {
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

/// Each method listed reads as method `$to` does.
macro_rules! read_as {
    ($to:ident, $asked:expr => $($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.asked($asked);
            self.$to(visitor)
        }
    )*};
}

/// How long the 128-bit integer at the start of `text` is, as serde_json
/// reads one: a sign, then digits.
fn integer_len(text: &[u8]) -> usize {
    let signed = usize::from(text.first() == Some(&b'-'));
    let digits = text.get(signed..).unwrap_or_default();
    signed + digits.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// serde_json's reader of text.
type JsonReader<'de> = serde_json::Deserializer<serde_json::de::StrRead<'de>>;

/// The name under which serde_json's `RawValue` asks for its text.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// A raw value as serde_json hands it to `RawValue`: one entry, whose key
/// is the name and whose value is the value's text.
struct RawEntry<'de> {
    text: Option<&'de str>,
}

impl<'de> de::MapAccess<'de> for RawEntry<'de> {
    type Error = Stop;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.text.is_none() {
            return Ok(None);
        }
        seed.deserialize(de::value::BorrowedStrDeserializer::new(RAW_VALUE))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let text = self.text.take().unwrap_or_default();
        seed.deserialize(de::value::BorrowedStrDeserializer::new(text))
    }
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Other);
        match self.value()? {
            b'{' => self.visit_map(visitor),
            b'[' => self.visit_seq(visitor),
            b'"' => self.visit_string(visitor),
            b'-' | b'0'..=b'9' => self.visit_number(visitor, false),
            first @ (b't' | b'f' | b'n') => self.visit_literal(first, visitor),
            _ => Err(self.stop()),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Bool);
        match self.value()? {
            first @ (b't' | b'f') => self.visit_literal(first, visitor),
            _ => Err(self.mismatch(&visitor)),
        }
    }

    read_as!(integer_value, Asked::Integer => deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64);
    read_as!(integer_value, Asked::Integer => deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64);
    read_as!(number_value, Asked::Float => deserialize_f32 deserialize_f64);

    // serde_json reads these by a path of their own: left to the gates one
    // by one, which read them with serde_json.
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Other);
        self.wide(visitor, |json, visitor| json.deserialize_i128(visitor))
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Other);
        self.wide(visitor, |json, visitor| json.deserialize_u128(visitor))
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Str);
        match self.value()? {
            b'"' => self.visit_string(visitor),
            _ => Err(self.mismatch(&visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    // serde_json reads bytes from a string without checking its text:
    // left to the gates one by one, which read them with serde_json.
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Other);
        self.by_serde_json(visitor, |json, visitor| json.deserialize_bytes(visitor))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Other);
        self.by_serde_json(visitor, |json, visitor| json.deserialize_byte_buf(visitor))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip_ws();
        if self.peek() == Some(b'n') {
            self.value()?;
            self.literal(b"null")?;
            self.judge(shape::NULL, b"null")?;
            let visited = visitor.visit_none();
            self.watch(visited)
        } else {
            let visited = visitor.visit_some(&mut *self);
            self.watch(visited)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Other);
        match self.value()? {
            b'n' => self.visit_literal(b'n', visitor),
            _ => Err(self.mismatch(&visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    /// serde_json's own types (`RawValue`) are left to the separate
    /// gates, which read them as serde_json hands them over.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name.starts_with("$serde_json") {
            if name != RAW_VALUE || !self.explaining() {
                return Err(self.stop());
            }
            let text = self.raw_value()?;
            let visited = visitor.visit_map(RawEntry { text: Some(text) });
            return self.watch(visited);
        }
        let visited = visitor.visit_newtype_struct(&mut *self);
        self.watch(visited)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Seq);
        match self.value()? {
            b'[' => self.visit_seq(visitor),
            _ => Err(self.mismatch(&visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Other);
        match self.value() {
            Ok(b'{') => self.visit_map(visitor),
            Ok(_) => Err(self.mismatch(&visitor)),
            Err(stop) => Err(stop),
        }
    }

    /// Only from an object: serde_json also reads an array by position,
    /// which the schema does not allow (explaining, it is read, and the
    /// shape walk refuses it).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.asked(Asked::Other);
        match self.value()? {
            b'{' => self.visit_map(visitor),
            b'[' if self.explaining() => self.visit_seq(visitor),
            _ => Err(self.mismatch(&visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.asked(Asked::Enum(variants));
        match self.value()? {
            b'"' => {
                let visited = visitor.visit_enum(UnitVariant {
                    reader: &mut *self,
                    variants,
                });
                self.watch(visited)
            }
            b'{' => {
                let mut guide = None;
                self.guide(shape::OBJECT, &mut guide)?;
                self.open()?;
                let visited = visitor.visit_enum(Variant {
                    reader: &mut *self,
                    guide: &mut guide,
                });
                let value = self.watch(visited)?;
                self.skip_ws();
                if self.peek() != Some(b'}') {
                    return Err(self.stop_as("expected value"));
                }
                self.close(b'}')?;
                self.conclude(&guide);
                Ok(value)
            }
            _ => Err(self.stop_as("expected value")),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Other);
        self.deserialize_str(visitor)
    }

    /// An ignored value is read like any other: its limits, keys and text
    /// are checked all the same.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.asked(Asked::Other);
        self.skip()?;
        let visited = visitor.visit_unit();
        self.watch(visited)
    }
}

/// The entries of an object.
struct Entries<'r, 'de> {
    reader: &'r mut Reader<'de>,
    guide: &'r mut Option<Guide>,
    /// Where the object's keys start in `Reader::keys`.
    first: usize,
    started: bool,
}

impl<'r, 'de> Entries<'r, 'de> {
    /// Reads the next key up to its colon, checks it against the guide
    /// and the object's other keys, and gives its text; `None` at the
    /// object's end. Not generic, so compiled once, not once for each key
    /// type.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key(&mut self) -> Result<Option<(Text<'_, 'de>, Probe<'de>, Option<&'de str>)>> {
        let reader = &mut *self.reader;
        reader.skip_ws();
        match reader.peek() {
            Some(b'}') => {
                if reader.mixed && reader.depth == 1 && reader.verdict & 1 == 0 {
                    return Err(reader.stop());
                }
                return Ok(None);
            }
            Some(b',') if self.started => {
                reader.pos += 1;
                reader.skip_ws();
            }
            _ if !self.started => {}
            _ => return Err(reader.stop_as("expected `,` or `}`")),
        }
        self.started = true;
        if reader.peek() != Some(b'"') {
            return Err(reader.stop());
        }
        let quote = reader.pos;
        let key = reader.key()?;
        // Explaining: the key as written, quotes and all.
        let quoted = match reader.explaining() {
            true => reader.slice(quote, reader.pos),
            false => None,
        };
        reader.skip_ws();
        if reader.peek() != Some(b':') {
            return Err(reader.stop());
        }
        reader.pos += 1;
        let listed = match self.guide.as_mut() {
            Some(guide) if guide.is_tag_at(quote) => guide.tag_read(),
            Some(guide) => guide.key(reader.shape, text_of(reader.bytes, &reader.arena, key)),
            None => Listed::No,
        };
        match listed {
            Listed::New => {}
            Listed::Repeated => return Err(reader.stop()),
            // The arguments object's keys are compared by its type, if
            // closed: a repeat or an unlisted key is its refusal.
            Listed::No if reader.closed && reader.depth == 1 => {}
            Listed::No => reader.remember(self.first, key)?,
        }
        // A key no guided member's name is as long as is read without the
        // schema, once the member before it was accepted.
        if reader.mixed
            && reader.depth == 1
            && (reader.verdict & 1 == 0 || reader.shape.may_be_guided(key.end - key.start))
        {
            reader.mixed_key(key)?;
        }
        let probe = reader.probe.map(|found| (found, reader.pos));
        if key.decoded {
            let text = reader.arena.get(key.start..key.end).unwrap_or_default();
            return Ok(Some((Text::Copied(text), probe, quoted)));
        }
        match reader.slice(key.start, key.end) {
            Some(text) => Ok(Some((Text::Borrowed(text), probe, quoted))),
            None => Err(reader.stop()),
        }
    }
}

impl<'de> de::MapAccess<'de> for Entries<'_, 'de> {
    type Error = Stop;

    /// Inlined in optimized builds, so that a seed whose reading is a
    /// function pointer (the generated structs'
    /// [`Fields`](crate::wire::Fields)) calls it directly, its `match`
    /// inlined (without it, 2–3% more instructions a call). Not forced in
    /// debug builds, where forcing it would copy this body into every
    /// tool's reading of its arguments, for nothing.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some((text, probe, quoted)) = self.next_key()? else {
            return Ok(None);
        };
        let mut stopped = false;
        let mut captured = None;
        let read = seed.deserialize(KeyReader {
            text,
            stopped: &mut stopped,
            probe,
            explain: quoted.map(|quoted| (quoted, &mut captured)),
        });
        self.reader.stopped |= stopped;
        if self.reader.explaining() {
            self.reader.key_read(captured, read.is_err());
        }
        self.reader.watch(read).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        if self.reader.explaining() {
            let key = self.reader.take_key();
            return explained_member(self.reader, self.guide, key, seed);
        }
        self.reader.member(self.guide, seed)
    }
}

/// Explaining: reads a member below `step` into `seed`, the path kept as
/// serde_path_to_error keeps it. Out of the single pass's way.
#[cold]
#[inline(never)]
fn explained_member<'de, T: DeserializeSeed<'de>>(
    reader: &mut Reader<'de>,
    guide: &mut Option<Guide>,
    step: Option<Step>,
    seed: T,
) -> Result<T::Value> {
    reader.enter(step);
    let read = reader.member(guide, seed);
    reader.leave();
    read
}

/// The items of an array.
struct Items<'r, 'de> {
    reader: &'r mut Reader<'de>,
    guide: &'r mut Option<Guide>,
    /// The index of the next element.
    index: usize,
    /// Where the items are noted if they must differ (see
    /// [`Reader::item_read`]).
    unique: Option<usize>,
    /// Read without the schema, items that must differ and are all names
    /// of one list: the list, and a bit for each name seen.
    names: Option<(&'static [&'static str], u64)>,
}

impl Items<'_, '_> {
    /// Steps to the next element, checked against the guide; `false` at
    /// the array's end. Not generic, so compiled once, not once for each
    /// element type.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next(&mut self) -> Result<bool> {
        let reader = &mut *self.reader;
        reader.skip_ws();
        match reader.peek() {
            Some(b']') => return Ok(false),
            Some(b',') if self.index > 0 => reader.pos += 1,
            _ if self.index == 0 => {}
            _ => return Err(reader.stop_as("expected `,` or `]`")),
        }
        if let Some(guide) = self.guide.as_mut() {
            guide.index(reader.shape, self.index);
        }
        self.index += 1;
        Ok(true)
    }
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = Stop;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if !self.next()? {
            return Ok(None);
        }
        let reader = &mut *self.reader;
        if reader.explaining() {
            let step = Some(Step::Index(self.index - 1));
            return explained_member(reader, self.guide, step, seed).map(Some);
        }
        if let Some(first) = self.unique {
            reader.skip_ws();
            let (start, unplain) = (reader.pos, reader.unplain);
            reader.named = None;
            let read = reader.member(self.guide, seed)?;
            match reader.named.take() {
                Some((list, index)) => self.name_read(list, index, first)?,
                None if self.names.is_none() => reader.item_read(start, unplain, first)?,
                None => return Err(reader.stop()),
            }
            return Ok(Some(read));
        }
        reader.member(self.guide, seed).map(Some)
    }
}

impl Items<'_, '_> {
    /// Notes an item of an array whose items must differ, read without the
    /// schema as name `index` of `list`: a name seen before is a repeat.
    /// Names of one list are told apart by their index, with no text
    /// compared; an array whose items are not all names of one list stops
    /// the reader, and the gates one by one compare them.
    fn name_read(
        &mut self,
        list: &'static [&'static str],
        index: usize,
        first: usize,
    ) -> Result<()> {
        let bit = 1u64.checked_shl(u32::try_from(index).unwrap_or(u32::MAX));
        match (&mut self.names, bit) {
            (Some((seen_list, seen)), Some(bit))
                if core::ptr::eq(*seen_list, list) && *seen & bit == 0 =>
            {
                *seen |= bit;
                Ok(())
            }
            (None, Some(bit)) if self.reader.items.len() == first => {
                self.names = Some((list, bit));
                Ok(())
            }
            _ => Err(self.reader.stop()),
        }
    }
}

/// An enum written as its variant's name.
struct UnitVariant<'r, 'de> {
    reader: &'r mut Reader<'de>,
    /// The names its type reads, as it says (see [`Asked::Enum`]).
    variants: &'static [&'static str],
}

impl<'r, 'de> de::EnumAccess<'de> for UnitVariant<'r, 'de> {
    type Error = Stop;
    type Variant = Unit<'r, 'de>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Unit<'r, 'de>)> {
        if self.reader.explaining() {
            let read = self.reader.variant_name(seed)?;
            return Ok((read, Unit(self.reader)));
        }
        let quote = self.reader.pos;
        let (read, key) = name(self.reader, seed)?;
        // Without the schema, only a name the type says it reads: the
        // proof holds each such list to the schema's (see `crate::register::proven`).
        // Which it is is noted, for an array whose items must differ.
        if self.reader.flat {
            let text = text_of(self.reader.bytes, &self.reader.scratch, key);
            let listed = (self.variants.iter())
                .position(|v| crate::json::text::same_text(v.as_bytes(), text));
            let Some(index) = listed else {
                return Err(self.reader.stop());
            };
            self.reader.named = Some((self.variants, index));
        }
        let raw = self
            .reader
            .bytes
            .get(quote..self.reader.pos)
            .unwrap_or_default();
        self.reader.judge(shape::STRING, raw)?;
        Ok((read, Unit(self.reader)))
    }
}

/// What is left of an enum written as its variant's name: nothing but to
/// say it has no content. One word, so that the name and it come back
/// in two registers.
struct Unit<'r, 'de>(&'r mut Reader<'de>);

impl<'de> de::VariantAccess<'de> for Unit<'_, 'de> {
    type Error = Stop;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _: T) -> Result<T::Value> {
        Err(self.0.not_unit("newtype variant"))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value> {
        Err(self.0.not_unit("tuple variant"))
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], _: V) -> Result<V::Value> {
        Err(self.0.not_unit("struct variant"))
    }
}

/// An enum written as an object of one key, its variant's name.
struct Variant<'r, 'de> {
    reader: &'r mut Reader<'de>,
    guide: &'r mut Option<Guide>,
}

impl<'de> de::EnumAccess<'de> for Variant<'_, 'de> {
    type Error = Stop;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self)> {
        let reader = &mut *self.reader;
        if reader.explaining() {
            let read = reader.variant_name(seed)?;
            reader.skip_ws();
            reader.pos += 1;
            return Ok((read, self));
        }
        reader.skip_ws();
        if reader.peek() != Some(b'"') {
            return Err(reader.stop());
        }
        let (read, key) = name(reader, seed)?;
        if let Some(guide) = self.guide.as_mut() {
            // The only key of its object: nothing to compare it with.
            let _ = guide.key(reader.shape, text_of(reader.bytes, &reader.scratch, key));
        }
        reader.skip_ws();
        if reader.peek() != Some(b':') {
            return Err(reader.stop());
        }
        reader.pos += 1;
        Ok((read, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_, 'de> {
    type Error = Stop;

    /// `{"Unit": null}`: serde_json reads it, the schema does not allow it
    /// (explaining, it is read, and the shape walk refuses it).
    fn unit_variant(self) -> Result<()> {
        if !self.reader.explaining() {
            return Err(self.reader.stop());
        }
        self.variant_content(core::marker::PhantomData::<()>)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        self.variant_content(seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.variant_content(Seq(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.variant_content(Object(visitor))
    }
}

impl<'de> Variant<'_, 'de> {
    /// Reads the variant's content into `seed`, under the variant's name
    /// when explaining.
    fn variant_content<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        if self.reader.explaining() {
            let variant = self.reader.take_key();
            return explained_member(self.reader, self.guide, variant, seed);
        }
        self.reader.member(self.guide, seed)
    }
}

/// A variant's content read as an array.
struct Seq<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Seq<V> {
    type Value = V::Value;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> core::result::Result<V::Value, D::Error> {
        d.deserialize_seq(self.0)
    }
}

/// A variant's content read as an object.
struct Object<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Object<V> {
    type Value = V::Value;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> core::result::Result<V::Value, D::Error> {
        d.deserialize_struct("", &[], self.0)
    }
}

/// Reads the variant name whose quote is at `pos` into `seed`; says
/// where its text is (decoded in `scratch` if it had escapes).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn name<'de, T: DeserializeSeed<'de>>(
    reader: &mut Reader<'de>,
    seed: T,
) -> Result<(T::Value, Key)> {
    let (start, end, escaped) = reader.string()?;
    let key = if escaped {
        Key {
            start: 0,
            end: reader.scratch.len(),
            decoded: true,
        }
    } else {
        Key {
            start,
            end,
            decoded: false,
        }
    };
    let text = if escaped {
        Text::Copied(&reader.scratch)
    } else {
        match reader.slice(start, end) {
            Some(text) => Text::Borrowed(text),
            None => return Err(reader.stop()),
        }
    };
    let mut stopped = false;
    let read = seed.deserialize(KeyReader {
        text,
        stopped: &mut stopped,
        probe: None,
        explain: None,
    });
    reader.stopped |= stopped;
    reader.watch(read).map(|read| (read, key))
}

/// A key's text: borrowed from the input, or decoded.
#[derive(Clone, Copy)]
enum Text<'a, 'de> {
    Borrowed(&'de str),
    Copied(&'a str),
}

/// The deserializer of an object key or a variant name, read as
/// serde_json reads them: as a string, whatever is asked for. A key that
/// serde_json would parse as a number or a boolean is left to the separate
/// gates.
///
/// Probing map keys (`probe`), it records the first key whose type asks
/// for anything that parses its text, and reads numbers, booleans and
/// variant names as serde_json does, so that the probe goes on past them;
/// and notes how each integer, `bool`, `char` and enum key was read (see
/// [`key_reads`]).
///
/// Explaining (`explain`: the key as written, quotes and all, and where to
/// capture what its type read of it), it reads every request as
/// serde_json's map keys do, but a number key by its value, as the
/// schema's key pattern reads it (see [`KeyReader::number_key`]).
struct KeyReader<'a, 'de> {
    text: Text<'a, 'de>,
    stopped: &'a mut bool,
    probe: Probe<'a>,
    explain: Option<(&'de str, &'a mut Option<String>)>,
}

/// Where a probe of map keys records what a key's type asked for, and
/// the offset just past the key.
type Probe<'a> = Option<(&'a Cell<Option<KeyParse>>, usize)>;

impl<'de> KeyReader<'_, 'de> {
    fn stop(self) -> Stop {
        *self.stopped = true;
        stop()
    }

    fn as_str(&self) -> &str {
        match self.text {
            Text::Borrowed(text) | Text::Copied(text) => text,
        }
    }

    /// Explaining: notes that the key's type read it as its text.
    #[cold]
    fn capture_text(&mut self) {
        let (Text::Borrowed(text) | Text::Copied(text)) = self.text;
        self.capture(text);
    }

    /// Explaining: notes that serde asked for the key as any value or a
    /// field's name, and read it as its text (see [`keys_read_as_text`]).
    #[cold]
    fn capture_read_as_text(&mut self) {
        READ_AS_TEXT.set(true);
        self.capture_text();
    }

    /// Explaining: notes that the key's type read it as `text`.
    fn capture(&mut self, text: &str) {
        if let Some((_, captured)) = &mut self.explain {
            **captured = Some(text.to_owned());
        }
    }

    /// serde_json's last check of a number key: its closing quote comes
    /// right after the number.
    fn quoted_after(inner: &str, end: usize) -> Result<()> {
        if end == inner.len() {
            Ok(())
        } else {
            Err(de::Error::custom("expected `\"`"))
        }
    }
}

impl<'a, 'de: 'a> KeyReader<'a, 'de> {
    /// Explaining: a number key read as serde_json reads a number key (a
    /// number right after the opening quote, the closing quote right after
    /// the number), from the key's text with its escapes decoded: the
    /// schema's key pattern reads `"\u0037"` as `7`, and so does the
    /// server, where serde_json refuses it.
    fn number_key<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let Some(inner) = self.numeric()? else {
            return Err(self.stop());
        };
        let mut trail = Trail::default();
        let mut number = Reader::new(
            inner.as_bytes(),
            Some(inner),
            &Limits::default(),
            no_shape(),
        );
        number.trail = Some(&mut trail);
        let read = number.number()?;
        match read {
            Number::U64(v) => self.capture(&v.to_string()),
            Number::I64(v) => self.capture(&v.to_string()),
            Number::F64(_) => {}
        }
        let value = read.visit(visitor)?;
        Self::quoted_after(inner, number.pos)?;
        Ok(value)
    }

    /// Explaining: a 128-bit integer key, read by value as
    /// [`Self::number_key`] reads, with serde_json's rules for a 128-bit
    /// integer: a sign, then digits without a leading zero, in range. `-0`
    /// is refused, as for every other integer key: it would be a second
    /// spelling of the key `0`, which the schema's key pattern refuses.
    fn wide_key<T: core::str::FromStr, V: Visitor<'de>>(
        mut self,
        visitor: V,
        visit: fn(V, T) -> Result<V::Value>,
    ) -> Result<V::Value> {
        let Some(inner) = self.numeric()? else {
            return Err(self.stop());
        };
        let end = integer_len(inner.as_bytes());
        let integer = inner.get(..end).unwrap_or_default();
        let digits = integer.strip_prefix('-').unwrap_or(integer);
        if matches!(digits.as_bytes(), [] | [b'0', _, ..]) {
            return Err(de::Error::custom("invalid number"));
        }
        let Ok(n) = integer.parse::<T>() else {
            return Err(de::Error::custom("number out of range"));
        };
        if integer == "-0" {
            return Err(de::Error::custom("invalid number"));
        }
        let value = visit(visitor, n)?;
        self.capture(integer);
        Self::quoted_after(inner, end)?;
        Ok(value)
    }

    /// Explaining: the key's text, escapes decoded, if it may be a number
    /// (serde_json's first check of a number key); `None` when not
    /// explaining.
    fn numeric(&self) -> Result<Option<&'a str>> {
        if self.explain.is_none() {
            return Ok(None);
        }
        let (Text::Borrowed(inner) | Text::Copied(inner)) = self.text;
        match inner.as_bytes().first() {
            Some(b'0'..=b'9' | b'-') => Ok(Some(inner)),
            _ => Err(de::Error::custom(
                "invalid value: expected key to be a number in quotes",
            )),
        }
    }

    /// The key's type asked for `reads`, which may parse the key's text:
    /// a stop when probing, after the first is recorded.
    fn parses(self, reads: &'static str) -> core::result::Result<Self, Stop> {
        match self.probe {
            Some((found, at)) => {
                if found.get().is_none() {
                    found.set(Some((at, reads)));
                }
                Err(self.stop())
            }
            None => Ok(self),
        }
    }

    /// The key's text, when probing (a key that keeps its spelling), and
    /// the offset just past its colon.
    fn probed_at(self) -> core::result::Result<(&'a str, usize), Stop> {
        match (self.probe, self.text) {
            (Some((_, at)), Text::Borrowed(text) | Text::Copied(text)) => Ok((text, at)),
            (None, _) => Err(self.stop()),
        }
    }
}

/// Probing registration's instance, whose keys its schema accepts (see
/// `crate::register::keys`): a key that a `bool`, a `char` or an enum key type
/// refuses is one the schema accepts and the server refuses, where the
/// definition could not state what the type reads (an enum whose names
/// have aliases, a type of its own over a `char` that takes fewer
/// characters). Recorded as a parse is (see [`probing_keys`]), for
/// registration to refuse the tool.
fn refused_key<T>(probe: Probe<'_>, read: &Result<T>, at: usize, reads: &'static str) {
    if let (Err(_), Some((found, _))) = (read, probe)
        && found.get().is_none()
    {
        found.set(Some((at, reads)));
    }
}

/// Methods whose request may parse the key: recorded when probing, then
/// read as before.
macro_rules! parses {
    ($($method:ident($($arg:ident: $ty:ty),*) => $read:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
            let key = self.parses(stringify!($method))?;
            key.$read(visitor)
        }
    )*};
}

/// Methods for number keys: read by value when explaining (see
/// [`KeyReader::number_key`]), as Rust parses them when probing (each
/// noted for [`key_reads`]), else left to the separate gates.
macro_rules! number_keys {
    ($($method:ident => $ty:ty, $visit:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if self.explain.is_some() {
                return self.number_key(visitor);
            }
            let (text, at) = self.probed_at()?;
            let read = match text.parse::<$ty>() {
                Ok(n) => visitor.$visit(n),
                Err(_) => Err(stop()),
            };
            note_key(at, stringify!($method), read.is_ok(), &[]);
            read
        }
    )*};
}

/// Methods for 128-bit integer keys: read by value when explaining (see
/// [`KeyReader::wide_key`]), as Rust parses them when probing (each noted
/// for [`key_reads`]), else left to the separate gates.
macro_rules! wide_keys {
    ($($method:ident => $ty:ty, $visit:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if self.explain.is_some() {
                return self.wide_key::<$ty, V>(visitor, V::$visit);
            }
            let (text, at) = self.probed_at()?;
            let read = match text.parse::<$ty>() {
                Ok(n) => visitor.$visit(n),
                Err(_) => Err(stop()),
            };
            note_key(at, stringify!($method), read.is_ok(), &[]);
            read
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyReader<'_, 'de> {
    type Error = Stop;

    /// Asked for any value, serde buffers the key: its type, if it is a
    /// map's, reads it from there (see [`keys_read_as_text`]).
    #[inline]
    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        if self.explain.is_some() {
            self.capture_read_as_text();
        }
        match self.text {
            Text::Borrowed(text) => visitor.visit_borrowed_str(text),
            Text::Copied(text) => visitor.visit_str(text),
        }
    }

    /// A struct's member name: a map flattened into the struct reads a
    /// member it does not list from serde's buffer (see
    /// [`keys_read_as_text`]).
    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        if self.explain.is_some() {
            self.capture_read_as_text();
        }
        match self.text {
            Text::Borrowed(text) => visitor.visit_borrowed_str(text),
            Text::Copied(text) => visitor.visit_str(text),
        }
    }

    /// A string key, read as its text.
    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.text(visitor)
    }

    /// Ignored, read as text.
    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.text(visitor)
    }

    /// A `char` key: its text, which the type takes if it is one
    /// character. Noted when probing (see [`key_reads`]).
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.probe {
            Some((_, at)) => {
                let probe = self.probe;
                let read = self.text(visitor);
                note_key(at, "deserialize_char", read.is_ok(), &[]);
                refused_key(probe, &read, at, "deserialize_char");
                read
            }
            None => self.text(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let key = self.parses("deserialize_option")?;
        visitor.visit_some(key)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name.starts_with("$serde_json") {
            return Err(self.stop());
        }
        visitor.visit_newtype_struct(self)
    }

    /// `true` and `false`, read by value (escapes decoded), as the
    /// schema's key pattern reads them (see `crate::register::keys`): serde_json
    /// reads them only as written plainly between the quotes. Any other
    /// key is refused as serde_json refuses it (naming it from its second
    /// character on). Probing, each is noted (see [`key_reads`]).
    fn deserialize_bool<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        if self.explain.is_none() {
            let probe = self.probe;
            let (text, at) = self.probed_at()?;
            let read = match text {
                "true" => visitor.visit_bool(true),
                "false" => visitor.visit_bool(false),
                _ => Err(stop()),
            };
            note_key(at, "deserialize_bool", read.is_ok(), &[]);
            refused_key(probe, &read, at, "deserialize_bool");
            return read;
        }
        let text = self.as_str().to_owned();
        match text.as_str() {
            "true" | "false" => {
                self.capture(&text);
                visitor.visit_bool(text == "true")
            }
            text if text.starts_with('t') || text.starts_with('f') => {
                Err(de::Error::custom("expected ident"))
            }
            text => {
                let rest = text.get(text.chars().next().map_or(0, char::len_utf8)..);
                Err(de::Error::invalid_type(
                    de::Unexpected::Str(rest.unwrap_or_default()),
                    &visitor,
                ))
            }
        }
    }

    number_keys! {
        deserialize_i8 => i64, visit_i64;
        deserialize_i16 => i64, visit_i64;
        deserialize_i32 => i64, visit_i64;
        deserialize_i64 => i64, visit_i64;
        deserialize_u8 => u64, visit_u64;
        deserialize_u16 => u64, visit_u64;
        deserialize_u32 => u64, visit_u64;
        deserialize_u64 => u64, visit_u64;
    }

    wide_keys! {
        deserialize_i128 => i128, visit_i128;
        deserialize_u128 => u128, visit_u128;
    }

    /// A variant's name. Probing, noted with every name the enum reads
    /// (see [`key_reads`]).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if self.explain.is_some() {
            let text = self.as_str().to_owned();
            return visitor.visit_enum(de::value::StringDeserializer::<Stop>::new(text));
        }
        let probe = self.probe;
        let (text, at) = self.probed_at()?;
        let index = text
            .strip_prefix(VARIANT_INDEX)
            .and_then(|i| i.parse::<u32>().ok());
        let read = match index {
            Some(index) => visitor.visit_enum(de::value::U32Deserializer::<Stop>::new(index)),
            None => visitor.visit_enum(de::value::StringDeserializer::<Stop>::new(text.to_owned())),
        };
        note_key(at, "deserialize_enum", read.is_ok(), variants);
        refused_key(probe, &read, at, "deserialize_enum");
        read
    }

    parses! {
        deserialize_f32() => number_key;
        deserialize_f64() => number_key;
        deserialize_bytes() => bytes;
        deserialize_byte_buf() => bytes;
        deserialize_str() => text;
        deserialize_unit() => text;
        deserialize_unit_struct(_name: &'static str) => text;
        deserialize_seq() => text;
        deserialize_tuple(_len: usize) => text;
        deserialize_tuple_struct(_name: &'static str, _len: usize) => text;
        deserialize_map() => text;
        deserialize_struct(_name: &'static str, _fields: &'static [&'static str]) => text;
    }
}

impl<'de> KeyReader<'_, 'de> {
    /// The key as its text, as serde_json gives a key to whatever its type
    /// asks for.
    #[inline]
    fn text<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        if self.explain.is_some() {
            self.capture_text();
        }
        match self.text {
            Text::Borrowed(text) => visitor.visit_borrowed_str(text),
            Text::Copied(text) => visitor.visit_str(text),
        }
    }

    /// Explaining: the key's bytes, read by serde_json as it reads a
    /// string's; else a stop.
    fn bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let Some((quoted, _)) = self.explain else {
            return Err(self.stop());
        };
        let mut json = serde_json::Deserializer::from_str(quoted);
        de::Deserializer::deserialize_bytes(&mut json, visitor).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::Value;

    use super::*;
    use crate::gate::bounded;

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Args {
        name: String,
        count: u32,
        #[serde(default)]
        ratio: Option<f64>,
        #[serde(default)]
        tags: Vec<String>,
        window: Option<Window>,
        shape: Option<Figure>,
        step: Option<Step>,
        meta: Option<HashMap<String, i64>>,
        extra: Option<serde_json::Value>,
        signed: Option<i64>,
        tone: Option<Tone>,
        /// Whose items must differ (`uniqueItems`).
        set: Option<std::collections::BTreeSet<i64>>,
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Window {
        days: u32,
        #[serde(rename = "from")]
        start: Option<String>,
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
    enum Figure {
        Dot,
        Circle { radius: f64 },
        Square { side: u32 },
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    enum Step {
        Stop,
        Go(u32),
        Turn { degrees: i32 },
        Pair(u8, u8),
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(tag = "t", content = "c", deny_unknown_fields)]
    enum Tone {
        Quiet,
        Loud(u8),
    }

    fn limits() -> Limits {
        Limits::default()
    }

    /// Reads `json` both ways the toolbox may: with the text known to be
    /// UTF-8, and checking each string as it is read. Both must agree.
    fn read<A: DeserializeOwned + PartialEq + fmt::Debug>(
        json: &str,
        limits: &Limits,
        shape: &Shape,
    ) -> Option<A> {
        let known = super::read::<A>(json.as_bytes(), Some(json), limits, shape);
        let checked = super::read::<A>(json.as_bytes(), None, limits, shape);
        assert_eq!(known, checked, "{json}");
        known
    }

    #[test]
    fn a_comma_out_of_place_stops_the_reader() {
        let shape = Shape::default();
        for doc in [
            r#"{,"a":1}"#,
            r#"{"a":1 "b":2}"#,
            r#"{"a":[,1]}"#,
            r#"{"a":[1 2]}"#,
        ] {
            assert_eq!(read::<Value>(doc, &limits(), &shape), None, "{doc}");
        }
        let doc = r#"{"a":[1,2],"b":{}}"#;
        let expected = serde_json::json!({"a": [1, 2], "b": {}});
        assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
    }

    #[test]
    fn booleans_and_units_asked_for_by_name_are_read_in_one_pass() {
        #[derive(Debug, PartialEq, Deserialize)]
        struct Flags {
            on: bool,
            off: bool,
            nothing: (),
        }
        let doc = r#"{"on":true,"off":false,"nothing":null}"#;
        let expected = Flags {
            on: true,
            off: false,
            nothing: (),
        };
        assert_eq!(
            read::<Flags>(doc, &limits(), &Shape::default()),
            Some(expected)
        );
    }

    /// An integer read by a type that catches the error, as `None`.
    #[derive(Debug, PartialEq, Eq, Hash)]
    struct Lenient(Option<u32>);

    impl<'de> Deserialize<'de> for Lenient {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
            Ok(Lenient(u32::deserialize(d).ok()))
        }
    }

    #[test]
    fn a_key_type_that_swallows_the_readers_stop_still_stops_it() {
        // A key the reader leaves to the separate gates (an integer), read
        // by a type that catches the error: the reader must not accept the
        // value it made of it, which is not serde_json's.
        #[derive(Debug, PartialEq, Deserialize)]
        struct Counts {
            by: std::collections::HashMap<Lenient, u8>,
        }
        let doc = r#"{"by":{"7":1}}"#;
        assert_eq!(read::<Counts>(doc, &limits(), &Shape::default()), None);
        let gates: Counts = serde_json::from_str(doc).unwrap();
        assert_eq!(gates.by.get(&Lenient(Some(7))), Some(&1));
    }

    #[test]
    fn a_variant_name_type_that_swallows_the_readers_stop_still_stops_it() {
        // The same for a variant's name, in the object form, where
        // serde_json reads an integer name as the integer.
        #[derive(Debug, PartialEq)]
        struct Picked(Option<u32>, u8);
        impl<'de> Deserialize<'de> for Picked {
            fn deserialize<D: serde::Deserializer<'de>>(
                d: D,
            ) -> core::result::Result<Self, D::Error> {
                struct Picker;
                impl<'de> Visitor<'de> for Picker {
                    type Value = Picked;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a numbered variant")
                    }
                    fn visit_enum<E: de::EnumAccess<'de>>(
                        self,
                        data: E,
                    ) -> core::result::Result<Picked, E::Error> {
                        use de::VariantAccess as _;
                        let (Lenient(name), variant) = data.variant::<Lenient>()?;
                        Ok(Picked(name, variant.newtype_variant::<u8>()?))
                    }
                }
                d.deserialize_enum("Picked", &["7"], Picker)
            }
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct Choice {
            p: Picked,
        }
        let doc = r#"{"p":{"7":1}}"#;
        assert_eq!(read::<Choice>(doc, &limits(), &Shape::default()), None);
        let gates: Choice = serde_json::from_str(doc).unwrap();
        assert_eq!(gates.p, Picked(Some(7), 1));
    }

    #[test]
    fn a_misspelt_or_cut_literal_stops_the_reader() {
        let shape = Shape::default();
        for doc in [
            r#"{"a":trux}"#,
            r#"{"a":fals}"#,
            r#"{"a":nulL}"#,
            r#"{"a":tru"#,
        ] {
            assert_eq!(read::<Value>(doc, &limits(), &shape), None, "{doc}");
        }
        let doc = r#"{"a":true,"b":false,"c":null}"#;
        let expected = serde_json::json!({"a": true, "b": false, "c": null});
        assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
    }

    #[test]
    fn a_member_read_against_a_union_and_its_branch_at_once() {
        // `x` is read against U and V together, U is a union over V, and
        // the verdict of each is its own: U is no better than V.
        let schema = serde_json::json!({"anyOf":[
            {"type":"object","properties":{"x":{"$ref":"#/$defs/U"},"y":{}},"required":["x","y"]},
            {"type":"object","properties":{"x":{"$ref":"#/$defs/V"}},"required":["x"]}
        ],"$defs":{"U":{"anyOf":[{"$ref":"#/$defs/V"}]},"V":{"type":"integer"}}});
        let shape = Shape::new(&schema);
        let doc = r#"{"x":1}"#;
        let expected = serde_json::json!({"x": 1});
        assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
        let doc = r#"{"x":1,"y":2}"#;
        let expected = serde_json::json!({"x": 1, "y": 2});
        assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
        assert_eq!(read::<Value>(r#"{"x":"s","y":1}"#, &limits(), &shape), None);
        // V first: its refusal, settled, is still a refusal when U asks.
        let schema = serde_json::json!({"anyOf":[
            {"type":"object","properties":{"x":{"$ref":"#/$defs/V"}},"required":["x"]},
            {"type":"object","properties":{"x":{"$ref":"#/$defs/U"},"y":{}},"required":["x","y"]}
        ],"$defs":{"U":{"anyOf":[{"$ref":"#/$defs/V"}]},"V":{"type":"integer"}}});
        let shape = Shape::new(&schema);
        assert_eq!(read::<Value>(r#"{"x":"s","y":1}"#, &limits(), &shape), None);
        let doc = r#"{"x":1,"y":2}"#;
        let expected = serde_json::json!({"x": 1, "y": 2});
        assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
    }

    #[test]
    fn a_container_among_choices_is_left_to_the_walk() {
        // The reader compares scalars with `enum` and `const`, not objects
        // or arrays: it stops on those, whatever the choices, and the walk
        // decides. Alone and as a union's branch.
        let lone = serde_json::json!({"type":"object","properties":{
            "o":{"type":"object","const":{"a":1}},
            "l":{"type":"array","enum":[[1],[2]]},
            "s":{"enum":[1,"x"]}
        }});
        let union = serde_json::json!({"type":"object","properties":{
            "o":{"anyOf":[{"type":"object","const":{"a":1}},{"type":"null"}]},
            "l":{"anyOf":[{"type":"array","enum":[[1],[2]]},{"type":"null"}]},
            "s":{"anyOf":[{"enum":[1,"x"]},{"type":"null"}]}
        }});
        for schema in [lone, union] {
            let shape = Shape::new(&schema);
            for doc in [
                r#"{"o":{"a":1}}"#,
                r#"{"o":{"a":2}}"#,
                r#"{"l":[1]}"#,
                r#"{"l":[3]}"#,
                r#"{"s":{"a":1}}"#,
                r#"{"s":[1]}"#,
            ] {
                assert_eq!(
                    read::<Value>(doc, &limits(), &shape),
                    None,
                    "{schema} {doc}"
                );
            }
            let doc = r#"{"s":"x"}"#;
            let expected = serde_json::json!({"s": "x"});
            assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
        }
    }

    #[test]
    fn every_escape_is_read_as_serde_json_reads_it() {
        // A document with escapes is read in one pass, not left to the
        // separate gates, and decoded alike.
        let shape = Shape::default();
        let doc = r#"{"a":"\\ \" \/ \b \f \n \r \t \u00e9 \ud83d\ude00","b\tc":1}"#;
        let expected: Value = serde_json::from_str(doc).unwrap();
        assert_eq!(read::<Value>(doc, &limits(), &shape), Some(expected));
    }

    #[test]
    fn a_union_past_64_subschemas_stops_the_reader() {
        // A union and each of its branches take a bit of a 64-bit verdict:
        // with 63 branches the reader decides, with 64 it leaves the
        // document to the separate gates, scalars and containers alike.
        for (branches, read_whole) in [(63, true), (64, false)] {
            // Branches that are not lists of constants, which the schema's
            // compilation would merge into one.
            let branch = |n: usize, kinds: Value| {
                let key = format!("k{n}");
                serde_json::json!({
                    "type": kinds,
                    "properties": {(key.clone()): {"type": "integer"}},
                    "required": [key],
                    "additionalProperties": false
                })
            };
            let scalars: Vec<Value> = (0..branches)
                .map(|n| branch(n, serde_json::json!(["integer", "object"])))
                .collect();
            let objects: Vec<Value> = (0..branches)
                .map(|n| branch(n, serde_json::json!("object")))
                .collect();
            let schema = serde_json::json!({
                "type": "object",
                "properties": {"s": {"anyOf": scalars}, "o": {"anyOf": objects}},
                "additionalProperties": false
            });
            let shape = Shape::new(&schema);
            let last = branches - 1;
            for doc in [
                format!(r#"{{"s":{last}}}"#),
                format!(r#"{{"o":{{"k{last}":1}}}}"#),
            ] {
                let read = read::<Value>(&doc, &limits(), &shape);
                assert_eq!(read.is_some(), read_whole, "{branches} branches: {doc}");
            }
            // A string, which no branch takes, is refused by the union
            // whose own keywords say nothing.
            let doc = r#"{"s":"x"}"#;
            assert_eq!(
                read::<Value>(doc, &limits(), &shape),
                None,
                "{branches} branches"
            );
        }
    }

    #[test]
    fn text_that_is_not_utf8_stops_the_reader() {
        let shape = Shape::default();
        for doc in [
            &b"{\"a\":\"\xff\"}"[..],
            b"{\"\xc3\":1}",
            b"{\"a\":\"x\\n\xed\xa0\x80\"}",
            b"{\"a\":1}\xff",
        ] {
            assert!(super::read::<Value>(doc, None, &limits(), &shape).is_none());
        }
        let fine = "{\"caf\u{e9}\":\"\u{1f600}\\n\"}";
        assert!(super::read::<Value>(fine.as_bytes(), None, &limits(), &shape).is_some());
    }

    /// What the gates one by one make of `json`, a document of [`Args`]:
    /// the scan, then serde_json over the text with integers written
    /// plainly where its schema reads integers.
    fn separately<A: DeserializeOwned>(json: &str, limits: &Limits) -> Option<A> {
        let raw = bounded::scan(json.as_bytes(), limits).ok()?;
        let text = if raw.has_spelled_integers() {
            crate::gate::structural::integers::with_plain_integers(json, args_shape())
        } else {
            json.into()
        };
        serde_json::from_str(&text).ok()
    }

    /// The shape of [`Args`]'s schema, made once.
    fn args_shape() -> &'static Shape {
        static SHAPE: OnceLock<Shape> = OnceLock::new();
        SHAPE.get_or_init(|| schema().1)
    }

    /// The schema of [`Args`] as a tool publishes it, and its shape.
    fn schema() -> (Value, Shape) {
        let schema = crate::schema::canonical::<Args>();
        let shape = Shape::new(&schema);
        (schema, shape)
    }

    fn reads(json: &str) -> bool {
        read::<Args>(json, &limits(), &schema().1).is_some()
    }

    const BASE: &str = r#"{"name":"a","count":1"#;

    fn with(rest: &str) -> String {
        format!("{BASE}{rest}}}")
    }

    #[test]
    fn reads_what_serde_json_reads_the_same_way() {
        let docs = [
            with(""),
            with(r#","ratio":2.5,"tags":["x","y\n","\u00e9\ud83d\ude00"]"#),
            with(r#","window":{"days":7,"from":"mon"},"shape":{"kind":"circle","radius":1.5}"#),
            with(r#","shape":{"radius":0.5,"kind":"circle"},"step":"Stop""#),
            with(r#","step":{"Turn":{"degrees":-90}},"tone":{"t":"Loud","c":3}"#),
            with(r#","step":{"Pair":[1,2]},"tone":{"t":"Quiet"},"signed":-9223372036854775808"#),
            with(r#","meta":{"a":1,"b":-2},"extra":{"x":[1,-1,0.25,"s",null,true,{}]}"#),
            with(r#"  ,  "step" : { "Go" : 4294967295 } ,"name\u0032":null"#).replacen(
                "\"name\\u0032\":null",
                "\"signed\":0",
                1,
            ),
            format!(" \n\t{}\n ", with("")),
        ];
        let (_, shape) = schema();
        for doc in &docs {
            let single = read::<Args>(doc, &limits(), &shape);
            let separate = separately::<Args>(doc, &limits());
            assert!(single.is_some(), "the reader stopped on {doc}");
            assert_eq!(single, separate, "{doc}");
        }
    }

    /// The items of an array whose items must differ are compared as the
    /// reader reads them: each with the first eight, and all of them
    /// sorted past eight. A repeat is left to the walk: the reader stops
    /// where the walk refuses. (The fractions are refused by the set's
    /// integer type; an item written with an escape, which the reader
    /// also leaves to the walk, is held by `schema_agreement`.)
    #[test]
    fn a_repeat_in_a_set_stops_the_reader_however_far_apart() {
        let (schema, shape) = schema();
        for (set, fine) in [
            ("[]", true),
            ("[1,2,3]", true),
            ("[1,2,3,4,5,6,7,8,9,10,11]", true),
            ("[1,2,3,1]", false),
            ("[1,2,3,4,5,6,7,8,9,10,1]", false),
            ("[1,2,3,4,5,6,7,8,9,10,9]", false),
            ("[2.5,2.50]", false),
            ("[2.5,25e-1]", false),
        ] {
            let doc = with(&format!(r#","set":{set}"#));
            assert_eq!(
                read::<Args>(&doc, &limits(), &shape).is_some(),
                fine,
                "{doc}"
            );
            assert_eq!(shape.check(&doc, &schema).is_ok(), fine, "{doc}");
        }
    }

    /// A key the schema lists is compared by the schema's check, any other
    /// by the reader: a repeat is found whichever of them saw it first,
    /// also once the schema's check has refused the object.
    #[test]
    fn repeated_keys_are_found_listed_or_not() {
        let (_, shape) = schema();
        for doc in [
            r#"{"name":"a","count":1,"name":"b"}"#,
            r#"{"name":"a","bogus":1,"name":"b"}"#,
            r#"{"bogus":1,"name":"a","bogus":2}"#,
            r#"{"name":"a","count":1,"meta":{"x":1,"y":2,"x":3}}"#,
            r#"{"name":"a","count":1,"window":{"days":1,"zzz":0,"days":2}}"#,
        ] {
            assert!(read::<Value>(doc, &limits(), &shape).is_none(), "{doc}");
            assert!(bounded::scan(doc.as_bytes(), &limits()).is_err(), "{doc}");
        }
        let fine = r#"{"name":"a","count":1,"meta":{"x":1,"name":2}}"#;
        assert!(read::<Value>(fine, &limits(), &shape).is_some());
        // One branch refuses the inner object at `b`, the other takes it
        // whatever it holds: the repeat of `a` is still found.
        let union = serde_json::json!({"oneOf": [
            {"type": "object", "properties": {"p": {
                "type": "object",
                "properties": {"a": {}},
                "additionalProperties": false
            }}},
            {"type": "object"}
        ]});
        let shape = Shape::new(&union);
        assert!(read::<Value>(r#"{"p":{"a":1,"b":2}}"#, &limits(), &shape).is_some());
        assert!(read::<Value>(r#"{"p":{"a":1,"b":2,"a":3}}"#, &limits(), &shape).is_none());
    }

    /// A value under a union (`Option<T>` of a named type: `anyOf` of a
    /// reference and `null`) is checked against each branch, member by
    /// member and element by element.
    #[test]
    fn members_and_elements_under_a_union_are_checked_per_branch() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "window": {"anyOf": [{"$ref": "#/$defs/Window"}, {"type": "null"}]},
                "tags": {"anyOf": [{"$ref": "#/$defs/Tags"}, {"type": "null"}]},
                "pair": {"anyOf": [{"$ref": "#/$defs/Pair"}, {"type": "null"}]}
            },
            "additionalProperties": false,
            "$defs": {
                "Window": {
                    "type": "object",
                    "properties": {"days": {"type": "integer"}},
                    "required": ["days"],
                    "additionalProperties": false
                },
                "Tags": {"type": "array", "items": {"type": "string"}},
                "Pair": {
                    "type": "array",
                    "prefixItems": [{"type": "string"}, {"type": "integer"}],
                    "items": false
                }
            }
        });
        let shape = Shape::new(&schema);
        for fine in [
            r#"{"window":{"days":3},"tags":["a","b"],"pair":["x",1]}"#,
            r#"{"window":null,"tags":null,"pair":null}"#,
            r#"{"tags":[]}"#,
        ] {
            assert!(read::<Value>(fine, &limits(), &shape).is_some(), "{fine}");
        }
        for refused in [
            r#"{"window":{"days":3,"hours":1}}"#,
            r#"{"window":{}}"#,
            r#"{"window":{"days":"3"}}"#,
            r#"{"tags":["a",1]}"#,
            r#"{"tags":[1]}"#,
            r#"{"pair":[1,"x"]}"#,
            r#"{"pair":["x","y"]}"#,
            r#"{"pair":["x",1,2]}"#,
        ] {
            assert!(
                read::<Value>(refused, &limits(), &shape).is_none(),
                "{refused}"
            );
        }
    }

    /// Two branches read one member with different subschemas; once one
    /// of those has refused, the other alone still checks what follows.
    #[test]
    fn the_last_branch_alive_still_checks_each_member_and_element() {
        let schema = serde_json::json!({
            "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
            "$defs": {
                "A": {"type": "object", "properties": {
                    "o": {"$ref": "#/$defs/OA"}, "l": {"$ref": "#/$defs/LA"}
                }},
                "B": {"type": "object", "properties": {
                    "o": {"$ref": "#/$defs/OB"}, "l": {"$ref": "#/$defs/LB"}
                }},
                "OA": {"type": "object", "properties": {"a": {}}, "additionalProperties": false},
                "OB": {"type": "object", "properties": {"b": {"type": "integer"}}},
                "LA": {"type": "array", "prefixItems": [{}], "items": false},
                "LB": {"type": "array", "items": {"type": "integer"}}
            }
        });
        let shape = Shape::new(&schema);
        for fine in [
            r#"{"o":{"c":1,"b":2}}"#,
            r#"{"l":[1,2,3]}"#,
            r#"{"l":["x"]}"#,
        ] {
            assert!(read::<Value>(fine, &limits(), &shape).is_some(), "{fine}");
        }
        for refused in [r#"{"o":{"c":1,"b":"x"}}"#, r#"{"l":[1,2,"x"]}"#] {
            assert!(
                read::<Value>(refused, &limits(), &shape).is_none(),
                "{refused}"
            );
        }
    }

    /// Listed properties are told apart by one bit each, for the first 64;
    /// the rest are compared as text, as unlisted keys are.
    #[test]
    fn repeated_keys_past_the_sixty_fourth_property_are_found() {
        let properties: serde_json::Map<String, Value> = (0..70)
            .map(|i| (format!("p{i}"), serde_json::json!({"type": "integer"})))
            .collect();
        let schema = serde_json::json!({
            "type": "object",
            "properties": properties,
            "additionalProperties": false
        });
        let shape = Shape::new(&schema);
        for i in [0, 1, 62, 63, 64, 65, 69] {
            let once = format!(r#"{{"p{i}":1,"p7":2}}"#);
            assert!(read::<Value>(&once, &limits(), &shape).is_some(), "{once}");
            let twice = format!(r#"{{"p{i}":1,"p7":2,"p{i}":3}}"#);
            assert!(
                read::<Value>(&twice, &limits(), &shape).is_none(),
                "{twice}"
            );
        }
        let all: Vec<String> = (0..70).map(|i| format!(r#""p{i}":{i}"#)).collect();
        let all = format!("{{{}}}", all.join(","));
        assert!(read::<Value>(&all, &limits(), &shape).is_some());
    }

    #[test]
    fn stops_where_the_schema_refuses_what_serde_reads() {
        for doc in [
            // A unit variant with more than its tag.
            with(r#","shape":{"kind":"dot","radius":5}"#),
            with(r#","tone":{"t":"Quiet","c":null}"#),
        ] {
            assert!(
                separately::<Args>(&doc, &limits()).is_some(),
                "serde refuses {doc}"
            );
            assert!(!reads(&doc), "the reader accepted {doc}");
        }
    }

    #[test]
    fn stops_where_gate_one_refuses() {
        let long = "x".repeat(Limits::default().string_bytes() + 1);
        let many = (0..Limits::default().nodes())
            .map(|_| "0")
            .collect::<Vec<_>>()
            .join(",");
        let deep = format!("{}1{}", "[".repeat(16), "]".repeat(16));
        let wide = (0..20).map(|i| format!("\"k{i}\":1,")).collect::<String>();
        for doc in [
            with(&format!(r#","tags":["{long}"]"#)),
            with(&format!(r#","extra":[{many}]"#)),
            with(&format!(r#","extra":{deep}"#)),
            with(r#","count":2"#),
            with(r#","meta":{"a":1,"a":2}"#),
            with(r#","meta":{"a":1,"\u0061":2}"#),
            with(&format!(r#","meta":{{{wide}"k3":2}}"#)),
            with(r#","tags":["\ud800"]"#),
            with(r#","tags":["\udc00"]"#),
            with(r#","tags":["\ud800\u0041"]"#),
            with(r#","extra":{"a":1,"a":1}"#),
            format!("{}x", with("")),
            format!("{} {{}}", with("")),
        ] {
            assert!(!reads(&doc), "the reader accepted {doc}");
            assert!(
                bounded::scan(doc.as_bytes(), &limits()).is_err(),
                "gate 1 accepts {doc}"
            );
        }
    }

    #[test]
    fn stops_where_serde_json_is_laxer_than_the_schema_or_reads_otherwise() {
        for doc in [
            // A struct or struct variant from an array.
            with(r#","window":[7,"mon"]"#),
            with(r#","step":{"Turn":[90]}"#),
            // A unit variant with a value.
            with(r#","step":{"Stop":null}"#),
            // Integers spelled otherwise, which gate 2 reads as integers.
            r#"{"name":"a","count":1.0}"#.to_owned(),
            r#"{"name":"a","count":1e0}"#.to_owned(),
            with(r#","signed":-0"#),
            with(r#","extra":2.0"#),
            // Past 64 bits.
            with(r#","extra":18446744073709551616"#),
            // Not JSON.
            with(r#","tags":["a",]"#),
            with(r#","signed":01"#),
            with(r#","tags":["\x"]"#),
            with(",\"tags\":[\"a\u{1}\"]"),
            r#"["name","count"]"#.to_owned(),
            r#""#.to_owned(),
        ] {
            assert!(!reads(&doc), "the reader accepted {doc}");
        }
    }

    /// A limit read as a `u32`, refused with its own message around
    /// serde's, as a type that adds context to a refusal does.
    #[derive(Debug)]
    struct Wrapped;

    impl<'de> Deserialize<'de> for Wrapped {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
            match u32::deserialize(d) {
                Ok(_) => Ok(Wrapped),
                Err(inner) => Err(de::Error::custom(format_args!("a limit: {inner}"))),
            }
        }
    }

    /// A `u32`, or one written as text: the text is first given to serde
    /// as a `u32`, whose refusal (made, then dropped) is the reader's own
    /// error type, and refused with a message of its own if it is not one.
    #[derive(Debug)]
    struct Retried;

    impl<'de> Deserialize<'de> for Retried {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
            let value = serde_json::Value::deserialize(d)?;
            if value.is_u64() {
                return Ok(Retried);
            }
            let text = value.as_str().unwrap_or_default();
            let read = u32::deserialize(de::value::StrDeserializer::<D::Error>::new(text));
            match (read, text.parse::<u32>()) {
                (Ok(_), _) | (_, Ok(_)) => Ok(Retried),
                _ => Err(de::Error::custom(
                    "neither a number nor one written as text",
                )),
            }
        }
    }

    #[test]
    fn an_explanation_carries_the_message_of_the_refusal_that_reached_the_top() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Holder {
            limit: Wrapped,
            retried: Option<Retried>,
        }
        // Wrapped: the outer message, read with the inner one in it.
        let refused = explained::<Holder>(r#"{"limit":"ten"}"#).unwrap_err();
        assert_eq!(
            refused,
            (
                vec!["limit".to_owned()],
                r#"a limit: invalid type: string "ten", expected u32"#.to_owned()
            )
        );
        // A refusal made and dropped, then another: the last one's.
        let refused = explained::<Holder>(r#"{"limit":1,"retried":"seven"}"#).unwrap_err();
        assert_eq!(
            refused,
            (
                vec!["retried".to_owned()],
                "neither a number nor one written as text".to_owned()
            )
        );
        // A refusal made and dropped, then the reader's own.
        let refused = explained::<Holder>(r#"{"limit":1,"retried":"7"} x"#).unwrap_err();
        assert_eq!(refused, (vec![], "trailing characters".to_owned()));
        // Each as serde_json says it (the wrapped one holds its position).
        let json = |text: &str| match serde_json::from_str::<Holder>(text) {
            Ok(_) => String::new(),
            Err(e) => unplaced(&e.to_string()),
        };
        assert_eq!(
            json(r#"{"limit":1,"retried":"seven"}"#),
            "neither a number nor one written as text"
        );
        assert_eq!(
            json(r#"{"limit":1,"retried":"7"} x"#),
            "trailing characters"
        );
        // Outside an explanation, a stop shows no message of a past one.
        assert_eq!(Stop(()).to_string(), "the single-pass reader stopped");
    }

    #[test]
    fn a_caught_error_still_stops_the_reader() {
        #[derive(Debug, PartialEq)]
        struct Lenient;
        impl<'de> Deserialize<'de> for Lenient {
            fn deserialize<D: de::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
                // Reads an array of strings, giving up quietly at the first
                // problem, as `serde_with::DefaultOnError` would.
                let _ = Vec::<String>::deserialize(d);
                Ok(Lenient)
            }
        }
        #[derive(Debug, PartialEq, Deserialize)]
        #[allow(dead_code)]
        struct Holder {
            lenient: Lenient,
        }
        let long = "x".repeat(Limits::default().string_bytes() + 1);
        let any = Shape::default();
        assert!(read::<Holder>(r#"{"lenient":["a"]}"#, &limits(), &any).is_some());
        let doc = format!(r#"{{"lenient":["{long}"]}}"#);
        assert!(read::<Holder>(&doc, &limits(), &any).is_none());
    }

    /// A small generator of argument documents for [`Args`]: mostly
    /// well-formed, each part now and then wrong in one of the ways a model
    /// or an attacker writes it.
    struct Gen {
        state: u64,
        /// Only forms both paths read alike: no integers spelled as floats,
        /// no arrays for structs, no unit variants with a value.
        clean: bool,
    }

    impl Gen {
        fn next(&mut self) -> u64 {
            // xorshift64*
            self.state ^= self.state >> 12;
            self.state ^= self.state << 25;
            self.state ^= self.state >> 27;
            self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn one<'a>(&mut self, choices: &[&'a str]) -> &'a str {
            choices
                .get(self.below(choices.len()))
                .copied()
                .unwrap_or_default()
        }

        /// Whether this part is written in a form the paths may read
        /// differently: never when clean, one time in four otherwise.
        fn dirty(&mut self) -> bool {
            !self.clean && self.below(4) == 0
        }

        fn ws(&mut self) -> &'static str {
            self.one(&["", "", "", " ", "\n\t "])
        }

        fn string(&mut self) -> String {
            let mut out = String::from("\"");
            for _ in 0..self.below(6) {
                let piece = match self.below(12) {
                    0 => "\\n",
                    1 => "\\\"",
                    2 => "\\u00e9",
                    3 => "\\ud83d\\ude00",
                    4 => "é",
                    5 => "\\/",
                    6 if !self.clean && self.below(4) == 0 => {
                        self.one(&["\\ud800", "\\udfff", "\u{1}", "\\q"])
                    }
                    _ => "ab",
                };
                out.push_str(piece);
            }
            out.push('"');
            out
        }

        fn unsigned(&mut self) -> &'static str {
            if !self.dirty() {
                return self.one(&["0", "7", "255", "4294967295", "12"]);
            }
            self.one(&[
                "0",
                "7",
                "255",
                "4294967295",
                "4294967296",
                "-1",
                "2.0",
                "2e0",
                "-0",
                "0.5",
                "1e400",
                "007",
                "1.",
                "18446744073709551616",
                "\"3\"",
            ])
        }

        fn signed(&mut self) -> &'static str {
            if !self.dirty() {
                return self.one(&["0", "-7", "9223372036854775807", "-9223372036854775808"]);
            }
            self.one(&["-7", "-9223372036854775809", "-0", "-0.0", "-1e2", "3"])
        }

        fn float(&mut self) -> &'static str {
            if !self.dirty() {
                return self.one(&[
                    "1.5",
                    "-2.25",
                    "3",
                    "1e-3",
                    "0.1",
                    "-7",
                    "1.7976931348623157e308",
                ]);
            }
            self.one(&["1.5", "2.0", "-0.0", "1E2", "1e400", "0.1e1", "-"])
        }

        fn object(&mut self, entries: Vec<(String, String)>) -> String {
            let mut out = String::from("{");
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let (a, b, c) = (self.ws(), self.ws(), self.ws());
                out.push_str(&format!("{a}{key}{b}:{c}{value}"));
            }
            out.push_str(self.ws());
            out.push('}');
            out
        }

        fn key(name: &str) -> String {
            format!("\"{name}\"")
        }

        fn window(&mut self) -> String {
            if self.dirty() {
                return format!("[{}]", self.unsigned());
            }
            let mut entries = vec![(Self::key("days"), self.unsigned().to_owned())];
            if self.below(2) == 0 {
                entries.push((Self::key("from"), self.string()));
            }
            self.object(entries)
        }

        fn shape(&mut self) -> String {
            let entries = match self.below(6) {
                0 => vec![(Self::key("kind"), "\"dot\"".to_owned())],
                // Read by serde, refused by the schema.
                4 => vec![
                    (Self::key("kind"), "\"dot\"".to_owned()),
                    (Self::key("radius"), self.float().to_owned()),
                ],
                5 => vec![
                    (Self::key("kind"), "\"circle\"".to_owned()),
                    (Self::key("radius"), format!("[{}]", self.float())),
                ],
                1 => vec![
                    (Self::key("radius"), self.float().to_owned()),
                    (Self::key("kind"), "\"circle\"".to_owned()),
                ],
                2 => vec![
                    (Self::key("kind"), "\"square\"".to_owned()),
                    (Self::key("side"), self.unsigned().to_owned()),
                ],
                _ => vec![(Self::key("kind"), "\"hexagon\"".to_owned())],
            };
            self.object(entries)
        }

        fn step(&mut self) -> String {
            let forms = if self.dirty() { 6 } else { 4 };
            match self.below(forms) {
                0 => "\"Stop\"".to_owned(),
                1 => format!("{{\"Go\":{}}}", self.unsigned()),
                2 => {
                    let degrees = self.signed().to_owned();
                    let inner = self.object(vec![(Self::key("degrees"), degrees)]);
                    format!("{{\"Turn\":{inner}}}")
                }
                3 => format!("{{\"Pair\":[{},{}]}}", self.unsigned(), self.unsigned()),
                4 => "{\"Stop\":null}".to_owned(),
                _ => format!("{{\"Turn\":[{}]}}", self.signed()),
            }
        }

        fn meta(&mut self) -> String {
            let mut entries = Vec::new();
            for i in 0..self.below(24) {
                let key = if !self.dirty() {
                    format!("\"k{i}\"")
                } else {
                    self.one(&["\"a\"", "\"b\"", "\"\\u0061\"", "\"c\""])
                        .to_owned()
                };
                entries.push((key, self.signed().to_owned()));
            }
            self.object(entries)
        }

        fn any(&mut self, depth: usize) -> String {
            match self.below(if depth == 0 { 4 } else { 7 }) {
                0 => self.string(),
                1 => self.float().to_owned(),
                2 => self.one(&["true", "false", "null"]).to_owned(),
                3 => self.signed().to_owned(),
                4 | 5 => {
                    let items: Vec<String> =
                        (0..self.below(4)).map(|_| self.any(depth - 1)).collect();
                    format!("[{}]", items.join(","))
                }
                _ => {
                    let entries = (0..self.below(4))
                        .map(|i| (format!("\"{i}\""), self.any(depth - 1)))
                        .collect();
                    self.object(entries)
                }
            }
        }

        fn args(&mut self) -> String {
            let mut entries = vec![
                (Self::key("name"), self.string()),
                (Self::key("count"), self.unsigned().to_owned()),
            ];
            type Part = (&'static str, fn(&mut Gen) -> String);
            let optional: [Part; 10] = [
                ("ratio", |g| g.float().to_owned()),
                ("tags", |g| {
                    let items: Vec<String> = (0..g.below(4)).map(|_| g.string()).collect();
                    format!("[{}]", items.join(","))
                }),
                ("window", Gen::window),
                ("shape", Gen::shape),
                ("step", Gen::step),
                ("meta", Gen::meta),
                ("extra", |g| g.any(5)),
                ("signed", |g| g.signed().to_owned()),
                ("tone", |g| {
                    g.one(&[
                        "{\"t\":\"Quiet\"}",
                        "{\"t\":\"Quiet\",\"c\":null}",
                        "{\"c\":2,\"t\":\"Loud\"}",
                        "{\"t\":\"Loud\",\"c\":300}",
                    ])
                    .to_owned()
                }),
                // Repeats often; spelled integers and fractions, which the
                // reader leaves to the gates one by one, only when dirty.
                // Past eight items too, compared sorted.
                ("set", |g| {
                    let items: Vec<String> = (0..g.below(12))
                        .map(|_| match g.dirty() && g.below(2) == 0 {
                            true => g.one(&["-0", "1.0", "1e0", "2.5"]).to_owned(),
                            false => (g.below(40) as i64 - 8).to_string(),
                        })
                        .collect();
                    format!("[{}]", items.join(","))
                }),
            ];
            for (name, make) in optional {
                if self.below(3) == 0 {
                    entries.push((Self::key(name), make(self)));
                }
            }
            if self.dirty() && self.below(5) == 0 {
                let (key, value) = entries
                    .get(self.below(entries.len()))
                    .cloned()
                    .unwrap_or_default();
                entries.push((key, value));
            }
            for _ in 0..entries.len() {
                let (a, b) = (self.below(entries.len()), self.below(entries.len()));
                entries.swap(a, b);
            }
            self.object(entries)
        }

        fn limits(&mut self) -> Limits {
            if self.below(2) == 0 {
                return Limits::default();
            }
            Limits::default()
                .max_depth(1 + self.below(6))
                .max_nodes(2 + self.below(60))
                .max_string_bytes(self.below(40))
        }
    }

    /// What serde_json and serde_path_to_error say of `text`: the value,
    /// or the path (cut at a step they cannot name) and the message
    /// (without its position).
    fn oracle<A: DeserializeOwned>(text: &str) -> core::result::Result<A, (Vec<String>, String)> {
        let mut json = serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, A>(&mut json) {
            Ok(value) => match json.end() {
                Ok(()) => Ok(value),
                Err(e) => Err((Vec::new(), unplaced(&e.to_string()))),
            },
            Err(e) => {
                let path = e
                    .path()
                    .iter()
                    .map_while(|segment| match segment {
                        serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
                        serde_path_to_error::Segment::Map { key } => Some(key.clone()),
                        serde_path_to_error::Segment::Enum { variant } => Some(variant.clone()),
                        serde_path_to_error::Segment::Unknown => None,
                    })
                    .collect();
                Err((path, unplaced(&e.inner().to_string())))
            }
        }
    }

    /// `message` without serde_json's position (` at line 1 column 9`).
    fn unplaced(message: &str) -> String {
        match message.rfind(" at line ") {
            Some(end) => message.get(..end).unwrap_or(message).to_owned(),
            None => message.to_owned(),
        }
    }

    /// What [`explain`] says of `text`, in the oracle's terms.
    fn explained<A: DeserializeOwned>(
        text: &str,
    ) -> core::result::Result<A, (Vec<String>, String)> {
        explain::<A>(text).map_err(|refused| {
            let path = refused
                .path
                .iter()
                .map(|step| match step {
                    crate::json::pointer::Step::Key(key) => key.clone(),
                    crate::json::pointer::Step::Index(index) => index.to_string(),
                })
                .collect();
            (path, unplaced(&refused.message))
        })
    }

    /// Explaining reads what serde_json reads, with the same value, and
    /// refuses what it refuses, with serde's message at
    /// serde_path_to_error's path: on every generated document gate 1's
    /// scan accepts, as the separate gates hand it to serde.
    #[test]
    fn explaining_reads_and_refuses_as_serde_json_and_its_path_tracker_do() {
        let scale = if std::env::var_os("TOOLGATE_QUICK_PROPERTIES").is_some() {
            10
        } else {
            1
        };
        let mut g = Gen {
            state: 0x2545_F491_4F6C_DD1D,
            clean: false,
        };
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..20_000 / scale {
            let doc = g.args();
            let Ok(raw) = bounded::scan(doc.as_bytes(), &Limits::default()) else {
                continue;
            };
            let text = if raw.has_spelled_integers() {
                crate::gate::structural::integers::with_plain_integers(&doc, args_shape())
            } else {
                doc.as_str().into()
            };
            let expected = oracle::<Args>(&text);
            accepted += usize::from(expected.is_ok());
            refused += usize::from(expected.is_err());
            assert_eq!(explained::<Args>(&text), expected, "{text}");
        }
        assert!(
            accepted > 2_000 / scale && refused > 2_000 / scale,
            "{accepted} {refused}"
        );
    }

    /// Types serde_json reads by paths of their own: number and boolean
    /// map keys, 128-bit integers, bytes, raw values, structs from arrays,
    /// unit variants written with a value, and serde_json's own depth
    /// limit.
    #[test]
    fn explaining_reads_serde_json_s_own_paths_as_serde_json_does() {
        // Its fields are compared through `Debug`.
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Odd {
            #[serde(default)]
            by_number: Option<std::collections::BTreeMap<u8, bool>>,
            #[serde(default)]
            by_float: Option<std::collections::BTreeMap<i64, u8>>,
            #[serde(default)]
            by_flag: Option<std::collections::BTreeMap<bool, u8>>,
            #[serde(default)]
            by_wide: Option<std::collections::BTreeMap<i128, u8>>,
            #[serde(default)]
            wide: Option<i128>,
            #[serde(default)]
            unsigned_wide: Option<u128>,
            #[serde(default)]
            raw: Option<Box<serde_json::value::RawValue>>,
            #[serde(default)]
            window: Option<Window>,
            #[serde(default)]
            step: Option<Step>,
            #[serde(default)]
            unit: Option<()>,
            #[serde(default)]
            deep: Option<Value>,
            #[serde(default)]
            by_step: Option<std::collections::BTreeMap<String, Step>>,
            #[serde(default)]
            texts: Option<Vec<String>>,
            #[serde(default)]
            refusals: Option<std::collections::BTreeMap<String, Refuses>>,
        }
        /// Refuses without reading anything.
        #[derive(Debug)]
        struct Refuses;
        impl<'de> Deserialize<'de> for Refuses {
            fn deserialize<D: serde::Deserializer<'de>>(
                _: D,
            ) -> core::result::Result<Self, D::Error> {
                Err(de::Error::custom("refused unread"))
            }
        }
        // RawValue compares by identity: compare what it holds.
        fn shown(read: core::result::Result<Odd, (Vec<String>, String)>) -> String {
            match read {
                Ok(odd) => format!("{odd:?} {:?}", odd.raw.as_ref().map(|r| r.get())),
                Err(e) => format!("{e:?}"),
            }
        }
        let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
        let docs = [
            r#"{"by_number":{"1":true,"255":false}}"#,
            r#"{"by_number":{"256":true}}"#,
            r#"{"by_number":{"-1":true}}"#,
            r#"{"by_number":{"x":true}}"#,
            r#"{"by_number":{"12x":true}}"#,
            r#"{"by_number":{"01":true}}"#,
            r#"{"by_number":{"1.5":true}}"#,
            r#"{"by_number":{" 1":true}}"#,
            r#"{"by_number":{"1":true}}"#,
            r#"{"by_number":{"1":"yes"}}"#,
            r#"{"by_float":{"-":1}}"#,
            r#"{"by_float":{"1e3":1}}"#,
            r#"{"by_float":{"-9223372036854775809":1}}"#,
            r#"{"by_flag":{"true":1,"false":2}}"#,
            r#"{"by_flag":{"yes":1}}"#,
            r#"{"by_flag":{"tru":1}}"#,
            r#"{"by_flag":{"falsey":1}}"#,
            r#"{"by_wide":{"170141183460469231731687303715884105727":1}}"#,
            r#"{"by_wide":{"170141183460469231731687303715884105728":1}}"#,
            r#"{"wide":-170141183460469231731687303715884105728}"#,
            r#"{"wide":1.5}"#,
            r#"{"wide":"7"}"#,
            r#"{"unsigned_wide":-1}"#,
            r#"{"unsigned_wide":340282366920938463463374607431768211455}"#,
            r#"{"raw": {"a" : [1, 2]} }"#,
            r#"{"raw":"text"}"#,
            r#"{"window":[7,"mon"]}"#,
            r#"{"window":[7,"mon",1]}"#,
            r#"{"window":[]}"#,
            r#"{"window":"soon"}"#,
            r#"{"step":{"Stop":null}}"#,
            r#"{"step":{"Stop":1}}"#,
            r#"{"step":"Go"}"#,
            r#"{"step":"Turn"}"#,
            r#"{"step":"Pair"}"#,
            r#"{"step":{}}"#,
            r#"{"step":{"Go":1,"Stop":null}}"#,
            r#"{"step":{"Turn":{"degrees":"x"}}}"#,
            // The variant's name, escaped, on the path below it.
            r#"{"step":{"T\u0075rn":{"degrees":"x"}}}"#,
            r#"{"step":{"St\u006fp":1}}"#,
            r#"{"by_step":{"a":{"P\u0061ir":[1,300]}}}"#,
            r#"{"step":{"Walk":1}}"#,
            r#"{"step":3}"#,
            r#"{"step":[1]}"#,
            r#"{"by_step":{"a":{"Pair":[1,300]}}}"#,
            r#"{"by_step":{"a":{"Pair":[1]}}}"#,
            r#"{"unit":null}"#,
            r#"{"unit":{}}"#,
            r#"{"unit":-0}"#,
            r#"{"deep":[[[]]]}"#,
            r#"{"nope":1}"#,
            r#"{"texts":["a",null]}"#,
            r#"{"texts":[1.5,1e300,-0]}"#,
            r#"{"texts":[1e300]}"#,
            r#"{"texts":[true]}"#,
            r#"{"texts":[{}]}"#,
            r#"{"refusals":{}}"#,
            // Placed at the member, though nothing in it was read.
            r#"{"refusals":{"a":1}}"#,
        ];
        for doc in docs.iter().copied().chain([
            format!(r#"{{"deep":{deep}}}"#).as_str(),
            format!(r#"{{"raw":{deep}}}"#).as_str(),
        ]) {
            assert_eq!(
                shown(explained::<Odd>(doc)),
                shown(oracle::<Odd>(doc)),
                "{doc}"
            );
        }
    }

    /// A `bool` key is read by its value, as the schema's key pattern
    /// reads it, where serde_json refuses one written with escapes; any
    /// other key is refused as serde_json refuses it.
    #[test]
    fn explaining_reads_a_bool_key_by_its_value() {
        use std::collections::BTreeMap;
        let read = explain::<BTreeMap<bool, u8>>(r#"{"\u0074rue":1,"f\u0061lse":0}"#);
        assert_eq!(read.ok(), Some(BTreeMap::from([(true, 1), (false, 0)])));
        assert!(oracle::<BTreeMap<bool, u8>>(r#"{"\u0074rue":1}"#).is_err());
        for doc in [r#"{"true":1}"#, r#"{"false":1}"#] {
            assert_eq!(
                explain::<BTreeMap<bool, u8>>(doc).ok(),
                oracle::<BTreeMap<bool, u8>>(doc).ok(),
                "{doc}"
            );
        }
        for doc in [
            r#"{"True":1}"#,
            r#"{"tru":1}"#,
            r#"{"1":1}"#,
            r#"{"yes":1}"#,
        ] {
            let refused = explain::<BTreeMap<bool, u8>>(doc).expect_err(doc);
            let (_, message) = oracle::<BTreeMap<bool, u8>>(doc).expect_err(doc);
            assert_eq!(unplaced(&refused.message), message, "{doc}");
        }
        assert!(explain::<BTreeMap<bool, u8>>(r#"{"":1}"#).is_err());
    }

    /// A number key is read by its value, as the schema's key pattern
    /// reads it, where serde_json refuses one written with escapes: the
    /// key's text, its escapes decoded, is read as serde_json reads a
    /// number key, and a 128-bit key as serde_json reads a 128-bit integer,
    /// but for `-0`, a second spelling of `0`.
    #[test]
    fn explaining_reads_a_number_key_by_its_value() {
        use std::collections::BTreeMap;
        let read = explain::<BTreeMap<u8, bool>>(r#"{"\u0031":true,"2\u0035\u0035":false}"#);
        assert_eq!(read.ok(), Some(BTreeMap::from([(1, true), (255, false)])));
        assert!(oracle::<BTreeMap<u8, bool>>(r#"{"\u0031":true}"#).is_err());
        let read = explain::<BTreeMap<i128, bool>>(r#"{"\u002d5":true,"7":false}"#);
        assert_eq!(read.ok(), Some(BTreeMap::from([(-5, true), (7, false)])));
        for (doc, message) in [
            (
                r#"{"\u0032\u0035\u0036":true}"#,
                "invalid value: integer `256`, expected u8",
            ),
            (r#"{"0\u0031":true}"#, "invalid number"),
            (
                r#"{"\u0020\u0031":true}"#,
                "invalid value: expected key to be a number in quotes",
            ),
            (r#"{"1\u0020":true}"#, "expected `\"`"),
        ] {
            let refused = explain::<BTreeMap<u8, bool>>(doc).expect_err(doc);
            assert_eq!(unplaced(&refused.message), message, "{doc}");
        }
        for (doc, message) in [
            (r#"{"-0":true}"#, "invalid number"),
            (r#"{"00":true}"#, "invalid number"),
            (r#"{"-":true}"#, "invalid number"),
            (
                r#"{"170141183460469231731687303715884105728":true}"#,
                "number out of range",
            ),
            (r#"{"1x":true}"#, "expected `\"`"),
        ] {
            let refused = explain::<BTreeMap<i128, bool>>(doc).expect_err(doc);
            assert_eq!(refused.message, message, "{doc}");
        }
        let refused = explain::<BTreeMap<u128, bool>>(r#"{"-1":true}"#).expect_err("negative");
        assert_eq!(refused.message, "number out of range");
    }

    /// A schema whose members are all scalars or arrays of scalars is read
    /// without it: serde's verdict is the schema's there. A `null`, an
    /// object below the arguments object or a container inside an array,
    /// which only the schema would refuse, stops the reader, so that the
    /// gates one by one decide, the schema's walk included.
    #[test]
    fn a_flat_schema_reads_without_the_schema_and_stops_where_only_it_refuses() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "count": {"type": "integer", "maximum": 9},
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 1}},
                "pair": {
                    "type": "array",
                    "prefixItems": [{"type": "integer"}, {"type": "boolean"}],
                    "items": false,
                },
            },
            "required": ["name"],
            "additionalProperties": false,
        });
        let shape = Shape::new(&schema);
        assert!(shape.flat());
        // As registration does, once it has seen the tool's types read the
        // kinds the schema states (here any value, read as any kind).
        shape.prove_flat();
        let walked = |doc: &str| shape.check(doc, &schema).is_ok();
        let one_by_one = |doc: &str| {
            bounded::scan(doc.as_bytes(), &limits())
                .is_ok_and(|_| shape.check(doc, &schema).is_ok())
        };
        for (doc, read_as_value) in [
            (r#"{"name":"a","count":3}"#, true),
            // Bounds are gate 3's: serde's verdict.
            (r#"{"name":"a","count":30}"#, true),
            // An array of scalars, whatever the member: serde's verdict
            // (here any value's, a type registration would not prove);
            // bounds are gate 3's.
            (r#"{"name":"a","tags":["x","zz"],"pair":[1,true,3]}"#, true),
            (r#"{"name":"a","count":[1]}"#, true),
            (r#"{"name":"a","tags":[]}"#, true),
            // serde reads these as any value; the schema refuses them.
            (r#"{"name":null}"#, false),
            (r#"{"name":{"a":1}}"#, false),
            (r#"{"name":"a","other":null}"#, false),
            (r#"{"name":"a","tags":[null]}"#, false),
            (r#"{"name":"a","tags":[["x"]]}"#, false),
            (r#"{"name":"a","tags":["x",{}]}"#, false),
            (r#"{"name":"a","pair":[1,[]]}"#, false),
        ] {
            assert_eq!(
                read::<Value>(doc, &limits(), &shape).is_some(),
                read_as_value,
                "{doc}"
            );
            // The gates one by one walk every document serde accepts.
            assert_eq!(one_by_one(doc), walked(doc), "{doc}");
            if !read_as_value {
                assert!(!walked(doc), "{doc}");
            }
        }
        // Each member that may be a container other than an array of
        // scalars, or `null`, makes it not flat.
        let scalar = serde_json::json!({"type": "string"});
        for member in [
            serde_json::json!({"type": ["string", "null"]}),
            serde_json::json!({"type": "array"}),
            serde_json::json!({"type": "object"}),
            serde_json::json!({}),
            serde_json::json!(true),
            serde_json::json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            serde_json::json!({"type": "array", "items": {"type": ["string", "null"]}}),
            serde_json::json!({"type": "array", "items": {"type": "object"}}),
            serde_json::json!({"type": "array", "items": {"type": "array", "items": scalar}}),
            serde_json::json!({"type": "array", "items": true}),
            serde_json::json!({"type": "array", "prefixItems": [scalar, {}], "items": false}),
            serde_json::json!({"type": ["array", "string"], "items": scalar}),
            serde_json::json!({"type": "array", "items": scalar, "enum": [["a"]]}),
            serde_json::json!({"type": "array", "items": {"anyOf": [scalar, {"type": "integer"}]}}),
            serde_json::json!({"anyOf": [{"type": "array", "items": scalar}, {"type": "null"}]}),
            // Choices, which a derived enum may read more laxly.
            serde_json::json!({"type": "string", "enum": ["x", "y"]}),
            serde_json::json!({"type": "integer", "const": 1}),
            serde_json::json!({"type": "array", "items": {"type": "string", "enum": ["x"]}}),
            serde_json::json!({"type": "array", "prefixItems": [{"const": "x"}], "items": false}),
        ] {
            let schema = serde_json::json!({
                "type": "object",
                "properties": {"a": member, "b": {"type": "array", "items": scalar}},
                "additionalProperties": false,
            });
            assert!(!Shape::new(&schema).flat(), "{schema}");
        }
        // Nor is a schema that lets other members be anything.
        let open = serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert!(!Shape::new(&open).flat());
        let closed = serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": false,
        });
        assert!(Shape::new(&closed).flat());
    }

    /// A derived enum reads names its schema does not list (an alias, a
    /// `#[serde(other)]` variant), so serde's verdict on a value held to
    /// choices is not the schema's: a schema that lists choices is not
    /// flat, and the gates one by one walk it whatever the document
    /// holds, a document of scalars alone too.
    #[test]
    fn choices_are_always_the_schema_s_to_judge() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "color": {"type": "string", "enum": ["red", "blue"]},
                "colors": {"type": "array", "items": {"type": "string", "enum": ["red", "blue"]}},
                "n": {"type": "integer"},
            },
            "additionalProperties": false,
        });
        let shape = Shape::new(&schema);
        assert!(!shape.flat());
        for (doc, valid) in [
            (r#"{"color":"red","n":1}"#, true),
            (r#"{"color":"green","n":1}"#, false),
            (r#"{"colors":["red","blue"]}"#, true),
            (r#"{"colors":["red","green"]}"#, false),
        ] {
            assert!(bounded::scan(doc.as_bytes(), &limits()).is_ok());
            let walked = shape.check(doc, &schema).is_ok();
            assert_eq!(walked, valid, "{doc}");
            assert_eq!(
                read::<Value>(doc, &limits(), &shape).is_some(),
                valid,
                "{doc}"
            );
        }
    }

    /// Once registration has proved the rest, a member that is an object
    /// (here a tagged union, and a plain object) is read against its own
    /// subschema while the rest is read without the schema: whatever is
    /// inside it, `null` and objects too, the reader takes exactly what
    /// the subschema takes, and stops on the rest, wherever the member is
    /// written among the others.
    #[test]
    fn a_member_read_against_its_subschema_beside_the_rest() {
        let variant = |kind: &str, extra: Value| {
            let mut properties = serde_json::json!({"kind": {"type": "string", "const": kind}});
            let mut required = vec![Value::from("kind")];
            if let (Value::Object(properties), Value::Object(extra)) = (&mut properties, extra) {
                for (key, value) in extra {
                    required.push(Value::from(key.clone()));
                    properties.insert(key, value);
                }
            }
            serde_json::json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            })
        };
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "reason": {"oneOf": [
                    variant("error", serde_json::json!({})),
                    variant("goodwill", serde_json::json!({
                        "by": {"type": "string"},
                        "note": {"type": ["string", "null"]},
                    })),
                ]},
                "at": {
                    "type": "object",
                    "properties": {
                        "day": {"type": "integer"},
                        "span": {"type": "object", "properties": {"hours": {"type": "integer"}}},
                    },
                    "additionalProperties": false,
                },
            },
            "required": ["name"],
            "additionalProperties": false,
        });
        let shape = Shape::new(&schema);
        assert!(!shape.flat());
        assert_eq!(shape.to_prove().map(|places| places.len()), Some(1));
        assert!(shape.guided(b"reason").is_some() && shape.guided(b"at").is_some());
        assert!(shape.guided(b"name").is_none());
        shape.prove_flat();
        for (doc, valid) in [
            (r#"{"name":"a","reason":{"kind":"error"}}"#, true),
            (r#"{"reason":{"kind":"error"},"name":"a"}"#, true),
            (
                r#"{"name":"a","reason":{"kind":"goodwill","by":"b","note":null}}"#,
                true,
            ),
            (
                r#"{"name":"a","reason":{"note":"n","by":"b","kind":"goodwill"}}"#,
                true,
            ),
            (
                r#"{"name":"a","at":{"day":3,"span":{"hours":2}},"reason":{"kind":"error"}}"#,
                true,
            ),
            (r#"{"name":"a","at":{}}"#, true),
            // What the member's subschema refuses, first, last or alone.
            (r#"{"name":"a","reason":{"kind":"other"}}"#, false),
            (r#"{"reason":{"kind":"other"},"name":"a"}"#, false),
            (r#"{"reason":{"kind":"goodwill"}}"#, false),
            (r#"{"name":"a","reason":{"kind":"error","by":"b"}}"#, false),
            (
                r#"{"name":"a","reason":{"kind":"goodwill","by":null,"note":null}}"#,
                false,
            ),
            (
                r#"{"name":"a","reason":{"kind":"goodwill","by":"b","note":{}}}"#,
                false,
            ),
            (r#"{"name":"a","reason":"error"}"#, false),
            (r#"{"name":"a","reason":null}"#, false),
            (r#"{"name":"a","reason":[{"kind":"error"}]}"#, false),
            (r#"{"name":"a","at":{"day":"3"}}"#, false),
            (r#"{"name":"a","at":{"day":3.5}}"#, false),
            (r#"{"name":"a","at":{"span":{"hours":"2"}}}"#, false),
            (
                r#"{"name":"a","at":{"span":{"hours":2}},"reason":{"kind":"other"}}"#,
                false,
            ),
            // The rest, read without the schema, stops as before.
            (r#"{"name":null,"reason":{"kind":"error"}}"#, false),
            (r#"{"name":{},"reason":{"kind":"error"}}"#, false),
        ] {
            assert_eq!(shape.check(doc, &schema).is_ok(), valid, "{doc}");
            assert_eq!(
                read::<Value>(doc, &limits(), &shape).is_some(),
                valid,
                "{doc}"
            );
        }
        // An arguments object with a union of its own, or a member its
        // schema says nothing of, is read against the schema throughout.
        for schema in [
            serde_json::json!({
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "object"}},
                "additionalProperties": false,
                "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
            }),
            serde_json::json!({
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": true},
                "additionalProperties": false,
            }),
            serde_json::json!({
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": {"type": "object"},
            }),
        ] {
            assert!(Shape::new(&schema).to_prove().is_none(), "{schema}");
        }
    }

    /// On generated documents of scalars and arrays, a flat schema's
    /// reader accepts exactly what the gates one by one accept: the scan
    /// and serde, and the walk where a `null`, an object or a container
    /// inside an array makes them walk (which then refuses).
    #[test]
    fn a_flat_schema_s_reader_agrees_with_the_gates_one_by_one() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "i": {"type": "integer"},
                "n": {"type": "number"},
                "b": {"type": "boolean"},
                "l": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["s", "i"],
            "additionalProperties": false,
        });
        let shape = Shape::new(&schema);
        assert!(shape.flat());
        let keys = ["s", "i", "n", "b", "l", "q", "s\\u0069"];
        let values = [
            "\"x\"",
            "\"y\\\\z\"",
            "\"\\u0078\"",
            "7",
            "-3",
            "2.5",
            "1e3",
            "true",
            "false",
            "null",
            " 0 ",
            "[]",
            "[\"x\", 7]",
            "[[\"x\"]]",
            "[\"x\",null]",
            "[{}]",
            "{}",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..20_000 {
            // Mostly with the required members, so that many documents
            // are valid with a `null` too.
            let mut members: Vec<String> = Vec::new();
            if next(4) != 0 {
                members.extend(["\"s\":\"x\"".to_owned(), "\"i\":7".to_owned()]);
            }
            for _ in 0..next(5) {
                let at = next(members.len() + 1);
                let member = format!(
                    "\"{}\":{}",
                    keys[next(keys.len())],
                    values[next(values.len())]
                );
                members.insert(at, member);
            }
            let doc = format!("{{{}}}", members.join(","));
            let one_by_one = bounded::scan(doc.as_bytes(), &limits())
                .is_ok_and(|_| shape.check(&doc, &schema).is_ok());
            let read = read::<Value>(&doc, &limits(), &shape).is_some();
            if read {
                accepted += 1;
                assert!(one_by_one, "{doc}");
            } else {
                refused += 1;
            }
            // Spelled integers (`1e3`) and escaped keys are left to the
            // gates one by one; otherwise the two agree.
            if !doc.contains("1e3") && !doc.contains("\\u0069") {
                assert_eq!(read, one_by_one, "{doc}");
            }
        }
        assert!(accepted > 2_000 && refused > 2_000, "{accepted} {refused}");
    }

    /// An object under a tagged union is checked as the branch its tag
    /// names, found by reading ahead; where reading ahead cannot say (an
    /// escape, a container before the tag, no tag, an unknown one), every
    /// branch is followed. Either way the verdict is the walk's.
    #[test]
    fn a_tagged_union_is_read_as_the_branch_its_tag_names() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"f": {"anyOf": [{"$ref": "#/$defs/F"}, {"type": "null"}]}},
            "additionalProperties": false,
            "$defs": {"F": {"oneOf": [
                {
                    "type": "object",
                    "properties": {"kind": {"type": "string", "const": "dot"}},
                    "required": ["kind"],
                    "additionalProperties": false,
                },
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "const": "circle"},
                        "radius": {"type": "number"},
                        "inner": {"type": "object"},
                        "note": {"type": "string"},
                    },
                    "required": ["kind", "radius"],
                    "additionalProperties": false,
                },
            ]}},
        });
        let shape = Shape::new(&schema);
        let walked = |doc: &str| {
            bounded::scan(doc.as_bytes(), &limits()).is_ok() && shape.check(doc, &schema).is_ok()
        };
        for (doc, valid) in [
            (r#"{"f":{"kind":"circle","radius":2}}"#, true),
            (r#"{"f":{"radius":2,"kind":"circle"}}"#, true),
            (r#"{"f":{"kind":"dot"}}"#, true),
            (r#"{"f":null}"#, true),
            (r#"{"f":{"kind":"dot","radius":2}}"#, false),
            (r#"{"f":{"radius":2,"kind":"dot"}}"#, false),
            (r#"{"f":{"kind":"circle"}}"#, false),
            (r#"{"f":{"kind":"square","radius":2}}"#, false),
            (r#"{"f":{"radius":2}}"#, false),
            (r#"{"f":{"kind":7,"radius":2}}"#, false),
            // A decoy tag inside a member, ahead of the real one.
            (
                r#"{"f":{"inner":{"kind":"dot"},"kind":"circle","radius":1}}"#,
                true,
            ),
            (
                r#"{"f":{"inner":{"n":1,"kind":"dot"},"kind":"circle","radius":1}}"#,
                true,
            ),
            (
                r#"{"f":{"inner":{"n":1,"kind":"circle"},"kind":"dot"}}"#,
                false,
            ),
            (
                r#"{"f":{"note":"\"kind\":\"dot\"","kind":"circle","radius":1}}"#,
                true,
            ),
            (r#"{"f":{"note":"x","kind":"dot"}}"#, false),
            // Escapes in the tag's key or value: every branch is followed.
            (r#"{"f":{"k\u0069nd":"circle","radius":1}}"#, true),
            (r#"{"f":{"kind":"circl\u0065","radius":1}}"#, true),
            (r#"{"f":{"kind":"d\u006ft","radius":1}}"#, false),
            (r#"{"f":{ "radius" : 1.5 , "kind" : "circle" }}"#, true),
            (r#"{"f":{"radius":true,"kind":"circle"}}"#, false),
            (r#"{"f":[]}"#, false),
        ] {
            assert_eq!(walked(doc), valid, "walked: {doc}");
            assert_eq!(
                read::<Value>(doc, &limits(), &shape).is_some(),
                valid,
                "read: {doc}"
            );
        }
    }

    /// The tag found ahead is not looked up or judged again as it is
    /// read: it still counts as a required member the branch lists, and a
    /// second key of its name is a repeat. `Value` takes a repeated key as
    /// the last one, so the reader alone refuses it.
    #[test]
    fn the_tag_read_ahead_counts_as_read_once_and_only_once() {
        let branch = |tag: &str| {
            serde_json::json!({
                "type": "object",
                "properties": {"kind": {"const": tag}, "n": {"type": "integer"}},
                "required": ["kind", "n"],
                "additionalProperties": false,
            })
        };
        let shape = Shape::new(&serde_json::json!({"oneOf": [branch("a"), branch("b")]}));
        for (doc, read_whole) in [
            (r#"{"kind":"a","n":1}"#, true),
            (r#"{ "kind" : "b" , "n" : 2 }"#, true),
            (r#"{"n":1,"kind":"a"}"#, true),
            // Required: the tag and `n`.
            (r#"{"kind":"a"}"#, false),
            (r#"{"n":1}"#, false),
            // Repeated, whatever the second value.
            (r#"{"kind":"a","kind":"a","n":1}"#, false),
            (r#"{"kind":"a","n":1,"kind":"b"}"#, false),
            (r#"{"n":1,"kind":"a","kind":"a"}"#, false),
            // The rest of the branch is still checked.
            (r#"{"kind":"a","n":"1"}"#, false),
            (r#"{"kind":"a","n":1,"m":2}"#, false),
            (r#"{"kind":"c","n":1}"#, false),
        ] {
            let read = read::<Value>(doc, &limits(), &shape);
            assert_eq!(read.is_some(), read_whole, "{doc}");
        }
    }

    /// Reading ahead names the branch whose tag is written in the object:
    /// matched in place where the key and every tag are written as they
    /// are, and never where the text there is another tag, one of which
    /// it is a prefix, or the tag written with an escape (every branch is
    /// then followed). A tag that must be escaped is matched as decoded
    /// text, and only where written without an escape.
    #[test]
    fn the_tag_read_ahead_names_its_branch() {
        let union = |tags: [&str; 2]| {
            let branch = |tag: &str| {
                serde_json::json!({
                    "type": "object",
                    "properties": {"kind": {"const": tag}, "n": {"type": "integer"}},
                    "required": ["kind"],
                })
            };
            Shape::new(&serde_json::json!({"oneOf": [branch(tags[0]), branch(tags[1])]}))
        };
        let ahead_at = |shape: &Shape, doc: &str| {
            let tagged = shape.root().and_then(|root| shape.tagged(root));
            let reader = Reader::new(doc.as_bytes(), Some(doc), &limits(), shape);
            tagged.and_then(|tagged| reader.branch_ahead(tagged))
        };
        let ahead = |shape: &Shape, doc: &str| ahead_at(shape, doc).map(|(branch, _)| branch);
        let shape = union(["error", "errors"]);
        let tagged = shape.root().and_then(|root| shape.tagged(root));
        assert!(tagged.is_some_and(Tagged::plain));
        let (error, errors) = (
            tagged.and_then(|t| t.branch(b"error")),
            tagged.and_then(|t| t.branch(b"errors")),
        );
        assert!(error.is_some() && errors.is_some() && error != errors);
        for (doc, branch) in [
            (r#"{"kind":"error"}"#, error),
            (r#"{"kind":"errors","n":1}"#, errors),
            (r#"{ "kind" : "errors" }"#, errors),
            (r#"{"n":1,"kind":"error"}"#, error),
            (r#"{"n":"kind","kind":"errors"}"#, errors),
            (r#"{"kind":"erro"}"#, None),
            (r#"{"kind":"error\u0073"}"#, None),
            (r#"{"kin\u0064":"error"}"#, None),
            (r#"{"kinds":"error"}"#, None),
            (r#"{"kind":7}"#, None),
            (r#"{"kind":"errors"#, None),
        ] {
            assert_eq!(ahead(&shape, doc), branch, "{doc}");
        }
        // Where the tag's key starts, and its bit: `kind` is the branch's
        // first property.
        for (doc, quote) in [
            (r#"{"kind":"error"}"#, 1),
            (r#"{ "kind" : "errors" }"#, 2),
            (r#"{"n":1,"kind":"error"}"#, 7),
            (r#"{"n":"kind","kind":"errors"}"#, 12),
        ] {
            assert_eq!(
                ahead_at(&shape, doc).map(|(_, tag)| tag),
                Some((quote, 1)),
                "{doc}"
            );
        }
        let shape = union(["a\"b", "c"]);
        let tagged = shape.root().and_then(|root| shape.tagged(root));
        assert!(tagged.is_some_and(|t| !t.plain()));
        let c = tagged.and_then(|t| t.branch(b"c"));
        assert!(c.is_some());
        assert_eq!(ahead(&shape, r#"{"kind":"c"}"#), c);
        // Not matched in place: each key is read, and read again.
        let not_in_place = ahead_at(&shape, r#"{"kind":"c"}"#).map(|(_, tag)| tag);
        assert_eq!(not_in_place, Some(NO_TAG));
        assert_eq!(ahead(&shape, r#"{"kind":"a\"b"}"#), None);
        assert_eq!(ahead(&shape, r#"{"kind":"a"b"}"#), None);
    }

    /// Whatever the reader accepts, the separate gates accept, with the
    /// same value; on documents in forms both read alike, the reader
    /// accepts exactly what the separate gates accept.
    #[test]
    fn the_reader_agrees_with_the_separate_gates_on_generated_documents() {
        let (schema, shape) = schema();
        let walked = |doc: &str, limits: &Limits| {
            bounded::scan(doc.as_bytes(), limits).is_ok() && shape.check(doc, &schema).is_ok()
        };
        // A tenth of the documents for a mutation tester's quick first pass
        // (MUTATION.md), whose survivors then meet the whole property.
        let scale = if std::env::var_os("TOOLGATE_QUICK_PROPERTIES").is_some() {
            10
        } else {
            1
        };
        for clean in [false, true] {
            let mut g = Gen {
                state: 0x9E37_79B9_7F4A_7C15,
                clean,
            };
            let (mut read_count, mut separate_count) = (0, 0);
            for _ in 0..20_000 / scale {
                let doc = g.args();
                let limits = g.limits();
                let single = read::<Args>(&doc, &limits, &shape);
                let separate = separately::<Args>(&doc, &limits).filter(|_| walked(&doc, &limits));
                read_count += usize::from(single.is_some());
                separate_count += usize::from(separate.is_some());
                if let Some(value) = single {
                    assert_eq!(Some(value), separate, "{doc} with {limits:?}");
                } else if clean {
                    assert!(
                        separate.is_none(),
                        "the reader stopped on {doc} with {limits:?}"
                    );
                }
                // Read as any JSON value, its verdict is the scan's and the
                // shape walk's together.
                let any = read::<Value>(&doc, &limits, &shape).is_some();
                if any || clean {
                    assert_eq!(
                        any,
                        walked(&doc, &limits),
                        "as a value: {doc} with {limits:?}"
                    );
                }
            }
            // Neither path refuses everything, and when not clean the
            // reader leaves some documents the separate gates accept to
            // them (integers spelled as floats): the property is not vacuous.
            assert!(
                read_count > 2_000 / scale,
                "the reader accepted only {read_count}"
            );
            if clean {
                assert_eq!(read_count, separate_count);
            } else {
                assert!(
                    separate_count > read_count + 500 / scale,
                    "{separate_count} {read_count}"
                );
            }
        }
    }
}
