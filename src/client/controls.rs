//! [`Client`]'s typed control calls: each sends one SDK -> CLI control
//! request and decodes its reply into the type the request documents.

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::Client;
use crate::options::{PermissionMode, ThinkingDisplay};
use crate::protocol::notes;
use crate::protocol::{
    AgentInfo, ApplyFlagSettings, BackgroundTasks, BackgroundTasksReply, ContextUsage,
    ControlRequestPayload, EmptyRequest, GetContextUsage, Interrupt, InterruptReceipt,
    McpPermissionModeOverrideReply, McpReconnect, McpServerInfo, McpStatusReply, McpToggle,
    ModelInfo, ParseError, PermissionModeReply, ReloadPlugins, ReloadPluginsReply,
    ReloadSkillsReply, RewindFiles, RewindFilesResult, SetMaxThinkingTokens,
    SetMcpPermissionModeOverride, SetModel, SetPermissionMode, SlashCommand, StopTask,
    UpdateSettings,
};
use crate::{Error, Result};

/// Which settings file [`Client::update_settings`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingsFile {
    /// The project's local settings file (where `/config` writes).
    Local,
    /// The user's settings file (takes `effortLevel` only).
    User,
}

impl SettingsFile {
    /// The wire spelling (`localSettings`, `userSettings`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Local => "localSettings",
            Self::User => "userSettings",
        }
    }
}

/// How much work [`Client::get_context_usage_with`] asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContextDetail {
    /// Every category counted with the token-count API (the default).
    Full,
    /// Estimates from the last response, no token-count calls.
    Summary,
}

/// How one MCP server's tool calls are asked about, whatever the
/// session's permission mode ([`Client::set_mcp_permission_mode_override`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpPromptMode {
    /// Ask for every call (`default`).
    Default,
    /// Let the auto-mode classifier decide (`auto`).
    Auto,
}

impl McpPromptMode {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Auto => "auto",
        }
    }
}

impl Client {
    /// Sends a typed request payload and decodes the typed reply. An
    /// absent or null payload decodes as the reply type's default (older
    /// CLIs answer some requests with an empty success). The requests only
    /// the CLI sends (`can_use_tool`, `hook_callback`, `mcp_message`) are
    /// refused with [`Error::Encode`] before anything is written.
    pub async fn control_typed<T: DeserializeOwned + Default>(
        &self,
        request: &ControlRequestPayload,
    ) -> Result<T> {
        let json = encode(request)?;
        let reply = self.control_json(&json, request.tag()).await?;
        decode(reply)
    }

    /// Interrupts the running turn; it ends with an `error_during_execution`
    /// result. The receipt lists queued messages that will still run.
    pub async fn interrupt(&self) -> Result<InterruptReceipt> {
        let request = ControlRequestPayload::Interrupt(Interrupt::default());
        self.control_typed(&request).await
    }

    /// Interrupts the running turn and cancels every queued user message;
    /// the receipt lists them as `cancelled`.
    pub async fn interrupt_and_cancel_queued(&self) -> Result<InterruptReceipt> {
        let interrupt = Interrupt {
            cancel_queued: Some(true),
            ..Interrupt::default()
        };
        self.control_typed(&ControlRequestPayload::Interrupt(interrupt))
            .await
    }

    /// Changes the permission mode for the following tool calls. The reply
    /// names the mode now in effect
    /// ([`PermissionModeReply::effective_mode`]), which can differ.
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<PermissionModeReply> {
        let request = SetPermissionMode {
            mode: Some(mode.as_str().to_owned()),
            ..SetPermissionMode::default()
        };
        self.control_typed(&ControlRequestPayload::SetPermissionMode(request))
            .await
    }

    /// Changes the model (`None`: back to the default).
    pub async fn set_model(&self, model: Option<&str>) -> Result<()> {
        let mut request = SetModel {
            model: model.map(str::to_owned),
            ..SetModel::default()
        };
        if model.is_none() {
            request.mark_null("model");
        }
        self.send_unit(ControlRequestPayload::SetModel(request))
            .await
    }

    /// Sets the thinking budget, or (`None`) resets it to the session's.
    pub async fn set_max_thinking_tokens(&self, tokens: Option<u64>) -> Result<()> {
        let request = SetMaxThinkingTokens::tokens(tokens);
        self.send_unit(ControlRequestPayload::SetMaxThinkingTokens(request))
            .await
    }

