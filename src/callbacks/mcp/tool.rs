//! Tools of an in-process MCP server: definition, input schema, handler.

use std::fmt;
use std::future::Future;
#[cfg(feature = "schemars")]
use std::marker::PhantomData;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
#[cfg(feature = "schemars")]
use schemars::JsonSchema;
#[cfg(feature = "schemars")]
use schemars::generate::SchemaSettings;
use serde::Serialize;
#[cfg(feature = "schemars")]
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ToolResult;
use crate::callbacks::CallbackError;
use claude_agent_actors::CancellationToken;

/// What a tool knows about the call it serves.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolContext {
    /// Fires when the CLI cancels the call (`control_cancel_request` or MCP
    /// `notifications/cancelled`) or the session shuts down. Hand it to
    /// any work the tool spawns.
    pub cancel: CancellationToken,
    /// The model's tool call id (`params._meta["claudecode/toolUseId"]`).
    pub tool_use_id: Option<String>,
    /// The server's name.
    pub server: Arc<str>,
    /// The tool's name.
    pub tool: Arc<str>,
}

impl ToolContext {
    /// A context for a call of `server`'s `tool`, with no tool call id and a
    /// fresh cancellation token (for calling a tool directly, e.g. in a test).
    pub fn new(server: impl Into<Arc<str>>, tool: impl Into<Arc<str>>) -> Self {
        Self {
            cancel: CancellationToken::new(),
            tool_use_id: None,
            server: server.into(),
            tool: tool.into(),
        }
    }
}

/// Runs a tool on raw JSON arguments. Implemented for every
/// `Fn(Value, ToolContext) -> Fut` with
/// `Fut: Future<Output = Result<ToolResult, CallbackError>>`.
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs one call. An `Err` becomes an `isError: true` result.
    fn call(
        &self,
        arguments: Value,
        context: ToolContext,
    ) -> BoxFuture<'static, Result<ToolResult, CallbackError>>;
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolResult, CallbackError>> + Send + 'static,
{
    fn call(
        &self,
        arguments: Value,
        context: ToolContext,
    ) -> BoxFuture<'static, Result<ToolResult, CallbackError>> {
        self(arguments, context).boxed()
    }
}

/// A typed tool function: `Fn(A, ToolContext) -> impl Future<Output =
/// Result<ToolResult, CallbackError>>`. Written as a trait with an `Fn`
/// supertrait so closures need no parameter annotations.
pub trait TypedToolFn<A>:
    Fn(A, ToolContext) -> <Self as TypedToolFn<A>>::Fut + Send + Sync + 'static
{
    /// The future the function returns.
    type Fut: Future<Output = Result<ToolResult, CallbackError>> + Send + 'static;
}

impl<A, F, Fut> TypedToolFn<A> for F
where
    F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolResult, CallbackError>> + Send + 'static,
{
    type Fut = Fut;
}

/// Decodes arguments into `A` before calling the typed function.
#[cfg(feature = "schemars")]
struct Typed<A, F> {
    f: F,
    _args: PhantomData<fn(A)>,
}

#[cfg(feature = "schemars")]
impl<A, F> ToolHandler for Typed<A, F>
where
    A: DeserializeOwned + Send + 'static,
    F: TypedToolFn<A>,
{
    fn call(
        &self,
        arguments: Value,
        context: ToolContext,
    ) -> BoxFuture<'static, Result<ToolResult, CallbackError>> {
        match serde_json::from_value::<A>(arguments) {
            Ok(args) => (self.f)(args, context).boxed(),
            Err(e) => {
                let msg = format!("invalid arguments for tool {}: {e}", context.tool);
                futures::future::ready(Err(CallbackError::Message(msg))).boxed()
            }
        }
    }
}

/// MCP tool annotations: hints about a tool's behaviour.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A human-facing title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to the outside world.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// One tool: name, description, input schema, annotations, handler.
///
/// ```
/// use claude_agent::callbacks::mcp::{Tool, ToolResult};
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
///     "required": ["a", "b"],
/// });
/// let add = Tool::new("add", "Add two numbers", schema, |args: serde_json::Value, _ctx| async move {
///     let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
///     Ok(ToolResult::text(sum.to_string()))
/// });
/// assert_eq!(add.input_schema()["required"], json!(["a", "b"]));
/// ```
///
/// With the `schemars` feature, `Tool::typed` derives the schema from a
/// Rust type and decodes the arguments into it.
#[derive(Clone)]
pub struct Tool {
    pub(crate) name: Arc<str>,
    description: String,
    input_schema: Value,
    annotations: Option<ToolAnnotations>,
    hints: ToolHints,
    pub(crate) handler: Arc<dyn ToolHandler>,
}

