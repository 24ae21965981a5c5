//! Every error of the runtime, built with a real source where it has one:
//! each level of a chain says its own part once, so a report
//! (`message: cause: cause`) never repeats itself.
//!
//! The variant lists are exhaustive `match`es: a new variant does not
//! compile until it is named here, and once named the test fails until
//! `samples()` builds it.

use claude_agent_testkit::error_chain::{assert_each_level_says_its_own, levels};
use std::collections::BTreeSet;
use std::error::Error;
use std::time::Duration;

use crate::channel::{ChannelError, SpawnerError};
use crate::process::{ExitInfo, UserError};
use crate::{ControlError, HandlerError, SessionError, StartError};

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

variants!(channel, CHANNEL, ChannelError {
    ChannelError::NotFound { .. } => "ChannelError::NotFound",
    ChannelError::NotExecutable { .. } => "ChannelError::NotExecutable",
    ChannelError::CwdMissing { .. } => "ChannelError::CwdMissing",
    ChannelError::Spawn { .. } => "ChannelError::Spawn",
    ChannelError::Connect(_) => "ChannelError::Connect",
    ChannelError::Spawner(_) => "ChannelError::Spawner",
});

variants!(start, START, StartError {
    StartError::Channel(_) => "StartError::Channel",
    StartError::ExitedBeforeInitialize { .. } => "StartError::ExitedBeforeInitialize",
    StartError::InitializeTimeout { .. } => "StartError::InitializeTimeout",
    StartError::InitializeRejected { .. } => "StartError::InitializeRejected",
    StartError::InvalidInitialize(_) => "StartError::InvalidInitialize",
    StartError::Spawn(_) => "StartError::Spawn",
});

variants!(session, SESSION, SessionError {
    SessionError::ShuttingDown => "SessionError::ShuttingDown",
    SessionError::ClosedBeforeResult { .. } => "SessionError::ClosedBeforeResult",
    SessionError::Write(_) => "SessionError::Write",
    SessionError::InvalidFrame(_) => "SessionError::InvalidFrame",
    SessionError::StdinStalled { .. } => "SessionError::StdinStalled",
});

variants!(control, CONTROL, ControlError {
    ControlError::Timeout { .. } => "ControlError::Timeout",
    ControlError::Remote { .. } => "ControlError::Remote",
    ControlError::ShuttingDown => "ControlError::ShuttingDown",
    ControlError::Closed { .. } => "ControlError::Closed",
    ControlError::InvalidRequest(_) => "ControlError::InvalidRequest",
});

variants!(user, USER, UserError {
    UserError::NotFound { .. } => "UserError::NotFound",
    UserError::Lookup { .. } => "UserError::Lookup",
    UserError::NotPermitted { .. } => "UserError::NotPermitted",
    UserError::Unsupported { .. } => "UserError::Unsupported",
});

/// A real OS error: spawning a program that does not exist.
fn spawn_failure() -> std::io::Error {
    match std::process::Command::new("/nonexistent/claude-agent-test-program").spawn() {
        Ok(_) => panic!("a program at /nonexistent spawned"),
        Err(e) => e,
    }
}

fn exit() -> Option<ExitInfo> {
    Some(ExitInfo {
        code: Some(3),
        signal: None,
    })
}