    /// Sets the thinking budget (`None`: back to the session's) and how
    /// thinking text comes back for the rest of the session (`None`: the
    /// override is cleared and the CLI's default applies again).
    pub async fn set_max_thinking_tokens_with_display(
        &self,
        tokens: Option<u64>,
        display: Option<ThinkingDisplay>,
    ) -> Result<()> {
        let mut request = SetMaxThinkingTokens::tokens(tokens);
        set_display(&mut request, display);
        self.send_unit(ControlRequestPayload::SetMaxThinkingTokens(request))
            .await
    }

    /// Changes only how thinking text comes back (the budget stays);
    /// `None` clears the override. The CLI refuses `Highlights` with an
    /// error where the API cannot give it.
    pub async fn set_thinking_display(&self, display: Option<ThinkingDisplay>) -> Result<()> {
        // `max_thinking_tokens` left out: the budget is kept as it is.
        let mut request = SetMaxThinkingTokens::default();
        set_display(&mut request, display);
        self.send_unit(ControlRequestPayload::SetMaxThinkingTokens(request))
            .await
    }

    /// Overrides how `server_name`'s tool calls are asked about (`None`
    /// clears the override). The override is stored even for a name no
    /// server has yet; the reply's warning then says so (a typo check).
    pub async fn set_mcp_permission_mode_override(
        &self,
        server_name: &str,
        mode: Option<McpPromptMode>,
    ) -> Result<Option<String>> {
        let mut request = SetMcpPermissionModeOverride {
            server_name: Some(server_name.to_owned()),
            mode: mode.map(|m| m.as_str().to_owned()),
            ..SetMcpPermissionModeOverride::default()
        };
        if mode.is_none() {
            request.mark_null("mode");
        }
        let reply: McpPermissionModeOverrideReply = self
            .control_typed(&ControlRequestPayload::SetMcpPermissionModeOverride(
                request,
            ))
            .await?;
        Ok(reply.warning)
    }

    /// Restores files to their state at a user message (needs file
    /// checkpointing on) and says what changed.
    pub async fn rewind_files(&self, user_message_id: &str) -> Result<RewindFilesResult> {
        self.rewind(user_message_id, false).await
    }

    /// What [`rewind_files`](Self::rewind_files) would change, changing
    /// nothing.
    pub async fn rewind_files_dry_run(&self, user_message_id: &str) -> Result<RewindFilesResult> {
        self.rewind(user_message_id, true).await
    }

    async fn rewind(&self, user_message_id: &str, dry_run: bool) -> Result<RewindFilesResult> {
        let request = RewindFiles {
            user_message_id: Some(user_message_id.to_owned()),
            dry_run: dry_run.then_some(true),
            ..RewindFiles::default()
        };
        self.control_typed(&ControlRequestPayload::RewindFiles(request))
            .await
    }

    /// Every MCP server of the session and its status.
    pub async fn mcp_status(&self) -> Result<Vec<McpServerInfo>> {
        let request = ControlRequestPayload::McpStatus(EmptyRequest::default());
        let reply: McpStatusReply = self.control_typed(&request).await?;
        Ok(reply.mcp_servers.unwrap_or_default())
    }

    /// The context window's usage by category, fully counted.
    pub async fn get_context_usage(&self) -> Result<ContextUsage> {
        self.get_context_usage_with(ContextDetail::Full).await
    }

    /// The context window's usage, counted or estimated per `detail`.
    pub async fn get_context_usage_with(&self, detail: ContextDetail) -> Result<ContextUsage> {
        let mut request = GetContextUsage::default();
        if detail == ContextDetail::Summary {
            request.detail = Some("summary".to_owned());
        }
        self.control_typed(&ControlRequestPayload::GetContextUsage(request))
            .await
    }

    /// Reconnects an MCP server.
    pub async fn mcp_reconnect(&self, server_name: &str) -> Result<()> {
        let request = McpReconnect {
            server_name: Some(server_name.to_owned()),
            ..McpReconnect::default()
        };
        self.send_unit(ControlRequestPayload::McpReconnect(request))
            .await
    }

    /// Enables or disables an MCP server.
    pub async fn mcp_toggle(&self, server_name: &str, enabled: bool) -> Result<()> {
        let request = McpToggle {
            server_name: Some(server_name.to_owned()),
            enabled: Some(enabled),
            ..McpToggle::default()
        };
        self.send_unit(ControlRequestPayload::McpToggle(request))
            .await
    }

    /// Stops a background task.
    pub async fn stop_task(&self, task_id: &str) -> Result<()> {
        let request = StopTask {
            task_id: Some(task_id.to_owned()),
            ..StopTask::default()
        };
        self.send_unit(ControlRequestPayload::StopTask(request))
            .await
    }

