//! The top level: any message, and any line (message or control frame).

use serde_json::{Map, Value};

use super::{
    ActiveGoal, ApiMetrics, AssistantMessage, AuthStatus, CommandLifecycle, ControlCancelRequest,
    ControlRequest, ControlResponse, ConversationReset, EncodeError, KeepAlive, PromptSuggestion,
    RateLimitEvent, ResultMessage, StreamEvent, SystemMessage, ToolProgress, ToolUseSummary,
    TranscriptMirror, UserMessage,
};

/// A message for the consumer's stream, by `type`.
///
/// Payloads are boxed (system ones inside [`SystemMessage`]): the enum stays
/// small, so a parsed message moves through channels and `Result`s without
/// copying hundreds of bytes.
///
/// Most programs want the text ([`Message::text`]) and the end of the turn:
///
/// ```
/// use claude_agent::protocol::{Message, parse_message};
///
/// let lines: [&[u8]; 2] = [
///     br#"{"type":"assistant","message":{"content":[{"type":"text","text":"4"}]}}"#,
///     br#"{"type":"result","subtype":"success","result":"4","num_turns":1}"#,
/// ];
/// for line in lines {
///     match parse_message(line)? {
///         Message::Assistant(reply) => assert_eq!(reply.text().as_deref(), Some("4")),
///         Message::Result(result) => {
///             assert!(!result.is_error());
///             assert_eq!(result.text(), Some("4"));
///         }
///         _ => {} // system notices, tool results, rate limits, kinds not known yet
///     }
/// }
/// # Ok::<(), claude_agent::protocol::ParseError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message {
    /// `system`, by subtype.
    System(SystemMessage),
    /// `assistant`.
    Assistant(Box<AssistantMessage>),
    /// `user`.
    User(Box<UserMessage>),
    /// `result`: the end of a turn.
    Result(Box<ResultMessage>),
    /// `stream_event` (partial messages).
    StreamEvent(Box<StreamEvent>),
    /// `rate_limit_event`.
    RateLimitEvent(Box<RateLimitEvent>),
    /// `conversation_reset`.
    ConversationReset(Box<ConversationReset>),
    /// `transcript_mirror` (`--session-mirror`).
    TranscriptMirror(Box<TranscriptMirror>),
    /// `tool_progress`.
    ToolProgress(Box<ToolProgress>),
    /// `tool_use_summary`.
    ToolUseSummary(Box<ToolUseSummary>),
    /// `auth_status`.
    AuthStatus(Box<AuthStatus>),
    /// `prompt_suggestion`.
    PromptSuggestion(Box<PromptSuggestion>),
    /// `active_goal`.
    ActiveGoal(Box<ActiveGoal>),
    /// `api_metrics`.
    ApiMetrics(Box<ApiMetrics>),
    /// `command_lifecycle`.
    CommandLifecycle(Box<CommandLifecycle>),
    /// `keep_alive`.
    KeepAlive(Box<KeepAlive>),
    /// A `type` this version does not know, kept whole.
    Unknown {
        /// The `type` value.
        kind: String,
        /// The whole JSON object as received.
        raw: Map<String, Value>,
    },
}

/// Any line of the CLI's stdout (and of what we write to its stdin): a
/// message or a control frame.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StdoutFrame {
    /// A message for the consumer.
    Message(Message),
    /// `control_request`, either direction.
    ControlRequest(Box<ControlRequest>),
    /// `control_response`, either direction.
    ControlResponse(Box<ControlResponse>),
    /// `control_cancel_request`.
    ControlCancelRequest(Box<ControlCancelRequest>),
}

