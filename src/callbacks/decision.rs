//! What the router decided, for observers such as a transcript recorder.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

#[cfg(feature = "hooks")]
use crate::protocol::HookOutput;
use crate::protocol::PermissionResult;

/// One answered (or failed) control request from the CLI.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Decision {
    /// A `can_use_tool` answer.
    Permission {
        /// The tool call's id.
        tool_use_id: Option<String>,
        /// The tool.
        tool_name: Option<String>,
        /// What the callback decided (before `updatedInput` defaulting).
        result: PermissionResult,
    },
    /// A hook callback's output (feature `hooks`).
    #[cfg(feature = "hooks")]
    Hook {
        /// `hook_0`, ...
        callback_id: String,
        /// The input's `hook_event_name`.
        event: String,
        /// The tool call involved, if any.
        tool_use_id: Option<String>,
        /// What the hook answered (boxed: it is much larger than the
        /// other variants).
        output: Box<HookOutput>,
    },
    /// A `tools/call` on an in-process MCP server (feature `mcp`).
    #[cfg(feature = "mcp")]
    McpCall {
        /// The server.
        server: String,
        /// The tool (as the client named it).
        tool: String,
        /// The model's tool call id.
        tool_use_id: Option<String>,
        /// Whether the result was an error.
        is_error: bool,
    },
    /// A request that got an error (or an MCP error for an unknown server).
    Failed {
        /// The request's subtype.
        subtype: String,
        /// The error sent.
        error: String,
    },
}

/// Called with every [`Decision`].
pub type DecisionObserver = Arc<dyn Fn(&Decision) + Send + Sync>;

/// The registered observers; cheap to clone into a request's future.
#[derive(Clone, Default)]
pub(crate) struct Observers(Arc<[DecisionObserver]>);

impl Observers {
    #[cfg(feature = "host")]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn with(&self, observer: DecisionObserver) -> Self {
        let mut all: Vec<_> = self.0.iter().cloned().collect();
        all.push(observer);
        Self(all.into())
    }

    /// Tells every observer; a panicking observer is logged and skipped so
    /// recording can never change the reply.
    pub(crate) fn notify(&self, decision: &Decision) {
        for observer in self.0.iter() {
            if std::panic::catch_unwind(AssertUnwindSafe(|| observer(decision))).is_err() {
                tracing::warn!(?decision, "decision observer panicked");
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}
