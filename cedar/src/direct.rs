//! A resource written straight into Cedar values, without a JSON tree
//! between.
//!
//! A resolved object's attributes are what it serializes. Serialized to a
//! `serde_json::Value` first, each of its strings is copied, each object
//! becomes a map hashed by key, and the tree is read again and dropped:
//! a quarter of a decision's cost. Here the object's `Serialize` writes
//! each field into the Cedar value the schema's type for it calls for.
//!
//! Only the common shapes are written here: structs, strings, unit enum
//! variants, integers, booleans, options, sequences. Anything else (a
//! float, a map or a flattened struct, an enum variant with data, a value
//! that does not fit its type, a required attribute that is absent)
//! makes [`record`] answer `None`, and the resource takes the JSON path
//! (`types::record_value`), which decides what it means and words any
//! error. A field the schema leaves out is not read, but still serialized
//! as JSON, so that an object the JSON path could not serialize is denied
//! all the same. So this path either gives what the JSON path gives or
//! gives nothing; `direct_and_json_paths_agree` holds the two to it.

use core::fmt;

use cedar_policy_core::ast::Value as Cedar;
use cedar_policy_core::pst::SmolStr;
use serde::Serialize;
use serde::ser::{self, Impossible};

use crate::types::{Attr, Ty};

/// Integer methods that widen to `serialize_i64`: Cedar has one integer
/// type.
macro_rules! widened {
    ($($method:ident $ty:ty),*) => {
        $(fn $method(self, v: $ty) -> Result<Self::Ok, Elsewhere> {
            self.serialize_i64(v.into())
        })*
    };
}

/// The methods of a serializer for everything it leaves to the JSON path.
macro_rules! elsewhere {
    () => {
        elsewhere!(@scalar serialize_bool bool, serialize_i8 i8, serialize_i16 i16,
            serialize_i32 i32, serialize_i64 i64, serialize_u8 u8, serialize_u16 u16,
            serialize_u32 u32, serialize_u64 u64, serialize_f32 f32, serialize_f64 f64,
            serialize_char char, serialize_str &str, serialize_bytes &[u8],
            serialize_unit_struct &'static str);

        fn serialize_none(self) -> Result<Self::Ok, Elsewhere> {
            Err(Elsewhere)
        }

        fn serialize_unit(self) -> Result<Self::Ok, Elsewhere> {
            Err(Elsewhere)
        }

        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok, Elsewhere> {
            Err(Elsewhere)
        }

        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> Result<Self::Ok, Elsewhere> {
            Err(Elsewhere)
        }

        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Elsewhere> {
            Err(Elsewhere)
        }

        elsewhere!(@compound);
    };
    // Tuples, maps and enum variants with data: for a serializer that
    // writes the other shapes itself.
    (@compound) => {
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, Elsewhere> {
            Err(Elsewhere)
        }

        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Elsewhere> {
            Err(Elsewhere)
        }

        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, Elsewhere> {
            Err(Elsewhere)
        }

        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Elsewhere> {
            Err(Elsewhere)
        }

        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Elsewhere> {
            Err(Elsewhere)
        }

        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Elsewhere> {
            Err(Elsewhere)
        }
    };
    (@scalar $($name:ident $ty:ty),*) => {
        $(
            fn $name(self, _: $ty) -> Result<Self::Ok, Elsewhere> {
                Err(Elsewhere)
            }
        )*
    };
}

/// `value`'s attributes as the record type `attrs` reads them, as
/// `types::record_value` would make them from `value`'s JSON; `None` when
/// this path leaves `value` to that one.
pub(crate) fn record<T: Serialize + ?Sized>(
    attrs: &[Attr],
    value: &T,
) -> Option<Vec<(SmolStr, Cedar)>> {
    value.serialize(Record::new(attrs)).ok()
}

/// Why this path gives up: only ever to hand over to the JSON path.
#[derive(Debug)]
struct Elsewhere;

impl fmt::Display for Elsewhere {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("left to the JSON path")
    }
}

impl std::error::Error for Elsewhere {}

impl ser::Error for Elsewhere {
    fn custom<M: fmt::Display>(_: M) -> Self {
        Elsewhere
    }
}