impl Message {
    /// A short kind string: `system/<subtype>`, `assistant`, `user`,
    /// `result/<subtype>`, `stream_event`, `rate_limit_event`,
    /// `conversation_reset`, `transcript_mirror`, the other types' names
    /// (`tool_progress`, `keep_alive`, ...) or `unknown/<type>`.
    pub fn kind(&self) -> String {
        match self {
            Self::System(s) => format!("system/{}", s.tag()),
            Self::Assistant(_) => "assistant".into(),
            Self::User(_) => "user".into(),
            Self::Result(r) => format!("result/{}", r.subtype),
            Self::StreamEvent(_) => "stream_event".into(),
            Self::RateLimitEvent(_) => "rate_limit_event".into(),
            Self::ConversationReset(_) => "conversation_reset".into(),
            Self::TranscriptMirror(_) => "transcript_mirror".into(),
            Self::ToolProgress(_) => "tool_progress".into(),
            Self::ToolUseSummary(_) => "tool_use_summary".into(),
            Self::AuthStatus(_) => "auth_status".into(),
            Self::PromptSuggestion(_) => "prompt_suggestion".into(),
            Self::ActiveGoal(_) => "active_goal".into(),
            Self::ApiMetrics(_) => "api_metrics".into(),
            Self::CommandLifecycle(_) => "command_lifecycle".into(),
            Self::KeepAlive(_) => "keep_alive".into(),
            Self::Unknown { kind, .. } => format!("unknown/{kind}"),
        }
    }

    /// The JSON text of this message (no trailing newline).
    #[inline]
    pub fn to_json(&self) -> Result<String, EncodeError> {
        super::parse::to_json(self)
    }

    /// The JSON text plus `\n`, ready to write as one NDJSON line.
    #[inline]
    pub fn to_line(&self) -> Result<String, EncodeError> {
        self.to_json().map(|s| s + "\n")
    }
}

macro_rules! from_payload {
    ($($enum:ident :: $var:ident ($t:ty)),* $(,)?) => {$(
        impl From<$t> for $enum {
            fn from(v: $t) -> Self {
                Self::$var(Box::new(v))
            }
        }
    )*};
}
from_payload!(
    Message::Assistant(AssistantMessage),
    Message::User(UserMessage),
    Message::Result(ResultMessage),
    Message::StreamEvent(StreamEvent),
    Message::RateLimitEvent(RateLimitEvent),
    Message::ConversationReset(ConversationReset),
    Message::TranscriptMirror(TranscriptMirror),
    Message::ToolProgress(ToolProgress),
    Message::ToolUseSummary(ToolUseSummary),
    Message::AuthStatus(AuthStatus),
    Message::PromptSuggestion(PromptSuggestion),
    Message::ActiveGoal(ActiveGoal),
    Message::ApiMetrics(ApiMetrics),
    Message::CommandLifecycle(CommandLifecycle),
    Message::KeepAlive(KeepAlive),
    StdoutFrame::ControlRequest(ControlRequest),
    StdoutFrame::ControlResponse(ControlResponse),
    StdoutFrame::ControlCancelRequest(ControlCancelRequest),
);

impl From<SystemMessage> for Message {
    fn from(v: SystemMessage) -> Self {
        Self::System(v)
    }
}

impl From<Message> for StdoutFrame {
    fn from(m: Message) -> Self {
        Self::Message(m)
    }
}

impl StdoutFrame {
    /// A short kind string: [`Message::kind`] for messages, else
    /// `control_request/<subtype>`, `control_response/<subtype>`
    /// (`success` or `error`) or `control_cancel_request`.
    pub fn kind(&self) -> String {
        match self {
            Self::Message(m) => m.kind(),
            Self::ControlRequest(r) => format!("control_request/{}", r.request.tag()),
            Self::ControlResponse(r) => format!("control_response/{}", r.response.tag()),
            Self::ControlCancelRequest(_) => "control_cancel_request".into(),
        }
    }

    /// The JSON text of this frame (no trailing newline).
    #[inline]
    pub fn to_json(&self) -> Result<String, EncodeError> {
        super::parse::to_json(self)
    }

    /// The JSON text plus `\n`, ready to write as one NDJSON line.
    #[inline]
    pub fn to_line(&self) -> Result<String, EncodeError> {
        self.to_json().map(|s| s + "\n")
    }
}
