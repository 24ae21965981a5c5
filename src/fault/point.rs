//! Where a fault fires: a stdout frame of a kind (the Nth, or each one by
//! chance), the runtime closing the CLI's stdin, or the store mirror's
//! final flush.

use std::fmt;

/// Whether a fault at a frame acts before the runtime reads the frame or
/// just after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Before the frame reaches the runtime.
    Before,
    /// Right after the frame reached the runtime (the default).
    After,
}

/// A kind of frame the CLI writes on stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameKind {
    /// Any frame.
    Any,
    /// The `system` frame of subtype `init`.
    Init,
    /// Any `system` frame.
    System,
    /// An `assistant` message.
    Assistant,
    /// A `user` message (tool results the CLI echoes).
    User,
    /// A `result`: the end of a turn.
    Result,
    /// A `stream_event` (partial messages).
    StreamEvent,
    /// A control request from the CLI, of this subtype when given
    /// (`can_use_tool`, `hook_callback`, `mcp_message`, ...).
    ControlRequest(Option<String>),
    /// The CLI's reply to one of our control requests.
    ControlResponse,
}

impl FrameKind {
    /// Whether a frame of `kind` (its `type`) and `subtype` (the `system`
    /// subtype or the control request's `request.subtype`) is of this kind.
    pub(crate) fn matches(&self, kind: &str, subtype: Option<&str>) -> bool {
        match self {
            Self::Any => true,
            Self::Init => kind == "system" && subtype == Some("init"),
            Self::System => kind == "system",
            Self::Assistant => kind == "assistant",
            Self::User => kind == "user",
            Self::Result => kind == "result",
            Self::StreamEvent => kind == "stream_event",
            Self::ControlRequest(None) => kind == "control_request",
            Self::ControlRequest(Some(s)) => kind == "control_request" && subtype == Some(s),
            Self::ControlResponse => kind == "control_response",
        }
    }

    /// Whether this kind is a control request from the CLI (a point that
    /// has a request to reply to).
    pub(crate) fn is_control_request(&self) -> bool {
        matches!(self, Self::ControlRequest(_))
    }
}

impl fmt::Display for FrameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Any => f.write_str("frame"),
            Self::Init => f.write_str("init"),
            Self::System => f.write_str("system"),
            Self::Assistant => f.write_str("assistant"),
            Self::User => f.write_str("user"),
            Self::Result => f.write_str("result"),
            Self::StreamEvent => f.write_str("stream_event"),
            Self::ControlRequest(None) => f.write_str("control_request"),
            Self::ControlRequest(Some(s)) if s == "hook_callback" => f.write_str("hook_callback"),
            Self::ControlRequest(Some(s)) if s == "mcp_message" => f.write_str("mcp_message"),
            Self::ControlRequest(Some(s)) => write!(f, "control_request.{s}"),
            Self::ControlResponse => f.write_str("control_response"),
        }
    }
}

/// Where a fault fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Point {
    /// The `n`th stdout frame of `kind` (counting from 1).
    Frame {
        /// Before or after the frame reaches the runtime.
        when: When,
        /// Which frames count.
        kind: FrameKind,
        /// Which of them (1 = the first).
        n: u64,
    },
    /// Each stdout frame of `kind`, with a chance of `percent` in 100,
    /// drawn from the plan's seed: the same seed, the same frames.
    Random {
        /// Before or after the frame reaches the runtime.
        when: When,
        /// Which frames count.
        kind: FrameKind,
        /// The chance, 1..=100.
        percent: u8,
    },
    /// The runtime closes the CLI's stdin (the start of every ordered
    /// shutdown); the fault acts before the CLI reads the EOF.
    StdinEof,
    /// The session-store mirror's final flush: its appends after the
    /// runtime closed the CLI's stdin.
    MidFlush,
}

impl Point {
    /// The frame kind this point watches, if it is at a frame.
    pub(crate) fn frame_kind(&self) -> Option<&FrameKind> {
        match self {
            Self::Frame { kind, .. } | Self::Random { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// Before or after its frame (`After` for points not at a frame).
    pub(crate) fn when(&self) -> When {
        match self {
            Self::Frame { when, .. } | Self::Random { when, .. } => *when,
            _ => When::After,
        }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = |when: &When| match when {
            When::Before => "before:",
            When::After => "",
        };
        match self {
            Self::Frame { when, kind, n } => write!(f, "{}{kind}:{n}", prefix(when)),
            Self::Random {
                when,
                kind,
                percent,
            } => write!(f, "{}random:{kind}:{percent}", prefix(when)),
            Self::StdinEof => f.write_str("stdin-eof"),
            Self::MidFlush => f.write_str("mid-flush"),
        }
    }
}
