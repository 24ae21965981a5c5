//! Control frames, in both directions: requests, responses, cancellations.
//!
//! Requests from us to the CLI (`initialize`, `interrupt`, ...) and from the
//! CLI to us (`can_use_tool`, `hook_callback`, `mcp_message`) share one
//! [`ControlRequestPayload`] enum. Reply payloads depend on the request they
//! answer, so [`ControlSuccess::response`] is kept as [`RawJson`] and decoded
//! by whoever waits for it.

pub mod claim;
pub mod context_usage;
#[cfg(feature = "hooks")]
pub mod hook_input;
#[cfg(feature = "hooks")]
pub mod hook_output;
pub mod host_requests;
pub mod initialize;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod permission;
pub mod provenance;
pub mod replies;
pub mod requests;
#[cfg(test)]
mod sdk_json_tests;
pub mod session_listings;
pub mod session_replies;
pub mod session_requests;

use serde::Serialize;
use serde_json::value::RawValue;

use self::claim::ClaimSession;
#[cfg(feature = "hooks")]
use self::hook_input::HookCallbackRequest;
use self::host_requests::{FileSuggestions, McpCall, RegisterRepoRoot, SetHasSubscribers};
use self::initialize::InitializeRequest;
#[cfg(feature = "mcp")]
use self::mcp::McpMessageRequest;
use self::permission::PermissionRequest;
use self::requests::{
    ApplyFlagSettings, BackgroundTasks, EmptyRequest, GetContextUsage, Interrupt, McpReconnect,
    McpToggle, ReloadPlugins, RewindFiles, SetMaxThinkingTokens, SetMcpPermissionModeOverride,
    SetModel, SetPermissionMode, StopTask, UpdateSettings,
};
use self::session_requests::{
    CancelAsyncMessage, GetTaskOutput, GetUsage, McpReadResource, ReadFile, RenameSession,
    SeedReadState, SetCwd,
};
use super::{EncodeError, RawJson};

wire_struct! {
    /// A `control_request` line.
    pub struct ControlRequest = "control_request", builder ControlRequestBuilder {
        /// Pairs the reply with the request (required).
        request_id: req String = "request_id",
        /// What is asked (required).
        request: req ControlRequestPayload = "request",
    }
}

