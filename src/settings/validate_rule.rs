//! One row of the settings schema's table (`RULES` in `validate_rules.rs`):
//! what a key holds, to the depth the schema checks it (an object's fields
//! and a list's items are kinds too), and what a wrong value does in each
//! kind of source. The checking is in `validate.rs`.

pub(crate) use super::permission_rule::RuleList;

/// What a key (or a field, or a list's item) holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// `true` or `false`.
    Bool,
    /// A string.
    Str,
    /// A string that is not empty.
    Text,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// One of these strings; any other value reads as the last text.
    OneOfElse(&'static [&'static str], &'static str),
    /// An absolute URL (`scheme:` then more).
    Url,
    /// A whole number above `above` (and within JavaScript's safe range).
    Int { above: i64 },
    /// A whole number from `from`; one above `cap` reads as `cap`.
    IntCapped { from: i64, cap: i64 },
    /// A number above 0 (from 0 when `zero`) up to 1.
    Rate { zero: bool },
    /// A number from `min` (above it when `exclusive`) up to `max`.
    Num { min: f64, exclusive: bool, max: f64 },
    /// A string matching the 24-hour clock `H:MM` or `HH:MM`.
    Clock,
    /// A string whose only `*`, if any, is its last character.
    TrailingWildcard,
    /// A string; any other value reads as `""`.
    StrElseEmpty,
    /// A list whose items are each of this kind.
    List(&'static Kind),
    /// A list whose items not of this kind are dropped.
    Filtered(&'static Kind),
    /// A list of strings.
    Strings,
    /// A list of objects.
    Objects,
    /// A list of strings, or one string.
    StrOrStrings,
    /// Either kind.
    Either(&'static Kind, &'static Kind),
    /// An object, kept whole.
    Object,
    /// An object whose values are each of this kind.
    Record(&'static Kind),
    /// An object whose values not of this kind are dropped.
    RecordFiltered(&'static Kind),
    /// An object with these fields, each of its kind: other fields are
    /// dropped unless `open`. A wrong field makes the object wrong, bar a
    /// lenient one, which is dropped alone.
    Fields {
        fields: &'static [Field],
        open: bool,
    },
    /// An object whose `tag` field names one of `variants`, read by that
    /// variant's fields (closed).
    Tagged {
        tag: &'static str,
        variants: &'static [(&'static str, &'static [Field])],
    },
    /// Anything.
    Any,
    /// Read by its own rule (see [`Special`]).
    Special(Special),
}

/// One field of a [`Kind::Fields`] object.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    /// Its name.
    pub name: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// Whether it must be there, and what a wrong value does.
    pub need: Need,
    /// In a policy source, the JSON value a wrong value reads as (a
    /// restrictive switch fails closed); `None`: the field is dropped.
    pub closed: Option<&'static str>,
}

impl Field {
    /// This field, failing closed to `value` in a policy source.
    pub(crate) const fn closed(self, value: &'static str) -> Field {
        Field {
            closed: Some(value),
            ..self
        }
    }
}

/// Whether a field must be there, and what a wrong value in it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// It must be there; a wrong value makes the object wrong.
    Required,
    /// It may be missing; a wrong value makes the object wrong.
    Optional,
    /// It may be missing; a wrong value is dropped alone (the schema's
    /// `.catch`).
    Lenient,
    /// It may be missing or `null` (read as missing); a wrong value makes
    /// the object wrong.
    NullUnset,
    /// It may be missing; a wrong value reads as missing for every reader,
    /// a restrictive policy too (the schema's `.preprocess`).
    Coerced,
}

/// A field that must be there.
pub(crate) const fn req(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        need: Need::Required,
        closed: None,
    }
}

/// A field that may be missing.
pub(crate) const fn opt(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        need: Need::Optional,
        closed: None,
    }
}

/// A field that may be missing and whose wrong value is dropped alone.
/// A field whose wrong value reads as missing, whoever reads it.
pub(crate) const fn coerced(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        need: Need::Coerced,
        closed: None,
    }
}

pub(crate) const fn lenient(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        need: Need::Lenient,
        closed: None,
    }
}

/// A field that may be missing or `null`.
pub(crate) const fn nullable(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        need: Need::NullUnset,
        closed: None,
    }
}

/// Any number.
pub(crate) const NUMBER: Kind = Kind::Num {
    min: f64::NEG_INFINITY,
    exclusive: false,
    max: f64::INFINITY,
};