/// A struct written as a record of type `attrs`.
struct Record<'a> {
    attrs: &'a [Attr],
    /// Each attribute's value, in `attrs`' order: `None` when the field was
    /// absent or null.
    found: Vec<Option<Cedar>>,
}

impl<'a> Record<'a> {
    fn new(attrs: &'a [Attr]) -> Self {
        Record {
            attrs,
            found: (0..attrs.len()).map(|_| None).collect(),
        }
    }

    /// As `types::record_value`: every attribute present, or defaulted,
    /// or optional and left out.
    fn finish(self) -> Result<Vec<(SmolStr, Cedar)>, Elsewhere> {
        let mut out = Vec::with_capacity(self.attrs.len());
        for (attr, found) in self.attrs.iter().zip(self.found) {
            let value = match found {
                Some(value) => value,
                // A default is JSON: the JSON path makes its value.
                None if attr.default.is_some() => return Err(Elsewhere),
                None if attr.required => return Err(Elsewhere),
                None => continue,
            };
            out.push((attr.name.clone(), value));
        }
        Ok(out)
    }
}

impl ser::SerializeStruct for Record<'_> {
    type Ok = Vec<(SmolStr, Cedar)>;
    type Error = Elsewhere;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Elsewhere> {
        match self.attrs.iter().position(|attr| attr.name == key) {
            Some(i) => self.found[i] = value.serialize(Of(&self.attrs[i].ty))?,
            // A field the type leaves out (a map, a union) is not read, but
            // it must serialize as the JSON path would have it: an object
            // that does not serialize is denied there, and so here.
            None => {
                serde_json::to_value(value).map_err(|_| Elsewhere)?;
            }
        }
        Ok(())
    }

    fn end(self) -> Result<Self::Ok, Elsewhere> {
        self.finish()
    }
}

/// Everything but a struct (or a newtype around one) is left to the JSON
/// path at the top.
impl<'a> ser::Serializer for Record<'a> {
    type Ok = Vec<(SmolStr, Cedar)>;
    type Error = Elsewhere;
    type SerializeSeq = Impossible<Self::Ok, Elsewhere>;
    type SerializeTuple = Impossible<Self::Ok, Elsewhere>;
    type SerializeTupleStruct = Impossible<Self::Ok, Elsewhere>;
    type SerializeTupleVariant = Impossible<Self::Ok, Elsewhere>;
    type SerializeMap = Impossible<Self::Ok, Elsewhere>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<Self::Ok, Elsewhere>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Elsewhere> {
        Ok(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Elsewhere> {
        value.serialize(self)
    }

    elsewhere! {}
}

/// One value written as type `.0`: `Ok(None)` for a null.
struct Of<'a>(&'a Ty);

impl<'a> ser::Serializer for Of<'a> {
    type Ok = Option<Cedar>;
    type Error = Elsewhere;
    type SerializeSeq = Set<'a>;
    type SerializeTuple = Impossible<Self::Ok, Elsewhere>;
    type SerializeTupleStruct = Impossible<Self::Ok, Elsewhere>;
    type SerializeTupleVariant = Impossible<Self::Ok, Elsewhere>;
    type SerializeMap = Impossible<Self::Ok, Elsewhere>;
    type SerializeStruct = Nested<'a>;
    type SerializeStructVariant = Impossible<Self::Ok, Elsewhere>;

    fn serialize_bool(self, v: bool) -> Result<Self::Ok, Elsewhere> {
        match self.0 {
            Ty::Bool => Ok(Some(Cedar::from(v))),
            _ => Err(Elsewhere),
        }
    }

    fn serialize_i64(self, v: i64) -> Result<Self::Ok, Elsewhere> {
        match self.0 {
            Ty::Long => Ok(Some(Cedar::from(v))),
            _ => Err(Elsewhere),
        }
    }

    widened!(serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_u8 u8,
        serialize_u16 u16, serialize_u32 u32);

    fn serialize_u64(self, v: u64) -> Result<Self::Ok, Elsewhere> {
        self.serialize_i64(i64::try_from(v).map_err(|_| Elsewhere)?)
    }

