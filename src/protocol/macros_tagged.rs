//! `tagged_enum!`: an enum chosen by a string tag (`type`, `subtype`,
//! `hook_event_name`, ...), with an `Other`-style variant that keeps unknown
//! tags as raw JSON, an optional variant for a listed set of tags sharing
//! one body type, and an optional suffix-matched variant. A variant written
//! `= "tag" feature "name"` exists only with that crate feature; without
//! it, its tag is an unknown one.

macro_rules! tagged_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident = $label:literal, tag $tag:literal, builder $builder:ident {
            $(
                $(#[$vmeta:meta])*
                $var:ident($ty:ty) = $lit:literal $(feature $feat:literal)?,
            )*
            $(
                @listed
                $(#[$lmeta:meta])*
                [$($llit:literal),* $(,)?] => $lvar:ident($lty:ty),
            )?
            $(
                @suffix
                $(#[$smeta:meta])*
                $sfx:literal => $svar:ident($sty:ty),
            )?
            @other
            $(#[$ometa:meta])*
            $other:ident { $okey:ident }
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[cfg(feature = $feat)])? $(#[$vmeta])* $var($ty), )*
            $(
                $(#[$lmeta])*
                $lvar {
                    /// The tag value as received.
                    kind: String,
                    /// The typed body.
                    body: $lty,
                },
            )?
            $(
                $(#[$smeta])*
                $svar {
                    /// The tag value as received.
                    kind: String,
                    /// The typed body.
                    body: $sty,
                },
            )?
            $(#[$ometa])*
            $other {
                /// The tag value as received.
                $okey: String,
                /// The whole JSON object as received, tags included.
                raw: ::serde_json::Map<String, ::serde_json::Value>,
            },
        }

        #[doc(hidden)]
        pub(crate) enum $builder {
            $( $(#[cfg(feature = $feat)])? $var(<$ty as $crate::protocol::de::Wire>::Builder), )*
            $( $lvar(String, <$lty as $crate::protocol::de::Wire>::Builder), )?
            $( $svar(String, <$sty as $crate::protocol::de::Wire>::Builder), )?
            $other($crate::protocol::de::RawBuilder),
        }

        impl $crate::protocol::de::FieldSink for $builder {
            fn field<'de, D: ::serde::Deserializer<'de>>(&mut self, key: &str, d: D) -> Result<(), D::Error> {
                match self {
                    $( $(#[cfg(feature = $feat)])? Self::$var(b) => b.field(key, d), )*
                    $( Self::$lvar(_, b) => b.field(key, d), )?
                    $( Self::$svar(_, b) => b.field(key, d), )?
                    Self::$other(b) => b.field(key, d),
                }
            }
            fn seed_tags(&mut self, tags: $crate::protocol::de::Tags<'_>) {
                if let Self::$other(b) = self {
                    b.seed_tags(tags);
                }
            }
        }

        impl $crate::protocol::de::Finish for $builder {
            type Output = $name;
            fn finish(self) -> Result<$name, (&'static str, &'static str)> {
                match self {
                    $( $(#[cfg(feature = $feat)])? Self::$var(b) => b.finish().map($name::$var), )*
                    $( Self::$lvar(kind, b) => b.finish().map(|body| $name::$lvar { kind, body }), )?
                    $( Self::$svar(kind, b) => b.finish().map(|body| $name::$svar { kind, body }), )?
                    Self::$other(b) => Ok($name::$other { $okey: b.tag, raw: b.map }),
                }
            }
        }

        impl $crate::protocol::de::Tagged for $name {
            const TAG: &'static str = $tag;
            const LABEL: &'static str = $label;
            type Builder = $builder;
            fn select(tag: &str) -> $builder {
                match tag {
                    $( $(#[cfg(feature = $feat)])? $lit => $builder::$var(Default::default()), )*
                    $( t @ ($($llit)|*) => $builder::$lvar(t.to_owned(), Default::default()), )?
                    $( t if t.ends_with($sfx) => $builder::$svar(t.to_owned(), Default::default()), )?
                    t => $builder::$other($crate::protocol::de::RawBuilder::new(t)),
                }
            }
        }

        impl $name {
            /// The tag value (e.g. the `type` or `subtype` member) of this value.
            pub fn tag(&self) -> &str {
                match self {
                    $( $(#[cfg(feature = $feat)])? Self::$var(_) => $lit, )*
                    $( Self::$lvar { kind, .. } => kind, )?
                    $( Self::$svar { kind, .. } => kind, )?
                    Self::$other { $okey, .. } => $okey,
                }
            }

            /// Writes the enclosing tag (if any), this tag and the members.
            #[allow(dead_code)]
            pub(crate) fn write_tagged<M: ::serde::ser::SerializeMap>(
                &self,
                m: &mut M,
                outer: Option<(&'static str, &'static str)>,
            ) -> Result<(), M::Error> {
                use $crate::protocol::de::Wire as _;
                if !matches!(self, Self::$other { .. }) {
                    if let Some((k, v)) = outer {
                        m.serialize_entry(k, v)?;
                    }
                    m.serialize_entry($tag, self.tag())?;
                }
                match self {
                    $( $(#[cfg(feature = $feat)])? Self::$var(v) => v.write_fields(m), )*
                    $( Self::$lvar { body, .. } => body.write_fields(m), )?
                    $( Self::$svar { body, .. } => body.write_fields(m), )?
                    Self::$other { raw, .. } => {
                        for (k, v) in raw {
                            m.serialize_entry(k, v)?;
                        }
                        Ok(())
                    }
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeMap as _;
                let mut m = s.serialize_map(None)?;
                self.write_tagged(&mut m, None)?;
                m.end()
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_map($crate::protocol::de::TaggedVisitor::<$name>(::std::marker::PhantomData))
            }
        }
    };
}
