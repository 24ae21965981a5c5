//! `rate_limit_event` messages.

use serde_json::Number;

wire_struct! {
    /// A `rate_limit_event` line: the account's rate limit status changed.
    #[derive(Default)]
    pub struct RateLimitEvent = "rate_limit_event", builder RateLimitEventBuilder {
        /// The rate limit status.
        rate_limit_info: opt RateLimitInfo = "rate_limit_info",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// The body of a `rate_limit_event`.
    #[derive(Default)]
    pub struct RateLimitInfo = "rate limit info", builder RateLimitInfoBuilder {
        /// `allowed`, `allowed_warning`, `rejected`, ...
        status: opt String = "status",
        /// When the limit resets (Unix seconds).
        resets_at: opt Number = "resetsAt",
        /// Which limit, e.g. `five_hour`.
        rate_limit_type: opt String = "rateLimitType",
        /// Fraction of the limit used.
        utilization: opt Number = "utilization",
    }
}
