//! The typed stream-json protocol: every message, content block and control
//! frame the Claude Code CLI speaks, with one-pass parsing and lossless
//! serialization.
//!
//! - [`parse_line`] turns one NDJSON line into a [`StdoutFrame`]: a
//!   [`Message`] for the consumer or a control frame for the dispatcher.
//!   [`parse_message`] accepts messages only.
//! - Everything serializes back ([`StdoutFrame::to_line`], `Serialize`).
//!   Fields a type does not model are kept in its `extra`
//!   ([`Extras`]), and unknown `type`s, subtypes, blocks and hook events
//!   are values (`Unknown`/`Other` variants with their raw JSON), so a parse
//!   -> serialize round trip loses nothing.
//! - The CLI keeps adding fields, subtypes and blocks, so every type here is
//!   `#[non_exhaustive]`: build one from `Default` (or its constructor) and
//!   set fields, and match with a `_` arm.
//! - Errors are typed ([`ParseError`]): not JSON, malformed JSON (with
//!   line/column), a missing required field or an invalid field, each
//!   naming the message type and field and carrying the line's prefix.
//!   Only type-defining fields are required (`message` of
//!   `assistant`/`user`, `subtype` of `system`/`result`, `event` of
//!   `stream_event`, `request_id` + `request` of `control_request`,
//!   `response.subtype` + `response.request_id` of `control_response`).
//!
//! Parsing is one pass with no intermediate `serde_json::Value` tree: each
//! type has a generated map visitor that matches known keys and stores
//! unknown ones as extras; members that precede the `type` tag (the CLI's
//! `result` lines put it in the middle) are held as borrowed raw slices
//! until the tag is known. That buffering borrows from the input text, so
//! the protocol types deserialize from JSON *text* (`parse_line`,
//! `serde_json::from_str`/`from_slice`, [`RawJson::decode`]); going through
//! `serde_json::from_value` fails on a tag that is not the first member.
//!
//! ```
//! use claude_agent::protocol::{parse_line, ContentBlock, Message, StdoutFrame};
//!
//! let line = br#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Hello"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1},"context_management":null},"parent_tool_use_id":null,"session_id":"s1","uuid":"u1","timestamp":"2026-11-29T22:57:34.967Z"}"#;
//!
//! let frame = parse_line(line).unwrap();
//! assert_eq!(frame.kind(), "assistant");
//! match &frame {
//!     StdoutFrame::Message(Message::Assistant(a)) => {
//!         let [ContentBlock::Text(t)] = a.message.blocks() else { panic!("one text block") };
//!         assert_eq!(t.text.as_deref(), Some("Hello"));
//!     }
//!     other => panic!("unexpected {}", other.kind()),
//! }
//!
//! // Serializing gives back the same JSON (compared as values: key order
//! // may differ, explicit nulls are kept).
//! let again: serde_json::Value = serde_json::from_str(&frame.to_json().unwrap()).unwrap();
//! let original: serde_json::Value = serde_json::from_slice(line).unwrap();
//! assert_eq!(again, original);
//! ```

#[macro_use]
mod macros;
#[macro_use]
mod macros_tagged;

mod assistant;
mod blocks;
mod builtin_tools;
mod content;
pub mod control;
mod conversation_reset;
pub(crate) mod de;
mod error;
mod events;
mod extra;
mod frame_serde;
mod message;
mod mirror_error;
pub(crate) mod notes;
mod origin;
mod parse;
mod rate_limit;
mod raw;
mod result;
mod result_error;
mod stream_event;
mod system;
mod system_events;
mod system_notices;
mod system_progress;
mod system_transcript;
mod text;
mod transcript_mirror;
mod usage;
mod user;

