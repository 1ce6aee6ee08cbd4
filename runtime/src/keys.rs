//! Registration's check that a map keeps every key the model sent.
//!
//! Gate 1 refuses an object that repeats a key, byte for byte. A map whose
//! key type *parses* its key (`IpAddr`, `Uuid`, a date, a type with its own
//! `Deserialize`) can still fold two different spellings into one entry,
//! `"::1"` and `"0:0:0:0:0:0:0:1"`, last wins, after gate 1 saw two keys.
//! `#[tool]` refuses such key types on a tool's own parameters; a nested
//! type's fields are out of its sight, so registration asks the arguments
//! type itself. An instance of the tool's schema is deserialized through a
//! deserializer that watches what each map key's type asks for:
//!
//! - a string (`String`, `Box<str>`, `Cow<str>`: serde's `deserialize_string`),
//!   a variant name the schema enumerates, an integer (the schema's key
//!   pattern admits one spelling of each), a `char` or a `bool` keep the key;
//! - anything read from a borrowed string or a number (`deserialize_str`,
//!   `deserialize_f64`, bytes) is a parse, and a parse may normalize.
//!
//! Keys that serde buffers first (untagged and internally tagged enums,
//! `flatten`) reach their type from serde's buffer, out of this probe's
//! sight; they are left undecided, never refused.

use core::cell::RefCell;
use core::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde_json::Value;

use crate::pointer::{self, Step};

/// A map whose key type reads its key in a way that may normalize it.
#[doc(hidden)]
#[derive(Debug, PartialEq, Eq)]
pub struct ParsedKey {
    /// The map, as a JSON Pointer into the arguments.
    pub(crate) at: String,
    /// What the key type asked the deserializer for (`deserialize_str`, …).
    pub(crate) reads: &'static str,
}

/// The first map in `instance` whose key type parses its key, if any.
#[doc(hidden)]
pub fn parsed_key<A: serde::de::DeserializeOwned>(instance: &Value) -> Option<ParsedKey> {
    let log = Log::default();
    // The instance need not deserialize: the probe records the key type's
    // request before the key is read, and a failure later says nothing.
    let _ = A::deserialize(Probe {
        inner: instance,
        log: &log,
    });
    log.found.into_inner()
}

#[derive(Default)]
struct Log {
    path: RefCell<Vec<Step>>,
    /// The text of the key last read, for the path of its value.
    key: RefCell<Option<String>>,
    found: RefCell<Option<ParsedKey>>,
}

impl Log {
    fn parsed(&self, reads: &'static str) {
        let mut found = self.found.borrow_mut();
        if found.is_none() {
            *found = Some(ParsedKey {
                at: pointer::of_steps(&self.path.borrow()),
                reads,
            });
        }
    }

    fn within<T>(&self, step: Option<Step>, f: impl FnOnce() -> T) -> T {
        let pushed = step.map(|s| self.path.borrow_mut().push(s)).is_some();
        let out = f();
        if pushed {
            self.path.borrow_mut().pop();
        }
        out
    }
}

/// A deserializer that watches the maps inside the value it reads.
struct Probe<'l, D> {
    inner: D,
    log: &'l Log,
}

/// The visitor of a value read by a [`Probe`]: what it is handed (maps,
/// sequences, variants, options) is watched in turn.
struct Watch<'l, V> {
    inner: V,
    log: &'l Log,
}

/// A map key: records what its type asks for.
struct Key<'l, D> {
    inner: D,
    log: &'l Log,
}

/// The visitor of a map key: keeps the key's text for its value's path.
struct KeyText<'l, V> {
    inner: V,
    log: &'l Log,
}

struct Seed<'l, T> {
    inner: T,
    log: &'l Log,
    step: Option<Step>,
}

struct KeySeed<'l, T> {
    inner: T,
    log: &'l Log,
}

struct Entries<'l, M> {
    inner: M,
    log: &'l Log,
}

struct Items<'l, S> {
    inner: S,
    log: &'l Log,
    index: usize,
}

struct Variant<'l, E> {
    inner: E,
    log: &'l Log,
}

