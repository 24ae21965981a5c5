//! Typed message streams over the runtime's frame queue.

use std::sync::Arc;

use claude_agent_actors::FrameStream;
use futures::StreamExt;
use futures::stream::{self, BoxStream};
use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::protocol::{Message, parse_message};
use crate::transcript::TranscriptRecorder;
use crate::{Error, Result};

/// Where a message stream stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Until {
    /// At the end of the session's output.
    End,
    /// After the first `result` frame (inclusive).
    Result,
}

/// One frame for the consumer: its envelope `type` (known even when typed
/// parsing fails, so a malformed `result` still ends a turn) and the typed
/// message or why there is none.
pub(crate) struct Received {
    pub(crate) kind: Kind,
    pub(crate) message: Result<Message>,
}

/// The envelope-level kind of a received item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A `result` frame: the end of a turn.
    Result,
    /// A `system` frame saying the CLI went idle (nothing queued).
    Idle,
    /// Any other frame.
    Other,
    /// The session's output ended with an error (no frame).
    Failure,
}

struct State {
    transcript: Option<TranscriptRecorder>,
    frames: Arc<Mutex<FrameStream>>,
    guard: Option<OwnedMutexGuard<FrameStream>>,
    until: Until,
    done: bool,
}

/// Typed messages, for the public `receive_*` streams.
pub(crate) fn stream(
    frames: Arc<Mutex<FrameStream>>,
    until: Until,
    transcript: Option<TranscriptRecorder>,
) -> BoxStream<'static, Result<Message>> {
    received(frames, until, transcript)
        .map(|r| r.message)
        .boxed()
}

/// Parses frames as they are read: no task, no second queue, so the
/// runtime's byte cap stays the only buffer (backpressure reaches the CLI).
/// Takes the frame lock on first poll and holds it until the stream ends or
/// is dropped: one reader at a time.
pub(crate) fn received(
    frames: Arc<Mutex<FrameStream>>,
    until: Until,
    transcript: Option<TranscriptRecorder>,
) -> BoxStream<'static, Received> {
    let state = State {
        transcript,
        frames,
        guard: None,
        until,
        done: false,
    };
    Box::pin(stream::unfold(state, |mut st| async move {
        if st.done {
            return None;
        }
        if st.guard.is_none() {
            st.guard = Some(st.frames.clone().lock_owned().await);
        }
        let guard = st.guard.as_mut()?;
        let received = match guard.recv().await {
            None => return None,
            Some(Err(e)) => {
                st.done = true;
                if let Some(t) = &st.transcript {
                    t.record_transport_error(&e.to_string());
                }
                Received {
                    kind: Kind::Failure,
                    message: Err(Error::Session(e)),
                }
            }
            Some(Ok(frame)) => {
                let message = parse_message(&frame.line).map_err(Error::Parse);
                let kind = match frame.kind.as_str() {
                    "result" => Kind::Result,
                    "system" if is_idle(&message) => Kind::Idle,
                    _ => Kind::Other,
                };
                Received { kind, message }
            }
        };
        if let (Some(t), Ok(message)) = (&st.transcript, &received.message) {
            t.record_message(message);
        }
        if st.until == Until::Result && received.kind == Kind::Result {
            st.done = true;
            st.guard = None;
        }
        Some((received, st))
    }))
}

/// `system/session_state_changed` with `state: idle`.
fn is_idle(message: &Result<Message>) -> bool {
    use crate::protocol::{SessionState, SystemMessage};
    matches!(
        message,
        Ok(Message::System(SystemMessage::SessionStateChanged(s)))
            if s.state == Some(SessionState::Idle)
    )
}
