//! How the run went: what was known at start, and how it ended.

use claude_agent_actors::ShutdownReport;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which public entry point started the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryPoint {
    /// The one-shot `query` function.
    Query,
    /// The interactive `Client`.
    Client,
}

/// What is known when the session starts: versions and the options that
/// matter for reading the transcript later.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// `query` or `client`.
    pub entry_point: EntryPoint,
    /// This crate's version (`env!("CARGO_PKG_VERSION")`).
    pub sdk_version: String,
    /// The CLI's version, from the initialize reply or `system/init`.
    pub cli_version: Option<String>,
    /// `--model`, when set.
    pub model: Option<String>,
    /// `--permission-mode`, when set.
    pub permission_mode: Option<String>,
    /// `--tools`, when set.
    pub tools: Option<Vec<String>>,
    /// `--allowedTools`.
    pub allowed_tools: Vec<String>,
    /// `--disallowedTools`.
    pub disallowed_tools: Vec<String>,
    /// The CLI's working directory, when set.
    pub cwd: Option<String>,
    /// Transport kind: `subprocess`, ...
    pub transport: String,
    /// `--include-partial-messages`.
    pub include_partial_messages: bool,
}

impl RunInfo {
    /// Run info with only the entry point, this crate's version and the
    /// transport filled in; set the rest with struct update syntax.
    ///
    /// ```
    /// use claude_agent::transcript::{EntryPoint, RunInfo};
    ///
    /// let info = RunInfo {
    ///     model: Some("claude-opus-5-5".into()),
    ///     ..RunInfo::new(EntryPoint::Query, "subprocess")
    /// };
    /// assert_eq!(info.sdk_version, env!("CARGO_PKG_VERSION"));
    /// ```
    pub fn new(entry_point: EntryPoint, transport: impl Into<String>) -> Self {
        Self {
            entry_point,
            sdk_version: env!("CARGO_PKG_VERSION").to_owned(),
            cli_version: None,
            model: None,
            permission_mode: None,
            tools: None,
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            cwd: None,
            transport: transport.into(),
            include_partial_messages: false,
        }
    }
}

/// How the CLI process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitRecord {
    /// The exit code, when it exited normally.
    pub code: Option<i32>,
    /// The signal that killed it, when it was killed.
    pub signal: Option<i32>,
}

/// How the session closed, taken from the runtime's [`ShutdownReport`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CloseInfo {
    /// The cause in snake case: `requested`, `cli_exited`, `fatal`, ...
    pub reason: String,
    /// The cause with its details, as the runtime serializes it.
    pub cause: Value,
    /// How the CLI ended, when known.
    pub exit: Option<ExitRecord>,
    /// How far the shutdown escalated: `none`, `term` or `kill`.
    pub escalation: String,
    /// Whether the process was seen to exit and was reaped (its exit
    /// status is known).
    pub reaped: bool,
    /// The last lines of the CLI's stderr.
    pub stderr_tail: Vec<String>,
}

impl CloseInfo {
    /// Extracts what the transcript keeps from a shutdown report.
    pub fn from_report(report: &ShutdownReport) -> Self {
        let cause = serde_json::to_value(&report.cause).unwrap_or(Value::Null);
        // Internally tagged (`{"kind": ...}`); also accept serde's default
        // external tagging (a string, or a one-key map) should that return.
        let tag = match &cause {
            Value::String(s) => s.clone(),
            Value::Object(m) => match m.get("kind") {
                Some(Value::String(kind)) => kind.clone(),
                _ if m.len() == 1 => m.keys().next().cloned().unwrap_or_default(),
                _ => String::new(),
            },
            _ => String::new(),
        };
        let exit = report.exit.map(|e| ExitRecord {
            code: e.code,
            signal: e.signal,
        });
        Self {
            reason: snake_case(&tag),
            cause,
            exit,
            escalation: snake_case(&format!("{:?}", report.escalation)),
            reaped: exit.is_some(),
            stderr_tail: report.stderr_tail.clone(),
        }
    }
}

/// `CliExited` -> `cli_exited`.
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_agent_actors::process::ExitInfo;
    use claude_agent_actors::{Escalation, ShutdownCause};

    fn report(cause: ShutdownCause, exit: Option<ExitInfo>) -> ShutdownReport {
        let mut report = ShutdownReport::new(cause, exit, Escalation::Term);
        report.stderr_tail = vec!["bye".into()];
        report
    }

    #[test]
    fn close_info_names_the_cause_and_says_whether_reaped() {
        let exit = ExitInfo {
            code: Some(3),
            signal: None,
        };
        let c = CloseInfo::from_report(&report(
            ShutdownCause::CliExited { exit: Some(exit) },
            Some(exit),
        ));
        assert_eq!(c.reason, "cli_exited");
        assert_eq!(c.escalation, "term");
        assert!(c.reaped);
        assert_eq!(
            c.exit,
            Some(ExitRecord {
                code: Some(3),
                signal: None
            })
        );
        assert_eq!(c.stderr_tail, ["bye"]);

        let c = CloseInfo::from_report(&report(ShutdownCause::HandleDropped, None));
        assert_eq!(c.reason, "handle_dropped");
        assert!(!c.reaped);
    }
}
