//! Typed message streams over the runtime's frame queue.

use std::sync::Arc;

use claude_agent_actors::FrameStream;
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
    /// After the first `result` message (inclusive).
    Result,
}

struct State {
    transcript: Option<TranscriptRecorder>,
    frames: Arc<Mutex<FrameStream>>,
    guard: Option<OwnedMutexGuard<FrameStream>>,
    until: Until,
    done: bool,
}

/// Parses frames as they are read: no task, no second queue, so the
/// runtime's byte cap stays the only buffer (backpressure reaches the CLI).
pub(crate) fn stream(
    frames: Arc<Mutex<FrameStream>>,
    until: Until,
    transcript: Option<TranscriptRecorder>,
) -> BoxStream<'static, Result<Message>> {
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
        let item = match guard.recv().await {
            None => return None,
            Some(Err(e)) => {
                st.done = true;
                if let Some(t) = &st.transcript {
                    t.record_transport_error(&e.to_string());
                }
                Err(Error::Session(e))
            }
            Some(Ok(frame)) => parse_message(&frame.line).map_err(Error::Parse),
        };
        if let (Some(t), Ok(message)) = (&st.transcript, &item) {
            t.record_message(message);
        }
        if st.until == Until::Result && matches!(item, Ok(Message::Result(_))) {
            st.done = true;
            st.guard = None;
        }
        Some((item, st))
    }))
}
