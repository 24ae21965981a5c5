//! Unparsed JSON kept verbatim: control reply payloads.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::{EncodeError, ParseError};

/// A JSON value kept as its exact text, decoded on demand.
///
/// Control reply payloads depend on the request they answer, which the reply
/// line does not say; they are kept raw (validated, but no tree is built)
/// until the waiting caller decodes them into the type it expects, e.g.
/// [`ServerInfo`](super::ServerInfo) or [`PermissionResult`](super::PermissionResult).
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Decodes the payload into `T`, with the same typed errors as lines.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, ParseError> {
        super::parse::parse_json::<T>(self.get().as_bytes(), false)
    }

    /// Decodes the payload into a `serde_json::Value`.
    pub fn to_value(&self) -> Result<serde_json::Value, ParseError> {
        self.decode()
    }

    /// Encodes `value` as a raw payload.
    pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Self, EncodeError> {
        Ok(Self(serde_json::value::to_raw_value(value)?))
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(Self)
    }
}
