//! [`Client`]'s typed calls for the TypeScript SDK's session requests:
//! queries that run no model turn (models, usage, files, task output, the
//! hooks and permission-rule listings, settings) and small session edits.

use std::time::{SystemTime, UNIX_EPOCH};

use super::Client;
use super::controls::decode;
use crate::Result;
use crate::protocol::{
    AccountInfo, CancelAsyncMessage, CancelAsyncMessageReply, ControlRequestPayload, EmptyRequest,
    FileContents, GetTaskOutput, GetUsage, HooksListing, McpReadResource, McpResourceContents,
    ModelCatalog, ModelInfo, OutputStylesReply, PermissionRulesReply, PermissionRulesState,
    ReadFile, RenameSession, SeedReadState, ServerInfo, SettingsReport, TaskOutput, UsageReport,
};

impl Client {
    /// The effective settings, each source's own, and what the session
    /// runs with now (`applied`).
    pub async fn get_settings(&self) -> Result<SettingsReport> {
        let request = ControlRequestPayload::GetSettings(EmptyRequest::default());
        self.control_typed(&request).await
    }

    /// Re-reads the output styles from disk (a style written mid-session is
    /// otherwise unseen until the next one); the style names afterwards.
    pub async fn reload_output_styles(&self) -> Result<Vec<String>> {
        let request = ControlRequestPayload::ReloadOutputStyles(EmptyRequest::default());
        let reply: OutputStylesReply = self.control_typed(&request).await?;
        Ok(reply.available_output_styles.unwrap_or_default())
    }

    /// The models this session can run, asked of the CLI now (unlike
    /// [`supported_models`](Self::supported_models), which is the
    /// `initialize` reply's list).
    pub async fn list_models(&self) -> Result<Vec<ModelInfo>> {
        let request = ControlRequestPayload::ListModels(EmptyRequest::default());
        let reply: ModelCatalog = self.control_typed(&request).await?;
        Ok(reply.models.unwrap_or_default())
    }

    /// Tells the CLI that `path` was read when it was last modified at
    /// `modified`, so an `Edit` is allowed after the `Read` left the
    /// context. The CLI ignores it when the file changed since.
    pub async fn seed_read_state(&self, path: &str, modified: SystemTime) -> Result<()> {
        // The CLI compares whole milliseconds since the epoch.
        let mtime = modified
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        let request = SeedReadState {
            path: Some(path.to_owned()),
            mtime: Some(mtime),
            ..SeedReadState::default()
        };
        self.send_unit(ControlRequestPayload::SeedReadState(request))
            .await
    }

    /// Drops the queued user message sent with `uuid`; whether it was still
    /// queued (false: it already ran, or never was).
    pub async fn cancel_async_message(&self, uuid: &str) -> Result<bool> {
        let request = CancelAsyncMessage {
            message_uuid: Some(uuid.to_owned()),
            ..CancelAsyncMessage::default()
        };
        let reply: CancelAsyncMessageReply = self
            .control_typed(&ControlRequestPayload::CancelAsyncMessage(request))
            .await?;
        Ok(reply.cancelled.unwrap_or(false))
    }

    /// Sets the session's title, as a user rename made in the hosting
    /// application (`source: "host"`).
    pub async fn rename_session(&self, title: &str) -> Result<()> {
        self.rename_session_with(RenameSession {
            title: Some(title.to_owned()),
            source: Some("host".to_owned()),
            ..RenameSession::default()
        })
        .await
    }

    /// [`rename_session`](Self::rename_session) with every member of the
    /// request (another `source`, or the `session_id` it must still be).
    pub async fn rename_session_with(&self, request: RenameSession) -> Result<()> {
        self.send_unit(ControlRequestPayload::RenameSession(request))
            .await
    }

    /// The data behind `/usage`: this session's cost and usage by model,
    /// and plan rate limits where they apply. `skip_behaviors` skips the
    /// scan of the last week's local transcripts. The CLI marks the shape
    /// experimental; members it adds land in `extra`.
    pub async fn get_usage(&self, skip_behaviors: bool) -> Result<UsageReport> {
        let request = GetUsage {
            skip_behaviors: Some(skip_behaviors),
            ..GetUsage::default()
        };
        self.control_typed(&ControlRequestPayload::GetUsage(request))
            .await
    }

    /// Reads a file through the CLI (relative to its cwd), under the
    /// `Read` tool's permission rules; a refusal or a missing file is an
    /// error from the CLI.
    pub async fn read_file(&self, path: &str) -> Result<FileContents> {
        self.read_file_with(ReadFile {
            path: Some(path.to_owned()),
            ..ReadFile::default()
        })
        .await
    }

    /// [`read_file`](Self::read_file) with a size cap or `base64`.
    pub async fn read_file_with(&self, request: ReadFile) -> Result<FileContents> {
        self.control_typed(&ControlRequestPayload::ReadFile(request))
            .await
    }

    /// Reads a `ui://` resource from an MCP server the CLI connected to
    /// itself (in-process servers are refused: read them directly). The
    /// content is third-party: render it sandboxed.
    pub async fn mcp_read_resource(
        &self,
        server_name: &str,
        uri: &str,
    ) -> Result<McpResourceContents> {
        let request = McpReadResource {
            server_name: Some(server_name.to_owned()),
            uri: Some(uri.to_owned()),
            ..McpReadResource::default()
        };
        self.control_typed(&ControlRequestPayload::McpReadResource(request))
            .await
    }

    /// The last 8 KiB of a background shell or monitor task's output,
    /// while it runs or after it ended.
    pub async fn get_task_output(&self, task_id: &str) -> Result<TaskOutput> {
        let request = GetTaskOutput {
            task_id: Some(task_id.to_owned()),
            ..GetTaskOutput::default()
        };
        self.control_typed(&ControlRequestPayload::GetTaskOutput(request))
            .await
    }

    /// The hooks the `/hooks` menu lists: settings, session and plugin
    /// hooks by event, and the policy that governs them.
    pub async fn get_hooks_listing(&self) -> Result<HooksListing> {
        let request = ControlRequestPayload::GetHooksListing(EmptyRequest::default());
        self.control_typed(&request).await
    }

    /// The live permission rules and workspace directories (what
    /// `/permissions` lists), each rule with its source.
    pub async fn list_permission_rules(&self) -> Result<PermissionRulesState> {
        let request = ControlRequestPayload::ListPermissionRules(EmptyRequest::default());
        let reply: PermissionRulesReply = self.control_typed(&request).await?;
        Ok(reply.state.unwrap_or_default())
    }

    /// The account the session runs as (from the `initialize` reply);
    /// `None` when the CLI reported none.
    pub fn account_info(&self) -> Result<Option<AccountInfo>> {
        Ok(self.server_info()?.account)
    }

    /// Sends the `initialize` request again, as at connect (hooks, agents,
    /// dialog kinds), and returns the CLI's fresh reply: commands, agents,
    /// models and account as they are now. The CLI re-registers the hooks
    /// and settles any hook callback it was still waiting on itself, so a
    /// tool call racing this may be denied once and retried.
    /// [`server_info`](Self::server_info) keeps the reply of connect.
    pub async fn reinitialize(&self) -> Result<ServerInfo> {
        let builder = &self.inner.builder;
        let mut request = builder
            .options
            .initialize_request(builder.callbacks.initialize_hooks_json());
        builder.callbacks.add_initialize_fields(&mut request);
        let reply = self.control(request, None).await?;
        decode(reply)
    }
}