/// Forwards each `deserialize_*` method to `inner` with `$wrap`'s visitor.
macro_rules! forward {
    ($wrap:ident, $($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method($($arg,)* $wrap { inner: visitor, log: self.log })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Probe<'_, D> {
    type Error = D::Error;

    forward! {
        Watch,
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf();
        deserialize_option(); deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq(); deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier(); deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// The key deserializer: each method records whether it parses, then
/// forwards. `$method => $parses` says whether a key type that asks for it
/// may fold two spellings into one.
macro_rules! key_methods {
    ($($method:ident($($arg:ident: $ty:ty),*) => $parses:literal;)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            if $parses {
                self.log.parsed(stringify!($method));
            }
            self.inner.$method($($arg,)* KeyText { inner: visitor, log: self.log })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Key<'_, D> {
    type Error = D::Error;

    key_methods! {
        // What serde buffers (untagged and internally tagged enums,
        // `flatten`) asks for anything: undecided, not refused.
        deserialize_any() => false;
        deserialize_bool() => false;
        deserialize_i8() => false;
        deserialize_i16() => false;
        deserialize_i32() => false;
        deserialize_i64() => false;
        deserialize_i128() => false;
        deserialize_u8() => false;
        deserialize_u16() => false;
        deserialize_u32() => false;
        deserialize_u64() => false;
        deserialize_u128() => false;
        deserialize_f32() => true;
        deserialize_f64() => true;
        deserialize_char() => false;
        deserialize_str() => true;
        deserialize_string() => false;
        deserialize_bytes() => true;
        deserialize_byte_buf() => true;
        deserialize_option() => true;
        deserialize_unit() => true;
        deserialize_unit_struct(name: &'static str) => true;
        deserialize_seq() => true;
        deserialize_tuple(len: usize) => true;
        deserialize_tuple_struct(name: &'static str, len: usize) => true;
        deserialize_map() => true;
        deserialize_struct(name: &'static str, fields: &'static [&'static str]) => true;
        deserialize_enum(name: &'static str, variants: &'static [&'static str]) => false;
        deserialize_identifier() => false;
        deserialize_ignored_any() => false;
    }

    // A newtype around a key reads the key as its inner type does.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_newtype_struct(
            name,
            KeyText {
                inner: visitor,
                log: self.log,
            },
        )
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// Forwards the scalar `visit_*` methods unchanged.
macro_rules! visit_scalars {
    () => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            self.inner.visit_bool(v)
        }
        fn visit_i8<E: de::Error>(self, v: i8) -> Result<Self::Value, E> {
            self.inner.visit_i8(v)
        }
        fn visit_i16<E: de::Error>(self, v: i16) -> Result<Self::Value, E> {
            self.inner.visit_i16(v)
        }
        fn visit_i32<E: de::Error>(self, v: i32) -> Result<Self::Value, E> {
            self.inner.visit_i32(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            self.inner.visit_i64(v)
        }
        fn visit_i128<E: de::Error>(self, v: i128) -> Result<Self::Value, E> {
            self.inner.visit_i128(v)
        }
        fn visit_u8<E: de::Error>(self, v: u8) -> Result<Self::Value, E> {
            self.inner.visit_u8(v)
        }
        fn visit_u16<E: de::Error>(self, v: u16) -> Result<Self::Value, E> {
            self.inner.visit_u16(v)
        }
        fn visit_u32<E: de::Error>(self, v: u32) -> Result<Self::Value, E> {
            self.inner.visit_u32(v)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            self.inner.visit_u64(v)
        }
        fn visit_u128<E: de::Error>(self, v: u128) -> Result<Self::Value, E> {
            self.inner.visit_u128(v)
        }
        fn visit_f32<E: de::Error>(self, v: f32) -> Result<Self::Value, E> {
            self.inner.visit_f32(v)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            self.inner.visit_f64(v)
        }
        fn visit_char<E: de::Error>(self, v: char) -> Result<Self::Value, E> {
            self.inner.visit_char(v)
        }
        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
            self.inner.visit_bytes(v)
        }
        fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<Self::Value, E> {
            self.inner.visit_borrowed_bytes(v)
        }
        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
            self.inner.visit_byte_buf(v)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            self.inner.visit_none()
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            self.inner.visit_unit()
        }
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Watch<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    visit_scalars!();

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.inner.visit_str(v)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.inner.visit_borrowed_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.inner.visit_string(v)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_some(Probe {
            inner: d,
            log: self.log,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(Probe {
            inner: d,
            log: self.log,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_seq(Items {
            inner: seq,
            log: self.log,
            index: 0,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(Entries {
            inner: map,
            log: self.log,
        })
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_enum(Variant {
            inner: data,
            log: self.log,
        })
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyText<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    visit_scalars!();

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        *self.log.key.borrow_mut() = Some(v.to_owned());
        self.inner.visit_str(v)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        *self.log.key.borrow_mut() = Some(v.to_owned());
        self.inner.visit_borrowed_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        *self.log.key.borrow_mut() = Some(v.clone());
        self.inner.visit_string(v)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(Key {
            inner: d,
            log: self.log,
        })
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_enum(data)
    }
}

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, T> {
    type Value = T::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let log = self.log;
        log.within(self.step, || {
            self.inner.deserialize(Probe { inner: d, log })
        })
    }
}

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, T> {
    type Value = T::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.deserialize(Key {
            inner: d,
            log: self.log,
        })
    }
}

impl<'de, M: MapAccess<'de>> MapAccess<'de> for Entries<'_, M> {
    type Error = M::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, M::Error> {
        *self.log.key.borrow_mut() = None;
        self.inner.next_key_seed(KeySeed {
            inner: seed,
            log: self.log,
        })
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, M::Error> {
        let step = self.log.key.borrow_mut().take().map(Step::Key);
        self.inner.next_value_seed(Seed {
            inner: seed,
            log: self.log,
            step,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, S: SeqAccess<'de>> SeqAccess<'de> for Items<'_, S> {
    type Error = S::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, S::Error> {
        let step = Some(Step::Index(self.index));
        self.index += 1;
        self.inner.next_element_seed(Seed {
            inner: seed,
            log: self.log,
            step,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'l, 'de, E: EnumAccess<'de>> EnumAccess<'de> for Variant<'l, E> {
    type Error = E::Error;
    type Variant = Contents<'l, E::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), E::Error> {
        *self.log.key.borrow_mut() = None;
        let (value, inner) = self.inner.variant_seed(KeySeed {
            inner: seed,
            log: self.log,
        })?;
        let step = self.log.key.borrow_mut().take().map(Step::Key);
        Ok((
            value,
            Contents {
                inner,
                log: self.log,
                step,
            },
        ))
    }
}

/// A variant's contents, under the variant's name in the path.
struct Contents<'l, V> {
    inner: V,
    log: &'l Log,
    step: Option<Step>,
}

impl<'de, V: VariantAccess<'de>> VariantAccess<'de> for Contents<'_, V> {
    type Error = V::Error;

    fn unit_variant(self) -> Result<(), V::Error> {
        self.inner.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, V::Error> {
        self.inner.newtype_variant_seed(Seed {
            inner: seed,
            log: self.log,
            step: self.step,
        })
    }

    fn tuple_variant<W: Visitor<'de>>(self, len: usize, visitor: W) -> Result<W::Value, V::Error> {
        let (inner, log) = (self.inner, self.log);
        log.within(self.step, || {
            inner.tuple_variant(
                len,
                Watch {
                    inner: visitor,
                    log,
                },
            )
        })
    }

    fn struct_variant<W: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: W,
    ) -> Result<W::Value, V::Error> {
        let (inner, log) = (self.inner, self.log);
        log.within(self.step, || {
            inner.struct_variant(
                fields,
                Watch {
                    inner: visitor,
                    log,
                },
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::net::IpAddr;

    use serde::Deserialize;
    use serde_json::json;

    use super::parsed_key;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Hosts {
        /// A value whose type reads itself differently when the format is
        /// not human-readable.
        gateway: IpAddr,
        groups: Vec<Group>,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Group {
        weights: HashMap<IpAddr, u8>,
    }

    #[test]
    fn a_parsed_key_is_found_past_a_value_that_reads_itself_as_text() {
        // JSON is human-readable: the gateway reads as text, and the probe
        // goes on to the maps.
        let instance = json!({
            "gateway": "10.0.0.1",
            "groups": [{"weights": {}}, {"weights": {"::1": 1}}]
        });
        let found = parsed_key::<Hosts>(&instance).expect("a map whose keys parse");
        // The second group's map: each item of a list is counted.
        assert_eq!(found.at, "/groups/1/weights");
        assert_eq!(found.reads, "deserialize_str");
    }
}