/// Keys whose reading the table's kinds do not describe.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Special {
    /// `env`: an object of strings; a number or boolean becomes its text.
    Env,
    /// `attribution`: an object; `true` reads as `{}`, `false` as every
    /// attribution off.
    Attribution,
    /// `enabledMcpjsonServers`, `disabledMcpjsonServers`: a list of
    /// strings; in a user's file one server name alone reads as a list.
    ServerNames,
    /// A list of marketplace sources: in a user's file an item that
    /// cannot be read is wrong, in a policy source it is dropped.
    Marketplaces,
    /// A list of strings whose other items a policy source drops
    /// (`deniedModels`).
    PolicyStrings,
    /// `"disable"`; in a policy source `false` reads as unset.
    Disable,
    /// `remoteControl`: only `shareHostProfile`; another field is dropped
    /// from a user's file and fails a policy source closed.
    RemoteControl,
    /// A list of these names whose other items are dropped
    /// (`allowedProviders`).
    Names(&'static [&'static str]),
    /// `strictPluginOnlyCustomization`: a boolean, or a list of these
    /// surfaces whose other items are dropped.
    Surfaces(&'static [&'static str]),
    /// An object whose values are strings; another value becomes `""`
    /// (`additionalDirectoryConfigRoots`).
    StringValues,
    /// An object whose entries are dropped (`modelSettings`: their models
    /// are checked against a catalogue this crate does not have).
    EmptiedObject,
    /// `hooks`: events of matchers of hooks (`validate_hooks.rs`).
    Hooks,
    /// One entry of `allowedMcpServers` (`denied`: of `deniedMcpServers`):
    /// exactly one of `serverName`, `serverCommand`, `serverUrl`.
    ServerEntry { denied: bool },
    /// `extraKnownMarketplaces`: marketplaces by name; an entry that
    /// cannot be read, or a `settings` one not named as its key, is
    /// dropped; one whose source names an unknown kind refuses a user's
    /// file (a policy drops the key).
    KnownMarketplaces,
    /// `permissions.defaultMode`: a permission mode; `"manual"` reads as
    /// `"default"`.
    PermissionMode,
    /// A list of permission rules: an item that is not a string or that
    /// the rule parser refuses is dropped; in a policy source a `deny` or
    /// `ask` list left with none of its items cannot be read.
    PermissionRules(RuleList),
    /// `sandbox.credentials` (`validate_credentials.rs`).
    Credentials,
    /// `spinnerTipsOverride.tips`: strings and objects; other items are
    /// dropped, a value that is not a list reads as `[]`.
    Tips,
    /// An npm marketplace's `package`: a package name or `@scope/*`.
    NpmPackage,
    /// An `http:` or `https:` URL.
    HttpUrl,
    /// An `archive` plugin source's URL: `https` to a host that is not
    /// internal (`url_host.rs`), kept trimmed as TS keeps it.
    ArchiveUrl,
    /// A string this test accepts (`marketplace_settings.rs`).
    StrWhere(fn(&str) -> bool),
    /// A whole number from 1 up to this.
    PositiveIntUpTo(i64),
    /// `policyHelpers`: an entry per platform and a static payload
    /// (`policy_helpers.rs`); a policy source drops a wrong entry alone.
    PolicyHelpers,
    /// `managedMcpServers`: servers by name, each dropped alone when its
    /// name or configuration is refused (`managed_mcp.rs`).
    ManagedServers,
    /// An absolute path; anything else reads as unset (`sandbox`'s
    /// `bwrapPath`, `socatPath`).
    AbsolutePath,
}

/// What a wrong value does.
#[derive(Debug, Clone, Copy)]
pub(crate) enum OnWrong {
    /// The whole source is refused (user-written files only).
    Refuse,
    /// The key is dropped.
    Drop,
    /// The key reads as this JSON value; a `null` is dropped.
    Restrict(&'static str),
    /// The key reads as this JSON value, a `null` too.
    FailClosed(&'static str),
}

/// One key of the schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule {
    /// The key.
    pub key: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// A wrong value in a user-written file.
    pub file: OnWrong,
    /// A wrong value in a policy source.
    pub policy: OnWrong,
    /// In a user-written file, `null` reads as unset (the key is dropped)
    /// rather than as a wrong value: keys that restrict.
    pub null_unset: bool,
    /// Honoured from policy sources only: dropped from a user-written file.
    pub policy_only: bool,
}