/// One sample per variant (plus the structs), each named.
fn samples() -> Vec<(&'static str, Box<dyn Error + Send + Sync>)> {
    let channels = vec![
        ChannelError::NotFound {
            path: "/opt/claude".into(),
        },
        ChannelError::NotExecutable {
            path: "/opt/claude".into(),
            reason: "it is a directory",
        },
        ChannelError::CwdMissing {
            path: "/work/gone".into(),
        },
        ChannelError::Spawn {
            program: "/opt/claude".into(),
            source: spawn_failure(),
        },
        ChannelError::Connect("the socket refused the connection".into()),
        ChannelError::Spawner(SpawnerError::with_source(
            "the sandbox policy denies the command",
            spawn_failure(),
        )),
    ];
    let starts = vec![
        StartError::Channel(ChannelError::Spawn {
            program: "/opt/claude".into(),
            source: spawn_failure(),
        }),
        StartError::ExitedBeforeInitialize {
            exit: exit(),
            stderr_tail: "fatal: no config".into(),
        },
        StartError::InitializeTimeout {
            after: Duration::from_secs(60),
            stderr_tail: "still loading".into(),
        },
        StartError::InitializeRejected {
            message: "unknown option".into(),
        },
        StartError::InvalidInitialize("hooks must be an object".into()),
        StartError::Spawn(Box::new(spawn_failure())),
    ];
    let sessions = vec![
        SessionError::ShuttingDown,
        SessionError::ClosedBeforeResult {
            exit: exit(),
            stderr_tail: "panic: out of memory".into(),
        },
        SessionError::Write(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
        SessionError::InvalidFrame("a frame must be an object".into()),
        SessionError::StdinStalled {
            after: Duration::from_secs(30),
            queued: true,
        },
    ];
    let controls = vec![
        ControlError::Timeout {
            subtype: "interrupt".into(),
            after: Duration::from_secs(5),
        },
        ControlError::Remote {
            message: "no such model".into(),
        },
        ControlError::ShuttingDown,
        ControlError::Closed {
            exit: exit(),
            stderr_tail: "killed".into(),
        },
        ControlError::InvalidRequest("the subtype is empty".into()),
    ];
    let users = vec![
        UserError::NotFound {
            user: "agent".into(),
        },
        UserError::Lookup {
            user: "agent".into(),
            source: spawn_failure(),
        },
        UserError::NotPermitted {
            user: "agent".into(),
            uid: 1001,
        },
        UserError::Unsupported {
            user: "agent".into(),
        },
    ];
    let mut all: Vec<(&'static str, Box<dyn Error + Send + Sync>)> = Vec::new();
    all.extend(channels.into_iter().map(|e| (channel(&e), e.into())));
    all.extend(starts.into_iter().map(|e| (start(&e), e.into())));
    all.extend(sessions.into_iter().map(|e| (session(&e), e.into())));
    all.extend(controls.into_iter().map(|e| (control(&e), e.into())));
    all.extend(users.into_iter().map(|e| (user(&e), e.into())));
    all.push((
        "SpawnerError",
        SpawnerError::with_source("the sandbox policy denies the command", spawn_failure()).into(),
    ));
    all.push((
        "HandlerError",
        HandlerError::new("the tool is disabled").into(),
    ));
    all
}

#[test]
fn every_runtime_error_variant_has_a_sample() {
    let sampled: BTreeSet<&str> = samples().iter().map(|(name, _)| *name).collect();
    let declared: BTreeSet<&str> = [CHANNEL, START, SESSION, CONTROL, USER]
        .concat()
        .into_iter()
        .chain(["SpawnerError", "HandlerError"])
        .collect();
    let missing: Vec<_> = declared.difference(&sampled).collect();
    assert!(missing.is_empty(), "variants without a sample: {missing:?}");
}

#[test]
fn no_runtime_error_repeats_the_text_of_its_source() {
    for (name, e) in samples() {
        assert_each_level_says_its_own(name, &*e);
    }
}

#[test]
fn wrapping_variants_carry_their_cause_as_source() {
    // The variants built above with a source; each must hand it on.
    let with_source = [
        "ChannelError::Spawn",
        "ChannelError::Spawner",
        "StartError::Channel",
        "StartError::Spawn",
        "SessionError::Write",
        "UserError::Lookup",
        "SpawnerError",
    ];
    for (name, e) in samples() {
        let depth = levels(&*e).len();
        if with_source.contains(&name) {
            assert!(depth > 1, "{name} lost its source");
        } else {
            assert_eq!(depth, 1, "{name} has an unexpected source");
        }
    }
    // Three levels: the channel, the spawn, the OS.
    let e = StartError::Channel(ChannelError::Spawn {
        program: "/opt/claude".into(),
        source: spawn_failure(),
    });
    let levels = levels(&e);
    assert_eq!(
        levels[..2],
        ["failed to open the channel", "failed to spawn /opt/claude"]
    );
    assert!(levels[2].contains("os error 2"), "{levels:?}");
}
