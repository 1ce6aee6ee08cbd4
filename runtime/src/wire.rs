//! What the generated argument struct's `Deserialize` shares: compiled
//! once here, not once for each tool.
//!
//! `#[tool]` writes the argument struct's `Deserialize` itself rather than
//! deriving it. It reads exactly what serde's derive reads with
//! `deny_unknown_fields` (the same errors, in the same order), without the
//! parts a model's arguments never reach: the arguments are always an
//! object, so there is no reading from a sequence. Each tool still matches
//! its own names (see [`Fields`]); reading a key as a name's index, and a
//! field left out, are here.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, Unexpected, Visitor};

/// A map key read as the index of one of a generated argument struct's
/// field names: any other key is serde's `unknown field` error.
///
/// Not generic, so that reading a key is compiled once, not once for each
/// tool. `#[tool]` writes `index` for each tool as a `match` on the names,
/// which the compiler turns into a few comparisons of the key's bytes with
/// constants, where comparing the key with each listed name would call
/// `memcmp` for each.
#[derive(Clone, Copy)]
pub struct Fields {
    names: &'static [&'static str],
    index: fn(&str) -> Option<usize>,
}

impl Fields {
    /// The seed for the next key of a struct whose fields are `names` on
    /// the wire; `index` gives a key's index in `names`, if it is one.
    pub const fn new(names: &'static [&'static str], index: fn(&str) -> Option<usize>) -> Self {
        Fields { names, index }
    }
}

impl<'de> DeserializeSeed<'de> for Fields {
    type Value = usize;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Fields {
    type Value = usize;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("field identifier")
    }

    fn visit_u64<E: de::Error>(self, index: u64) -> Result<usize, E> {
        field_index(index, self.names.len())
    }

    #[inline]
    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        match (self.index)(key) {
            Some(i) => Ok(i),
            None => Err(E::unknown_field(key, self.names)),
        }
    }

    fn visit_bytes<E: de::Error>(self, key: &[u8]) -> Result<usize, E> {
        self.visit_str(&String::from_utf8_lossy(key))
    }
}

/// A key read as a number, as serde's derive reads it: the field's index.
fn field_index<E: de::Error>(index: u64, len: usize) -> Result<usize, E> {
    match usize::try_from(index) {
        Ok(i) if i < len => Ok(i),
        _ => Err(E::invalid_value(
            Unexpected::Unsigned(index),
            &FieldIndex(len),
        )),
    }
}

/// What a field index must be, said as serde's derive says it.
struct FieldIndex(usize);

impl de::Expected for FieldIndex {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "field index 0 <= i < {}", self.0)
    }
}

/// Reads the next value of `map` into a field's `slot`: serde's
/// `duplicate field` error if the field was read before.
#[inline]
pub fn fill<'de, T, M>(
    slot: &mut Option<T>,
    map: &mut M,
    field: &'static str,
) -> Result<(), M::Error>
where
    T: de::Deserialize<'de>,
    M: de::MapAccess<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(field));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// A field's value once the object is read: what its slot holds, or, if
/// the object left the field out, what [`missing`] says.
#[inline]
pub fn filled<'de, T: de::Deserialize<'de>, E: de::Error>(
    slot: Option<T>,
    field: &'static str,
) -> Result<T, E> {
    match slot {
        Some(value) => Ok(value),
        None => missing(field),
    }
}

/// The value of a field the object left out: `None` for a type read as an
/// option, else serde's `missing field` error.
pub fn missing<'de, T: de::Deserialize<'de>, E: de::Error>(field: &'static str) -> Result<T, E> {
    T::deserialize(Missing(field, PhantomData))
}

/// Reads as nothing: an option is `None`, anything else is missing.
struct Missing<E>(&'static str, PhantomData<E>);

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct
        map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeSeed;
    use serde::de::value::{Error, StrDeserializer, U64Deserializer};

    use super::*;

    fn index(key: &str) -> Option<usize> {
        match key {
            "name" => Some(0),
            "times" => Some(1),
            _ => None,
        }
    }

    const TWO: Fields = Fields::new(&["name", "times"], index);

    fn key(text: &str) -> Result<usize, Error> {
        TWO.deserialize(StrDeserializer::<Error>::new(text))
    }

    #[test]
    fn a_key_reads_as_its_field_s_index_and_any_other_as_serde_s_unknown_field() {
        assert_eq!(key("name"), Ok(0));
        assert_eq!(key("times"), Ok(1));
        assert_eq!(
            key("nam").map_err(|e| e.to_string()),
            Err("unknown field `nam`, expected `name` or `times`".to_owned())
        );
    }

    #[test]
    fn a_key_read_as_bytes_or_as_an_index_matches_as_serde_s_derive_does() {
        let bytes = |b: &[u8]| TWO.visit_bytes::<Error>(b);
        assert_eq!(bytes(b"times"), Ok(1));
        assert_eq!(
            bytes(b"x\xff").map_err(|e| e.to_string()),
            Err("unknown field `x\u{fffd}`, expected `name` or `times`".to_owned())
        );
        let index = |i: u64| TWO.deserialize(U64Deserializer::<Error>::new(i));
        assert_eq!(index(1), Ok(1));
        assert_eq!(
            index(2).map_err(|e| e.to_string()),
            Err("invalid value: integer `2`, expected field index 0 <= i < 2".to_owned())
        );
    }

    #[test]
    fn a_missing_option_is_none_and_anything_else_is_a_missing_field() {
        assert_eq!(missing::<Option<u32>, Error>("n"), Ok(None));
        assert_eq!(
            missing::<u32, Error>("n").map_err(|e| e.to_string()),
            Err("missing field `n`".to_owned())
        );
    }
}
