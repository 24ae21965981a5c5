//! [`Callbacks`]: every callback of a session, and the [`InboundHandler`]
//! that routes the CLI's control requests to them.

use std::fmt;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::Value;

use super::Decision;
use super::decision::{DecisionObserver, Observers};
use super::elicitation::{self, OnElicitation};
#[cfg(feature = "hooks")]
use super::hooks::Hooks;
use super::live_servers::LiveServers;
#[cfg(feature = "mcp")]
use super::mcp::SdkMcpServer;
use super::permission::{self, CanUseTool, PermissionContext};
#[cfg(not(all(feature = "hooks", feature = "mcp")))]
use super::route::needs_feature;
use super::route::{CAN_USE_TOOL, HOOK_CALLBACK, MCP_MESSAGE, Reply, Routed, decode, failed};
use super::user_dialog::{self, DialogHandler};
use crate::protocol::PermissionRequest;
use claude_agent_actors::{CancellationToken, InboundHandler, InboundRequest};

/// The permission callback, hooks and in-process MCP servers of a session.
///
/// As an [`InboundHandler`] it answers `can_use_tool` with the permission
/// callback, `hook_callback` with the hook registered under `callback_id`
/// (feature `hooks`), `mcp_message` with the named server (feature `mcp`;
/// without a feature, its requests get an error reply naming it), and
/// `elicitation` with the
/// elicitation callback (a decline without one). Error replies: no permission
/// callback, an unknown hook id, an undecodable request, a failing
/// callback, any other subtype. An unknown MCP server is answered, like the
/// official Python SDK does, with a JSON-RPC `-32601` error inside
/// `mcp_response`, so the CLI's MCP client fails only that request.
#[derive(Clone, Default)]
pub struct Callbacks {
    /// Answers `can_use_tool`; `None` makes every such request an error.
    pub can_use_tool: Option<Arc<dyn CanUseTool>>,
    /// Hook callbacks (feature `hooks`).
    #[cfg(feature = "hooks")]
    pub hooks: Hooks,
    /// In-process MCP servers, found by name (feature `mcp`).
    #[cfg(feature = "mcp")]
    pub mcp_servers: Vec<SdkMcpServer>,
    /// Answers `elicitation`; `None` declines every one.
    pub on_elicitation: Option<Arc<dyn OnElicitation>>,
    observers: Observers,
    /// Answers `request_user_dialog` for the kinds it declares.
    pub(super) user_dialog: Option<DialogHandler>,
    /// A running session's changeable servers (set by
    /// [`Callbacks::for_session`]); when set, it is where `mcp_message`
    /// looks names up.
    live: Option<LiveServers>,
}

impl Callbacks {
    /// No callback of any kind: nothing is wired into a session at connect
    /// (what lets a host hand such a session a pre-started CLI).
    #[cfg(feature = "host")]
    pub(crate) fn is_empty(&self) -> bool {
        !self.registers_with_cli()
            && self.can_use_tool.is_none()
            && self.live.is_none()
            && self.on_elicitation.is_none()
            && self.observers.is_empty()
            && self.user_dialog.is_none()
    }
}

impl fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("Callbacks");
        out.field("can_use_tool", &self.can_use_tool.is_some());
        #[cfg(feature = "hooks")]
        out.field("hooks", &self.hooks);
        #[cfg(feature = "mcp")]
        out.field("mcp_servers", &self.mcp_servers);
        out.field("on_elicitation", &self.on_elicitation.is_some())
            .field(
                "user_dialog_kinds",
                &self.user_dialog.as_ref().map(|d| &d.kinds),
            )
            .field("observers", &self.observers.len())
            .finish()
    }
}

impl Callbacks {
    /// No callbacks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether anything here makes the CLI send requests to answer (a
    /// permission callback, a hook, an in-process server): a one-shot run
    /// keeps the CLI's stdin open for them.
    pub(crate) fn answers_cli_requests(&self) -> bool {
        self.registers_with_cli() || self.can_use_tool.is_some()
    }

    /// Whether a hook or an in-process server is registered with the CLI at
    /// `initialize` (each a feature, so the checks are here once).
    fn registers_with_cli(&self) -> bool {
        #[cfg(feature = "hooks")]
        if !self.hooks.is_empty() {
            return true;
        }
        #[cfg(feature = "mcp")]
        if !self.mcp_servers.is_empty() {
            return true;
        }
        false
    }

    /// Sets the permission callback.
    pub fn with_can_use_tool(mut self, callback: impl CanUseTool) -> Self {
        self.can_use_tool = Some(Arc::new(callback));
        self
    }

