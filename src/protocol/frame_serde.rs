//! Serialization and one-pass deserialization of the top-level enums.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use super::de::{self as wire, FieldSink, Pending, RawBuilder, Wire};
use super::{
    ControlCancelRequest, ControlRequest, ControlResponse, EncodeError, Message, StdoutFrame, notes,
};

macro_rules! frame_methods {
    ($($t:ty),*) => {$(
        impl $t {
            /// The JSON text of this frame, `type` included (no trailing newline).
            #[inline]
            pub fn to_json(&self) -> Result<String, EncodeError> {
                super::parse::to_json(&StdoutFrameRef::from(self))
            }
            /// The JSON text plus `\n`, ready to write as one NDJSON line.
            #[inline]
            pub fn to_line(&self) -> Result<String, EncodeError> {
                self.to_json().map(|s| s + "\n")
            }
        }
    )*};
}
frame_methods!(ControlRequest, ControlResponse, ControlCancelRequest);

/// Borrowed control frames, to serialize them with their `type`.
enum StdoutFrameRef<'a> {
    Request(&'a ControlRequest),
    Response(&'a ControlResponse),
    Cancel(&'a ControlCancelRequest),
}

impl<'a> From<&'a ControlRequest> for StdoutFrameRef<'a> {
    fn from(r: &'a ControlRequest) -> Self {
        Self::Request(r)
    }
}
impl<'a> From<&'a ControlResponse> for StdoutFrameRef<'a> {
    fn from(r: &'a ControlResponse) -> Self {
        Self::Response(r)
    }
}
impl<'a> From<&'a ControlCancelRequest> for StdoutFrameRef<'a> {
    fn from(r: &'a ControlCancelRequest) -> Self {
        Self::Cancel(r)
    }
}

impl Serialize for StdoutFrameRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self {
            Self::Request(r) => write_typed(&mut m, "control_request", *r)?,
            Self::Response(r) => write_typed(&mut m, "control_response", *r)?,
            Self::Cancel(r) => write_typed(&mut m, "control_cancel_request", *r)?,
        }
        m.end()
    }
}

fn write_typed<M: SerializeMap, W: Wire>(m: &mut M, kind: &str, w: &W) -> Result<(), M::Error> {
    m.serialize_entry("type", kind)?;
    w.write_fields(m)
}

/// One protocol struct under a known tag (`"type": "user"`, `"subtype":
/// "interrupt"`), written without going through its enum: what the library
/// itself sends is compiled alone, not every variant's writer.
pub(crate) struct TaggedRef<'a, W> {
    pub(crate) key: &'static str,
    pub(crate) tag: &'a str,
    pub(crate) body: &'a W,
}

impl<W: Wire> Serialize for TaggedRef<'_, W> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(self.key, self.tag)?;
        self.body.write_fields(&mut m)?;
        m.end()
    }
}

fn write_message<M: SerializeMap>(m: &mut M, msg: &Message) -> Result<(), M::Error> {
    match msg {
        Message::System(s) => s.write_tagged(m, Some(("type", "system"))),
        Message::Assistant(a) => write_typed(m, "assistant", &**a),
        Message::User(u) => write_typed(m, "user", &**u),
        Message::Result(r) => write_typed(m, "result", &**r),
        Message::StreamEvent(e) => write_typed(m, "stream_event", &**e),
        Message::RateLimitEvent(e) => write_typed(m, "rate_limit_event", &**e),
        Message::ConversationReset(e) => write_typed(m, "conversation_reset", &**e),
        Message::TranscriptMirror(e) => write_typed(m, "transcript_mirror", &**e),
        Message::ToolProgress(e) => write_typed(m, "tool_progress", &**e),
        Message::ToolUseSummary(e) => write_typed(m, "tool_use_summary", &**e),
        Message::AuthStatus(e) => write_typed(m, "auth_status", &**e),
        Message::PromptSuggestion(e) => write_typed(m, "prompt_suggestion", &**e),
        Message::ActiveGoal(e) => write_typed(m, "active_goal", &**e),
        Message::ApiMetrics(e) => write_typed(m, "api_metrics", &**e),
        Message::CommandLifecycle(e) => write_typed(m, "command_lifecycle", &**e),
        Message::KeepAlive(e) => write_typed(m, "keep_alive", &**e),
        Message::Unknown { raw, .. } => raw.iter().try_for_each(|(k, v)| m.serialize_entry(k, v)),
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        write_message(&mut m, self)?;
        m.end()
    }
}

