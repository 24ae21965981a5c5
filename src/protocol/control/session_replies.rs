//! Typed success payloads of the TypeScript-only session requests
//! ([`session_requests`](super::session_requests)) and of `get_settings`.
//! Every type keeps members it does not model in `extra`.

use serde_json::{Map, Value};

use super::initialize::ModelInfo;

wire_struct! {
    /// The reply to `reload_output_styles`.
    #[derive(Default)]
    pub struct OutputStylesReply = "control_response/reload_output_styles", builder OutputStylesReplyBuilder {
        /// Built-in and custom style names, in the `initialize` reply's order.
        available_output_styles: opt Vec<String> = "available_output_styles",
    }
}

wire_struct! {
    /// The reply to `list_models`: the models this session can run (in a
    /// remote session, as the worker's provider and policy decide).
    #[derive(Default)]
    pub struct ModelCatalog = "control_response/list_models", builder ModelCatalogBuilder {
        /// The models.
        models: opt Vec<ModelInfo> = "models",
    }
}

wire_struct! {
    /// The reply to `cancel_async_message`.
    #[derive(Default)]
    pub struct CancelAsyncMessageReply = "control_response/cancel_async_message", builder CancelAsyncMessageReplyBuilder {
        /// Whether the message was still queued and is now dropped.
        cancelled: opt bool = "cancelled",
    }
}

wire_struct! {
    /// The reply to `get_usage`: the data behind `/usage`. The CLI marks
    /// its shape experimental.
    #[derive(Default)]
    pub struct UsageReport = "control_response/get_usage", builder UsageReportBuilder {
        /// Cost and usage of this session.
        session: opt SessionUsage = "session",
        /// `pro`, `max`, `team`, `enterprise`; null for API keys and
        /// third-party providers.
        subscription_type: opt String = "subscription_type",
        /// False where plan limits do not apply (`rate_limits` is null).
        rate_limits_available: opt bool = "rate_limits_available",
        /// Plan rate-limit windows.
        rate_limits: opt PlanRateLimits = "rate_limits",
        /// What contributes to usage, from a scan of local transcripts
        /// (null when skipped or not a subscriber session).
        behaviors: opt Value = "behaviors",
    }
}

wire_struct! {
    /// A session's accumulated cost and usage.
    #[derive(Default)]
    pub struct SessionUsage = "usage report session", builder SessionUsageBuilder {
        /// Cost in US dollars.
        total_cost_usd: opt f64 = "total_cost_usd",
        /// Time spent in API calls.
        total_api_duration_ms: opt u64 = "total_api_duration_ms",
        /// Wall time of the session.
        total_duration_ms: opt u64 = "total_duration_ms",
        /// Lines the session added to files.
        total_lines_added: opt u64 = "total_lines_added",
        /// Lines the session removed.
        total_lines_removed: opt u64 = "total_lines_removed",
        /// Usage by model id.
        model_usage: opt std::collections::BTreeMap<String, ModelUsage> = "model_usage",
    }
}

wire_struct! {
    /// One model's usage within a session.
    #[derive(Default)]
    pub struct ModelUsage = "model usage", builder ModelUsageBuilder {
        /// Input tokens.
        input_tokens: opt u64 = "inputTokens",
        /// Output tokens (thinking included).
        output_tokens: opt u64 = "outputTokens",
        /// Thinking tokens, already inside `output_tokens`.
        thinking_tokens: opt u64 = "thinkingTokens",
        /// Tokens read from the prompt cache.
        cache_read_input_tokens: opt u64 = "cacheReadInputTokens",
        /// Tokens written to the prompt cache.
        cache_creation_input_tokens: opt u64 = "cacheCreationInputTokens",
        /// Web searches.
        web_search_requests: opt u64 = "webSearchRequests",
        /// Cost in US dollars.
        cost_usd: opt f64 = "costUSD",
        /// The model's context window.
        context_window: opt u64 = "contextWindow",
        /// The model's output limit.
        max_output_tokens: opt u64 = "maxOutputTokens",
        /// The model id used for pricing.
        canonical_model: opt String = "canonicalModel",
    }
}

wire_struct! {
    /// Plan rate-limit windows (claude.ai subscriptions).
    #[derive(Default)]
    pub struct PlanRateLimits = "plan rate limits", builder PlanRateLimitsBuilder {
        /// The five-hour window.
        five_hour: opt PlanRateLimitWindow = "five_hour",
        /// The seven-day window.
        seven_day: opt PlanRateLimitWindow = "seven_day",
        /// The seven-day window of OAuth apps.
        seven_day_oauth_apps: opt PlanRateLimitWindow = "seven_day_oauth_apps",
        /// The seven-day Opus window.
        seven_day_opus: opt PlanRateLimitWindow = "seven_day_opus",
        /// The seven-day Sonnet window.
        seven_day_sonnet: opt PlanRateLimitWindow = "seven_day_sonnet",
        /// Per-model weekly windows.
        model_scoped: opt Vec<PlanRateLimitWindow> = "model_scoped",
        /// Extra usage beyond the plan.
        extra_usage: opt Value = "extra_usage",
    }
}

