//! Every error of the SDK, built with a real source where it has one: each
//! level of a chain says its own part once, so a report (`message: cause:
//! cause`) never repeats itself and loses nothing. The runtime's errors
//! have the same test in their own crate.
//!
//! The variant lists are exhaustive `match`es: a new variant does not
//! compile until it is named here, and once named the test fails until
//! `samples()` builds it.

use claude_agent_testkit::error_chain::{assert_each_level_says_its_own, levels};
use std::collections::BTreeSet;
use std::error::Error as StdError;
use std::path::PathBuf;
use std::sync::Arc;

use crate::callbacks::CallbackError;
use crate::discovery::{DiscoveryError, Unusable};
use crate::host::{Failure, HostError, SessionId};
use crate::options::{CapabilityError, OptionsError};
use crate::protocol::{EncodeError, Message, ParseError, ResultError, parse_message};
use crate::runtime::channel::ChannelError;
use crate::runtime::process::UserError;
use crate::runtime::{ControlError, SessionError, ShutdownCause, StartError};
use crate::sessions::SessionsError;
use crate::store::{ResumeError, StoreError};
#[cfg(feature = "sdk")]
use crate::telemetry::TelemetryError;
use crate::transcript::RecordingError;
use crate::{Error, runtime::process::ExitInfo};

type Sample = (&'static str, Box<dyn StdError + Send + Sync>);

/// Names every variant of `$ty` in `$name` (a `match` without wildcard)
/// and lists the same names in `$all`.
macro_rules! variants {
    ($name:ident, $all:ident, $ty:ty { $($pat:pat => $label:literal),+ $(,)? }) => {
        fn $name(e: &$ty) -> &'static str {
            match e {
                $($pat => $label),+
            }
        }
        const $all: &[&str] = &[$($label),+];
    };
}

variants!(error, ERROR, Error {
    Error::Options(_) => "Error::Options",
    Error::Discovery(_) => "Error::Discovery",
    Error::Parse(_) => "Error::Parse",
    Error::Start(_) => "Error::Start",
    Error::Session(_) => "Error::Session",
    Error::Control(_) => "Error::Control",
    Error::Encode(_) => "Error::Encode",
    Error::Decode(_) => "Error::Decode",
    Error::Recording(_) => "Error::Recording",
    Error::InvalidConfig(_) => "Error::InvalidConfig",
    Error::Resume(_) => "Error::Resume",
    Error::Capability(_) => "Error::Capability",
    Error::Result(_) => "Error::Result",
    Error::Extension { .. } => "Error::Extension",
    Error::ParkingDir { .. } => "Error::ParkingDir",
});

variants!(options, OPTIONS, OptionsError {
    OptionsError::InvalidName { .. } => "OptionsError::InvalidName",
    OptionsError::DashValue { .. } => "OptionsError::DashValue",
    OptionsError::EmptyValue { .. } => "OptionsError::EmptyValue",
    OptionsError::NulByte { .. } => "OptionsError::NulByte",
    OptionsError::PermissionPromptConflict { .. } => "OptionsError::PermissionPromptConflict",
    OptionsError::CwdMissing { .. } => "OptionsError::CwdMissing",
    OptionsError::CwdNotDirectory { .. } => "OptionsError::CwdNotDirectory",
    OptionsError::ThinkingDisplayWithoutThinking => "OptionsError::ThinkingDisplayWithoutThinking",
    OptionsError::ZeroMaxTurns => "OptionsError::ZeroMaxTurns",
    OptionsError::NotASessionId { .. } => "OptionsError::NotASessionId",
    OptionsError::InvalidBudget { .. } => "OptionsError::InvalidBudget",
    OptionsError::InvalidExtraArg { .. } => "OptionsError::InvalidExtraArg",
    OptionsError::EmptyMcpServerName => "OptionsError::EmptyMcpServerName",
    OptionsError::InvalidEnv { .. } => "OptionsError::InvalidEnv",
    OptionsError::SettingsFile { .. } => "OptionsError::SettingsFile",
    OptionsError::SettingsNotObject => "OptionsError::SettingsNotObject",
    OptionsError::User(_) => "OptionsError::User",
    OptionsError::Json { .. } => "OptionsError::Json",
});