    fn serialize_str(self, v: &str) -> Result<Self::Ok, Elsewhere> {
        match self.0 {
            // As on the JSON path, an enumeration's value is not checked
            // against its values: the resource's type allows it.
            Ty::String | Ty::Enum(_) => Ok(Some(Cedar::from(v))),
            _ => Err(Elsewhere),
        }
    }

    fn serialize_char(self, v: char) -> Result<Self::Ok, Elsewhere> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Self::Ok, Elsewhere> {
        self.serialize_str(variant)
    }

    fn serialize_none(self) -> Result<Self::Ok, Elsewhere> {
        Ok(None)
    }

    fn serialize_unit(self) -> Result<Self::Ok, Elsewhere> {
        Ok(None)
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok, Elsewhere> {
        Ok(None)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok, Elsewhere> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Elsewhere> {
        value.serialize(self)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Set<'a>, Elsewhere> {
        match self.0 {
            Ty::Set(item) => Ok(Set {
                item,
                items: Vec::with_capacity(len.unwrap_or(0)),
            }),
            _ => Err(Elsewhere),
        }
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Nested<'a>, Elsewhere> {
        match self.0 {
            Ty::Record(attrs) => Ok(Nested(Record::new(attrs))),
            _ => Err(Elsewhere),
        }
    }

    // Floats (`2.0` is a long on the JSON path, a non-finite one is
    // null), 128-bit integers, bytes, tuples, maps and enum variants with
    // data: the JSON path decides.
    fn serialize_f32(self, _: f32) -> Result<Self::Ok, Elsewhere> {
        Err(Elsewhere)
    }

    fn serialize_f64(self, _: f64) -> Result<Self::Ok, Elsewhere> {
        Err(Elsewhere)
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok, Elsewhere> {
        Err(Elsewhere)
    }

    elsewhere!(@compound);
}

/// A sequence written as a set of `item`s.
struct Set<'a> {
    item: &'a Ty,
    items: Vec<Cedar>,
}

impl ser::SerializeSeq for Set<'_> {
    type Ok = Option<Cedar>;
    type Error = Elsewhere;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Elsewhere> {
        // A null in a set does not fit: the JSON path words it.
        let item = value.serialize(Of(self.item))?.ok_or(Elsewhere)?;
        self.items.push(item);
        Ok(())
    }

    fn end(self) -> Result<Self::Ok, Elsewhere> {
        Ok(Some(Cedar::set(self.items, None)))
    }
}

/// A struct within a value, written as a record.
struct Nested<'a>(Record<'a>);

impl ser::SerializeStruct for Nested<'_> {
    type Ok = Option<Cedar>;
    type Error = Elsewhere;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Elsewhere> {
        ser::SerializeStruct::serialize_field(&mut self.0, key, value)
    }

    fn end(self) -> Result<Self::Ok, Elsewhere> {
        Ok(Some(Cedar::record(self.0.finish()?, None)))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;
    use schemars::JsonSchema;
    use serde_json::Value;

    use super::*;
    use crate::types;

    /// What the JSON path makes of `value`: its attributes, or its error.
    fn by_json<T: Serialize>(attrs: &[Attr], value: &T) -> Result<Vec<(SmolStr, Cedar)>, String> {
        let Value::Object(fields) = serde_json::to_value(value).unwrap() else {
            panic!("not an object")
        };
        types::record_value(attrs, &|name| fields.get(name), &mut String::new())
    }

    fn attrs<T: JsonSchema>() -> Vec<Attr> {
        let schema = schemars::SchemaGenerator::default()
            .into_root_schema_for::<T>()
            .to_value();
        types::record(&schema).expect("a record")
    }

    #[derive(Clone, Debug, Serialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Level {
        Public,
        #[serde(rename = "top-secret")]
        TopSecret,
    }

    #[derive(Clone, Debug, Serialize, JsonSchema)]
    struct Owner {
        id: String,
        since: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    }

    #[derive(Clone, Debug, Serialize, JsonSchema)]
    struct Label(String);

    /// A resource with a field of every shape the direct path writes, and
    /// of some it leaves to the JSON path.
    #[derive(Clone, Debug, Serialize, JsonSchema)]
    struct Doc {
        id: String,
        #[serde(rename = "tenant-id")]
        tenant: String,
        level: Level,
        pages: u64,
        delta: i32,
        locked: bool,
        tags: BTreeSet<String>,
        owners: Vec<Owner>,
        label: Label,
        initial: char,
        maybe: Option<i64>,
        /// A map: left out of the schema, read by neither path.
        extra: BTreeMap<String, u8>,
        /// A float: the JSON path decides.
        score: Option<f64>,
    }

