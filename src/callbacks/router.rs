//! [`Callbacks`]: every callback of a session, and the [`InboundHandler`]
//! that routes the CLI's control requests to them.

use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Decision;
use super::decision::{DecisionObserver, Observers};
use super::elicitation::{self, OnElicitation};
use super::hooks::{HookContext, Hooks, OnFailure};
use super::mcp::SdkMcpServer;
use super::mcp::jsonrpc::{self, METHOD_NOT_FOUND};
use super::mcp::live::LiveServers;
use super::permission::{self, CanUseTool, PermissionContext};
use super::user_dialog::{self, DialogHandler};
use crate::protocol::de::Wire;
use crate::protocol::{HookCallbackRequest, PermissionRequest, parse_json_variant};
use claude_agent_actors::{
    CancellationToken, HandlerError, InboundHandler, InboundRequest, panic_message,
};

type Reply = BoxFuture<'static, Result<Value, HandlerError>>;

/// The routed request's future, or the error to reply with at once.
type Routed = Result<Reply, String>;

const CAN_USE_TOOL: &str = "can_use_tool";
const HOOK_CALLBACK: &str = "hook_callback";

/// The permission callback, hooks and in-process MCP servers of a session.
///
/// As an [`InboundHandler`] it answers `can_use_tool` with the permission
/// callback, `hook_callback` with the hook registered under `callback_id`,
/// `mcp_message` with the named server, and `elicitation` with the
/// elicitation callback (a decline without one). Error replies: no permission
/// callback, an unknown hook id, an undecodable request, a failing
/// callback, any other subtype. An unknown MCP server is answered, like the
/// official Python SDK does, with a JSON-RPC `-32601` error inside
/// `mcp_response`, so the CLI's MCP client fails only that request.
#[derive(Clone, Default)]
pub struct Callbacks {
    /// Answers `can_use_tool`; `None` makes every such request an error.
    pub can_use_tool: Option<Arc<dyn CanUseTool>>,
    /// Hook callbacks.
    pub hooks: Hooks,
    /// In-process MCP servers, found by name.
    pub mcp_servers: Vec<SdkMcpServer>,
    /// Answers `elicitation`; `None` declines every one.
    pub on_elicitation: Option<Arc<dyn OnElicitation>>,
    observers: Observers,
    /// Answers `request_user_dialog` for the kinds it declares.
    pub(super) user_dialog: Option<DialogHandler>,
    /// A running session's servers (set by [`Callbacks::for_session`]);
    /// when set, it is what `mcp_message` looks names up in.
    live: Option<LiveServers>,
}

impl Callbacks {
    /// No callback of any kind: nothing is wired into a session at connect
    /// (what lets a host hand such a session a pre-started CLI).
    #[cfg(feature = "host")]
    pub(crate) fn is_empty(&self) -> bool {
        self.can_use_tool.is_none()
            && self.hooks.is_empty()
            && self.mcp_servers.is_empty()
            && self.on_elicitation.is_none()
            && self.observers.is_empty()
            && self.user_dialog.is_none()
            && self.live.is_none()
    }
}

