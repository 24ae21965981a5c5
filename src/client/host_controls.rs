//! [`Client`]'s typed calls for the requests the TypeScript SDK declares
//! for its other hosts and never sends itself: the cost text, the CLI's
//! version, file suggestions, a direct MCP tool call, another repository
//! root, and whether anybody watches the output.

use serde_json::{Map, Value};

use super::Client;
use crate::Result;
use crate::protocol::{
    BinaryVersion, ControlRequestPayload, EmptyRequest, FileSuggestions, FileSuggestionsReply,
    McpCall, McpCallResult, RegisterRepoRoot, RegisteredRepoRoot, SessionCost, SetHasSubscribers,
};

impl Client {
    /// The session's cost summary as `/usage` prints it in non-interactive
    /// mode (cost, API and wall time, code changes, tokens), as text. For
    /// numbers, see [`get_usage`](Self::get_usage).
    pub async fn get_session_cost(&self) -> Result<String> {
        let request = ControlRequestPayload::GetSessionCost(EmptyRequest::default());
        let reply: SessionCost = self.control_typed(&request).await?;
        Ok(reply.text.unwrap_or_default())
    }

    /// The running CLI's version and build time.
    pub async fn get_binary_version(&self) -> Result<BinaryVersion> {
        let request = ControlRequestPayload::GetBinaryVersion(EmptyRequest::default());
        self.control_typed(&request).await
    }

    /// The `@`-mention completions the terminal shows for the partial path
    /// `query`, best first, and the directory they are relative to. The
    /// CLI builds its file index in the background, so the first calls of
    /// a session may list fewer files.
    pub async fn file_suggestions(&self, query: &str) -> Result<FileSuggestionsReply> {
        let request = FileSuggestions {
            query: Some(query.to_owned()),
            ..FileSuggestions::default()
        };
        self.control_typed(&ControlRequestPayload::FileSuggestions(request))
            .await
    }

    /// Calls `tool` (`mcp__<server>__<tool>`) of an MCP server the CLI
    /// connected to itself, without a model turn and without a permission
    /// check; its result as the CLI would hand it to the model. In-process
    /// servers are refused (call them directly); a server that is not
    /// connected yet is waited for up to 30 s.
    pub async fn mcp_call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> Result<McpCallResult> {
        self.mcp_call_with(McpCall {
            tool: Some(tool.to_owned()),
            arguments: Some(arguments),
            ..McpCall::default()
        })
        .await
    }

    /// [`mcp_call`](Self::mcp_call) with every member of the request (a
    /// permission check, the server's own content, a tool error as a result,
    /// a time limit).
    pub async fn mcp_call_with(&self, request: McpCall) -> Result<McpCallResult> {
        self.control_typed(&ControlRequestPayload::McpCall(request))
            .await
    }

    /// Adds `directory`, a strict subdirectory of the cwd or of an
    /// `add_dirs` directory, as a working-directory root, as `/add-dir`
    /// does (its `DirectoryAdded` hooks run); the directory as registered.
    /// One already registered is refused.
    pub async fn register_repo_root(&self, directory: &str) -> Result<String> {
        self.register_repo_root_with(RegisterRepoRoot {
            directory: Some(directory.to_owned()),
            ..RegisterRepoRoot::default()
        })
        .await
    }

    /// [`register_repo_root`](Self::register_repo_root) with the reloads
    /// (`CLAUDE.md`, plugins, skills) it may ask for.
    pub async fn register_repo_root_with(&self, request: RegisterRepoRoot) -> Result<String> {
        let reply: RegisteredRepoRoot = self
            .control_typed(&ControlRequestPayload::RegisterRepoRoot(request))
            .await?;
        Ok(reply.directory.unwrap_or_default())
    }

    /// Tells the CLI whether anybody watches the output this host passes
    /// on (`None`: unknown, counted as watched). It matters only to a CLI
    /// started with `CLAUDE_CODE_STREAM_EVENT_HOLD_MS`, which then holds
    /// stream events longer while nobody watches; send it when the answer
    /// changes, and again to a new process.
    pub async fn set_has_subscribers(&self, watched: Option<bool>) -> Result<()> {
        let request = SetHasSubscribers::watched(watched);
        self.send_unit(ControlRequestPayload::SetHasSubscribers(request))
            .await
    }
}
