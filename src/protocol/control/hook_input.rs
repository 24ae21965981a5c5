//! `hook_callback` requests and the hook input they carry.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::permission::PermissionUpdate;
use crate::protocol::de::{self, FieldSink, Tagged, Tags, Wire};

wire_struct! {
    /// `hook_callback`: the CLI asks us to run a registered hook callback.
    #[derive(Default)]
    pub struct HookCallbackRequest = "control_request/hook_callback", builder HookCallbackRequestBuilder {
        /// The id we registered in `initialize` (`hook_0`, ...).
        callback_id: opt String = "callback_id",
        /// What the hook is told.
        input: opt HookInput = "input",
        /// The tool call involved, if any.
        tool_use_id: opt String = "tool_use_id",
    }
}

wire_struct! {
    /// The members every hook input has.
    #[derive(Default)]
    pub struct HookCommon = "hook input", builder HookCommonBuilder {
        /// The CLI's session id.
        session_id: opt String = "session_id",
        /// Path of the session's transcript file.
        transcript_path: opt String = "transcript_path",
        /// Working directory.
        cwd: opt String = "cwd",
        /// The permission mode in force.
        permission_mode: opt String = "permission_mode",
    }
}

/// A hook's input: the common members plus the per-event ones, chosen by
/// `hook_event_name`. Members neither part models are kept in the event's
/// `extra` (or `raw` for unknown events).
#[derive(Debug, Clone, PartialEq)]
pub struct HookInput {
    /// `session_id`, `transcript_path`, `cwd`, `permission_mode`.
    pub common: HookCommon,
    /// `hook_event_name` and the event's own members.
    pub event: HookEvent,
}

impl HookInput {
    /// The `hook_event_name`.
    pub fn hook_event_name(&self) -> &str {
        self.event.tag()
    }
}

tagged_enum! {
    /// The per-event part of a hook input, by `hook_event_name`.
    pub enum HookEvent = "hook input", tag "hook_event_name", builder HookEventBuilder {
        /// Before a tool runs.
        PreToolUse(ToolHookInput) = "PreToolUse",
        /// After a tool succeeded.
        PostToolUse(ToolHookInput) = "PostToolUse",
        /// After a tool failed.
        PostToolUseFailure(ToolHookInput) = "PostToolUseFailure",
        /// A user prompt arrived.
        UserPromptSubmit(UserPromptSubmitInput) = "UserPromptSubmit",
        /// The main agent is about to stop.
        Stop(StopInput) = "Stop",
        /// A subagent is about to stop.
        SubagentStop(StopInput) = "SubagentStop",
        /// A subagent started.
        SubagentStart(SubagentStartInput) = "SubagentStart",
        /// Compaction is about to run.
        PreCompact(PreCompactInput) = "PreCompact",
        /// The CLI shows a notification.
        Notification(NotificationInput) = "Notification",
        /// A permission dialog is about to show.
        PermissionRequest(ToolHookInput) = "PermissionRequest",
        @other
        /// An event this version does not model.
        Other { hook_event_name }
    }
}

wire_struct! {
    /// Members of the tool events (`PreToolUse`, `PostToolUse`,
    /// `PostToolUseFailure`, `PermissionRequest`); each sets the ones it has.
    #[derive(Default)]
    pub struct ToolHookInput = "tool hook input", builder ToolHookInputBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The tool's input.
        tool_input: opt Value = "tool_input",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// The tool's output (`PostToolUse`).
        tool_response: opt Value = "tool_response",
        /// The failure (`PostToolUseFailure`).
        error: opt String = "error",
        /// Whether the failure was an interrupt (`PostToolUseFailure`).
        is_interrupt: opt bool = "is_interrupt",
        /// Suggested rule changes (`PermissionRequest`).
        permission_suggestions: opt Vec<PermissionUpdate> = "permission_suggestions",
    }
}

wire_struct! {
    /// `UserPromptSubmit` members.
    #[derive(Default)]
    pub struct UserPromptSubmitInput = "UserPromptSubmit input", builder UserPromptSubmitInputBuilder {
        /// The prompt.
        prompt: opt String = "prompt",
    }
}

wire_struct! {
    /// `Stop` / `SubagentStop` members.
    #[derive(Default)]
    pub struct StopInput = "Stop input", builder StopInputBuilder {
        /// A stop hook already continued the conversation once.
        stop_hook_active: opt bool = "stop_hook_active",
        /// The subagent's id (`SubagentStop`).
        agent_id: opt String = "agent_id",
        /// The subagent's transcript (`SubagentStop`).
        agent_transcript_path: opt String = "agent_transcript_path",
        /// The subagent's type (`SubagentStop`).
        agent_type: opt String = "agent_type",
    }
}

wire_struct! {
    /// `SubagentStart` members.
    #[derive(Default)]
    pub struct SubagentStartInput = "SubagentStart input", builder SubagentStartInputBuilder {
        /// The subagent's id.
        agent_id: opt String = "agent_id",
        /// The subagent's type.
        agent_type: opt String = "agent_type",
    }
}

wire_struct! {
    /// `PreCompact` members.
    #[derive(Default)]
    pub struct PreCompactInput = "PreCompact input", builder PreCompactInputBuilder {
        /// `manual` or `auto`.
        trigger: opt String = "trigger",
        /// Instructions given to `/compact`.
        custom_instructions: opt String = "custom_instructions",
    }
}

wire_struct! {
    /// `Notification` members.
    #[derive(Default)]
    pub struct NotificationInput = "Notification input", builder NotificationInputBuilder {
        /// The notification text.
        message: opt String = "message",
        /// Its title.
        title: opt String = "title",
        /// Its kind.
        notification_type: opt String = "notification_type",
    }
}

/// Routes common members to [`HookCommon`], the rest to the event.
struct HookInputBuilder {
    common: HookCommonBuilder,
    event: HookEventBuilder,
}

impl FieldSink for HookInputBuilder {
    fn field<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D) -> Result<(), D::Error> {
        match key {
            "session_id" | "transcript_path" | "cwd" | "permission_mode" => {
                self.common.field(key, d)
            }
            _ => self.event.field(key, d),
        }
    }
    fn seed_tags(&mut self, tags: Tags<'_>) {
        self.event.seed_tags(tags);
    }
}

impl Serialize for HookInput {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.common.write_fields(&mut m)?;
        self.event.write_tagged(&mut m, None)?;
        m.end()
    }
}

impl<'de> Deserialize<'de> for HookInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V(PhantomData<HookInput>);
        impl<'de> Visitor<'de> for V {
            type Value = HookInput;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hook input object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HookInput, A::Error> {
                let (tag, pending) =
                    de::find_tag(&mut map, Vec::new(), HookEvent::TAG, HookEvent::LABEL)?;
                let mut b = HookInputBuilder {
                    common: HookCommonBuilder::default(),
                    event: HookEvent::select(tag.as_str()),
                };
                let tags = [(HookEvent::TAG, tag.as_str())];
                b.seed_tags(&tags);
                de::drain_into(&mut map, &mut b, pending, &tags)?;
                Ok(HookInput {
                    common: de::finish(b.common)?,
                    event: de::finish(b.event)?,
                })
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}
