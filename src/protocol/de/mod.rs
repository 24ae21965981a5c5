//! The one-pass deserialization machinery shared by every protocol type.
//!
//! Each struct has a *builder* that receives `(key, value deserializer)`
//! pairs and deserializes known keys straight into typed fields; unknown
//! keys become [`Extras`](super::Extras) (the only `Value`s built). Tagged
//! enums read keys in order: when the tag comes first they dispatch at once;
//! members seen before the tag are held as borrowed `&RawValue` slices (no
//! tree) and replayed into the chosen builder once the tag is known.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::notes;

mod dispatch;

pub(crate) use dispatch::{drain_into, find_tag, strip_position, visit_struct, visit_tagged};

/// A map key or tag value, borrowed from the input when it has no escapes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Key<'de>(pub(crate) Cow<'de, str>);

impl Key<'_> {
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Members read before a tag, held as unparsed slices of the input.
pub(crate) type Pending<'de> = Vec<(Key<'de>, &'de RawValue)>;

/// `(tag key, tag value)` pairs already consumed by enclosing dispatch.
pub(crate) type Tags<'a> = &'a [(&'static str, &'a str)];

/// Receives the members of one JSON object.
pub(crate) trait FieldSink {
    /// Deserializes the value of `key` from `d` and stores it.
    fn field<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D) -> Result<(), D::Error>;

    /// Told the tags consumed by dispatch (raw builders keep them).
    fn seed_tags(&mut self, _tags: Tags<'_>) {}
}

/// Turns a filled builder into the finished value.
pub(crate) trait Finish {
    type Output;
    /// `Err((type label, field))` names a missing required field.
    fn finish(self) -> Result<Self::Output, (&'static str, &'static str)>;
}

/// A protocol struct: its builder and how it writes its members.
pub(crate) trait Wire: Sized {
    /// The type's name in error messages.
    const LABEL: &'static str;
    type Builder: Default + FieldSink + Finish<Output = Self>;
    /// Writes every member (known fields, then extras) into `m`.
    fn write_fields<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error>;
}

/// An enum chosen by the string value of one member (its tag).
pub(crate) trait Tagged: Sized {
    const TAG: &'static str;
    const LABEL: &'static str;
    type Builder: FieldSink + Finish<Output = Self>;
    fn select(tag: &str) -> Self::Builder;
}

/// Records the failing field on the side channel and passes the error on.
pub(crate) fn note<E>(e: E, label: &'static str, field: &str) -> E {
    notes::field(label, field);
    e
}

/// Reads one typed field, noting `label.field` when it fails: written once
/// per field type for every builder rather than inline in each builder's
/// `field` (less code for the compiler's front end; the optimizer may still
/// inline it, which keeps parsing as fast).
pub(crate) fn read_field<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    d: D,
    label: &'static str,
    field: &str,
) -> Result<T, D::Error> {
    T::deserialize(d).map_err(|e| note(e, label, field))
}

/// Keeps a member no field of the type models in `extras`.
pub(crate) fn read_extra<'de, D: Deserializer<'de>>(
    d: D,
    extras: &mut super::Extras,
    label: &'static str,
    key: &str,
) -> Result<(), D::Error> {
    let v = Value::deserialize(d).map_err(|e| note(e, label, key))?;
    extras.map.insert(key.to_owned(), v);
    Ok(())
}

/// Writes the members no field of the type models, after the fields.
#[inline]
pub(crate) fn write_extras<M: SerializeMap>(
    m: &mut M,
    extras: &super::Extras,
) -> Result<(), M::Error> {
    for (k, v) in &extras.map {
        m.serialize_entry(k, v)?;
    }
    Ok(())
}

/// Writes an optional field: its value, an explicit `null` when one was
/// read (`null_read`), or nothing (once per field type, as `read_field`).
pub(crate) fn write_optional<M: SerializeMap, T: serde::Serialize + ?Sized>(
    m: &mut M,
    key: &'static str,
    value: Option<&T>,
    null_read: bool,
) -> Result<(), M::Error> {
    match value {
        Some(v) => m.serialize_entry(key, v),
        None if null_read => m.serialize_entry(key, &()),
        None => Ok(()),
    }
}