variants!(discovery, DISCOVERY, DiscoveryError {
    DiscoveryError::Explicit { .. } => "DiscoveryError::Explicit",
    DiscoveryError::EnvVar { .. } => "DiscoveryError::EnvVar",
    DiscoveryError::NotFound { .. } => "DiscoveryError::NotFound",
});

variants!(parse, PARSE, ParseError {
    ParseError::NotJson { .. } => "ParseError::NotJson",
    ParseError::NotAnObject { .. } => "ParseError::NotAnObject",
    ParseError::Malformed { .. } => "ParseError::Malformed",
    ParseError::MissingField { .. } => "ParseError::MissingField",
    ParseError::InvalidField { .. } => "ParseError::InvalidField",
});

variants!(callback, CALLBACK, CallbackError {
    CallbackError::Message(_) => "CallbackError::Message",
    CallbackError::Source(_) => "CallbackError::Source",
    CallbackError::Cancelled => "CallbackError::Cancelled",
});

variants!(capability, CAPABILITY, CapabilityError {
    CapabilityError::HookOnFailureUnsupported => "CapabilityError::HookOnFailureUnsupported",
    CapabilityError::HooksNotApplied => "CapabilityError::HooksNotApplied",
    CapabilityError::McpServersNotRead { .. } => "CapabilityError::McpServersNotRead",
});

variants!(recording, RECORDING, RecordingError {
    RecordingError::Open { .. } => "RecordingError::Open",
    RecordingError::Write(_) => "RecordingError::Write",
    RecordingError::Read { .. } => "RecordingError::Read",
    RecordingError::Malformed { .. } => "RecordingError::Malformed",
});

#[cfg(feature = "sdk")]
variants!(telemetry, TELEMETRY, TelemetryError {
    TelemetryError::Flush(_) => "TelemetryError::Flush",
    TelemetryError::Shutdown(_) => "TelemetryError::Shutdown",
    TelemetryError::Exporter { .. } => "TelemetryError::Exporter",
});

variants!(store, STORE, StoreError {
    StoreError::Unsupported { .. } => "StoreError::Unsupported",
    StoreError::InvalidKey { .. } => "StoreError::InvalidKey",
    StoreError::NotAnObject { .. } => "StoreError::NotAnObject",
    StoreError::Backend { .. } => "StoreError::Backend",
    StoreError::Corrupt { .. } => "StoreError::Corrupt",
    StoreError::LockTimeout { .. } => "StoreError::LockTimeout",
    StoreError::Contended { .. } => "StoreError::Contended",
    StoreError::BadUrl { .. } => "StoreError::BadUrl",
});

variants!(resume, RESUME, ResumeError {
    ResumeError::Load { .. } => "ResumeError::Load",
    ResumeError::List { .. } => "ResumeError::List",
    ResumeError::Timeout { .. } => "ResumeError::Timeout",
    ResumeError::Write { .. } => "ResumeError::Write",
});

variants!(sessions, SESSIONS, SessionsError {
    SessionsError::InvalidSessionId { .. } => "SessionsError::InvalidSessionId",
    SessionsError::InvalidProjectKey { .. } => "SessionsError::InvalidProjectKey",
    SessionsError::NotFound { .. } => "SessionsError::NotFound",
    SessionsError::Empty { .. } => "SessionsError::Empty",
    SessionsError::NothingToFork { .. } => "SessionsError::NothingToFork",
    SessionsError::MessageNotFound { .. } => "SessionsError::MessageNotFound",
    SessionsError::Io { .. } => "SessionsError::Io",
    SessionsError::NoConfigDir => "SessionsError::NoConfigDir",
    SessionsError::LocalOnly { .. } => "SessionsError::LocalOnly",
    SessionsError::Store(_) => "SessionsError::Store",
});

variants!(host, HOST, HostError {
    HostError::Draining => "HostError::Draining",
    HostError::QueueFull { .. } => "HostError::QueueFull",
    HostError::TenantQueueFull { .. } => "HostError::TenantQueueFull",
    HostError::Ended { .. } => "HostError::Ended",
    HostError::Send { .. } => "HostError::Send",
    HostError::Unavailable(_) => "HostError::Unavailable",
    HostError::Gone => "HostError::Gone",
    HostError::Start(_) => "HostError::Start",
});

