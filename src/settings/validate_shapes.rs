//! The fields of the settings schema's objects, for the rows of
//! `validate_rules.rs` that hold one: each field's kind, and whether it
//! must be there or is read leniently. Learnt from the TypeScript SDK
//! 0.3.332's schema and checked against its recorded answers
//! (`testdata/resolve_settings/ts_sdk_0.3.332_key_probes.jsonl`).

use super::marketplace_settings::{HEADERS_HELPER, SETTINGS_SOURCE};
use super::validate_rule::Kind::{self, *};
use super::validate_rule::{Field, NUMBER, RuleList, Special, lenient, nullable, opt, req};

/// Whole numbers in JavaScript's safe range.
const ANY_INT: Kind = Int {
    above: -9_007_199_254_740_992,
};

/// The longest timer JavaScript keeps: a longer time reads as it.
const TIMER_CAP: i64 = 2_147_483_647;

/// Exactly 0.
const ZERO: Kind = Num {
    min: 0.0,
    exclusive: false,
    max: 0.0,
};

/// `policyHelper`: a timeout from a second, a refresh from a minute (or 0,
/// never).
pub(crate) const POLICY_HELPER: &[Field] = &[
    req("path", Str),
    nullable(
        "timeoutMs",
        IntCapped {
            from: 1000,
            cap: TIMER_CAP,
        },
    ),
    nullable(
        "refreshIntervalMs",
        Either(
            &ZERO,
            &IntCapped {
                from: 60_000,
                cap: TIMER_CAP,
            },
        ),
    ),
];

/// `fileSuggestion` and `subagentStatusLine`: a command to run.
pub(crate) const COMMAND: &[Field] = &[req("type", OneOf(&["command"])), req("command", Str)];

pub(crate) const BREAK_REMINDER: &[Field] = &[
    opt("enabled", Bool),
    opt("intervalMinutes", Int { above: 0 }),
    opt("breakThresholdMinutes", Int { above: 0 }),
    opt("message", Str),
];

pub(crate) const QUIET_HOURS: &[Field] =
    &[opt("enabled", Bool), opt("start", Clock), opt("end", Clock)];

pub(crate) const WORKTREE: &[Field] = &[
    opt("symlinkDirectories", Strings),
    opt("sparsePaths", Strings),
    opt("baseRef", OneOf(&["fresh", "head"])),
    lenient("bgIsolation", OneOf(&["worktree", "none"])).closed("\"worktree\""),
    lenient("location", Str),
];

pub(crate) const SPINNER_VERBS: &[Field] = &[
    req("mode", OneOf(&["append", "replace"])),
    req("verbs", Strings),
];

pub(crate) const REMOTE_TOOLS: &[Field] = &[opt("allowUnattendedServing", Bool).closed("false")];

pub(crate) const STATUS_LINE: &[Field] = &[
    req("type", OneOf(&["command"])),
    req("command", Str),
    opt("padding", NUMBER),
    lenient(
        "refreshInterval",
        Num {
            min: 1.0,
            exclusive: false,
            max: f64::INFINITY,
        },
    ),
    opt("hideVimModeIndicator", Bool),
];

pub(crate) const AUTO_COMPACT_OFFER_ANSWER: &[Field] = &[
    req("model", Text),
    req("choice", OneOf(&["accept", "keep", "undo"])),
    req("tokens", Int { above: 0 }),
    req("at", Int { above: 0 }),
];

pub(crate) const ATTRIBUTION_PROJECT_POLICY: &[Field] = &[opt("default", Str)];

/// One row of `modelPicker.options`.
const MODEL_OPTION: &[Field] = &[
    req("model", Str),
    opt("label", Str),
    opt("description", Str),
    opt("behavesAs", Str),
];

pub(crate) const MODEL_PICKER: &[Field] = &[
    req(
        "options",
        Filtered(&Fields {
            fields: MODEL_OPTION,
            open: false,
        }),
    ),
    lenient("replaceBuiltInOptions", Bool),
];

pub(crate) const SPELLCHECK: &[Field] = &[
    lenient("enabled", Bool),
    lenient("checker", Str),
    lenient("language", Str),
    lenient("color", Str),
];

/// `spinnerTipsOverride`.
pub(crate) const SPINNER_TIPS_OVERRIDE: &[Field] = &[
    lenient("excludeDefault", Bool),
    opt("tips", Special(Special::Tips)),
    lenient("tipsFile", Str),
    lenient("label", Str),
];

/// A list of paths whose items that are not strings read as `""`.
const PATHS: Kind = List(&StrElseEmpty);

/// The lists of permission rules.
const ALLOW_RULES: Kind = Special(Special::PermissionRules(RuleList::Allow));
const RULES: Kind = Special(Special::PermissionRules(RuleList::DenyOrAsk));