pub use assistant::{ApiMessage, AssistantError, AssistantMessage, StopReason, ToolUseMeta};
pub use blocks::{
    DocumentBlock, ImageBlock, MediaSource, RedactedThinkingBlock, ServerToolResultBlock,
    TextBlock, ThinkingBlock, ToolUseBlock,
};
pub use builtin_tools::{BUILTIN_TOOLS, is_builtin_tool};
pub use content::{Content, ContentBlock, ToolResultBlock};
pub use control::claim::{ClaimReply, ClaimSession};
pub use control::context_usage::{ContextCategory, ContextUsage};
#[cfg(feature = "hooks")]
pub use control::hook_input::event::HookEvent;
#[cfg(feature = "hooks")]
pub use control::hook_input::session::{
    ConfigChangeInput, InstructionsLoadedInput, ModelSwitchInput, PostCompactInput,
    PreCompactInput, SessionEndInput, SessionEndReason, SessionStartInput, SessionStartSource,
    SetupInput, StopFailureInput, StopInput, SubagentStartInput, SubagentStopInput,
};
#[cfg(feature = "hooks")]
pub use control::hook_input::tool::{
    McpServerProvenance, PermissionDeniedInput, PermissionRequestInput, PostToolBatchInput,
    PostToolBatchToolCall, PostToolUseFailureInput, PostToolUseInput, PreSkillShellCommandInput,
    PreToolUseInput,
};
#[cfg(feature = "hooks")]
pub use control::hook_input::workspace::{
    CwdChangedInput, DirectoryAddedInput, ElicitationInput, ElicitationResultInput,
    FileChangedInput, MessageDisplayInput, NotificationInput, TaskInput, TeammateIdleInput,
    UserPromptExpansionInput, UserPromptSubmitInput, WorktreeCreateInput, WorktreeRemoveInput,
};
#[cfg(feature = "hooks")]
pub use control::hook_input::{HookCallbackRequest, HookCommon, HookInput};
#[cfg(feature = "hooks")]
pub use control::hook_output::specific::{
    AdditionalContextOutput, DecisionOutput, ElicitationOutput, HookSpecificOutput,
    MessageDisplayOutput, PermissionDeniedOutput, PermissionRequestOutput, PostToolUseOutput,
    PreToolUseOutput, PromptOutput, SessionStartOutput, WatchPathsOutput, WorktreeCreateOutput,
};
#[cfg(feature = "hooks")]
pub use control::hook_output::{HookOutput, PermissionDecision};
pub use control::host_requests::{
    BinaryVersion, FileSuggestion, FileSuggestions, FileSuggestionsReply, McpCall, McpCallResult,
    RegisterRepoRoot, RegisteredRepoRoot, SessionCost, SetHasSubscribers,
};
pub use control::initialize::{
    AccountInfo, AgentInfo, InitializeAgent, InitializeHookMatcher, InitializeRequest, ModelInfo,
    ServerInfo, SlashCommand,
};
#[cfg(feature = "mcp")]
pub use control::mcp::{
    JsonRpcError, JsonRpcId, JsonRpcKind, JsonRpcMessage, McpMessageRequest, McpResponse,
};
pub use control::permission::{
    DecisionClassification, DirectoriesUpdate, ModeUpdate, PermissionBehavior, PermissionRequest,
    PermissionResult, PermissionRule, PermissionUpdate, PermissionUpdateDestination, RulesUpdate,
};
pub use control::replies::{
    BackgroundTasksReply, InterruptReceipt, McpPermissionModeOverrideReply, McpServerInfo,
    McpSetServersResult, McpStatusReply, PermissionModeReply, ReloadPluginsReply,
    ReloadSkillsReply, RewindFilesResult,
};
pub use control::requests::{
    ApplyFlagSettings, BackgroundTasks, EmptyRequest, GetContextUsage, Interrupt, McpReconnect,
    McpToggle, ReloadPlugins, RewindFiles, SetMaxThinkingTokens, SetMcpPermissionModeOverride,
    SetModel, SetPermissionMode, StopTask, UpdateSettings,
};
pub use control::session_listings::{
    HookEventSummary, HookListingRow, HooksListing, HooksPolicy, PermissionRuleEntry,
    PermissionRulesReply, PermissionRulesState, SettingsParseError, WorkspaceDirectory,
};
pub use control::session_replies::{
    CancelAsyncMessageReply, FileContents, McpResourceContents, McpResourceItem, ModelCatalog,
    ModelUsage, OutputStylesReply, PlanRateLimitWindow, PlanRateLimits, SessionUsage, SetCwdReply,
    SettingsReport, SettingsSource, TaskOutput, UsageReport,
};
pub use control::session_requests::{
    CancelAsyncMessage, GetTaskOutput, GetUsage, McpReadResource, ReadFile, RenameSession,
    SeedReadState, SetCwd,
};
pub use control::{
    ControlCancelRequest, ControlErrorReply, ControlRequest, ControlRequestPayload,
    ControlResponse, ControlResponseBody, ControlSuccess,
};
pub use conversation_reset::ConversationReset;
pub use error::{EncodeError, ParseError};
pub use events::{
    ActiveGoal, ApiMetrics, AuthStatus, CommandLifecycle, KeepAlive, PromptSuggestion,
    ToolProgress, ToolUseSummary,
};
pub use extra::Extras;
pub(crate) use frame_serde::TaggedRef;
pub use message::{Message, StdoutFrame};
pub use mirror_error::{MirrorError, MirrorKey};
pub use origin::MessageOrigin;
pub(crate) use parse::{parse_json_variant, to_json};
pub use parse::{parse_line, parse_message};
pub use rate_limit::{RateLimitEvent, RateLimitInfo};
pub use raw::RawJson;
pub use result::{PermissionDenial, ResultMessage, ResultSubtype, TerminalReason};
pub use result_error::ResultError;
pub use stream_event::{
    ApiStreamEvent, ContentBlockDelta, ContentBlockStart, ContentBlockStop, Delta, InputJsonDelta,
    MessageDelta, MessageDeltaBody, MessageStart, MessageStop, SignatureDelta, StreamError,
    StreamEvent, TextDelta, ThinkingDelta,
};
pub use system::{
    McpServerStatus, PluginInfo, SessionState, SessionStateChanged, SystemInit, SystemMessage,
    SystemStatus,
};
pub use system_events::{
    ApiRetry, CompactBoundary, HookResponse, HookStarted, TaskNotification, TaskProgress,
    TaskStarted, TaskUpdated,
};
pub use system_notices::{
    BackgroundTasksChanged, CommandsChanged, ElicitationComplete, FilesPersisted, Informational,
    LocalCommandOutput, MemoryRecall, Notification, PermissionDenied, PluginInstall,
    SessionWritesLost, WorkerShuttingDown,
};
pub use system_progress::{
    ControlRequestProgress, HookProgress, ModelRefusalFallback, ModelRefusalNoFallback,
    SystemEvent, Thinking, ThinkingTokens,
};
pub use system_transcript::{
    ApiErrorNotice, ModelFallback, SessionTitleChanged, StopHookSummary, TurnDuration,
};
pub use transcript_mirror::TranscriptMirror;
pub use usage::Usage;
pub use user::{ToolUseResult, UserApiMessage, UserMessage};
