//! An in-process MCP server: JSON-RPC dispatch for `initialize`, `ping`,
//! `tools/list`, `tools/call`, `resources/list`, `resources/read`,
//! `resources/templates/list`, `prompts/list`, `prompts/get` and
//! notifications.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::in_flight::InFlight;
use super::jsonrpc::{self, INVALID_REQUEST, METHOD_NOT_FOUND};
use super::{PROTOCOL_VERSIONS, Prompt, Resource, Tool, prompt, resource};
use crate::protocol::{JsonRpcId, JsonRpcKind, JsonRpcMessage};
use claude_agent_actors::CancellationToken;

/// What one `tools/call` did, for the decision observer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CallRecord {
    pub(crate) tool: String,
    pub(crate) tool_use_id: Option<String>,
    pub(crate) is_error: bool,
}

/// An MCP server whose tools run in this process, reached by the CLI
/// through `mcp_message` control requests. Cloning is cheap and clones
/// share the in-flight call map.
///
/// ```
/// use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolResult};
/// use claude_agent::runtime::CancellationToken;
/// use serde_json::json;
///
/// let calc = SdkMcpServer::new("calc", "1.0.0").tool(Tool::new(
///     "add", "Add two numbers", json!({"type": "object"}),
///     |args: serde_json::Value, _ctx| async move {
///         let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
///         Ok(ToolResult::text(sum.to_string()))
///     },
/// ));
/// let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
///                   "params": {"name": "add", "arguments": {"a": 2, "b": 3}}});
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let reply = rt.block_on(calc.handle_message(&call, CancellationToken::new()));
/// assert_eq!(reply, json!({"jsonrpc": "2.0", "id": 2,
///     "result": {"content": [{"type": "text", "text": "5"}], "isError": false}}));
/// ```
#[derive(Clone)]
pub struct SdkMcpServer {
    pub(super) name: Arc<str>,
    version: Arc<str>,
    pub(super) tools: Arc<Vec<Tool>>,
    resources: Arc<Vec<Resource>>,
    prompts: Arc<Vec<Prompt>>,
    pub(super) in_flight: InFlight,
    instructions: Option<Arc<str>>,
    always_load: bool,
    timeout: Option<Duration>,
}