impl fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callbacks")
            .field("can_use_tool", &self.can_use_tool.is_some())
            .field("hooks", &self.hooks)
            .field("mcp_servers", &self.mcp_servers)
            .field("on_elicitation", &self.on_elicitation.is_some())
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

    /// Sets the permission callback.
    pub fn with_can_use_tool(mut self, callback: impl CanUseTool) -> Self {
        self.can_use_tool = Some(Arc::new(callback));
        self
    }

    /// Sets the hooks.
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Adds an in-process MCP server (one with the same name is replaced).
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

    /// A copy for one session, whose in-process servers start as
    /// `mcp_servers` and can then change while it runs.
    pub(crate) fn for_session(&self) -> Self {
        let mut callbacks = self.clone();
        callbacks.live = Some(LiveServers::new(self.mcp_servers.clone()));
        callbacks
    }

    /// The session's changeable servers (`None` before
    /// [`for_session`](Self::for_session)).
    pub(crate) fn live_servers(&self) -> Option<&LiveServers> {
        self.live.as_ref()
    }

    /// The in-process server called `name`, live ones first.
    fn find_server(&self, name: &str) -> Option<SdkMcpServer> {
        match &self.live {
            Some(live) => live.find(name),
            None => self.mcp_servers.iter().find(|s| s.name() == name).cloned(),
        }
    }

    /// The `hooks` member of the `initialize` request (`None` = `null`).
    pub fn initialize_hooks_json(&self) -> Option<Value> {
        self.hooks.initialize_json()
    }

    /// The names of the in-process MCP servers (for `--mcp-config`
    /// entries `{"type": "sdk", "name": ...}`).
    pub fn sdk_server_names(&self) -> Vec<&str> {
        self.mcp_servers.iter().map(SdkMcpServer::name).collect()
    }

    /// The in-process MCP servers, in registration order.
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

    fn hook(&self, request: InboundRequest, cancel: CancellationToken) -> Routed {
        let decoded: HookCallbackRequest = decode(&request)?;
        let callback_id = decoded
            .callback_id
            .ok_or("hook_callback request has no callback_id")?;
        let entry = self
            .hooks
            .find(&callback_id)
            .ok_or_else(|| format!("no hook callback is registered with id {callback_id:?}"))?;
        let input = decoded
            .input
            .ok_or_else(|| format!("hook_callback request for {callback_id} has no input"))?;
        let event = input.hook_event_name().to_owned();
        let tool_use_id = decoded.tool_use_id;
        let observers = self.observers.clone();
        // The CLI ignores onFailure on events that cannot block anything.
        let policy = entry
            .on_failure
            .filter(|_| !entry.event.ignores_on_failure());
        let context = HookContext {
            cancel,
            callback_id: callback_id.clone(),
            event: entry.event,
        };
        // Building the future runs user code: a panic there is a failure
        // of this callback like one inside it.
        let answer = std::panic::catch_unwind(AssertUnwindSafe(|| {
            entry.callback.call(input, tool_use_id.clone(), context)
        }));
        Ok(async move {
            let fail =
                |e: String| failed(&observers, HOOK_CALLBACK, failure(&callback_id, e, policy));
            let answer = answer.map_err(|p| fail(format!("panicked: {}", panic_message(&*p))))?;
            let guarded = AssertUnwindSafe(answer).catch_unwind();
            let outcome = match entry.timeout {
                Some(t) => tokio::time::timeout(t, guarded)
                    .await
                    .map_err(|_| fail(format!("did not answer within {} ms", t.as_millis())))?,
                None => guarded.await,
            };
            let output = outcome
                .map_err(|p| fail(format!("panicked: {}", panic_message(&*p))))?
                .map_err(|e| fail(format!("failed: {}", crate::error::report(&e))))?;
            let payload = serde_json::to_value(&output).map_err(|e| fail(e.to_string()))?;
            observers.notify(&Decision::Hook {
                callback_id,
                event,
                tool_use_id,
                output: Box::new(output),
            });
            Ok(payload)
        }
        .boxed())
    }

    fn mcp(&self, request: InboundRequest, cancel: CancellationToken) -> Routed {
        /// The two members routing needs; the message stays JSON for the server.
        #[derive(Deserialize)]
        struct Mcp {
            #[serde(default)]
            server_name: Option<Value>,
            // A present `null` stays `Some(Null)`, as the server expects.
            #[serde(default, deserialize_with = "present")]
            message: Option<Value>,
        }
        fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
            Value::deserialize(d).map(Some)
        }
        let Mcp {
            server_name,
            message,
        } = request
            .request
            .decode()
            .map_err(|e| format!("cannot decode mcp_message request: {e}"))?;
        let name = server_name
            .as_ref()
            .and_then(Value::as_str)
            .ok_or("mcp_message request has no server_name")?;
        let observers = self.observers.clone();
        let Some(server) = self.find_server(name) else {
            let error = format!("MCP server {name:?} not found");
            let id = message.as_ref().and_then(jsonrpc::raw_id);
            let reply =
                json!({"mcp_response": jsonrpc::error(id, METHOD_NOT_FOUND, error.clone())});
            observers.notify(&Decision::Failed {
                subtype: request.subtype,
                error,
            });
            return Ok(futures::future::ready(Ok(reply)).boxed());
        };
        Ok(async move {
            let (response, record) = server.exchange(message.as_ref(), cancel).await;
            if let Some(r) = record {
                observers.notify(&Decision::McpCall {
                    server: server.name().to_owned(),
                    tool: r.tool,
                    tool_use_id: r.tool_use_id,
                    is_error: r.is_error,
                });
            }
            Ok(json!({ "mcp_response": response }))
        }
        .boxed())
    }
}

impl InboundHandler for Callbacks {
    fn handle(&self, request: InboundRequest, cancel: CancellationToken) -> Reply {
        let subtype = request.subtype.clone();
        let routed = match subtype.as_str() {
            CAN_USE_TOOL => self.permission(request, cancel),
            HOOK_CALLBACK => self.hook(request, cancel),
            "mcp_message" => self.mcp(request, cancel),
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

/// Decodes the request's JSON text, as received, straight into the typed
/// payload of its (scanned) subtype with the protocol's own parser (one
/// pass, no intermediate `Value`; errors name the offending field). Only
/// that payload's decoder is compiled here, not every request type's.
fn decode<W: Wire>(request: &InboundRequest) -> Result<W, String> {
    parse_json_variant(request.request.json(), "subtype", &request.subtype)
        .map_err(|e| format!("cannot decode {} request: {e}", request.subtype))
}

/// The error reply's text for a failed hook callback; it says when the
/// CLI is to block because of it (the CLI decides, from `onFailure`).
fn failure(callback_id: &str, what: String, policy: Option<OnFailure>) -> String {
    let blocks = if policy == Some(OnFailure::Block) {
        " (on_failure is block: the action is blocked)"
    } else {
        ""
    };
    format!("hook callback {callback_id} {what}{blocks}")
}

/// Tells the observers and makes the error reply.
fn failed(observers: &Observers, subtype: &str, error: String) -> HandlerError {
    observers.notify(&Decision::Failed {
        subtype: subtype.to_owned(),
        error: error.clone(),
    });
    HandlerError::new(error)
}
