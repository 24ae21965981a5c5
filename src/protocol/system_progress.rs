//! The progress-like `system` subtypes: hook output, thinking, long control
//! requests, model refusals.

wire_struct! {
    /// `system/hook_progress`: output of a running hook.
    #[derive(Default)]
    pub struct HookProgress = "system/hook_progress", builder HookProgressBuilder {
        /// The hook run's id.
        hook_id: opt String = "hook_id",
        /// The hook's name.
        hook_name: opt String = "hook_name",
        /// The hook event, e.g. `PreToolUse`.
        hook_event: opt String = "hook_event",
        /// The hook's stdout so far.
        stdout: opt String = "stdout",
        /// The hook's stderr so far.
        stderr: opt String = "stderr",
        /// The hook's output so far.
        output: opt String = "output",
        /// Set once when the hook went to the background.
        backgrounded: opt bool = "backgrounded",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/thinking_tokens`: the running estimate of thinking tokens.
    #[derive(Default)]
    pub struct ThinkingTokens = "system/thinking_tokens", builder ThinkingTokensBuilder {
        /// Estimated thinking tokens so far.
        estimated_tokens: opt i64 = "estimated_tokens",
        /// Change since the last estimate.
        estimated_tokens_delta: opt i64 = "estimated_tokens_delta",
        /// The user message this turn answers.
        user_message_uuid: opt String = "user_message_uuid",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/thinking`: rendered thinking text.
    #[derive(Default)]
    pub struct Thinking = "system/thinking", builder ThinkingBuilder {
        /// The thinking text.
        content: opt String = "content",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/control_request_progress`: a long control request advanced.
    #[derive(Default)]
    pub struct ControlRequestProgress = "system/control_request_progress", builder ControlRequestProgressBuilder {
        /// The control request this is about.
        request_id: opt String = "request_id",
        /// `started` or `api_retry`.
        status: opt String = "status",
        /// Retry attempt (`api_retry`).
        attempt: opt u64 = "attempt",
        /// Retry limit (`api_retry`).
        max_retries: opt u64 = "max_retries",
        /// Delay before the next attempt (`api_retry`).
        retry_delay_ms: opt u64 = "retry_delay_ms",
        /// HTTP status of the failure (`api_retry`).
        error_status: opt u16 = "error_status",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/model_refusal_fallback`: the model refused; another model
    /// answers instead.
    #[derive(Default)]
    pub struct ModelRefusalFallback = "system/model_refusal_fallback", builder ModelRefusalFallbackBuilder {
        /// `refusal`.
        trigger: opt String = "trigger",
        /// `retry`, `revert` or `sticky`.
        direction: opt String = "direction",
        /// `session` or `local`.
        scope: opt String = "scope",
        /// The model that refused.
        original_model: opt String = "original_model",
        /// The model that answers instead.
        fallback_model: opt String = "fallback_model",
        /// The API request id.
        request_id: opt String = "request_id",
        /// The API's refusal category.
        api_refusal_category: opt String = "api_refusal_category",
        /// The API's explanation.
        api_refusal_explanation: opt String = "api_refusal_explanation",
        /// Messages withdrawn from the transcript.
        retracted_message_uuids: opt Vec<String> = "retracted_message_uuids",
        /// The user message that was refused.
        refused_user_message_uuid: opt String = "refused_user_message_uuid",
        /// Text for the user.
        content: opt String = "content",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/model_refusal_no_fallback`: the model refused and no other
    /// model is configured.
    #[derive(Default)]
    pub struct ModelRefusalNoFallback = "system/model_refusal_no_fallback", builder ModelRefusalNoFallbackBuilder {
        /// The model that refused.
        original_model: opt String = "original_model",
        /// The API request id.
        request_id: opt String = "request_id",
        /// The API's refusal category.
        api_refusal_category: opt String = "api_refusal_category",
        /// The API's explanation.
        api_refusal_explanation: opt String = "api_refusal_explanation",
        /// The user message that was refused.
        refused_user_message_uuid: opt String = "refused_user_message_uuid",
        /// Text for the user.
        content: opt String = "content",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// A `system` subtype that CLI 2.1.332 defines for its own surfaces
    /// (terminal UI, remote sessions, scheduling; see
    /// [`SystemMessage::Cli`](super::SystemMessage::Cli)). Known, so not
    /// counted as unknown; members other than these are in `extra`.
    #[derive(Default)]
    pub struct SystemEvent = "system event", builder SystemEventBuilder {
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}