/// Finishes a builder, turning a missing field into a noted serde error.
pub(crate) fn finish<B: Finish, E: de::Error>(b: B) -> Result<B::Output, E> {
    b.finish().map_err(|(label, field)| {
        notes::missing(label, field);
        E::missing_field(field)
    })
}

/// Keeps every member as JSON: the builder of `Unknown`/`Other` variants.
#[derive(Debug, Default)]
pub(crate) struct RawBuilder {
    pub(crate) tag: String,
    pub(crate) map: Map<String, Value>,
}

impl RawBuilder {
    pub(crate) fn new(tag: &str) -> Self {
        Self {
            tag: tag.to_owned(),
            map: Map::new(),
        }
    }
}

impl FieldSink for RawBuilder {
    fn field<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D) -> Result<(), D::Error> {
        let v = Value::deserialize(d).map_err(|e| note(e, "object", key))?;
        self.map.insert(key.to_owned(), v);
        Ok(())
    }
    fn seed_tags(&mut self, tags: Tags<'_>) {
        for (k, v) in tags {
            self.map
                .insert((*k).to_owned(), Value::String((*v).to_owned()));
        }
    }
}

/// What a visitor of a protocol object expects, named in its errors.
fn expecting_object(f: &mut fmt::Formatter<'_>, label: &str) -> fmt::Result {
    write!(f, "a {label} object")
}

/// Visitor for a [`Wire`] struct.
pub(crate) struct StructVisitor<W>(pub(crate) PhantomData<W>);

impl<'de, W: Wire> Visitor<'de> for StructVisitor<W> {
    type Value = W;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        expecting_object(f, W::LABEL)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<W, A::Error> {
        visit_struct(map, Vec::new(), &[])
    }
}

/// Visitor for a [`Tagged`] enum.
pub(crate) struct TaggedVisitor<T>(pub(crate) PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for TaggedVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        expecting_object(f, T::LABEL)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        visit_tagged(map, Vec::new(), None)
    }
}

/// Seed for one variant's struct of a tagged enum whose tag is known (the
/// reader's scan read it): the struct's decoder alone, not the enum's.
pub(crate) struct KnownVariant<'t, W> {
    key: &'static str,
    tag: &'t str,
    marker: PhantomData<W>,
}

impl<'t, W> KnownVariant<'t, W> {
    pub(crate) fn new(key: &'static str, tag: &'t str) -> Self {
        Self {
            key,
            tag,
            marker: PhantomData,
        }
    }
}

impl<'de, W: Wire> de::DeserializeSeed<'de> for KnownVariant<'_, W> {
    type Value = W;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<W, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, W: Wire> Visitor<'de> for KnownVariant<'_, W> {
    type Value = W;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        expecting_object(f, W::LABEL)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<W, A::Error> {
        // A tag member, where present, must repeat the known value.
        visit_struct(map, Vec::new(), &[(self.key, self.tag)])
    }
}

/// Index of `name` in `fields` (compile-time, for the null bitmask).
pub(crate) const fn field_index(fields: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < fields.len() {
        let f = fields[i].as_bytes();
        let n = name.as_bytes();
        if f.len() == n.len() {
            let mut j = 0;
            while j < f.len() && f[j] == n[j] {
                j += 1;
            }
            if j == f.len() {
                return i;
            }
        }
        i += 1;
    }
    i
}

/// A boxed protocol struct is read and written like the struct itself
/// (large enum variants are boxed to keep the enums small).
impl<W: Wire> Wire for Box<W> {
    const LABEL: &'static str = W::LABEL;
    type Builder = Boxed<W::Builder>;
    fn write_fields<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        (**self).write_fields(m)
    }
}

/// Builder of a `Box<W>`: `W`'s builder, boxed when finished.
#[derive(Default)]
pub(crate) struct Boxed<B>(B);

impl<B: FieldSink> FieldSink for Boxed<B> {
    fn field<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D) -> Result<(), D::Error> {
        self.0.field(key, d)
    }
    fn seed_tags(&mut self, tags: Tags<'_>) {
        self.0.seed_tags(tags);
    }
}

impl<B: Finish> Finish for Boxed<B> {
    type Output = Box<B::Output>;
    fn finish(self) -> Result<Self::Output, (&'static str, &'static str)> {
        self.0.finish().map(Box::new)
    }
}
