//! Inputs of the tool events: `PreToolUse`, `PostToolUse`,
//! `PostToolUseFailure`, `PostToolBatch`, `PermissionRequest`,
//! `PermissionDenied`, `PreSkillShellCommand`.
//!
//! Every member is optional: a CLI that drops one must not turn the whole
//! request into an error (with `on_failure: block` that would block the
//! action for a reason that has nothing to do with the hook).

use serde_json::{Number, Value};

use crate::protocol::control::permission::PermissionUpdate;
pub use crate::protocol::control::provenance::McpServerProvenance;

wire_struct! {
    /// `PreToolUse`: a tool is about to run.
    #[derive(Default)]
    pub struct PreToolUseInput = "PreToolUse input", builder PreToolUseInputBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The tool's input.
        tool_input: opt Value = "tool_input",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// The MCP server of an MCP tool.
        mcp_server: opt McpServerProvenance = "mcp_server",
    }
}

wire_struct! {
    /// `PostToolUse`: a tool succeeded.
    #[derive(Default)]
    pub struct PostToolUseInput = "PostToolUse input", builder PostToolUseInputBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The tool's input.
        tool_input: opt Value = "tool_input",
        /// The tool's output.
        tool_response: opt Value = "tool_response",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// How long the tool ran, in ms (kept as sent: integer or not).
        duration_ms: opt Number = "duration_ms",
        /// The MCP server of an MCP tool.
        mcp_server: opt McpServerProvenance = "mcp_server",
    }
}

wire_struct! {
    /// `PostToolUseFailure`: a tool failed.
    #[derive(Default)]
    pub struct PostToolUseFailureInput = "PostToolUseFailure input", builder PostToolUseFailureInputBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The tool's input.
        tool_input: opt Value = "tool_input",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// The failure.
        error: opt String = "error",
        /// Whether the failure was an interrupt.
        is_interrupt: opt bool = "is_interrupt",
        /// How long the tool ran, in ms (kept as sent: integer or not).
        duration_ms: opt Number = "duration_ms",
        /// The MCP server of an MCP tool.
        mcp_server: opt McpServerProvenance = "mcp_server",
    }
}

wire_struct! {
    /// One call of a `PostToolBatch`.
    #[derive(Default)]
    pub struct PostToolBatchToolCall = "PostToolBatch tool call", builder PostToolBatchToolCallBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The tool's input.
        tool_input: opt Value = "tool_input",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// The tool's output.
        tool_response: opt Value = "tool_response",
    }
}

wire_struct! {
    /// `PostToolBatch`: every call of one assistant message has finished.
    #[derive(Default)]
    pub struct PostToolBatchInput = "PostToolBatch input", builder PostToolBatchInputBuilder {
        /// The calls, in order.
        tool_calls: opt Vec<PostToolBatchToolCall> = "tool_calls",
    }
}

wire_struct! {
    /// `PermissionRequest`: a permission dialog is about to show.
    #[derive(Default)]
    pub struct PermissionRequestInput = "PermissionRequest input", builder PermissionRequestInputBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The tool's input.
        tool_input: opt Value = "tool_input",
        /// Suggested rule changes.
        permission_suggestions: opt Vec<PermissionUpdate> = "permission_suggestions",
        /// The MCP server of an MCP tool.
        mcp_server: opt McpServerProvenance = "mcp_server",
    }
}

wire_struct! {
    /// `PermissionDenied`: a tool call was refused.
    #[derive(Default)]
    pub struct PermissionDeniedInput = "PermissionDenied input", builder PermissionDeniedInputBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The tool's input.
        tool_input: opt Value = "tool_input",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// Why it was refused.
        reason: opt String = "reason",
        /// The MCP server of an MCP tool.
        mcp_server: opt McpServerProvenance = "mcp_server",
    }
}

wire_struct! {
    /// `PreSkillShellCommand`: a skill's shell command is about to run.
    #[derive(Default)]
    pub struct PreSkillShellCommandInput = "PreSkillShellCommand input", builder PreSkillShellCommandInputBuilder {
        /// The tool that runs it.
        tool_name: opt String = "tool_name",
        /// `{"command": ...}`.
        tool_input: opt Value = "tool_input",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// The skill's command name.
        command_name: opt String = "command_name",
        /// Where the command was defined.
        command_source: opt String = "command_source",
        /// `user`, `claude` or `other`.
        invoked_by: opt String = "invoked_by",
    }
}
