//! `hook_callback` requests and the hook input they carry: the common
//! members here, the per-event part in [`event`], the event inputs by
//! family in [`tool`], [`session`] and [`workspace`].

pub mod event;
pub mod session;
pub mod tool;
pub mod workspace;

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use self::event::{HookEvent, HookEventBuilder};
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
        /// Correlates a prompt with the events until the next one (absent
        /// before the first prompt).
        prompt_id: opt String = "prompt_id",
        /// The turn's reasoning effort, `{"level": "medium"}`.
        effort: opt Value = "effort",
    }
}

/// A hook's input: the common members plus the per-event ones, chosen by
/// `hook_event_name`. Members neither part models are kept in the event's
/// `extra` (or `raw` for unknown events).
#[derive(Debug, Clone, PartialEq)]
pub struct HookInput {
    /// `session_id`, `transcript_path`, `cwd`, `permission_mode`,
    /// `prompt_id`, `effort`. (`agent_id` and `agent_type` stay with the
    /// event: the subagent events model them, the others keep them in
    /// their `extra`.)
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

/// Routes common members to [`HookCommon`], the rest to the event.
struct HookInputBuilder {
    common: HookCommonBuilder,
    event: HookEventBuilder,
}

impl FieldSink for HookInputBuilder {
    fn field<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D) -> Result<(), D::Error> {
        match key {
            "session_id" | "transcript_path" | "cwd" | "permission_mode" | "prompt_id"
            | "effort" => self.common.field(key, d),
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
