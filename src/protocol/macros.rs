//! Declarative macros that write the per-type visitors and serializers.
//!
//! - `wire_struct!`: a struct with typed fields (`req` required, `opt`
//!   optional and null-preserving) plus [`Extras`](super::Extras).
//! - `string_enum!`: a string enum with an `Other(String)` fallback.

macro_rules! wire_struct {
    (@ty req $ty:ty) => { $ty };
    (@ty opt $ty:ty) => { Option<$ty> };
    (@take req $v:expr, $json:literal) => { match $v { Some(v) => v, None => return Err((LABEL, $json)) } };
    (@take opt $v:expr, $json:literal) => { $v };
    (@read req $self:ident . $field:ident, $ty:ty, $d:ident, $json:literal) => {
        $self.$field = Some($crate::protocol::de::read_field::<$ty, D>($d, LABEL, $json)?)
    };
    (@read opt $self:ident . $field:ident, $ty:ty, $d:ident, $json:literal) => {{
        const BIT: usize = $crate::protocol::de::field_index(OPT_FIELDS, $json);
        $self.$field = $crate::protocol::de::read_field::<Option<$ty>, D>($d, LABEL, $json)?;
        $self.extra.set_null(BIT, $self.$field.is_none());
    }};
    (@write req $self:ident . $field:ident, $m:ident, $json:literal) => {
        $m.serialize_entry($json, &$self.$field)?;
    };
    (@write opt $self:ident . $field:ident, $m:ident, $json:literal) => {
        $crate::protocol::de::write_optional(
            $m,
            $json,
            $self.$field.as_ref(),
            $self.extra.is_null($crate::protocol::de::field_index(OPT_FIELDS, $json)),
        )?;
    };
    (@opt_name req $json:literal) => { "" };
    (@opt_name opt $json:literal) => { $json };
    (
        $(#[$meta:meta])*
        pub struct $name:ident = $label:literal, builder $builder:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $kind:ident $ty:ty = $json:literal
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct $name {
            $(
                $(#[$fmeta])*
                pub $field: wire_struct!(@ty $kind $ty),
            )*
            /// Members this type does not model, kept for a lossless round trip.
            pub extra: $crate::protocol::Extras,
        }

        #[doc(hidden)]
        #[derive(Default)]
        pub(crate) struct $builder {
            $( $field: Option<$ty>, )*
            extra: $crate::protocol::Extras,
        }

        const _: () = {
            use ::serde::ser::SerializeMap as _;
            const LABEL: &str = $label;
            #[allow(dead_code)]
            const OPT_FIELDS: &[&str] = &[$( wire_struct!(@opt_name $kind $json) ),*];
            assert!(OPT_FIELDS.len() <= 64, "too many optional fields for the null bitmask");

            impl $name {
                /// Marks optional field `json` as an explicit `null` (written as
                /// `null` while the field is `None`).
                #[allow(dead_code)]
                pub(crate) fn mark_null(&mut self, json: &str) {
                    let i = $crate::protocol::de::field_index(OPT_FIELDS, json);
                    if i < OPT_FIELDS.len() && !json.is_empty() {
                        self.extra.set_null(i, true);
                    }
                }
            }

            impl $crate::protocol::de::FieldSink for $builder {
                fn field<'de, D: ::serde::Deserializer<'de>>(
                    &mut self,
                    key: &str,
                    d: D,
                ) -> Result<(), D::Error> {
                    match key {
                        $( $json => wire_struct!(@read $kind self.$field, $ty, d, $json), )*
                        _ => $crate::protocol::de::read_extra(d, &mut self.extra, LABEL, key)?,
                    }
                    Ok(())
                }
            }

            impl $crate::protocol::de::Finish for $builder {
                type Output = $name;
                fn finish(self) -> Result<$name, (&'static str, &'static str)> {
                    Ok($name {
                        $( $field: wire_struct!(@take $kind self.$field, $json), )*
                        extra: self.extra,
                    })
                }
            }

            impl $crate::protocol::de::Wire for $name {
                const LABEL: &'static str = $label;
                type Builder = $builder;
                fn write_fields<M: ::serde::ser::SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
                    $( wire_struct!(@write $kind self.$field, m, $json); )*
                    $crate::protocol::de::write_extras(m, &self.extra)
                }
            }

            impl ::serde::Serialize for $name {
                fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    let mut m = s.serialize_map(None)?;
                    $crate::protocol::de::Wire::write_fields(self, &mut m)?;
                    m.end()
                }
            }

            impl<'de> ::serde::Deserialize<'de> for $name {
                fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    d.deserialize_map($crate::protocol::de::StructVisitor::<$name>(::std::marker::PhantomData))
                }
            }
        };
    };
}

macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $var:ident = $lit:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $var, )*
            /// A value this version does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$var => $lit, )*
                    Self::Other(s) => s,
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $( $lit => Self::$var, )*
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let k = <$crate::protocol::de::Key<'de> as ::serde::Deserialize<'de>>::deserialize(d)?;
                Ok(Self::from(k.as_str()))
            }
        }
    };
}