variants!(failure, FAILURE, Failure {
    Failure::Cancelled => "Failure::Cancelled",
    Failure::Drained => "Failure::Drained",
    Failure::Connect(_) => "Failure::Connect",
    Failure::Crashed { .. } => "Failure::Crashed",
    Failure::ErrorResult { .. } => "Failure::ErrorResult",
    Failure::Revive { .. } => "Failure::Revive",
    Failure::Turn(_) => "Failure::Turn",
    Failure::Panicked(_) => "Failure::Panicked",
});

#[cfg(feature = "nats")]
variants!(fleet, FLEET, crate::fleet::FleetError {
    crate::fleet::FleetError::Connect { .. } => "FleetError::Connect",
    crate::fleet::FleetError::Incompatible(_) => "FleetError::Incompatible",
    crate::fleet::FleetError::JetStream { .. } => "FleetError::JetStream",
    crate::fleet::FleetError::Timeout { .. } => "FleetError::Timeout",
    crate::fleet::FleetError::InvalidJob(_) => "FleetError::InvalidJob",
    crate::fleet::FleetError::Malformed { .. } => "FleetError::Malformed",
});

/// The structs: one shape each.
const STRUCTS: &[&str] = &[
    "EncodeError",
    "ResultError",
    #[cfg(feature = "nats")]
    "IncompatibleLayout",
    #[cfg(feature = "nats")]
    "InvalidJob",
];

/// A real OS error: opening a file that does not exist.
fn io_error() -> std::io::Error {
    match std::fs::File::open("/nonexistent/claude-agent-test-file") {
        Ok(_) => panic!("a file under /nonexistent opened"),
        Err(e) => e,
    }
}

/// A real JSON error: a truncated object.
fn json_error() -> serde_json::Error {
    match serde_json::from_str::<serde_json::Value>("{\"type\": ") {
        Ok(v) => panic!("truncated json parsed as {v}"),
        Err(e) => e,
    }
}

fn spawn_failure() -> ChannelError {
    ChannelError::Spawn {
        program: "/opt/claude".into(),
        source: io_error(),
    }
}

fn result_error() -> ResultError {
    let line = br#"{"type":"result","subtype":"error_max_turns","errors":["Reached maximum number of turns (1)"]}"#;
    match parse_message(line) {
        Ok(Message::Result(r)) => match r.into_result() {
            Err(e) => e,
            Ok(r) => panic!("an error result read as a success: {r:?}"),
        },
        other => panic!("not a result: {other:?}"),
    }
}

fn exit() -> Option<ExitInfo> {
    Some(ExitInfo {
        code: Some(3),
        signal: None,
    })
}

fn store_backend() -> StoreError {
    StoreError::Backend {
        action: "append to s1".into(),
        source: Box::new(io_error()),
    }
}

fn errors() -> Vec<Error> {
    vec![
        Error::Options(OptionsError::SettingsFile {
            path: "/etc/claude/settings.json".into(),
            source: io_error(),
        }),
        Error::Discovery(DiscoveryError::NotFound {
            searched: vec![PathBuf::from("/usr/bin/claude")],
        }),
        Error::Parse(ParseError::NotJson {
            prefix: "hello".into(),
        }),
        Error::Start(StartError::Channel(spawn_failure())),
        Error::Session(SessionError::Write(io_error())),
        Error::Control(ControlError::Remote {
            message: "no such model".into(),
        }),
        Error::Encode(EncodeError(json_error())),
        Error::Decode(json_error()),
        Error::Recording(RecordingError::Write(io_error())),
        Error::InvalidConfig("resolving the cwd failed".into()),
        Error::Resume(ResumeError::Load {
            key: "p/s1".into(),
            source: store_backend(),
        }),
        Error::Capability(CapabilityError::McpServersNotRead {
            version: " (version 2.1.200)".into(),
        }),
        Error::Capability(CapabilityError::HooksNotApplied),
        Error::Result(Box::new(result_error())),
        Error::extension("min_version", "the CLI is 2.0.1, older than 2.1.0"),
        Error::ParkingDir {
            path: PathBuf::from("claude-agent-spares/spare-1"),
            source: io_error(),
        },
    ]
}