tagged_enum! {
    /// The body of a control request, by `subtype`.
    pub enum ControlRequestPayload = "control request", tag "subtype", builder ControlRequestPayloadBuilder {
        /// SDK -> CLI: start the session (hooks, agents, ...).
        Initialize(InitializeRequest) = "initialize",
        /// SDK -> CLI: stop the current turn.
        Interrupt(Interrupt) = "interrupt",
        /// SDK -> CLI: change the permission mode.
        SetPermissionMode(SetPermissionMode) = "set_permission_mode",
        /// SDK -> CLI: change the model.
        SetModel(SetModel) = "set_model",
        /// SDK -> CLI: restore files to a user message's checkpoint.
        RewindFiles(RewindFiles) = "rewind_files",
        /// SDK -> CLI: report MCP server status.
        McpStatus(EmptyRequest) = "mcp_status",
        /// SDK -> CLI: report context window usage.
        GetContextUsage(GetContextUsage) = "get_context_usage",
        /// SDK -> CLI: reconnect an MCP server.
        McpReconnect(McpReconnect) = "mcp_reconnect",
        /// SDK -> CLI: enable or disable an MCP server.
        McpToggle(McpToggle) = "mcp_toggle",
        /// SDK -> CLI: stop a background task.
        StopTask(StopTask) = "stop_task",
        /// SDK -> CLI: set the thinking budget and display.
        SetMaxThinkingTokens(SetMaxThinkingTokens) = "set_max_thinking_tokens",
        /// SDK -> CLI: merge settings into the session's flag layer.
        ApplyFlagSettings(ApplyFlagSettings) = "apply_flag_settings",
        /// SDK -> CLI: write settings to a settings file.
        UpdateSettings(UpdateSettings) = "update_settings",
        /// SDK -> CLI: the effective and per-source settings.
        GetSettings(EmptyRequest) = "get_settings",
        /// SDK -> CLI: reload plugins from disk.
        ReloadPlugins(ReloadPlugins) = "reload_plugins",
        /// SDK -> CLI: reload skills from disk.
        ReloadSkills(EmptyRequest) = "reload_skills",
        /// SDK -> CLI: move foreground tasks to the background.
        BackgroundTasks(BackgroundTasks) = "background_tasks",
        /// SDK -> CLI: re-read the output styles from disk.
        ReloadOutputStyles(EmptyRequest) = "reload_output_styles",
        /// SDK -> CLI: the models the session can run.
        ListModels(EmptyRequest) = "list_models",
        /// SDK -> CLI: record an earlier read of a file.
        SeedReadState(SeedReadState) = "seed_read_state",
        /// SDK -> CLI: drop a queued user message.
        CancelAsyncMessage(CancelAsyncMessage) = "cancel_async_message",
        /// SDK -> CLI: set the session's title.
        RenameSession(RenameSession) = "rename_session",
        /// SDK -> CLI: session cost and plan limits (`/usage`).
        GetUsage(GetUsage) = "get_usage",
        /// SDK -> CLI: read a file under the `Read` tool's rules.
        ReadFile(ReadFile) = "read_file",
        /// SDK -> CLI: read a `ui://` resource of an MCP server.
        McpReadResource(McpReadResource) = "mcp_read_resource",
        /// SDK -> CLI: the end of a background task's output.
        GetTaskOutput(GetTaskOutput) = "get_task_output",
        /// SDK -> CLI: the hooks the `/hooks` menu lists.
        GetHooksListing(EmptyRequest) = "get_hooks_listing",
        /// SDK -> CLI: the live permission rules (`/permissions`).
        ListPermissionRules(EmptyRequest) = "list_permission_rules",
        /// SDK -> CLI: how one MCP server's tool calls are asked about.
        SetMcpPermissionModeOverride(SetMcpPermissionModeOverride) = "set_mcp_permission_mode_override",
        /// SDK -> CLI: move the session to another working directory.
        SetCwd(SetCwd) = "set_cwd",
        /// SDK -> CLI: the session's cost summary text.
        GetSessionCost(EmptyRequest) = "get_session_cost",
        /// SDK -> CLI: the CLI's version and build time.
        GetBinaryVersion(EmptyRequest) = "get_binary_version",
        /// SDK -> CLI: `@`-mention file completions for a partial path.
        FileSuggestions(FileSuggestions) = "file_suggestions",
        /// SDK -> CLI: call an external MCP server's tool without a turn.
        McpCall(McpCall) = "mcp_call",
        /// SDK -> CLI: add a working-directory root.
        RegisterRepoRoot(RegisterRepoRoot) = "register_repo_root",
        /// SDK -> CLI: whether anybody watches the output.
        SetHasSubscribers(SetHasSubscribers) = "set_has_subscribers",
        /// SDK -> CLI: bind a spare started with `--await-claim` to its
        /// session.
        ClaimSession(ClaimSession) = "claim_session",
        /// CLI -> SDK: may this tool run?
        CanUseTool(PermissionRequest) = "can_use_tool",
        /// CLI -> SDK: run a registered hook callback (feature `hooks`).
        HookCallback(HookCallbackRequest) = "hook_callback" feature "hooks",
        /// CLI -> SDK: a JSON-RPC message for an in-process MCP server
        /// (feature `mcp`).
        McpMessage(McpMessageRequest) = "mcp_message" feature "mcp",
        @other
        /// A subtype this version does not model.
        Other { subtype }
    }
}

impl ControlRequestPayload {
    /// This request as the JSON text the SDK sends, one request type at a
    /// time: the writers of what only the CLI sends (`can_use_tool`,
    /// `hook_callback`, `mcp_message`) are not compiled into every build
    /// that sends requests. Those three are refused; [`ControlRequest::to_json`]
    /// still writes any payload.
    pub(crate) fn to_sdk_json(&self) -> Result<Box<RawValue>, EncodeError> {
        use ControlRequestPayload as P;
        let tag = self.tag();
        match self {
            P::Initialize(r) => sdk_json(tag, r),
            P::Interrupt(r) => sdk_json(tag, r),
            P::SetPermissionMode(r) => sdk_json(tag, r),
            P::SetModel(r) => sdk_json(tag, r),
            P::RewindFiles(r) => sdk_json(tag, r),
            P::GetContextUsage(r) => sdk_json(tag, r),
            P::McpReconnect(r) => sdk_json(tag, r),
            P::McpToggle(r) => sdk_json(tag, r),
            P::StopTask(r) => sdk_json(tag, r),
            P::SetMaxThinkingTokens(r) => sdk_json(tag, r),
            P::ApplyFlagSettings(r) => sdk_json(tag, r),
            P::UpdateSettings(r) => sdk_json(tag, r),
            P::ReloadPlugins(r) => sdk_json(tag, r),
            P::BackgroundTasks(r) => sdk_json(tag, r),
            P::SeedReadState(r) => sdk_json(tag, r),
            P::CancelAsyncMessage(r) => sdk_json(tag, r),
            P::RenameSession(r) => sdk_json(tag, r),
            P::GetUsage(r) => sdk_json(tag, r),
            P::ReadFile(r) => sdk_json(tag, r),
            P::McpReadResource(r) => sdk_json(tag, r),
            P::GetTaskOutput(r) => sdk_json(tag, r),
            P::SetMcpPermissionModeOverride(r) => sdk_json(tag, r),
            P::SetCwd(r) => sdk_json(tag, r),
            P::FileSuggestions(r) => sdk_json(tag, r),
            P::McpCall(r) => sdk_json(tag, r),
            P::RegisterRepoRoot(r) => sdk_json(tag, r),
            P::SetHasSubscribers(r) => sdk_json(tag, r),
            P::ClaimSession(r) => sdk_json(tag, r),
            P::McpStatus(r)
            | P::GetSettings(r)
            | P::ReloadSkills(r)
            | P::ReloadOutputStyles(r)
            | P::ListModels(r)
            | P::GetHooksListing(r)
            | P::ListPermissionRules(r)
            | P::GetSessionCost(r)
            | P::GetBinaryVersion(r) => sdk_json(tag, r),
            // Tags included, as received or built.
            P::Other { raw, .. } => Ok(serde_json::value::to_raw_value(raw)?),
            P::CanUseTool(_) => Err(cli_only(tag)),
            #[cfg(feature = "hooks")]
            P::HookCallback(_) => Err(cli_only(tag)),
            #[cfg(feature = "mcp")]
            P::McpMessage(_) => Err(cli_only(tag)),
        }
    }
}

