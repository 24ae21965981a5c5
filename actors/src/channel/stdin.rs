//! The CLI's stdin as a writer whose `shutdown` really closes the pipe.
//!
//! `tokio::process::ChildStdin::poll_shutdown` is a no-op: the CLI only sees
//! EOF once the pipe is dropped. Callers of a boxed `AsyncWrite` expect
//! `shutdown` to mean EOF, so this wrapper drops the pipe on shutdown.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::AsyncWrite;
use tokio::process::ChildStdin;

/// Stdin pipe; `shutdown` flushes and closes it (the CLI reads EOF), after
/// which writes fail with `BrokenPipe`.
#[derive(Debug)]
pub(super) struct StdinWriter(Option<ChildStdin>);

impl StdinWriter {
    pub(super) fn new(stdin: ChildStdin) -> Self {
        Self(Some(stdin))
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "stdin already closed")
}

impl AsyncWrite for StdinWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut().0.as_mut() {
            Some(pipe) => Pin::new(pipe).poll_write(cx, buf),
            None => Poll::Ready(Err(closed())),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().0.as_mut() {
            Some(pipe) => Pin::new(pipe).poll_flush(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(pipe) = this.0.as_mut() {
            ready!(Pin::new(pipe).poll_flush(cx))?;
        }
        this.0 = None;
        Poll::Ready(Ok(()))
    }
}
