//! The consumer's side: frames other than control traffic, in order.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::sync::mpsc;

use crate::error::SessionError;
use crate::session::budget::{Budget, Item};
use crate::session::frame::Frame;

/// The consumer's stream of frames, in the order the CLI printed them.
///
/// After the CLI's output ends: if a turn was open (a `user` frame was sent
/// and no `result` followed), one final
/// `Err(SessionError::ClosedBeforeResult { exit, stderr_tail })`; then `None`.
/// The queue is bounded in bytes (`max_buffered_bytes`); while it is full the
/// session's reader waits, so not reading eventually pauses the session.
/// Dropping the stream discards further frames (control traffic goes on).
#[derive(Debug)]
pub struct FrameStream {
    rx: mpsc::UnboundedReceiver<Item>,
    budget: Arc<Budget>,
    /// The batch being handed out, and the permits it holds.
    current: std::vec::IntoIter<Frame>,
    held: u32,
}

impl FrameStream {
    pub(crate) fn new(rx: mpsc::UnboundedReceiver<Item>, budget: Arc<Budget>) -> Self {
        Self {
            rx,
            budget,
            current: Vec::new().into_iter(),
            held: 0,
        }
    }

    /// The next frame (same as `StreamExt::next`).
    pub async fn recv(&mut self) -> Option<Result<Frame, SessionError>> {
        futures::future::poll_fn(|cx| self.poll_item(cx)).await
    }

    fn poll_item(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Frame, SessionError>>> {
        loop {
            if let Some(frame) = self.current.next() {
                if self.current.len() == 0 {
                    // The batch's bytes are returned once all of it was taken.
                    self.budget.release(std::mem::take(&mut self.held));
                }
                return Poll::Ready(Some(Ok(frame)));
            }
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(Item::Batch(frames, held))) => {
                    self.current = frames.into_iter();
                    self.held = held;
                }
                Poll::Ready(Some(Item::End(err))) => return Poll::Ready(Some(Err(*err))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl Stream for FrameStream {
    type Item = Result<Frame, SessionError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().poll_item(cx)
    }
}

impl Drop for FrameStream {
    fn drop(&mut self) {
        self.budget.close();
    }
}