    /// Moves running foreground tasks (shell commands, subagents) to the
    /// background: the one `tool_use_id` started, or all. Whether any went.
    pub async fn background_tasks(&self, tool_use_id: Option<&str>) -> Result<bool> {
        let request = BackgroundTasks {
            tool_use_id: tool_use_id.map(str::to_owned),
            ..BackgroundTasks::default()
        };
        let reply: BackgroundTasksReply = self
            .control_typed(&ControlRequestPayload::BackgroundTasks(request))
            .await?;
        Ok(reply.backgrounded.unwrap_or(true))
    }

    /// Merges `settings` into the session's flag-settings layer (a null
    /// value removes a key).
    pub async fn apply_flag_settings(&self, settings: Map<String, Value>) -> Result<()> {
        let request = ApplyFlagSettings {
            settings: Some(settings),
            ..ApplyFlagSettings::default()
        };
        self.send_unit(ControlRequestPayload::ApplyFlagSettings(request))
            .await
    }

    /// Writes `settings` to a settings file through the CLI's own writer.
    pub async fn update_settings(
        &self,
        file: SettingsFile,
        settings: Map<String, Value>,
    ) -> Result<()> {
        let request = UpdateSettings {
            source: Some(file.as_str().to_owned()),
            settings: Some(settings),
            ..UpdateSettings::default()
        };
        self.send_unit(ControlRequestPayload::UpdateSettings(request))
            .await
    }

    /// Reloads plugins from disk; the session's components afterwards.
    pub async fn reload_plugins(&self) -> Result<ReloadPluginsReply> {
        self.reload_plugins_with(ReloadPlugins::default()).await
    }

    /// [`reload_plugins`](Self::reload_plugins) with options (hold on
    /// cache impact, refuse if busy, extra plugins).
    pub async fn reload_plugins_with(&self, request: ReloadPlugins) -> Result<ReloadPluginsReply> {
        self.control_typed(&ControlRequestPayload::ReloadPlugins(request))
            .await
    }

    /// Reloads skills from disk; the skills afterwards.
    pub async fn reload_skills(&self) -> Result<ReloadSkillsReply> {
        let request = ControlRequestPayload::ReloadSkills(EmptyRequest::default());
        self.control_typed(&request).await
    }

    /// The slash commands the session offers (from the `initialize` reply).
    pub fn supported_commands(&self) -> Result<Vec<SlashCommand>> {
        Ok(self.server_info()?.commands.unwrap_or_default())
    }

    /// The models the session can switch to (from the `initialize` reply).
    pub fn supported_models(&self) -> Result<Vec<ModelInfo>> {
        Ok(self.server_info()?.models.unwrap_or_default())
    }

    /// The agents the session offers (from the `initialize` reply).
    pub fn supported_agents(&self) -> Result<Vec<AgentInfo>> {
        Ok(self.server_info()?.agents.unwrap_or_default())
    }

    /// Sends a request whose reply carries nothing the caller needs.
    pub(super) async fn send_unit(&self, request: ControlRequestPayload) -> Result<()> {
        let json = encode(&request)?;
        self.control_json(&json, request.tag()).await.map(drop)
    }
}

/// Sets `thinking_display`, or sends it as null to clear the override.
fn set_display(request: &mut SetMaxThinkingTokens, display: Option<ThinkingDisplay>) {
    match display {
        Some(d) => request.thinking_display = Some(d.as_str().to_owned()),
        None => request.mark_null("thinking_display"),
    }
}

/// The request as JSON text, written straight to text as frames are (a
/// `Value` in between would compile every request type's serializer a
/// second time).
fn encode(request: &ControlRequestPayload) -> Result<Box<RawValue>> {
    request.to_sdk_json().map_err(Error::Encode)
}

/// Decodes a reply payload; absent or null is the type's default. A reply
/// of the wrong shape is [`Error::Parse`] naming the reply type and field.
pub(super) fn decode<T: DeserializeOwned + Default>(reply: Value) -> Result<T> {
    if reply.is_null() {
        return Ok(T::default());
    }
    notes::reset();
    T::deserialize(&reply).map_err(|e| {
        let n = notes::take();
        let field = n.path.iter().rev().cloned().collect::<Vec<_>>().join(".");
        Error::Parse(ParseError::InvalidField {
            message_type: if n.label.is_empty() {
                "control response"
            } else {
                n.label
            },
            field,
            reason: e.to_string(),
            prefix: reply.to_string().chars().take(120).collect(),
        })
    })
}