impl Serialize for StdoutFrame {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Message(msg) => msg.serialize(s),
            Self::ControlRequest(r) => StdoutFrameRef::Request(r).serialize(s),
            Self::ControlResponse(r) => StdoutFrameRef::Response(r).serialize(s),
            Self::ControlCancelRequest(r) => StdoutFrameRef::Cancel(r).serialize(s),
        }
    }
}

/// Reads the rest of a message whose `type` is `kind`.
fn message_rest<'de, A: MapAccess<'de>>(
    kind: &str,
    mut map: A,
    pending: Pending<'de>,
) -> Result<Message, A::Error> {
    let tags = [("type", kind)];
    Ok(match kind {
        "assistant" => Message::Assistant(Box::new(wire::visit_struct(map, pending, &tags)?)),
        "stream_event" => Message::StreamEvent(Box::new(wire::visit_struct(map, pending, &tags)?)),
        "user" => Message::User(Box::new(wire::visit_struct(map, pending, &tags)?)),
        "system" => Message::System(wire::visit_tagged(map, pending, Some(("type", "system")))?),
        "result" => Message::Result(Box::new(wire::visit_struct(map, pending, &tags)?)),
        "rate_limit_event" => {
            Message::RateLimitEvent(Box::new(wire::visit_struct(map, pending, &tags)?))
        }
        "conversation_reset" => {
            Message::ConversationReset(Box::new(wire::visit_struct(map, pending, &tags)?))
        }
        "transcript_mirror" => {
            Message::TranscriptMirror(Box::new(wire::visit_struct(map, pending, &tags)?))
        }
        "tool_progress" => {
            Message::ToolProgress(Box::new(wire::visit_struct(map, pending, &tags)?))
        }
        "tool_use_summary" => {
            Message::ToolUseSummary(Box::new(wire::visit_struct(map, pending, &tags)?))
        }
        "auth_status" => Message::AuthStatus(Box::new(wire::visit_struct(map, pending, &tags)?)),
        "prompt_suggestion" => {
            Message::PromptSuggestion(Box::new(wire::visit_struct(map, pending, &tags)?))
        }
        "active_goal" => Message::ActiveGoal(Box::new(wire::visit_struct(map, pending, &tags)?)),
        "api_metrics" => Message::ApiMetrics(Box::new(wire::visit_struct(map, pending, &tags)?)),
        "command_lifecycle" => {
            Message::CommandLifecycle(Box::new(wire::visit_struct(map, pending, &tags)?))
        }
        "keep_alive" => Message::KeepAlive(Box::new(wire::visit_struct(map, pending, &tags)?)),
        _ => {
            let mut b = RawBuilder::new(kind);
            b.seed_tags(&tags);
            wire::drain_into(&mut map, &mut b, pending, &tags)?;
            Message::Unknown {
                kind: b.tag,
                raw: b.map,
            }
        }
    })
}

struct FrameVisitor;

impl<'de> Visitor<'de> for FrameVisitor {
    type Value = StdoutFrame;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a stream-json object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StdoutFrame, A::Error> {
        let (tag, pending) = wire::find_tag(&mut map, Vec::new(), "type", "frame")?;
        let kind = tag.as_str();
        let tags = [("type", kind)];
        Ok(match kind {
            "control_request" => {
                StdoutFrame::ControlRequest(Box::new(wire::visit_struct(map, pending, &tags)?))
            }
            "control_response" => {
                StdoutFrame::ControlResponse(Box::new(wire::visit_struct(map, pending, &tags)?))
            }
            "control_cancel_request" => StdoutFrame::ControlCancelRequest(Box::new(
                wire::visit_struct(map, pending, &tags)?,
            )),
            _ => StdoutFrame::Message(message_rest(kind, map, pending)?),
        })
    }
}

impl<'de> Deserialize<'de> for StdoutFrame {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        notes::reset();
        d.deserialize_map(FrameVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a stream-json message object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let (tag, pending) = wire::find_tag(&mut map, Vec::new(), "type", "message")?;
        let kind = tag.as_str();
        if matches!(
            kind,
            "control_request" | "control_response" | "control_cancel_request"
        ) {
            notes::field("message", "type");
            return Err(de::Error::custom(format!(
                "`{kind}` is a control frame, not a message"
            )));
        }
        message_rest(kind, map, pending)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        notes::reset();
        d.deserialize_map(MessageVisitor)
    }
}