wire_struct! {
    /// One rate-limit window.
    #[derive(Default)]
    pub struct PlanRateLimitWindow = "plan rate limit window", builder PlanRateLimitWindowBuilder {
        /// Percentage used, 0 to 100.
        utilization: opt f64 = "utilization",
        /// When it resets (ISO 8601).
        resets_at: opt String = "resets_at",
        /// The model bucket's label (per-model windows only).
        display_name: opt String = "display_name",
    }
}

wire_struct! {
    /// The reply to `read_file`.
    #[derive(Default)]
    pub struct FileContents = "control_response/read_file", builder FileContentsBuilder {
        /// The bytes read: text, or base64 when `encoding` says so.
        contents: opt String = "contents",
        /// The resolved absolute path.
        abs_path: opt String = "absPath",
        /// The path as asked.
        requested_path: opt String = "requested_path",
        /// Whether the read stopped at `max_bytes`.
        truncated: opt bool = "truncated",
        /// `base64` when asked for; absent means UTF-8.
        encoding: opt String = "encoding",
        /// True when invalid UTF-8 was replaced, so `contents` is not the
        /// file's own text (absent for base64 and older CLIs).
        lossy: opt bool = "lossy",
    }
}

wire_struct! {
    /// The reply to `mcp_read_resource`: the server's `resources/read`
    /// result. Third-party content: render it sandboxed.
    #[derive(Default)]
    pub struct McpResourceContents = "control_response/mcp_read_resource", builder McpResourceContentsBuilder {
        /// The items read.
        contents: opt Vec<McpResourceItem> = "contents",
    }
}

wire_struct! {
    /// One item of a resource.
    #[derive(Default)]
    pub struct McpResourceItem = "mcp resource item", builder McpResourceItemBuilder {
        /// Its URI.
        uri: opt String = "uri",
        /// Its MIME type.
        mime_type: opt String = "mimeType",
        /// Text content.
        text: opt String = "text",
        /// Binary content, base64.
        blob: opt String = "blob",
        /// The item's own `_meta`.
        meta: opt Map<String, Value> = "_meta",
    }
}

wire_struct! {
    /// The reply to `get_task_output`.
    #[derive(Default)]
    pub struct TaskOutput = "control_response/get_task_output", builder TaskOutputBuilder {
        /// The end of the output (at most 8 KiB), as UTF-8, escape
        /// sequences included: show it as plain text.
        output: opt String = "output",
        /// The size of the whole output.
        total_bytes: opt u64 = "total_bytes",
        /// Whether `output` is only the end of it.
        truncated: opt bool = "truncated",
    }
}

wire_struct! {
    /// The reply to `get_settings`: the settings in effect and where they
    /// came from.
    #[derive(Default)]
    pub struct SettingsReport = "control_response/get_settings", builder SettingsReportBuilder {
        /// The merged settings of every source.
        effective: opt Map<String, Value> = "effective",
        /// Each source's own settings, lowest precedence first.
        sources: opt Vec<SettingsSource> = "sources",
        /// What the session runs with now (`model`, `effort`, ...), flag
        /// settings and controls included.
        applied: opt Map<String, Value> = "applied",
        /// Whether settings served by an organisation apply
        /// (`ineligible`, ...).
        served_settings_state: opt String = "served_settings_state",
    }
}

wire_struct! {
    /// One settings source of a [`SettingsReport`].
    #[derive(Default)]
    pub struct SettingsSource = "settings source", builder SettingsSourceBuilder {
        /// `userSettings`, `projectSettings`, `localSettings`,
        /// `flagSettings`, `policySettings`, ...
        source: opt String = "source",
        /// Its settings.
        settings: opt Map<String, Value> = "settings",
        /// The file it was read from.
        path: opt String = "path",
    }
}

wire_struct! {
    /// The reply to `set_cwd`, by `status`: `ok`, `needs_trust` or
    /// `rejected`. [`CwdChange`](crate::client::CwdChange) is its typed
    /// reading.
    #[derive(Default)]
    pub struct SetCwdReply = "control_response/set_cwd", builder SetCwdReplyBuilder {
        /// `ok`, `needs_trust` or `rejected`.
        status: opt String = "status",
        /// `ok`: the canonical directory the session now runs in.
        cwd: opt String = "cwd",
        /// `ok`: false when it already ran there (a no-op).
        changed: opt bool = "changed",
        /// `ok`: false only when the transcript could not follow the move.
        transcript_relocated: opt bool = "transcript_relocated",
        /// `needs_trust`: the canonical directory to show a trust dialog for.
        directory: opt String = "directory",
        /// `needs_trust`: the repository root that accepting would trust.
        trust_root: opt String = "trust_root",
        /// `rejected`: `not_found`, `not_a_directory`, `blocked_by_rule`,
        /// `busy`, `unsafe_path`, `remote_origin`.
        reason: opt String = "reason",
        /// `rejected`: why, in words.
        message: opt String = "message",
    }
}
