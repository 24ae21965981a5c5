//! `mcp_message`: hands the JSON-RPC message to the named in-process
//! server and answers with its `mcp_response`.

use claude_agent_actors::{CancellationToken, InboundRequest};
use futures::FutureExt;
use serde::Deserialize;
use serde_json::{Value, json};

use super::SdkMcpServer;
use super::jsonrpc::{self, METHOD_NOT_FOUND};
use crate::callbacks::Decision;
use crate::callbacks::decision::Observers;
use crate::callbacks::route::Routed;

/// Routes one `mcp_message` request to the server `find` returns for its
/// `server_name`.
pub(in crate::callbacks) fn route(
    find: impl FnOnce(&str) -> Option<SdkMcpServer>,
    observers: &Observers,
    request: InboundRequest,
    cancel: CancellationToken,
) -> Routed {
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
    let observers = observers.clone();
    let Some(server) = find(name) else {
        let error = format!("MCP server {name:?} not found");
        let id = message.as_ref().and_then(jsonrpc::raw_id);
        let reply = json!({"mcp_response": jsonrpc::error(id, METHOD_NOT_FOUND, error.clone())});
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