    fn docs() -> impl Strategy<Value = Doc> {
        let level = prop_oneof![Just(Level::Public), Just(Level::TopSecret)];
        let owner = (
            "[a-z]{0,3}",
            prop::option::of(any::<u32>()),
            prop::option::of("[a-z]{0,2}"),
        )
            .prop_map(|(id, since, note)| Owner { id, since, note });
        let pages = prop_oneof![0u64..10, Just(i64::MAX as u64), Just(u64::MAX)];
        let score = prop::option::of(prop_oneof![Just(1.0), Just(0.5), Just(f64::NAN)]);
        (
            (
                "[a-zé]{0,30}",
                "t[12]",
                level,
                pages,
                any::<i32>(),
                any::<bool>(),
            ),
            (
                prop::collection::btree_set("[a-c]{1,2}", 0..3),
                prop::collection::vec(owner, 0..3),
                "[a-z]{0,3}",
                any::<char>(),
                prop::option::of(any::<i64>()),
                score,
            ),
        )
            .prop_map(
                |(
                    (id, tenant, level, pages, delta, locked),
                    (tags, owners, label, initial, maybe, score),
                )| Doc {
                    id,
                    tenant,
                    level,
                    pages,
                    delta,
                    locked,
                    tags,
                    owners,
                    label: Label(label),
                    initial,
                    maybe,
                    extra: BTreeMap::from([("k".to_owned(), 1)]),
                    score,
                },
            )
    }

    #[test]
    fn direct_and_json_paths_agree() {
        let attrs = attrs::<Doc>();
        let names: Vec<&str> = attrs.iter().map(|a| a.name.as_str()).collect();
        for name in [
            "tenant-id",
            "level",
            "tags",
            "owners",
            "label",
            "initial",
            "maybe",
        ] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        assert!(!names.contains(&"extra"), "{names:?}");
        let seen = std::cell::RefCell::new([0usize; 2]);
        proptest!(ProptestConfig {
            cases: 2_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        }, |(doc in docs())| {
            let direct = record(&attrs, &doc);
            let json = by_json(&attrs, &doc);
            if let Some(direct) = &direct {
                prop_assert_eq!(Ok(direct.clone()), json, "{:?}", doc);
            }
            seen.borrow_mut()[usize::from(direct.is_some())] += 1;
        });
        // Both paths were taken often: the direct one is compared, and the
        // shapes it leaves out do reach the JSON path.
        let seen = seen.into_inner();
        assert!(seen.iter().all(|n| *n >= 200), "JSON, direct: {seen:?}");
    }

    #[test]
    fn a_field_policies_do_not_read_still_has_to_serialize() {
        #[derive(Serialize, JsonSchema)]
        struct Folder {
            id: String,
            /// Keys JSON cannot hold: this struct does not serialize.
            by_range: BTreeMap<(u8, u8), String>,
        }
        let folder = Folder {
            id: "f".to_owned(),
            by_range: BTreeMap::from([((1, 2), "a".to_owned())]),
        };
        let attrs = attrs::<Folder>();
        assert_eq!(attrs.len(), 1, "only `id` can be read");
        assert!(serde_json::to_value(&folder).is_err());
        assert_eq!(record(&attrs, &folder), None);
    }

    #[test]
    fn a_struct_with_only_common_shapes_takes_the_direct_path() {
        #[derive(Serialize, JsonSchema)]
        struct Order {
            id: String,
            tenant: String,
            amount_cents: u32,
            disputed: bool,
            tags: Vec<String>,
        }
        let order = Order {
            id: "ord_1".to_owned(),
            tenant: "t1".to_owned(),
            amount_cents: 500,
            disputed: false,
            tags: vec!["a".to_owned()],
        };
        let attrs = attrs::<Order>();
        assert_eq!(
            record(&attrs, &order).map(Ok),
            Some(by_json(&attrs, &order))
        );
    }
}
