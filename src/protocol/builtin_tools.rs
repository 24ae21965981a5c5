//! The names of Claude Code's built-in tools, as the `system/init` message
//! of the pinned CLI (2.1.332) lists them for a default SDK session: the
//! names `allowed_tools`, `disallowed_tools`, `tools` and permission rules
//! take.
//!
//! The list is the CLI's, not ours: a test checks it against the real
//! CLI's init message (`tests/real_cli_builtin_tools.rs`). Some of these
//! reach the model only through `ToolSearch` (deferred); `Task` is the
//! subagent tool, which the model calls `Agent`. A session's own list
//! (MCP tools included) is in its init message.

/// Every built-in tool of Claude Code 2.1.332, in the order its init
/// message lists them.
///
/// ```
/// use claude_agent::protocol::{BUILTIN_TOOLS, is_builtin_tool};
///
/// assert!(BUILTIN_TOOLS.contains(&"Bash"));
/// assert!(is_builtin_tool("Read"));
/// assert!(!is_builtin_tool("mcp__calc__add"));
/// ```
pub const BUILTIN_TOOLS: &[&str] = &[
    "Task",
    "Bash",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EnterWorktree",
    "ExitWorktree",
    "ListAgents",
    "Monitor",
    "NotebookEdit",
    "Read",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
    "Skill",
    "TaskStop",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
];

/// Whether `name` is one of [`BUILTIN_TOOLS`].
pub fn is_builtin_tool(name: &str) -> bool {
    BUILTIN_TOOLS.contains(&name)
}