impl fmt::Debug for SdkMcpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SdkMcpServer")
            .field("name", &self.name)
            .field("version", &self.version)
            .field(
                "tools",
                &self.tools.iter().map(Tool::name).collect::<Vec<_>>(),
            )
            .field(
                "resources",
                &self.resources.iter().map(Resource::uri).collect::<Vec<_>>(),
            )
            .field(
                "prompts",
                &self.prompts.iter().map(Prompt::name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl SdkMcpServer {
    /// A server with no tools; `name` is the key in `--mcp-config`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into().into(),
            version: version.into().into(),
            tools: Arc::default(),
            resources: Arc::default(),
            prompts: Arc::default(),
            in_flight: InFlight::default(),
            instructions: None,
            always_load: false,
            timeout: None,
        }
    }

    /// Instructions the `initialize` reply carries, which the CLI shows the
    /// model as this server's instructions block.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into().into());
        self
    }

    /// Always include every tool of this server in the prompt, never
    /// deferred behind tool search (each tool's
    /// `_meta["anthropic/alwaysLoad"]`, OR'd with the tool's own).
    pub fn always_load(mut self, on: bool) -> Self {
        self.always_load = on;
        self
    }

    /// Per-call time limit the CLI applies to this server's tools,
    /// overriding `MCP_TOOL_TIMEOUT` (the `timeout` of its `sdk` config, in
    /// milliseconds; the CLI ignores values under 1000 ms). Applies when the
    /// server is first registered.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// How the CLI is told about this server: `{"type": "sdk", "name": ...}`,
    /// with `timeout` when set.
    pub fn cli_config(&self) -> crate::options::McpServerConfig {
        crate::options::McpServerConfig::Sdk {
            name: self.name.to_string(),
            timeout: self
                .timeout
                .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
        }
    }

    /// Adds a tool; one with the same name replaces the earlier one.
    pub fn tool(mut self, tool: Tool) -> Self {
        let tools = Arc::make_mut(&mut self.tools);
        tools.retain(|t| t.name() != tool.name());
        tools.push(tool);
        self
    }

    /// Adds a resource; one with the same URI replaces the earlier one.
    pub fn resource(mut self, resource: Resource) -> Self {
        let resources = Arc::make_mut(&mut self.resources);
        resources.retain(|r| r.uri != resource.uri);
        resources.push(resource);
        self
    }

    /// Adds a prompt; one with the same name replaces the earlier one.
    pub fn prompt(mut self, prompt: Prompt) -> Self {
        let prompts = Arc::make_mut(&mut self.prompts);
        prompts.retain(|p| p.name != prompt.name);
        prompts.push(prompt);
        self
    }

    /// The server's resources, in registration order.
    pub fn resources(&self) -> &[Resource] {
        &self.resources
    }

    /// The server's prompts, in registration order.
    pub fn prompts(&self) -> &[Prompt] {
        &self.prompts
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The server's tools, in registration order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// How many `tools/call` requests are running now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Answers one JSON-RPC message (the `message` of an `mcp_message`
    /// request) with the JSON-RPC response to put in `mcp_response`.
    /// `cancel` cancels a running tool call.
    pub async fn handle_message(&self, message: &Value, cancel: CancellationToken) -> Value {
        self.exchange(Some(message), cancel).await.0
    }

    /// [`Self::handle_message`], plus what a `tools/call` did.
    pub(crate) async fn exchange(
        &self,
        message: Option<&Value>,
        cancel: CancellationToken,
    ) -> (Value, Option<CallRecord>) {
        let Some(raw) = message else {
            let reply = jsonrpc::error(None, INVALID_REQUEST, "invalid request: no message");
            return (reply, None);
        };
        let decoded = serde_json::to_vec(raw)
            .and_then(|bytes| serde_json::from_slice::<JsonRpcMessage>(&bytes));
        let msg = match decoded {
            Ok(m) => m,
            Err(e) => {
                let reply = jsonrpc::error(
                    jsonrpc::raw_id(raw),
                    INVALID_REQUEST,
                    format!("invalid request: {e}"),
                );
                return (reply, None);
            }
        };
        if msg.jsonrpc.as_deref() != Some("2.0") {
            let reply = jsonrpc::error(
                msg.id,
                INVALID_REQUEST,
                "invalid request: jsonrpc must be \"2.0\"",
            );
            return (reply, None);
        }
        let kind = msg.kind();
        let params = msg.params.unwrap_or(Value::Null);
        match (kind, msg.method, msg.id) {
            (JsonRpcKind::Notification, Some(method), _) => {
                self.notification(&method, &params);
                (jsonrpc::notification_ack(), None)
            }
            (JsonRpcKind::Request, Some(method), Some(id)) => {
                self.request(id, &method, params, cancel).await
            }
            (_, _, id) => {
                let reply = jsonrpc::error(
                    id,
                    INVALID_REQUEST,
                    "invalid request: expected a request or a notification",
                );
                (reply, None)
            }
        }
    }

    fn notification(&self, method: &str, params: &Value) {
        if method == "notifications/cancelled" {
            if let Some(id) = jsonrpc::raw_id(&json!({"id": params.get("requestId")})) {
                let found = self.in_flight.cancel(&id);
                tracing::debug!(server = %self.name, ?id, found, "mcp call cancelled by the client");
            }
        }
        // Other notifications (`notifications/initialized`, progress, ...)
        // need no action from a tools-only server.
    }

    async fn request(
        &self,
        id: JsonRpcId,
        method: &str,
        params: Value,
        cancel: CancellationToken,
    ) -> (Value, Option<CallRecord>) {
        // A server without resources (or prompts) does not announce them,
        // and answers their methods as unknown, as a tools-only one did.
        let unsupported = (method.starts_with("resources/") && self.resources.is_empty())
            || (method.starts_with("prompts/") && self.prompts.is_empty());
        let result = match method {
            _ if unsupported => {
                let reply = jsonrpc::error(
                    Some(id),
                    METHOD_NOT_FOUND,
                    format!("method not found: {method}"),
                );
                return (reply, None);
            }
            "initialize" => self.initialize(&params),
            "ping" => json!({}),
            "tools/list" => {
                let tools: Vec<Value> = self
                    .tools
                    .iter()
                    .map(|t| t.listing(self.always_load))
                    .collect();
                json!({ "tools": tools })
            }
            "tools/call" => return self.call(id, params, cancel).await,
            "resources/list" => {
                let listed: Vec<Value> = self.resources.iter().map(Resource::listing).collect();
                json!({ "resources": listed })
            }
            "resources/templates/list" => json!({ "resourceTemplates": [] }),
            "prompts/list" => {
                let listed: Vec<Value> = self.prompts.iter().map(Prompt::listing).collect();
                json!({ "prompts": listed })
            }
            "resources/read" | "prompts/get" => {
                let answered = if method == "resources/read" {
                    resource::read(&self.resources, &params, cancel).await
                } else {
                    prompt::get(&self.prompts, &params, cancel).await
                };
                let reply = match answered {
                    Ok(result) => jsonrpc::result(id, result),
                    Err((code, message)) => jsonrpc::error(Some(id), code, message),
                };
                return (reply, None);
            }
            other => {
                let reply = jsonrpc::error(
                    Some(id),
                    METHOD_NOT_FOUND,
                    format!("method not found: {other}"),
                );
                return (reply, None);
            }
        };
        (jsonrpc::result(id, result), None)
    }

    fn initialize(&self, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let version = asked
            .filter(|v| PROTOCOL_VERSIONS.contains(v))
            .unwrap_or(PROTOCOL_VERSIONS[0]);
        // Resources and prompts are announced only when there are some, so
        // a tools-only server answers as before.
        let mut capabilities = json!({"tools": {"listChanged": false}});
        if !self.resources.is_empty() {
            capabilities["resources"] = json!({"listChanged": false, "subscribe": false});
        }
        if !self.prompts.is_empty() {
            capabilities["prompts"] = json!({"listChanged": false});
        }
        let mut reply = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": {"name": &*self.name, "version": &*self.version},
        });
        if let Some(text) = &self.instructions {
            reply["instructions"] = json!(&**text);
        }
        reply
    }
}
