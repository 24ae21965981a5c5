//! The reply to `get_context_usage`: the context window by category.

use serde_json::{Number, Value};

wire_struct! {
    /// The context window's usage (`get_context_usage`). The per-item lists
    /// (`memoryFiles`, `mcpTools`, `agents`, `skills`, ...) are kept as JSON.
    #[derive(Default)]
    pub struct ContextUsage = "control_response/get_context_usage", builder ContextUsageBuilder {
        /// Usage by category (system prompt, tools, messages, free space, ...).
        categories: opt Vec<ContextCategory> = "categories",
        /// Tokens in use.
        total_tokens: opt u64 = "totalTokens",
        /// The usable window.
        max_tokens: opt u64 = "maxTokens",
        /// The model's whole window.
        raw_max_tokens: opt u64 = "rawMaxTokens",
        /// Percent of the window in use.
        percentage: opt Number = "percentage",
        /// The model.
        model: opt String = "model",
        /// Whether auto-compaction is on.
        is_auto_compact_enabled: opt bool = "isAutoCompactEnabled",
        /// Where auto-compaction starts, in tokens.
        auto_compact_threshold: opt u64 = "autoCompactThreshold",
        /// The grid the terminal draws (`[[{color, isFilled, ...}]]`).
        grid_rows: opt Value = "gridRows",
        /// Memory files: `[{path, type, tokens}]`.
        memory_files: opt Vec<Value> = "memoryFiles",
        /// MCP tools: `[{name, serverName, tokens, isLoaded?}]`.
        mcp_tools: opt Vec<Value> = "mcpTools",
        /// Agents: `[{agentType, source, tokens}]`.
        agents: opt Vec<Value> = "agents",
        /// Token breakdown of the messages, when counted.
        message_breakdown: opt Value = "messageBreakdown",
        /// The last API response's usage, or null.
        api_usage: opt Value = "apiUsage",
    }
}

wire_struct! {
    /// One row of [`ContextUsage::categories`].
    #[derive(Default)]
    pub struct ContextCategory = "context category", builder ContextCategoryBuilder {
        /// A stable id (`system_prompt`, `messages`, `free_space`, ...).
        id: opt String = "id",
        /// The display name.
        name: opt String = "name",
        /// Tokens.
        tokens: opt u64 = "tokens",
        /// The display color.
        color: opt String = "color",
        /// Schemas kept out of the window.
        is_deferred: opt bool = "isDeferred",
        /// `used`, `free`, `buffer` or `deferred`.
        kind: opt String = "kind",
    }
}
