//! [`Options`] -> environment for the CLI.

use std::ffi::OsString;

use super::tool_config::QUESTION_PREVIEW_FORMAT;
use super::{CommandContext, Options};

const ENTRYPOINT: &str = "CLAUDE_CODE_ENTRYPOINT";
const SDK_VERSION: &str = "CLAUDE_AGENT_SDK_VERSION";
const CHECKPOINTING: &str = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";
const TRACEPARENT: &str = "TRACEPARENT";
const TRACESTATE: &str = "TRACESTATE";
/// Names the host app in the CLI's User-Agent.
const CLIENT_APP: &str = "CLAUDE_AGENT_SDK_CLIENT_APP";
/// A label an outer SDK session derived for its own app; never ours.
const DERIVED_CLIENT_APP: &str = "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP";
/// Set by a parent Claude Code; inherited, it makes the CLI think it is nested.
const CLAUDECODE: &str = "CLAUDECODE";

/// Variables to set over the inherited environment, and ones to remove.
pub(crate) struct EnvPlan {
    pub(crate) set: Vec<(OsString, OsString)>,
    pub(crate) remove: Vec<OsString>,
}

impl EnvPlan {
    /// Set `key`, replacing an earlier entry so each key appears once.
    fn put(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) {
        let (key, value) = (key.into(), value.into());
        match self.set.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.set.push((key, value)),
        }
    }
}

/// Precedence, lowest first: inherited env < our defaults (entrypoint, trace
/// context) < the user's `env` < values the SDK owns (version, client app,
/// checkpointing, tool config, `PWD`). The derived client-app label is always removed.
pub(crate) fn build(o: &Options, ctx: &CommandContext) -> EnvPlan {
    let user_sets = |name: &str| o.env.iter().any(|(k, _)| k == name);
    let mut plan = EnvPlan {
        set: Vec::new(),
        remove: Vec::new(),
    };
    plan.put(ENTRYPOINT, "sdk-rust");
    if let Some(parent) = &ctx.trace_parent {
        plan.put(TRACEPARENT, parent);
        match &ctx.trace_state {
            Some(state) => plan.put(TRACESTATE, state),
            // An inherited TRACESTATE belongs to some other trace.
            None if !user_sets(TRACESTATE) => plan.remove.push(TRACESTATE.into()),
            None => {}
        }
    }
    for (k, v) in &o.env {
        plan.put(k.clone(), v.clone());
    }
    plan.put(SDK_VERSION, env!("CARGO_PKG_VERSION"));
    if let Some(app) = &o.client_app {
        plan.put(CLIENT_APP, app);
    }
    if o.enable_file_checkpointing {
        plan.put(CHECKPOINTING, "true");
    }
    if let Some(format) = o
        .tool_config
        .as_ref()
        .and_then(|c| c.question_preview_format)
    {
        plan.put(QUESTION_PREVIEW_FORMAT, format.as_str());
    }
    if let Some(cwd) = &o.cwd {
        plan.put("PWD", cwd);
    }
    if !user_sets(CLAUDECODE) {
        plan.remove.push(CLAUDECODE.into());
    }
    // As in the official SDKs: an inherited or configured derived label
    // names some other session's app.
    plan.set.retain(|(k, _)| k != DERIVED_CLIENT_APP);
    plan.remove.push(DERIVED_CLIENT_APP.into());
    plan
}
