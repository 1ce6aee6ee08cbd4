//! How serde sees the reader: its `Deserializer`, and the accessors of
//! objects, arrays and enums it hands to serde's visitors.

use serde::de::{self, DeserializeSeed, Visitor};

use crate::gate::structural::shape;
use crate::json::pointer::Step;

use super::guide::*;
use super::key::*;
use super::state::*;

/// Each method listed reads as method `$to` does.
macro_rules! read_as {
    ($to:ident, $asked:expr => $($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.asked($asked);
            self.$to(visitor)
        }
    )*};
}

/// serde_json's reader of text.
pub(super) type JsonReader<'de> = serde_json::Deserializer<serde_json::de::StrRead<'de>>;

/// The name under which serde_json's `RawValue` asks for its text.
pub(super) const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// A raw value as serde_json hands it to `RawValue`: one entry, whose key
/// is the name and whose value is the value's text.
pub(super) struct RawEntry<'de> {
    pub(super) text: Option<&'de str>,
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
pub(super) struct Entries<'r, 'de> {
    pub(super) reader: &'r mut Reader<'de>,
    pub(super) guide: &'r mut Option<Guide>,
    /// Where the object's keys start in `Reader::keys`.
    pub(super) first: usize,
    pub(super) started: bool,
}

impl<'r, 'de> Entries<'r, 'de> {
    /// Reads the next key up to its colon, checks it against the guide
    /// and the object's other keys, and gives its text; `None` at the
    /// object's end. Not generic, so compiled once, not once for each key
    /// type.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn next_key(
        &mut self,
    ) -> Result<Option<(Text<'_, 'de>, Probe<'de>, Option<&'de str>)>> {
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

    /// Inlined, so that each struct's reading of its members has this
    /// body beside it, whichever part of the crate that reads the struct
    /// the code generator puts each in: out of line, as it fell once this
    /// impl left the module that reads the arguments, a member costs a
    /// call and its seed's reading another (1.8% more instructions a
    /// `refund_invoice` call).
    #[inline]
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
pub(super) fn explained_member<'de, T: DeserializeSeed<'de>>(
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
pub(super) struct Items<'r, 'de> {
    pub(super) reader: &'r mut Reader<'de>,
    pub(super) guide: &'r mut Option<Guide>,
    /// The index of the next element.
    pub(super) index: usize,
    /// Where the items are noted if they must differ (see
    /// [`Reader::item_read`]).
    pub(super) unique: Option<usize>,
    /// Read without the schema, items that must differ and are all names
    /// of one list: the list, and a bit for each name seen.
    pub(super) names: Option<(&'static [&'static str], u64)>,
}

impl Items<'_, '_> {
    /// Steps to the next element, checked against the guide; `false` at
    /// the array's end. Not generic, so compiled once, not once for each
    /// element type.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn next(&mut self) -> Result<bool> {
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
    pub(super) fn name_read(
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
pub(super) struct UnitVariant<'r, 'de> {
    pub(super) reader: &'r mut Reader<'de>,
    /// The names its type reads, as it says (see [`Asked::Enum`]).
    pub(super) variants: &'static [&'static str],
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
pub(super) struct Unit<'r, 'de>(&'r mut Reader<'de>);

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
pub(super) struct Variant<'r, 'de> {
    pub(super) reader: &'r mut Reader<'de>,
    pub(super) guide: &'r mut Option<Guide>,
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
    pub(super) fn variant_content<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        if self.reader.explaining() {
            let variant = self.reader.take_key();
            return explained_member(self.reader, self.guide, variant, seed);
        }
        self.reader.member(self.guide, seed)
    }
}

/// A variant's content read as an array.
pub(super) struct Seq<V>(V);

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
pub(super) struct Object<V>(V);

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
pub(super) fn name<'de, T: DeserializeSeed<'de>>(
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
