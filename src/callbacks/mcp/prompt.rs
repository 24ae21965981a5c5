//! Prompts of an in-process MCP server: message templates the CLI can
//! list and fill in (`prompts/list`, `prompts/get`); the CLI offers them
//! as `/mcp__<server>__<prompt>` commands.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::jsonrpc::INVALID_PARAMS;
use crate::callbacks::CallbackError;
use claude_agent_actors::CancellationToken;

/// Who says a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PromptRole {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One text message of a filled-in prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who says it.
    pub role: PromptRole,
    /// What is said.
    pub text: String,
}

impl PromptMessage {
    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: PromptRole::User,
            text: text.into(),
        }
    }

    /// An assistant message.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: PromptRole::Assistant,
            text: text.into(),
        }
    }

    fn to_json(&self) -> Value {
        let role = match self.role {
            PromptRole::User => "user",
            PromptRole::Assistant => "assistant",
        };
        json!({"role": role, "content": {"type": "text", "text": &self.text}})
    }
}

/// Fills in a prompt from its arguments. Implemented for every
/// `Fn(BTreeMap<String, String>, CancellationToken) -> Fut` with
/// `Fut: Future<Output = Result<Vec<PromptMessage>, CallbackError>>`.
pub trait PromptHandler: Send + Sync + 'static {
    /// Fills the prompt in once.
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<PromptMessage>, CallbackError>>;
}

impl<F, Fut> PromptHandler for F
where
    F: Fn(BTreeMap<String, String>, CancellationToken) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<PromptMessage>, CallbackError>> + Send + 'static,
{
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<PromptMessage>, CallbackError>> {
        self(arguments, cancel).boxed()
    }
}

/// One prompt: its name, description, arguments and handler.
///
/// ```
/// use std::collections::BTreeMap;
/// use claude_agent::callbacks::CallbackError;
/// use claude_agent::runtime::CancellationToken;
/// use claude_agent::callbacks::mcp::{Prompt, PromptMessage, SdkMcpServer};
///
/// let review = Prompt::new("review", |args: BTreeMap<String, String>, _: CancellationToken| async move {
///     let file = args.get("file").cloned().unwrap_or_default();
///     Ok::<_, CallbackError>(vec![PromptMessage::user(format!("Review {file} for bugs."))])
/// })
/// .description("Review one file")
/// .argument("file", "The file to review", true);
/// let server = SdkMcpServer::new("dev", "1.0.0").prompt(review);
/// assert_eq!(server.prompts().len(), 1);
/// ```
#[derive(Clone)]
pub struct Prompt {
    pub(crate) name: Arc<str>,
    description: Option<String>,
    /// `(name, description, required)`, in order.
    arguments: Vec<(String, String, bool)>,
    handler: Arc<dyn PromptHandler>,
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.name)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

impl Prompt {
    /// A prompt filled in by `handler`.
    pub fn new(name: impl Into<String>, handler: impl PromptHandler) -> Self {
        Self {
            name: name.into().into(),
            description: None,
            arguments: Vec::new(),
            handler: Arc::new(handler),
        }
    }

    /// Sets the description shown in `prompts/list`.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Declares an argument; a `prompts/get` without a required one is
    /// refused before the handler runs.
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.arguments
            .push((name.into(), description.into(), required));
        self
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its `prompts/list` entry.
    pub(crate) fn listing(&self) -> Value {
        let mut entry = Map::new();
        entry.insert("name".into(), (*self.name).into());
        if let Some(d) = &self.description {
            entry.insert("description".into(), d.clone().into());
        }
        let arguments: Vec<Value> = self
            .arguments
            .iter()
            .map(|(name, description, required)| {
                json!({"name": name, "description": description, "required": required})
            })
            .collect();
        entry.insert("arguments".into(), arguments.into());
        Value::Object(entry)
    }
}

/// Answers `prompts/get` over `prompts`: a JSON-RPC error (code, message)
/// for an unknown prompt, a missing required argument or a failed handler.
pub(crate) async fn get(
    prompts: &[Prompt],
    params: &Value,
    cancel: CancellationToken,
) -> Result<Value, (i64, String)> {
    let name = params.get("name").and_then(Value::as_str).ok_or((
        INVALID_PARAMS,
        "invalid params: prompts/get needs a string params.name".to_string(),
    ))?;
    let prompt = prompts
        .iter()
        .find(|p| &*p.name == name)
        .ok_or_else(|| (INVALID_PARAMS, format!("prompt not found: {name}")))?;
    let mut arguments = BTreeMap::new();
    if let Some(given) = params.get("arguments").and_then(Value::as_object) {
        for (k, v) in given {
            let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
            arguments.insert(k.clone(), text);
        }
    }
    if let Some((missing, _, _)) = prompt
        .arguments
        .iter()
        .find(|(n, _, required)| *required && !arguments.contains_key(n))
    {
        return Err((
            INVALID_PARAMS,
            format!("prompt {name} needs the argument {missing}"),
        ));
    }
    let filled = prompt.handler.get(arguments, cancel.clone());
    let messages = tokio::select! {
        biased;
        r = filled => r,
        _ = cancel.cancelled() => Err(CallbackError::Cancelled),
    }
    .map_err(|e| (-32603, format!("prompt {name} failed: {e}")))?;
    let mut result = Map::new();
    if let Some(d) = &prompt.description {
        result.insert("description".into(), d.clone().into());
    }
    let messages: Vec<Value> = messages.iter().map(PromptMessage::to_json).collect();
    result.insert("messages".into(), messages.into());
    Ok(Value::Object(result))
}
