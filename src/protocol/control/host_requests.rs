//! SDK -> CLI control requests the TypeScript SDK declares for its other
//! hosts (a desktop app, a thin client) and never sends from `query()`:
//! the session's cost text, the CLI's version, file suggestions, a direct
//! MCP tool call, another repository root, whether anybody watches the
//! output. Each request with its reply; every type keeps members it does
//! not model in `extra`.

use serde_json::{Map, Value};

wire_struct! {
    /// The reply to `get_session_cost`.
    #[derive(Default)]
    pub struct SessionCost = "control_response/get_session_cost", builder SessionCostBuilder {
        /// The cost summary `/usage` prints in non-interactive mode: cost,
        /// API and wall time, code changes and token usage, one per line.
        text: opt String = "text",
    }
}

wire_struct! {
    /// The reply to `get_binary_version`.
    #[derive(Default)]
    pub struct BinaryVersion = "control_response/get_binary_version", builder BinaryVersionBuilder {
        /// The CLI's version, e.g. `2.1.332`.
        version: opt String = "version",
        /// When it was built (RFC 3339).
        build_time: opt String = "buildTime",
        /// The oldest Agent SDK version (`x.y.z`) the CLI says a desktop
        /// app may bundle and still run it.
        oldest_desktop_sdk: opt String = "oldestDesktopSdk",
    }
}

wire_struct! {
    /// `file_suggestions`: the `@`-mention completions the terminal shows
    /// for a partial path.
    #[derive(Default)]
    pub struct FileSuggestions = "control_request/file_suggestions", builder FileSuggestionsBuilder {
        /// The partial path (fuzzy-matched; empty lists the top level).
        query: opt String = "query",
    }
}

wire_struct! {
    /// The reply to `file_suggestions`.
    #[derive(Default)]
    pub struct FileSuggestionsReply = "control_response/file_suggestions", builder FileSuggestionsReplyBuilder {
        /// Best first.
        suggestions: opt Vec<FileSuggestion> = "suggestions",
        /// The directory relative paths are relative to (the one the CLI's
        /// file index was built for).
        cwd: opt String = "cwd",
    }
}

impl FileSuggestionsReply {
    /// The suggested paths, best first.
    pub fn paths(&self) -> Vec<&str> {
        self.suggestions
            .iter()
            .flatten()
            .filter_map(|s| s.path.as_deref())
            .collect()
    }
}

wire_struct! {
    /// One file suggestion.
    #[derive(Default)]
    pub struct FileSuggestion = "file suggestion", builder FileSuggestionBuilder {
        /// Relative to the reply's `cwd`, or absolute; a directory ends with
        /// a path separator.
        path: opt String = "path",
        /// The match score, when the CLI gives one.
        score: opt f64 = "score",
    }
}

wire_struct! {
    /// `mcp_call`: call a tool of an MCP server the CLI connected to itself
    /// (not an in-process one), without a model turn.
    #[derive(Default)]
    pub struct McpCall = "control_request/mcp_call", builder McpCallBuilder {
        /// The tool's full name, `mcp__<server>__<tool>`.
        tool: opt String = "tool",
        /// Its arguments.
        arguments: opt Map<String, Value> = "arguments",
        /// Decide the call as the model's own call would be (rules, mode,
        /// hooks; an ask reaches `can_use_tool`); by default none is made.
        check_permissions: opt bool = "check_permissions",
        /// The server's own content blocks, unprocessed for a model.
        result_not_for_model: opt bool = "result_not_for_model",
        /// A tool's own error result comes back as a success with `isError`.
        soft_error_result: opt bool = "soft_error_result",
        /// Tool-execution limit in milliseconds (the CLI clamps it to
        /// 1000..=600000); setting it routes the call through the CLI's
        /// staging engine, whose result is in the reply's `staging`.
        timeout_ms: opt u64 = "timeout_ms",
    }
}

wire_struct! {
    /// The reply to `mcp_call`: the tool's result.
    #[derive(Default)]
    pub struct McpCallResult = "control_response/mcp_call", builder McpCallResultBuilder {
        /// The result's content blocks, as the CLI hands them on.
        content: opt Value = "content",
        /// True only for a tool's own error result under `soft_error_result`.
        is_error: opt bool = "isError",
        /// The result's structured content.
        structured_content: opt Map<String, Value> = "structuredContent",
        /// The result's own `_meta`.
        meta: opt Map<String, Value> = "_meta",
        /// What the staging engine did, for a call with `timeout_ms`.
        staging: opt Value = "staging",
    }
}

wire_struct! {
    /// `register_repo_root`: add a working-directory root (a strict
    /// subdirectory of the cwd or of an `--add-dir` directory), as
    /// `/add-dir` does.
    #[derive(Default)]
    pub struct RegisterRepoRoot = "control_request/register_repo_root", builder RegisterRepoRootBuilder {
        /// The directory.
        directory: opt String = "directory",
        /// Read its `CLAUDE.md` files now.
        reload_claude_md: opt bool = "reload_claude_md",
        /// Reload plugins now.
        reload_plugins: opt bool = "reload_plugins",
        /// Reload skills now.
        reload_skills: opt bool = "reload_skills",
    }
}

wire_struct! {
    /// The reply to `register_repo_root`.
    #[derive(Default)]
    pub struct RegisteredRepoRoot = "control_response/register_repo_root", builder RegisteredRepoRootBuilder {
        /// The directory as registered.
        directory: opt String = "directory",
    }
}

wire_struct! {
    /// `set_has_subscribers`: whether anybody watches the output the host
    /// passes on (it changes how long a CLI started with
    /// `CLAUDE_CODE_STREAM_EVENT_HOLD_MS` holds stream events to join them).
    #[derive(Default)]
    pub struct SetHasSubscribers = "control_request/set_has_subscribers", builder SetHasSubscribersBuilder {
        /// `false`: nobody; `true`: somebody; null: unknown (as `true`).
        has_subscribers: opt bool = "has_subscribers",
    }
}

impl SetHasSubscribers {
    /// The request for `watched`; `None` is sent as null, which the CLI
    /// requires over an absent member.
    pub fn watched(watched: Option<bool>) -> Self {
        let mut r = Self {
            has_subscribers: watched,
            ..Self::default()
        };
        if watched.is_none() {
            r.mark_null("has_subscribers");
        }
        r
    }
}
