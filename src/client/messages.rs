//! Typed message streams over the runtime's frame queue.

use std::sync::Arc;

use claude_agent_actors::{Frame, FrameStream, SessionError};
use futures::StreamExt;
use futures::stream::{self, BoxStream};
use tokio::sync::{Mutex, OwnedMutexGuard, mpsc};

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

/// What the consumer reads: the CLI's frames, and messages the SDK itself
/// adds to the stream (a session store's `mirror_error`).
pub(crate) struct Inbound {
    frames: FrameStream,
    injected: Option<mpsc::Receiver<Message>>,
}

enum Incoming {
    Frame(std::result::Result<Frame, SessionError>),
    Injected(Message),
}

impl Inbound {
    pub(crate) fn new(frames: FrameStream, injected: Option<mpsc::Receiver<Message>>) -> Self {
        Self { frames, injected }
    }

    /// The next item. After the CLI's output ended, added messages are
    /// still read until their sender is gone (the mirror task ends within
    /// its flush deadline once the output has ended).
    async fn next(&mut self) -> Option<Incoming> {
        let Some(injected) = &mut self.injected else {
            return self.frames.recv().await.map(Incoming::Frame);
        };
        tokio::select! {
            biased;
            Some(m) = injected.recv() => Some(Incoming::Injected(m)),
            frame = self.frames.recv() => match frame {
                Some(f) => Some(Incoming::Frame(f)),
                None => {
                    let m = injected.recv().await;
                    if m.is_none() {
                        self.injected = None;
                    }
                    m.map(Incoming::Injected)
                }
            },
        }
    }
}

struct State {
    transcript: Option<TranscriptRecorder>,
    frames: Arc<Mutex<Inbound>>,
    guard: Option<OwnedMutexGuard<Inbound>>,
    until: Until,
    done: bool,
}

/// Typed messages, for the public `receive_*` streams.
pub(crate) fn stream(
    frames: Arc<Mutex<Inbound>>,
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
    frames: Arc<Mutex<Inbound>>,
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
        let received = match guard.next().await {
            None => return None,
            Some(Incoming::Injected(message)) => Received {
                kind: Kind::Other,
                message: Ok(message),
            },
            Some(Incoming::Frame(Err(e))) => {
                st.done = true;
                if let Some(t) = &st.transcript {
                    t.record_transport_error(&crate::error::report(&e));
                }
                Received {
                    kind: Kind::Failure,
                    message: Err(Error::Session(e)),
                }
            }
            Some(Incoming::Frame(Ok(frame))) => {
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
