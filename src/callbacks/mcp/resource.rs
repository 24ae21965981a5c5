//! Resources of an in-process MCP server: data the CLI can list and read
//! by URI (`resources/list`, `resources/read`).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::jsonrpc::INVALID_PARAMS;
use crate::callbacks::CallbackError;
use claude_agent_actors::CancellationToken;

/// What a resource's content is: text, or binary data in base64.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceContent {
    /// Text.
    Text(String),
    /// Binary data, base64-encoded.
    Blob(String),
}

impl ResourceContent {
    /// Text content.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(text.into())
    }
}

/// Reads a resource. Implemented for every `Fn(CancellationToken) -> Fut`
/// with `Fut: Future<Output = Result<ResourceContent, CallbackError>>`;
/// the token fires when the CLI cancels the read or the session ends.
pub trait ResourceReader: Send + Sync + 'static {
    /// Reads the resource once.
    fn read(
        &self,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<ResourceContent, CallbackError>>;
}

impl<F, Fut> ResourceReader for F
where
    F: Fn(CancellationToken) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ResourceContent, CallbackError>> + Send + 'static,
{
    fn read(
        &self,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<ResourceContent, CallbackError>> {
        self(cancel).boxed()
    }
}

/// One resource: its URI, name, optional description and MIME type, and
/// how to read it.
///
/// ```
/// use claude_agent::callbacks::CallbackError;
/// use claude_agent::runtime::CancellationToken;
/// use claude_agent::callbacks::mcp::{Resource, ResourceContent, SdkMcpServer};
///
/// let docs = SdkMcpServer::new("docs", "1.0.0")
///     .resource(Resource::text("docs://readme", "readme", "Hello.").mime_type("text/plain"))
///     .resource(Resource::new("docs://now", "now", |_: CancellationToken| async {
///         Ok::<_, CallbackError>(ResourceContent::text("it is now"))
///     }));
/// assert_eq!(docs.resources().len(), 2);
/// ```
#[derive(Clone)]
pub struct Resource {
    pub(crate) uri: Arc<str>,
    name: Arc<str>,
    description: Option<String>,
    mime_type: Option<String>,
    reader: Arc<dyn ResourceReader>,
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.uri)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Resource {
    /// A resource read by `reader` on each `resources/read`.
    pub fn new(
        uri: impl Into<String>,
        name: impl Into<String>,
        reader: impl ResourceReader,
    ) -> Self {
        Self {
            uri: uri.into().into(),
            name: name.into().into(),
            description: None,
            mime_type: None,
            reader: Arc::new(reader),
        }
    }

    /// A resource whose content is fixed text.
    pub fn text(uri: impl Into<String>, name: impl Into<String>, text: impl Into<String>) -> Self {
        let text: Arc<str> = text.into().into();
        Self::new(uri, name, move |_cancel: CancellationToken| {
            let text = ResourceContent::text(&*text);
            async move { Ok(text) }
        })
    }

    /// Sets the description shown in `resources/list`.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Its `resources/list` entry.
    pub(crate) fn listing(&self) -> Value {
        let mut entry = Map::new();
        entry.insert("uri".into(), (*self.uri).into());
        entry.insert("name".into(), (*self.name).into());
        if let Some(d) = &self.description {
            entry.insert("description".into(), d.clone().into());
        }
        if let Some(m) = &self.mime_type {
            entry.insert("mimeType".into(), m.clone().into());
        }
        Value::Object(entry)
    }

    /// The `resources/read` result, or a JSON-RPC error (code, message).
    async fn read(&self, cancel: CancellationToken) -> Result<Value, (i64, String)> {
        let read = self.reader.read(cancel.clone());
        let content = tokio::select! {
            biased;
            r = read => r,
            _ = cancel.cancelled() => Err(CallbackError::Cancelled),
        }
        .map_err(|e| (INTERNAL_ERROR, format!("reading {} failed: {e}", self.uri)))?;
        let mut entry = Map::new();
        entry.insert("uri".into(), (*self.uri).into());
        if let Some(m) = &self.mime_type {
            entry.insert("mimeType".into(), m.clone().into());
        }
        match content {
            ResourceContent::Text(t) => entry.insert("text".into(), t.into()),
            ResourceContent::Blob(b) => entry.insert("blob".into(), b.into()),
        };
        Ok(json!({ "contents": [Value::Object(entry)] }))
    }
}

/// JSON-RPC's internal error (a reader failed).
const INTERNAL_ERROR: i64 = -32603;
/// MCP's "resource not found".
const RESOURCE_NOT_FOUND: i64 = -32002;

/// Answers `resources/read` over `resources`.
pub(crate) async fn read(
    resources: &[Resource],
    params: &Value,
    cancel: CancellationToken,
) -> Result<Value, (i64, String)> {
    let uri = params.get("uri").and_then(Value::as_str).ok_or((
        INVALID_PARAMS,
        "invalid params: resources/read needs a string params.uri".to_string(),
    ))?;
    let resource = resources
        .iter()
        .find(|r| &*r.uri == uri)
        .ok_or_else(|| (RESOURCE_NOT_FOUND, format!("resource not found: {uri}")))?;
    resource.read(cancel).await
}