/// One sample per variant (plus the structs), each named.
fn samples() -> Vec<Sample> {
    let mut all: Vec<Sample> = Vec::new();
    all.extend(errors().into_iter().map(|e| (error(&e), e.into())));
    let options = vec![
        OptionsError::InvalidName {
            option: "agents",
            name: "a b".into(),
            reason: "contains a space",
        },
        OptionsError::DashValue {
            option: "model",
            value: "-x".into(),
        },
        OptionsError::EmptyValue { option: "model" },
        OptionsError::NulByte {
            option: "system_prompt",
        },
        OptionsError::PermissionPromptConflict {
            tool_name: "mcp__auth__ask".into(),
        },
        OptionsError::CwdMissing {
            path: "/work/gone".into(),
            source: io_error(),
        },
        OptionsError::CwdNotDirectory {
            path: "/etc/hosts".into(),
        },
        OptionsError::ThinkingDisplayWithoutThinking,
        OptionsError::ZeroMaxTurns,
        OptionsError::NotASessionId {
            option: "resume",
            context: " when a session store restores it",
            value: "../../x".into(),
        },
        OptionsError::InvalidBudget { value: -1.0 },
        OptionsError::InvalidExtraArg {
            flag: "--print".into(),
            reason: "the SDK sets it",
        },
        OptionsError::EmptyMcpServerName,
        OptionsError::InvalidEnv {
            key: "A=B".into(),
            reason: "contains '='",
        },
        OptionsError::SettingsFile {
            path: "/etc/claude/settings.json".into(),
            source: io_error(),
        },
        OptionsError::SettingsNotObject,
        OptionsError::User(UserError::Lookup {
            user: "agent".into(),
            source: io_error(),
        }),
        OptionsError::Json {
            what: "settings",
            source: json_error(),
        },
    ];
    all.extend(options.into_iter().map(|e| (self::options(&e), e.into())));
    let discoveries = vec![
        DiscoveryError::Explicit {
            path: "/opt/claude".into(),
            reason: Unusable::NotExecutable,
        },
        DiscoveryError::EnvVar {
            path: "/opt/claude".into(),
            reason: Unusable::Missing,
        },
        DiscoveryError::NotFound {
            searched: vec!["/usr/bin/claude".into()],
        },
    ];
    all.extend(discoveries.into_iter().map(|e| (discovery(&e), e.into())));
    let parses = vec![
        ParseError::NotJson {
            prefix: "hello".into(),
        },
        ParseError::NotAnObject {
            prefix: "[1]".into(),
        },
        ParseError::Malformed {
            line: 1,
            column: 9,
            reason: "EOF while parsing an object".into(),
            prefix: "{\"type\": ".into(),
        },
        ParseError::MissingField {
            message_type: "result",
            field: "subtype".into(),
            prefix: "{\"type\":\"result\"}".into(),
        },
        ParseError::InvalidField {
            message_type: "result",
            field: "duration_ms".into(),
            reason: "expected u64".into(),
            prefix: "{\"type\":\"result\"}".into(),
        },
    ];
    all.extend(parses.into_iter().map(|e| (parse(&e), e.into())));
    let callbacks = vec![
        CallbackError::Message("database is read-only".into()),
        CallbackError::Source(Box::new(store_backend())),
        CallbackError::Cancelled,
    ];
    all.extend(callbacks.into_iter().map(|e| (callback(&e), e.into())));
    let capabilities = vec![
        CapabilityError::HookOnFailureUnsupported,
        CapabilityError::HooksNotApplied,
        CapabilityError::McpServersNotRead {
            version: " (version 2.1.200)".into(),
        },
    ];
    all.extend(capabilities.into_iter().map(|e| (capability(&e), e.into())));
    let recordings = vec![
        RecordingError::Open {
            path: "/var/log/run.jsonl".into(),
            source: io_error(),
        },
        RecordingError::Write(io_error()),
        RecordingError::Read {
            line_no: 7,
            source: io_error(),
        },
        RecordingError::Malformed {
            line_no: 7,
            prefix: "{\"type\": ".into(),
            source: json_error(),
        },
    ];
    all.extend(recordings.into_iter().map(|e| (recording(&e), e.into())));
    #[cfg(feature = "sdk")]
    let telemetries = vec![
        TelemetryError::Flush("the collector is unreachable".into()),
        TelemetryError::Shutdown("the exporter was already shut down".into()),
        TelemetryError::Exporter {
            endpoint: "http://collector:4317".into(),
            message: "invalid uri".into(),
        },
    ];
    #[cfg(feature = "sdk")]
    all.extend(telemetries.into_iter().map(|e| (telemetry(&e), e.into())));
    let stores = vec![
        StoreError::Unsupported {
            operation: "delete",
        },
        StoreError::InvalidKey {
            key: "p/".into(),
            reason: "the session id is empty".into(),
        },
        StoreError::NotAnObject {
            key: "p/s1".into(),
            index: 2,
        },
        store_backend(),
        StoreError::Corrupt {
            location: "p/s1 entry 3".into(),
            what: "not a JSON entry".into(),
        },
        StoreError::LockTimeout {
            lock: "p/s1.lock".into(),
            waited_ms: 5000,
        },
        StoreError::Contended {
            key: "p/s1".into(),
            attempts: 5,
        },
        StoreError::BadUrl {
            url: "ftp://x".into(),
            reason: "unknown scheme ftp".into(),
        },
    ];
    all.extend(stores.into_iter().map(|e| (store(&e), e.into())));
    let resumes = vec![
        ResumeError::Load {
            key: "p/s1".into(),
            source: store_backend(),
        },
        ResumeError::List {
            project_key: "p".into(),
            source: store_backend(),
        },
        ResumeError::Timeout {
            key: "p/s1".into(),
            after: std::time::Duration::from_secs(60),
        },
        ResumeError::Write {
            path: "/home/u/.claude/projects/p".into(),
            source: io_error(),
        },
    ];
    all.extend(resumes.into_iter().map(|e| (resume(&e), e.into())));
    let sessionses = vec![
        SessionsError::InvalidSessionId { id: "s1".into() },
        SessionsError::InvalidProjectKey { key: "..".into() },
        SessionsError::NotFound {
            project_key: "p".into(),
            session_id: "s1".into(),
        },
        SessionsError::Empty { what: "title" },
        SessionsError::NothingToFork {
            session_id: "s1".into(),
        },
        SessionsError::MessageNotFound {
            session_id: "s1".into(),
            uuid: "u1".into(),
        },
        SessionsError::Io {
            action: "read the session file".into(),
            source: io_error(),
        },
        SessionsError::NoConfigDir,
        SessionsError::LocalOnly { what: "archiving" },
        SessionsError::Store(store_backend()),
    ];
    all.extend(sessionses.into_iter().map(|e| (sessions(&e), e.into())));
    let connect_failed = || Arc::new(Error::Start(StartError::Channel(spawn_failure())));
    let hosts = vec![
        HostError::Draining,
        HostError::QueueFull { limit: 8 },
        HostError::TenantQueueFull {
            tenant: "acme".into(),
            limit: 2,
        },
        HostError::Ended {
            id: SessionId(4),
            failure: Some(Failure::Connect(connect_failed())),
        },
        HostError::Send {
            id: SessionId(4),
            source: Arc::new(Error::Session(SessionError::Write(io_error()))),
        },
        HostError::Unavailable("the supervisor's mailbox is closed".into()),
        HostError::Gone,
        HostError::Start("the actor name is taken".into()),
    ];
    all.extend(hosts.into_iter().map(|e| (host(&e), e.into())));
    let failures = vec![
        Failure::Cancelled,
        Failure::Drained,
        Failure::Connect(connect_failed()),
        Failure::Crashed {
            cause: ShutdownCause::CliExited { exit: exit() },
            exit: exit(),
            stderr_tail: vec!["panic: out of memory".into()],
        },
        Failure::ErrorResult {
            subtype: "error_max_turns".into(),
        },
        Failure::Revive {
            session_id: Some("s1".into()),
            error: connect_failed(),
        },
        Failure::Turn("the CLI's output ended before the result".into()),
        Failure::Panicked("index out of bounds".into()),
    ];
    all.extend(failures.into_iter().map(|e| (failure(&e), e.into())));
    all.push(("EncodeError", EncodeError(json_error()).into()));
    all.push(("ResultError", result_error().into()));
    #[cfg(feature = "nats")]
    all.extend(fleet_samples());
    all
}

