//! Control spans around the CLI's requests to us: `can_use_tool` (tool
//! name, decision), `hook_callback` (hook event, callback id) and
//! `mcp_message` (server, method, tool name).

use std::sync::Arc;

use claude_agent_actors::{
    CancellationToken, ControlStatus, HandlerError, InboundHandler, InboundRequest,
};
use futures::FutureExt;
use futures::future::BoxFuture;
use opentelemetry::KeyValue;
use serde_json::Value;

use super::control::Direction;
use super::spans::SessionTrace;

/// Wraps the session's real handler; changes no reply.
pub(crate) struct TracedHandler {
    pub(crate) inner: Arc<dyn InboundHandler>,
    pub(crate) trace: Arc<SessionTrace>,
}

impl InboundHandler for TracedHandler {
    fn handle(
        &self,
        request: InboundRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let span = self
            .trace
            .control(&request.subtype, Direction::In, describe(&request));
        let is_permission = request.subtype == "can_use_tool";
        let watch = cancel.clone();
        let reply = self.inner.handle(request, cancel);
        async move {
            let result = reply.await;
            let outcome = match &result {
                _ if watch.is_cancelled() => ControlStatus::Cancelled,
                Ok(_) => ControlStatus::Success,
                Err(_) => ControlStatus::Error,
            };
            let decided = match &result {
                Ok(v) if is_permission => str_at(v, "/behavior"),
                Ok(v) => str_at(v, "/hookSpecificOutput/permissionDecision"),
                Err(_) => None,
            };
            let attrs = decided
                .map(|d| KeyValue::new("claude_agent.decision", d))
                .into_iter()
                .collect();
            span.end(outcome.as_str(), attrs);
            result
        }
        .boxed()
    }
}

/// What the request is about, from its raw JSON.
fn describe(request: &InboundRequest) -> Vec<KeyValue> {
    let r = &request.request;
    let mut attrs = Vec::new();
    let mut put = |key: &'static str, value: Option<String>| {
        if let Some(v) = value {
            attrs.push(KeyValue::new(key, v));
        }
    };
    match request.subtype.as_str() {
        "can_use_tool" => put("claude_agent.tool.name", str_at(r, "/tool_name")),
        "hook_callback" => {
            put(
                "claude_agent.hook.event",
                str_at(r, "/input/hook_event_name"),
            );
            put("claude_agent.hook.callback_id", str_at(r, "/callback_id"));
            put("claude_agent.tool.name", str_at(r, "/input/tool_name"));
        }
        "mcp_message" => {
            put("claude_agent.mcp.server", str_at(r, "/server_name"));
            put("claude_agent.mcp.method", str_at(r, "/message/method"));
            if str_at(r, "/message/method").as_deref() == Some("tools/call") {
                put("claude_agent.tool.name", str_at(r, "/message/params/name"));
            }
        }
        _ => {}
    }
    attrs
}

fn str_at(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
}
