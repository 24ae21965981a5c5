//! The script as the fake CLI reads it: typed steps, checked in full before
//! the first step runs so a typo never produces a half-run fault.

use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;

use super::{base64, sys};

/// What to do after the last step.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OnEnd {
    /// Keep reading stdin (answering auto rules) until EOF, then exit 0.
    #[default]
    WaitEof,
    /// Exit 0 at once.
    Exit,
}

/// A whole script.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Script {
    pub(crate) steps: Vec<Step>,
    #[serde(default)]
    pub(crate) on_end: OnEnd,
}

/// Answers a control request by subtype whenever stdin is read.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AutoRule {
    pub(crate) subtype: String,
    #[serde(default)]
    pub(crate) reply: Option<Value>,
    #[serde(default)]
    pub(crate) reply_error: Option<String>,
}

/// Which stream `flood` writes to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StreamName {
    #[default]
    Stdout,
    Stderr,
}

fn one() -> u64 {
    1
}

fn yes() -> bool {
    true
}

fn bash() -> String {
    "Bash".into()
}

/// One step; `op` picks the variant. See the crate README for semantics.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Step {
    Expect {
        #[serde(rename = "type")]
        type_: String,
        subtype: Option<String>,
        request_id: Option<String>,
        reply: Option<Value>,
        reply_error: Option<String>,
        #[serde(default)]
        no_reply: bool,
        timeout_ms: Option<u64>,
    },
    ExpectEof {
        timeout_ms: Option<u64>,
    },
    Emit {
        frame: Option<Value>,
        frames: Option<Vec<Value>>,
    },
    EmitRaw {
        data: Option<String>,
        base64: Option<String>,
    },
    EmitFile {
        path: PathBuf,
        #[serde(default = "one")]
        repeat: u64,
    },
    EmitBigLine {
        bytes: u64,
        request_id: Option<String>,
    },
    Flood {
        #[serde(default)]
        stream: StreamName,
        line: Option<String>,
        frame: Option<Value>,
        count: u64,
    },
    Sleep {
        ms: u64,
    },
    Stderr {
        text: String,
    },
    WriteFile {
        path: PathBuf,
        content: String,
    },
    Exit {
        #[serde(default)]
        code: i32,
    },
    Crash {
        signal: String,
    },
    IgnoreSignal {
        signal: String,
    },
    Hang,
    /// Stops reading stdin until `path` exists (a host's writes pile up in
    /// the pipe, then in the host), at most `timeout_ms`.
    WaitFile {
        path: PathBuf,
        timeout_ms: Option<u64>,
    },
    SpawnGrandchild {
        pid_file: PathBuf,
        #[serde(default = "yes")]
        detach_stdio: bool,
    },
    CloseStdout,
    Auto {
        rules: Vec<AutoRule>,
    },
    Turn {
        text: String,
        session_id: Option<String>,
    },
    LoopTurns {
        text: String,
        session_id: Option<String>,
    },
    PermissionRtt {
        count: u64,
        #[serde(default = "bash")]
        tool: String,
        out: PathBuf,
        #[serde(default)]
        interval_ms: u64,
        timeout_ms: Option<u64>,
    },
}

/// Parses a script: an object with `steps`, or a bare array of steps.
pub(crate) fn parse(text: &str) -> Result<Script, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let script = if value.is_array() {
        let steps = serde_json::from_value(value).map_err(|e| e.to_string())?;
        Script {
            steps,
            on_end: OnEnd::default(),
        }
    } else {
        serde_json::from_value(value).map_err(|e| e.to_string())?
    };
    for (i, step) in script.steps.iter().enumerate() {
        validate(step).map_err(|e| format!("step {i}: {e}"))?;
    }
    Ok(script)
}

/// Checks what serde cannot: exclusive fields, signal names, base64.
fn validate(step: &Step) -> Result<(), String> {
    match step {
        Step::Expect {
            reply, reply_error, ..
        } if reply.is_some() && reply_error.is_some() => {
            Err("expect: give at most one of reply and reply_error".into())
        }
        Step::Emit { frame, frames } if frame.is_some() == frames.is_some() => {
            Err("emit: give exactly one of frame and frames".into())
        }
        Step::EmitRaw { data, base64: b64 } => match (data, b64) {
            (Some(_), None) => Ok(()),
            (None, Some(b)) => base64::decode(b).map(drop),
            _ => Err("emit_raw: give exactly one of data and base64".into()),
        },
        Step::Flood { line, frame, .. } if line.is_some() == frame.is_some() => {
            Err("flood: give exactly one of line and frame".into())
        }
        Step::Crash { signal } | Step::IgnoreSignal { signal } => sys::signal_number(signal)
            .map(drop)
            .ok_or_else(|| format!("unknown signal {signal:?}")),
        Step::Auto { rules } => rules
            .iter()
            .all(|r| r.reply.is_none() || r.reply_error.is_none())
            .then_some(())
            .ok_or_else(|| "auto: a rule gives both reply and reply_error".into()),
        _ => Ok(()),
    }
}

/// The script run when no script is configured.
pub(crate) fn default_script() -> Script {
    Script {
        steps: vec![
            Step::Auto {
                rules: vec![AutoRule {
                    subtype: "interrupt".into(),
                    reply: Some(serde_json::json!({"still_queued": []})),
                    reply_error: None,
                }],
            },
            Step::Expect {
                type_: "control_request".into(),
                subtype: Some("initialize".into()),
                request_id: None,
                reply: None,
                reply_error: None,
                no_reply: false,
                timeout_ms: None,
            },
            Step::LoopTurns {
                text: "Hello from the fake CLI.".into(),
                session_id: None,
            },
        ],
        on_end: OnEnd::WaitEof,
    }
}