/// `permissions`.
pub(crate) const PERMISSIONS: &[Field] = &[
    opt("allow", ALLOW_RULES),
    opt("deny", RULES),
    opt("ask", RULES),
    opt("defaultMode", Special(Special::PermissionMode)).closed("\"default\""),
    opt("disableBypassPermissionsMode", OneOf(&["disable"])).closed("\"disable\""),
    opt("blockReadsOutsideWorkingDirectories", Bool).closed("true"),
    opt("blockFileToolReadsOutsideWorkingDirectories", Bool),
    opt("blockWritesOutsideWorkingDirectories", Bool).closed("true"),
    lenient("blockReadsExemptPaths", PATHS),
    lenient("workingDirectoriesAsGiven", PATHS),
    lenient("workingDirectoriesExclude", PATHS),
    opt("disableAutoMode", OneOf(&["disable"])).closed("\"disable\""),
    opt("denyInsteadOfPrompting", Bool).closed("true"),
    opt("additionalDirectories", Strings),
];

/// One item of `sshConfigs`.
pub(crate) const SSH_CONFIG: &[Field] = &[
    req("id", Str),
    req("name", Str),
    req("sshHost", Str),
    opt("sshPort", ANY_INT),
    opt("sshIdentityFile", Str),
    opt("startDirectory", Str),
];

pub(crate) const REMOTE: &[Field] = &[opt("defaultEnvironmentId", Str)];

pub(crate) const VOICE: &[Field] = &[
    opt("enabled", Bool),
    opt("mode", OneOf(&["hold", "tap"])),
    opt("autoSubmit", Bool),
];

pub(crate) const AUTO_MODE: &[Field] = &[
    opt("allow", Strings),
    opt("soft_deny", Strings),
    opt("hard_deny", Strings),
    opt("environment", Strings),
    opt("classifyAllShell", Bool).closed("true"),
];

/// `sandbox.windows`.
const SANDBOX_WINDOWS: &[Field] =
    &[opt("backend", OneOf(&["sandboxuser", "mxc"])).closed("\"sandboxuser\"")];

/// `sandbox.network.tlsTerminate`.
const TLS_TERMINATE: &[Field] = &[opt("caCertPath", Text), opt("caKeyPath", Text)];

/// `sandbox.network`.
const SANDBOX_NETWORK: &[Field] = &[
    opt("allowedDomains", Strings),
    opt("deniedDomains", Strings),
    opt("strictAllowlist", Bool).closed("true"),
    opt("allowManagedDomainsOnly", Bool).closed("true"),
    opt("allowUnixSockets", Strings),
    opt("allowAllUnixSockets", Bool).closed("false"),
    opt("allowLocalBinding", Bool).closed("false"),
    opt("allowMachLookup", List(&TrailingWildcard)),
    opt("httpProxyPort", NUMBER),
    opt("socksProxyPort", NUMBER),
    opt(
        "tlsTerminate",
        Fields {
            fields: TLS_TERMINATE,
            open: false,
        },
    ),
];

/// `sandbox.filesystem`.
const SANDBOX_FILESYSTEM: &[Field] = &[
    opt("allowWrite", Strings),
    opt("denyWrite", Strings),
    opt("denyRead", Strings),
    opt("allowRead", Strings),
    opt("allowManagedReadPathsOnly", Bool).closed("true"),
    opt("disabled", Bool).closed("false"),
];

/// `sandbox.ripgrep`.
const RIPGREP: &[Field] = &[req("command", Str), opt("args", Strings)];

/// `sandbox`: its switches fail closed in a policy source; the helper
/// paths are not checked deeper.
pub(crate) const SANDBOX: &[Field] = &[
    opt("enabled", Bool).closed("true"),
    opt("failIfUnavailable", Bool),
    opt("autoAllowBashIfSandboxed", Bool).closed("false"),
    opt("allowUnsandboxedCommands", Bool).closed("false"),
    opt(
        "network",
        Fields {
            fields: SANDBOX_NETWORK,
            open: false,
        },
    )
    .closed(
        "{\"strictAllowlist\":true,\"allowManagedDomainsOnly\":true,\"allowAllUnixSockets\":false,\"allowLocalBinding\":false}",
    ),
    opt(
        "filesystem",
        Fields {
            fields: SANDBOX_FILESYSTEM,
            open: false,
        },
    )
    .closed("{\"allowManagedReadPathsOnly\":true,\"disabled\":false}"),
    opt("credentials", Special(Special::Credentials)),
    opt(
        "windows",
        Fields {
            fields: SANDBOX_WINDOWS,
            open: false,
        },
    )
    .closed("{\"backend\":\"sandboxuser\"}"),
    opt("ignoreViolations", Record(&Strings)),
    opt("enableWeakerNestedSandbox", Bool).closed("false"),
    opt("allowNestedUserNamespaces", Bool).closed("false"),
    opt("enableWeakerNetworkIsolation", Bool).closed("false"),
    opt("allowAppleEvents", Bool).closed("false"),
    opt("excludedCommands", Strings),
    opt(
        "ripgrep",
        Fields {
            fields: RIPGREP,
            open: false,
        },
    ),
    opt("bwrapPath", Special(Special::AbsolutePath)),
    opt("socatPath", Special(Special::AbsolutePath)),
];

