//! Token usage as reported by the Messages API and the CLI.

use serde_json::Value;

wire_struct! {
    /// Token usage of one API call or one turn. Fields the CLI adds over
    /// time (`iterations`, `speed`, ...) are kept in `extra`.
    #[derive(Default)]
    pub struct Usage = "usage", builder UsageBuilder {
        /// Input tokens billed.
        input_tokens: opt u64 = "input_tokens",
        /// Output tokens billed.
        output_tokens: opt u64 = "output_tokens",
        /// Input tokens written to the prompt cache.
        cache_creation_input_tokens: opt u64 = "cache_creation_input_tokens",
        /// Input tokens read from the prompt cache.
        cache_read_input_tokens: opt u64 = "cache_read_input_tokens",
        /// Service tier, e.g. `standard`.
        service_tier: opt String = "service_tier",
        /// Server tool usage counters (`web_search_requests`, ...).
        server_tool_use: opt Value = "server_tool_use",
        /// Cache creation breakdown by lifetime.
        cache_creation: opt Value = "cache_creation",
    }
}
