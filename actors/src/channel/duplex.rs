//! An in-memory channel: no process, the far end is played in-process.
//!
//! Shows what a non-process [`Transport`] looks like (no pid, no signals;
//! `terminate` closes the write side, `kill` aborts both directions), and
//! lets tests play the CLI without spawning anything.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use futures::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio::sync::watch;

use super::{ChannelControl, ChannelError, Connection, Transport};
use crate::process::ExitInfo;

/// An in-memory [`Transport`] built on [`tokio::io::duplex`].
#[derive(Debug)]
pub struct DuplexTransport {
    stdin: Slot,
    stdout: Slot,
    stderr: Slot,
    exit: watch::Receiver<Option<ExitInfo>>,
}

/// The far end of a [`DuplexTransport`]: the test plays the CLI with it.
#[derive(Debug)]
pub struct DuplexFarEnd {
    /// Reads what the session writes (the CLI's stdin).
    pub stdin: DuplexStream,
    /// Writes what the session reads (the CLI's stdout).
    pub stdout: DuplexStream,
    /// Writes the CLI's stderr.
    pub stderr: DuplexStream,
    exit: watch::Sender<Option<ExitInfo>>,
}

impl DuplexFarEnd {
    /// Reports that the far end ended with `code`; the session's
    /// [`ChannelControl::wait`] resolves. Dropping the far end without
    /// calling this ends it without an exit status.
    pub fn exit(&self, code: i32) {
        self.exit.send_replace(Some(ExitInfo {
            code: Some(code),
            signal: None,
        }));
    }
}

impl DuplexTransport {
    /// A transport whose pipes buffer up to `max_buf_size` bytes each, and
    /// the far end to play the CLI with.
    pub fn new(max_buf_size: usize) -> (Self, DuplexFarEnd) {
        let (near_in, far_in) = tokio::io::duplex(max_buf_size);
        let (near_out, far_out) = tokio::io::duplex(max_buf_size);
        let (near_err, far_err) = tokio::io::duplex(max_buf_size);
        let (tx, rx) = watch::channel(None);
        let near = Self {
            stdin: Slot::new(near_in),
            stdout: Slot::new(near_out),
            stderr: Slot::new(near_err),
            exit: rx,
        };
        let far = DuplexFarEnd {
            stdin: far_in,
            stdout: far_out,
            stderr: far_err,
            exit: tx,
        };
        (near, far)
    }
}

impl Transport for DuplexTransport {
    fn kind(&self) -> &'static str {
        "duplex"
    }

    fn connect(self: Box<Self>) -> BoxFuture<'static, Result<Connection, ChannelError>> {
        let control = DuplexControl {
            stdin: self.stdin.clone(),
            stdout: self.stdout.clone(),
            stderr: self.stderr.clone(),
            exit: self.exit,
            aborted: false,
        };
        let conn = Connection {
            reader: Box::new(self.stdout),
            writer: Box::new(self.stdin),
            stderr: Some(Box::new(self.stderr)),
            control: Box::new(control),
        };
        Box::pin(async move { Ok(conn) })
    }
}

/// A pipe end that the control can close from the side: once closed, reads
/// see EOF and writes fail with `BrokenPipe`, and a pending task is woken.
#[derive(Debug, Clone)]
struct Slot(Arc<Mutex<SlotState>>);

#[derive(Debug)]
struct SlotState {
    io: Option<DuplexStream>,
    waker: Option<Waker>,
}

impl Slot {
    fn new(io: DuplexStream) -> Self {
        Self(Arc::new(Mutex::new(SlotState {
            io: Some(io),
            waker: None,
        })))
    }

    // Held only for one non-blocking poll.
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn close(&self) {
        let mut state = self.lock();
        state.io = None; // dropping our end gives the far end EOF / BrokenPipe
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }

    fn poll_with<T>(
        &self,
        cx: &mut Context<'_>,
        closed: T,
        f: impl FnOnce(Pin<&mut DuplexStream>, &mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        let mut state = self.lock();
        let Some(io) = state.io.as_mut() else {
            return Poll::Ready(closed);
        };
        let poll = f(Pin::new(io), cx);
        if poll.is_pending() {
            state.waker = Some(cx.waker().clone());
        }
        poll
    }
}

fn broken() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "channel closed")
}

impl AsyncRead for Slot {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.poll_with(cx, Ok(()), |io, cx| io.poll_read(cx, buf))
    }
}

impl AsyncWrite for Slot {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        self.poll_with(cx, Err(broken()), |io, cx| io.poll_write(cx, b))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_with(cx, Ok(()), |io, cx| io.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_with(cx, Ok(()), |io, cx| io.poll_shutdown(cx))
    }
}

/// [`ChannelControl`] of a [`DuplexTransport`]: no pid, no signals.
#[derive(Debug)]
struct DuplexControl {
    stdin: Slot,
    stdout: Slot,
    stderr: Slot,
    exit: watch::Receiver<Option<ExitInfo>>,
    aborted: bool,
}

/// What an aborted or vanished far end reports.
const NO_STATUS: ExitInfo = ExitInfo {
    code: None,
    signal: None,
};

impl ChannelControl for DuplexControl {
    fn pid(&self) -> Option<u32> {
        None
    }

    fn pgid(&self) -> Option<u32> {
        None
    }

    fn supports_signals(&self) -> bool {
        false
    }

    fn terminate(&mut self) -> io::Result<()> {
        self.stdin.close();
        Ok(())
    }

    fn kill(&mut self) -> io::Result<()> {
        self.stdin.close();
        self.stdout.close();
        self.stderr.close();
        self.aborted = true;
        Ok(())
    }

    fn wait(&mut self) -> BoxFuture<'_, io::Result<ExitInfo>> {
        Box::pin(async move {
            loop {
                if let Some(exit) = self.try_wait()? {
                    return Ok(exit);
                }
                if self.exit.changed().await.is_err() {
                    return Ok(self.try_wait()?.unwrap_or(NO_STATUS));
                }
            }
        })
    }

    fn try_wait(&mut self) -> io::Result<Option<ExitInfo>> {
        if let Some(exit) = *self.exit.borrow() {
            return Ok(Some(exit));
        }
        if self.aborted || self.exit.has_changed().is_err() {
            return Ok(Some(NO_STATUS));
        }
        Ok(None)
    }

    fn cleanup(&mut self) -> io::Result<bool> {
        Ok(false)
    }
}