/// Claude Code's own hints for one tool, sent in the listing's `_meta`
/// under `anthropic/` keys (MCP clients drop annotation fields they do not
/// know, so the official SDKs put them there).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ToolHints {
    search_hint: Option<String>,
    always_load: bool,
    max_result_size_chars: Option<u64>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool taking `A`, whose input schema is derived from `A`. Arguments
    /// that do not decode into `A` give an `isError: true` result naming
    /// the problem; the function is not called. Needs the `schemars`
    /// feature.
    ///
    /// ```
    /// use claude_agent::callbacks::mcp::{Tool, ToolResult};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Add { a: f64, b: f64 }
    ///
    /// let add = Tool::typed::<Add>("add", "Add two numbers", |args, _ctx| async move {
    ///     Ok(ToolResult::text((args.a + args.b).to_string()))
    /// });
    /// assert_eq!(add.input_schema()["required"], serde_json::json!(["a", "b"]));
    /// ```
    #[cfg(feature = "schemars")]
    pub fn typed<A>(
        name: impl Into<String>,
        description: impl Into<String>,
        f: impl TypedToolFn<A>,
    ) -> Self
    where
        A: JsonSchema + DeserializeOwned + Send + 'static,
    {
        let handler = Typed {
            f,
            _args: PhantomData,
        };
        Self::new(name, description, schema_for::<A>(), handler)
    }

    /// A tool with an explicit JSON schema and raw JSON arguments (not
    /// validated against the schema).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: impl ToolHandler,
    ) -> Self {
        Self {
            name: name.into().into(),
            description: description.into(),
            input_schema,
            annotations: None,
            hints: ToolHints::default(),
            handler: Arc::new(handler),
        }
    }

    /// Sets the annotations.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Words that help tool search find this tool when the CLI defers
    /// tools behind search (`_meta["anthropic/searchHint"]`).
    pub fn search_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.search_hint = Some(hint.into());
        self
    }

    /// Always include this tool in the prompt, never deferred behind tool
    /// search (`_meta["anthropic/alwaysLoad"]`).
    pub fn always_load(mut self, on: bool) -> Self {
        self.hints.always_load = on;
        self
    }

    /// The result size, in characters, up to which the CLI keeps a result
    /// inline instead of saving it and showing a preview
    /// (`_meta["anthropic/maxResultSizeChars"]`; Python's
    /// `maxResultSizeChars`).
    pub fn max_result_size_chars(mut self, chars: u64) -> Self {
        self.hints.max_result_size_chars = Some(chars);
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input schema sent in `tools/list`.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The entry for `tools/list`; `always_load` is the server's
    /// [`always_load`](super::SdkMcpServer::always_load), OR'd with the
    /// tool's own.
    pub(crate) fn listing(&self, always_load: bool) -> Value {
        let mut v = serde_json::json!({
            "name": &*self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        });
        if let (Some(a), Some(obj)) = (&self.annotations, v.as_object_mut()) {
            obj.insert(
                "annotations".into(),
                serde_json::to_value(a).unwrap_or_default(),
            );
        }
        let mut meta = serde_json::Map::new();
        if let Some(hint) = &self.hints.search_hint {
            meta.insert("anthropic/searchHint".into(), hint.clone().into());
        }
        if always_load || self.hints.always_load {
            meta.insert("anthropic/alwaysLoad".into(), true.into());
        }
        if let Some(chars) = self.hints.max_result_size_chars {
            meta.insert("anthropic/maxResultSizeChars".into(), chars.into());
        }
        if let (false, Some(obj)) = (meta.is_empty(), v.as_object_mut()) {
            obj.insert("_meta".into(), Value::Object(meta));
        }
        v
    }
}

/// `A`'s JSON schema with subschemas inlined (the model reads it as one
/// object) and without `$schema`, which MCP clients do not need.
#[cfg(feature = "schemars")]
fn schema_for<A: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<A>().to_value();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
    }
    schema
}
