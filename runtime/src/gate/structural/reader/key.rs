//! A map key, read for serde: as text, or as the number or `bool` it
//! spells, as serde_json reads keys; and registration's probe of how a key
//! type reads its keys.

use core::cell::Cell;

use serde::de::{self, Visitor};

use crate::Limits;

use super::guide::*;
use super::state::*;

/// A key's text: borrowed from the input, or decoded.
#[derive(Clone, Copy)]
pub(super) enum Text<'a, 'de> {
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
pub(super) struct KeyReader<'a, 'de> {
    pub(super) text: Text<'a, 'de>,
    pub(super) stopped: &'a mut bool,
    pub(super) probe: Probe<'a>,
    pub(super) explain: Option<(&'de str, &'a mut Option<String>)>,
}

/// Where a probe of map keys records what a key's type asked for, and
/// the offset just past the key.
pub(super) type Probe<'a> = Option<(&'a Cell<Option<KeyParse>>, usize)>;

impl<'de> KeyReader<'_, 'de> {
    pub(super) fn stop(self) -> Stop {
        *self.stopped = true;
        stop()
    }

    pub(super) fn as_str(&self) -> &str {
        match self.text {
            Text::Borrowed(text) | Text::Copied(text) => text,
        }
    }

    /// Explaining: notes that the key's type read it as its text.
    #[cold]
    pub(super) fn capture_text(&mut self) {
        let (Text::Borrowed(text) | Text::Copied(text)) = self.text;
        self.capture(text);
    }

    /// Explaining: notes that serde asked for the key as any value or a
    /// field's name, and read it as its text (see [`keys_read_as_text`]).
    #[cold]
    pub(super) fn capture_read_as_text(&mut self) {
        READ_AS_TEXT.set(true);
        self.capture_text();
    }

    /// Explaining: notes that the key's type read it as `text`.
    pub(super) fn capture(&mut self, text: &str) {
        if let Some((_, captured)) = &mut self.explain {
            **captured = Some(text.to_owned());
        }
    }

    /// serde_json's last check of a number key: its closing quote comes
    /// right after the number.
    pub(super) fn quoted_after(inner: &str, end: usize) -> Result<()> {
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
    pub(super) fn number_key<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
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
    pub(super) fn wide_key<T: core::str::FromStr, V: Visitor<'de>>(
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
    pub(super) fn numeric(&self) -> Result<Option<&'a str>> {
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
    pub(super) fn parses(self, reads: &'static str) -> core::result::Result<Self, Stop> {
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
    pub(super) fn probed_at(self) -> core::result::Result<(&'a str, usize), Stop> {
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
pub(super) fn refused_key<T>(probe: Probe<'_>, read: &Result<T>, at: usize, reads: &'static str) {
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
    pub(super) fn text<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
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
    pub(super) fn bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let Some((quoted, _)) = self.explain else {
            return Err(self.stop());
        };
        let mut json = serde_json::Deserializer::from_str(quoted);
        de::Deserializer::deserialize_bytes(&mut json, visitor).map_err(de::Error::custom)
    }
}