    /// Sets the hooks (feature `hooks`).
    #[cfg(feature = "hooks")]
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Adds an in-process MCP server (one with the same name is replaced;
    /// feature `mcp`).
    #[cfg(feature = "mcp")]
    pub fn with_mcp_server(mut self, server: SdkMcpServer) -> Self {
        self.mcp_servers.retain(|s| s.name() != server.name());
        self.mcp_servers.push(server);
        self
    }

    /// Sets the callback answering MCP elicitations (without one, each is
    /// declined).
    pub fn with_on_elicitation(mut self, callback: impl OnElicitation) -> Self {
        self.on_elicitation = Some(Arc::new(callback));
        self
    }

    /// Adds an observer called with every [`Decision`] (after the callback
    /// answered, before the reply is sent). Observers run on the request's
    /// task: keep them quick.
    pub fn on_decision(mut self, observer: DecisionObserver) -> Self {
        self.observers = self.observers.with(observer);
        self
    }

    /// A copy for one session, whose MCP servers (in-process ones starting
    /// as `mcp_servers`) can then change while it runs.
    pub(crate) fn for_session(&self) -> Self {
        let mut callbacks = self.clone();
        #[cfg(feature = "mcp")]
        let live = LiveServers::new(self.mcp_servers.clone());
        #[cfg(not(feature = "mcp"))]
        let live = LiveServers::default();
        callbacks.live = Some(live);
        callbacks
    }

    /// The session's changeable servers (`None` before
    /// [`for_session`](Self::for_session)).
    pub(crate) fn live_servers(&self) -> Option<&LiveServers> {
        self.live.as_ref()
    }

    /// The in-process server called `name`, live ones first.
    #[cfg(feature = "mcp")]
    fn find_server(&self, name: &str) -> Option<SdkMcpServer> {
        match &self.live {
            Some(live) => live.find(name),
            None => self.mcp_servers.iter().find(|s| s.name() == name).cloned(),
        }
    }

    /// The `hooks` member of the `initialize` request (`None` = `null`,
    /// always without the feature `hooks`).
    pub fn initialize_hooks_json(&self) -> Option<Value> {
        #[cfg(feature = "hooks")]
        return self.hooks.initialize_json();
        #[cfg(not(feature = "hooks"))]
        None
    }

    /// The names of the in-process MCP servers (for `--mcp-config`
    /// entries `{"type": "sdk", "name": ...}`; feature `mcp`).
    #[cfg(feature = "mcp")]
    pub fn sdk_server_names(&self) -> Vec<&str> {
        self.mcp_servers.iter().map(SdkMcpServer::name).collect()
    }

    /// The in-process MCP servers, in registration order.
    #[cfg(feature = "mcp")]
    pub(crate) fn sdk_servers(&self) -> &[SdkMcpServer] {
        &self.mcp_servers
    }

    fn permission(&self, request: InboundRequest, cancel: CancellationToken) -> Routed {
        let callback = self
            .can_use_tool
            .clone()
            .ok_or("no can_use_tool callback is registered")?;
        let decoded: PermissionRequest = decode(&request)?;
        let original_input = decoded.input.clone();
        let tool_use_id = decoded.tool_use_id.clone();
        let tool_name = decoded.tool_name.clone();
        let context = PermissionContext {
            cancel,
            request_id: request.request_id,
        };
        let answer = callback.can_use_tool(decoded, context);
        let observers = self.observers.clone();
        Ok(async move {
            let result = answer.await.map_err(|e| {
                failed(
                    &observers,
                    CAN_USE_TOOL,
                    format!("can_use_tool callback failed: {}", crate::error::report(&e)),
                )
            })?;
            let payload =
                permission::reply_payload(&result, original_input, tool_use_id.as_deref())
                    .map_err(|e| failed(&observers, CAN_USE_TOOL, e.to_string()))?;
            observers.notify(&Decision::Permission {
                tool_use_id,
                tool_name,
                result,
            });
            Ok(payload)
        }
        .boxed())
    }

    /// `hook_callback`, with the hook registered under its `callback_id`.
    #[cfg(feature = "hooks")]
    fn hook(&self, request: InboundRequest, cancel: CancellationToken) -> Routed {
        super::hooks::route::route(&self.hooks, &self.observers, request, cancel)
    }

    #[cfg(not(feature = "hooks"))]
    fn hook(&self, _request: InboundRequest, _cancel: CancellationToken) -> Routed {
        Err(needs_feature(HOOK_CALLBACK, "hooks"))
    }

    /// `mcp_message`, with the named in-process server.
    #[cfg(feature = "mcp")]
    fn mcp(&self, request: InboundRequest, cancel: CancellationToken) -> Routed {
        super::mcp::route::route(
            |name| self.find_server(name),
            &self.observers,
            request,
            cancel,
        )
    }

    #[cfg(not(feature = "mcp"))]
    fn mcp(&self, _request: InboundRequest, _cancel: CancellationToken) -> Routed {
        Err(needs_feature(MCP_MESSAGE, "mcp"))
    }
}

impl InboundHandler for Callbacks {
    fn handle(&self, request: InboundRequest, cancel: CancellationToken) -> Reply {
        let subtype = request.subtype.clone();
        let routed = match subtype.as_str() {
            CAN_USE_TOOL => self.permission(request, cancel),
            HOOK_CALLBACK => self.hook(request, cancel),
            MCP_MESSAGE => self.mcp(request, cancel),
            "request_user_dialog" => {
                user_dialog::route(self.user_dialog.as_ref(), &request, cancel).map(|answer| {
                    let observers = self.observers.clone();
                    answer
                        .map(move |r| r.map_err(|e| failed(&observers, "request_user_dialog", e)))
                        .boxed()
                })
            }
            "elicitation" => {
                elicitation::route(self.on_elicitation.clone(), &request, cancel).map(|answer| {
                    let observers = self.observers.clone();
                    answer
                        .map(move |r| r.map_err(|e| failed(&observers, "elicitation", e)))
                        .boxed()
                })
            }
            other => Err(format!("unsupported control request subtype {other:?}")),
        };
        routed.unwrap_or_else(|error| {
            futures::future::ready(Err(failed(&self.observers, &subtype, error))).boxed()
        })
    }
}