/// Git-hosted marketplace sources' optional fields.
const GIT_CHECKOUT: [Field; 4] = [
    opt("ref", Str),
    opt("path", Str),
    opt("sparsePaths", Strings),
    opt("skipLfs", Bool),
];

const fn with_checkout(first: [Field; 2]) -> [Field; 6] {
    let [a, b] = first;
    let [c, d, e, f] = GIT_CHECKOUT;
    [a, b, c, d, e, f]
}

const GITHUB: [Field; 6] = with_checkout([req("source", Str), req("repo", Str)]);
const GIT: [Field; 6] = with_checkout([req("source", Str), req("url", Str)]);

/// The kinds of marketplace source, by `source` (`settings` in
/// `marketplace_settings.rs`).
pub(crate) const MARKETPLACE_SOURCES: &[(&str, &[Field])] = &[
    (
        "url",
        &[
            req("source", Str),
            req("url", Url),
            opt("headers", Record(&Str)),
            opt("headersHelper", HEADERS_HELPER),
        ],
    ),
    ("github", &GITHUB),
    ("git", &GIT),
    (
        "npm",
        &[
            req("source", Str),
            req("package", Special(Special::NpmPackage)),
            opt("version", Str),
            opt("registry", Special(Special::HttpUrl)),
        ],
    ),
    ("file", &[req("source", Str), req("path", Str)]),
    ("directory", &[req("source", Str), req("path", Str)]),
    ("skills-dir", &[req("source", Str)]),
    (
        "hostPattern",
        &[req("source", Str), req("hostPattern", Str)],
    ),
    (
        "pathPattern",
        &[req("source", Str), req("pathPattern", Str)],
    ),
    ("settings", SETTINGS_SOURCE),
];

/// A marketplace source.
pub(crate) const MARKETPLACE_SOURCE: Kind = Tagged {
    tag: "source",
    variants: MARKETPLACE_SOURCES,
};

/// One entry of `extraKnownMarketplaces`.
pub(crate) const KNOWN_MARKETPLACE: &[Field] = &[
    req("source", MARKETPLACE_SOURCE),
    opt("installLocation", Str),
    opt("autoUpdate", Bool),
    lenient("pluginDigests", Any),
];

/// A price per million tokens.
const PRICE: Kind = Num {
    min: 0.0,
    exclusive: false,
    max: 10_000.0,
};

/// One model's prices in `modelPricing.overrides`.
const MODEL_PRICES: &[Field] = &[
    req("input", PRICE),
    req("output", PRICE),
    req("cacheRead", PRICE),
    req("cacheWrite", PRICE),
];

/// `modelPricing`: an unreadable multiplier or model's prices is dropped.
pub(crate) const MODEL_PRICING: &[Field] = &[
    lenient(
        "multiplier",
        Num {
            min: 0.0,
            exclusive: true,
            max: 10.0,
        },
    ),
    opt(
        "overrides",
        RecordFiltered(&Fields {
            fields: MODEL_PRICES,
            open: false,
        }),
    ),
];

/// A plugin option's value: a string, number, boolean or list of strings.
const PLUGIN_OPTION: Kind = Either(&Either(&Str, &NUMBER), &Either(&Bool, &Strings));

/// One plugin's entry in `pluginConfigs`.
pub(crate) const PLUGIN_CONFIG: &[Field] = &[
    opt("mcpServers", Record(&Record(&PLUGIN_OPTION))),
    opt("options", Record(&PLUGIN_OPTION)),
];

/// One item of `footerLinksRegexes`: an object with a `type` (a `regex`
/// one that is not complete is kept as any other type is).
pub(crate) const FOOTER_LINK: &[Field] = &[req("type", Str)];

/// In a policy source, a restriction that cannot be read withholds the
/// grants in the same object (`permissions`, `autoMode`, `sandbox.network`,
/// `sandbox.filesystem`): its restrictions, its grants. A withheld
/// `defaultMode` reads as `"default"` unless it grants nothing.
pub(crate) const WITHHOLDS: &[(&[&str], &[&str])] = &[
    (
        &["deny", "ask"],
        &["allow", "additionalDirectories", "defaultMode"],
    ),
    (
        &["soft_deny", "hard_deny", "deny"],
        &["allow", "environment"],
    ),
    (&["deniedDomains"], &["allowedDomains"]),
    (&["denyWrite", "denyRead"], &["allowWrite", "allowRead"]),
];

/// The permission modes a withheld `defaultMode` keeps.
pub(crate) const INERT_MODES: &[&str] = &["default", "dontAsk", "plan"];
