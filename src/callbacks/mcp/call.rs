//! `tools/call` of an in-process MCP server: finding the tool, running it
//! under a cancellable token, and turning its outcome into a result.

use std::sync::Arc;

use serde_json::{Value, json};

use super::jsonrpc::{self, INVALID_PARAMS};
use super::server::{CallRecord, SdkMcpServer};
use super::{Tool, ToolContext, ToolResult};
use crate::callbacks::CallbackError;
use crate::protocol::JsonRpcId;
use claude_agent_actors::CancellationToken;

impl SdkMcpServer {
    pub(super) async fn call(
        &self,
        id: JsonRpcId,
        params: Value,
        cancel: CancellationToken,
    ) -> (Value, Option<CallRecord>) {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            let reply = jsonrpc::error(
                Some(id),
                INVALID_PARAMS,
                "invalid params: tools/call needs a string params.name",
            );
            return (reply, None);
        };
        let tool_use_id = params
            .pointer("/_meta/claudecode~1toolUseId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => json!({}),
            Some(a) => a.clone(),
        };
        let result = match self.tools.iter().find(|t| t.name() == name) {
            None => ToolResult::error(format!(
                "tool {name:?} not found on MCP server {:?}",
                &*self.name
            )),
            Some(tool) => {
                self.run(tool, id.clone(), arguments, tool_use_id.clone(), cancel)
                    .await
            }
        };
        let record = CallRecord {
            tool: name.to_owned(),
            tool_use_id,
            is_error: result.is_error,
        };
        let value = serde_json::to_value(&result).unwrap_or_else(
            |e| json!({"content": [{"type": "text", "text": e.to_string()}], "isError": true}),
        );
        (jsonrpc::result(id, value), Some(record))
    }

    /// Runs a tool under a token that the runtime's `cancel` and
    /// `notifications/cancelled` both fire. On cancellation the tool's
    /// future is polled once more (so a tool watching its token can answer)
    /// and then dropped.
    async fn run(
        &self,
        tool: &Tool,
        id: JsonRpcId,
        arguments: Value,
        tool_use_id: Option<String>,
        cancel: CancellationToken,
    ) -> ToolResult {
        let token = cancel.child_token();
        let _guard = self.in_flight.register(id, token.clone());
        let context = ToolContext {
            cancel: token.clone(),
            tool_use_id,
            server: Arc::clone(&self.name),
            tool: Arc::clone(&tool.name),
        };
        let fut = tool.handler.call(arguments, context);
        let outcome = tokio::select! {
            biased;
            r = fut => r,
            _ = token.cancelled() => Err(CallbackError::Cancelled),
        };
        match outcome {
            Ok(result) => result,
            Err(CallbackError::Cancelled) => {
                ToolResult::error(format!("tool {:?} was cancelled", tool.name()))
            }
            Err(e) => ToolResult::error(crate::error::report(&e)),
        }
    }
}