/// The refusal to write a request only the CLI sends.
fn cli_only(tag: &str) -> EncodeError {
    EncodeError(serde::ser::Error::custom(format!(
        "`{tag}` is a request the CLI sends, not one the SDK sends to it"
    )))
}

/// `{"subtype": tag, ...body}` as JSON text.
fn sdk_json<W: super::de::Wire>(tag: &str, body: &W) -> Result<Box<RawValue>, EncodeError> {
    let request = super::TaggedRef {
        key: "subtype",
        tag,
        body,
    };
    Ok(serde_json::value::to_raw_value(&request)?)
}

impl ControlRequest {
    /// A request with the given id and payload.
    pub fn new(request_id: impl Into<String>, request: ControlRequestPayload) -> Self {
        Self {
            request_id: request_id.into(),
            request,
            extra: Default::default(),
        }
    }
}

wire_struct! {
    /// A `control_response` line.
    pub struct ControlResponse = "control_response", builder ControlResponseBuilder {
        /// The reply (required).
        response: req ControlResponseBody = "response",
    }
}

tagged_enum! {
    /// The body of a control response, by `subtype`.
    pub enum ControlResponseBody = "control response", tag "subtype", builder ControlResponseBodyBuilder {
        /// The request succeeded.
        Success(ControlSuccess) = "success",
        /// The request failed.
        Error(ControlErrorReply) = "error",
        @other
        /// A subtype this version does not model.
        Other { subtype }
    }
}

wire_struct! {
    /// A successful reply.
    pub struct ControlSuccess = "control_response/success", builder ControlSuccessBuilder {
        /// The id of the request answered (required).
        request_id: req String = "request_id",
        /// The reply payload, shaped per request; decode with [`RawJson::decode`].
        response: opt RawJson = "response",
    }
}

wire_struct! {
    /// A failed reply.
    pub struct ControlErrorReply = "control_response/error", builder ControlErrorReplyBuilder {
        /// The id of the request answered (required).
        request_id: req String = "request_id",
        /// What went wrong.
        error: opt String = "error",
    }
}

impl ControlResponse {
    /// A success reply to `request_id` carrying `payload`.
    pub fn success<T: Serialize + ?Sized>(
        request_id: impl Into<String>,
        payload: &T,
    ) -> Result<Self, EncodeError> {
        let body = ControlSuccess {
            request_id: request_id.into(),
            response: Some(RawJson::encode(payload)?),
            extra: Default::default(),
        };
        Ok(Self {
            response: ControlResponseBody::Success(body),
            extra: Default::default(),
        })
    }

    /// An error reply to `request_id`.
    pub fn error(request_id: impl Into<String>, message: impl Into<String>) -> Self {
        let body = ControlErrorReply {
            request_id: request_id.into(),
            error: Some(message.into()),
            extra: Default::default(),
        };
        Self {
            response: ControlResponseBody::Error(body),
            extra: Default::default(),
        }
    }

    /// The id of the request this answers (`None` for an unknown subtype
    /// without a string `request_id`).
    pub fn request_id(&self) -> Option<&str> {
        match &self.response {
            ControlResponseBody::Success(s) => Some(&s.request_id),
            ControlResponseBody::Error(e) => Some(&e.request_id),
            ControlResponseBody::Other { raw, .. } => raw.get("request_id")?.as_str(),
        }
    }
}

wire_struct! {
    /// A `control_cancel_request` line: stop handling a request; send no reply.
    pub struct ControlCancelRequest = "control_cancel_request", builder ControlCancelRequestBuilder {
        /// The request to cancel (required).
        request_id: req String = "request_id",
    }
}