#[cfg(feature = "nats")]
fn fleet_samples() -> Vec<Sample> {
    use crate::fleet::{FleetError, IncompatibleLayout, InvalidJob};
    let invalid_job = || InvalidJob {
        reason: "the prompt is empty".into(),
    };
    let incompatible = || IncompatibleLayout {
        kind: "stream",
        name: "JOBS".into(),
        setting: "retention",
        expected: "work queue".into(),
        found: "limits".into(),
    };
    let fleets = vec![
        // Without a source: async-nats's own `ConnectError` prints its
        // source inside its message, which `Error`'s report tolerates.
        FleetError::Connect {
            url: "nats://127.0.0.1:1".into(),
            source: async_nats::ConnectError::new(async_nats::ConnectErrorKind::TimedOut),
        },
        FleetError::Incompatible(incompatible()),
        FleetError::JetStream {
            what: "creating the stream JOBS".into(),
            source: Box::new(io_error()),
        },
        FleetError::Timeout {
            job_id: "j1".into(),
            waited: std::time::Duration::from_secs(30),
        },
        FleetError::InvalidJob(invalid_job()),
        FleetError::Malformed {
            subject: "jobs.outcome".into(),
            source: json_error(),
        },
    ];
    let mut all: Vec<Sample> = fleets.into_iter().map(|e| (fleet(&e), e.into())).collect();
    all.push(("IncompatibleLayout", incompatible().into()));
    all.push(("InvalidJob", invalid_job().into()));
    all
}

/// Every declared name.
fn declared() -> BTreeSet<&'static str> {
    let lists: &[&[&str]] = &[
        ERROR,
        OPTIONS,
        DISCOVERY,
        PARSE,
        CALLBACK,
        CAPABILITY,
        RECORDING,
        #[cfg(feature = "sdk")]
        TELEMETRY,
        STORE,
        RESUME,
        SESSIONS,
        HOST,
        FAILURE,
        #[cfg(feature = "nats")]
        FLEET,
        STRUCTS,
    ];
    lists.iter().flat_map(|l| l.iter().copied()).collect()
}

#[test]
fn every_sdk_error_variant_has_a_sample() {
    let sampled: BTreeSet<&str> = samples().iter().map(|(name, _)| *name).collect();
    let declared = declared();
    let missing: Vec<_> = declared.difference(&sampled).collect();
    assert!(missing.is_empty(), "variants without a sample: {missing:?}");
}

#[test]
fn no_sdk_error_repeats_the_text_of_its_source() {
    for (name, e) in samples() {
        assert_each_level_says_its_own(name, &*e);
    }
}

#[test]
fn the_report_of_every_error_variant_says_each_level_once() {
    for e in errors() {
        let report = format!("{e:?}");
        let levels = levels(&e);
        assert_eq!(report, levels.join(": "), "{}", error(&e));
    }
    let e = Error::Start(StartError::Channel(spawn_failure()));
    let report = format!("{e:?}");
    assert!(
        report.starts_with(
            "failed to start the session: failed to open the channel: failed to spawn /opt/claude: "
        ),
        "{report}"
    );
    assert!(report.ends_with("(os error 2)"), "{report}");
}

#[test]
fn a_hosted_session_that_ended_carries_its_failure_and_its_cause() {
    let e = HostError::Ended {
        id: SessionId(4),
        failure: Some(Failure::Connect(Arc::new(Error::Start(
            StartError::Channel(spawn_failure()),
        )))),
    };
    let levels = levels(&e);
    assert_eq!(
        levels[..5],
        [
            "session s4 ended",
            "could not start the CLI",
            "failed to start the session",
            "failed to open the channel",
            "failed to spawn /opt/claude",
        ]
    );
    assert!(levels[5].contains("os error 2"), "{levels:?}");
}
