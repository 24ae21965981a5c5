//! The transport wrapper: the CLI's stdout and stdin each pass through a
//! pump task that cuts them into lines, asks the session's [`Engine`] what
//! to do at each, and does it (holds, drops, rewrites, closes).
//!
//! Lines longer than [`MAX_HELD_LINE`] pass through unclassified, piece by
//! piece: a pump never holds more than that in memory. Each pump ends when
//! either of its sides closes; a stall it is in is bounded by its duration.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use claude_agent_actors::channel::{ChannelError, Connection, Transport};
use futures::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};

use super::engine::{Engine, Reply, Step};
use super::signal::Process;
use super::spec::Fault;

/// Longest line a pump holds to classify; longer ones pass through as is.
pub(crate) const MAX_HELD_LINE: usize = 1 << 20;

/// Bytes buffered between a pump and the runtime.
const PIPE_BYTES: usize = 64 * 1024;

/// Where a connected session's engine is put, for the callback and store
/// wrappers and the report.
pub(crate) type EngineSlot = Arc<Mutex<Option<Arc<Engine>>>>;

/// A [`Transport`] whose pipes and process the plan's faults act on.
pub(crate) struct FaultTransport {
    pub(crate) inner: Box<dyn Transport>,
    pub(crate) faults: Vec<Fault>,
    pub(crate) seed: u64,
    pub(crate) slot: EngineSlot,
}

impl Transport for FaultTransport {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn connect(self: Box<Self>) -> BoxFuture<'static, Result<Connection, ChannelError>> {
        Box::pin(async move {
            let this = *self;
            let conn = this.inner.connect().await?;
            let process = Process::new(conn.control.pid(), conn.control.pgid());
            let engine = Arc::new(Engine::new(this.faults, this.seed, process));
            *crate::extensions::lock(&this.slot) = Some(engine.clone());
            let (stdout_ours, stdout_theirs) = tokio::io::duplex(PIPE_BYTES);
            let (stdin_ours, stdin_theirs) = tokio::io::duplex(PIPE_BYTES);
            crate::task::spawn(stdout_pump(conn.reader, stdout_ours, engine.clone()));
            crate::task::spawn(stdin_pump(stdin_ours, conn.writer, engine));
            Ok(Connection {
                reader: Box::new(stdout_theirs),
                writer: Box::new(stdin_theirs),
                stderr: conn.stderr,
                control: conn.control,
            })
        })
    }
}

/// A line, or a piece of one too long to hold.
enum Piece {
    Line(Vec<u8>),
    Raw(Vec<u8>),
}

/// Cuts a byte stream into lines of at most [`MAX_HELD_LINE`] bytes.
#[derive(Default)]
struct Lines {
    buf: Vec<u8>,
    /// Inside a line too long to hold: its bytes pass through raw.
    passing: bool,
}

impl Lines {
    /// The pieces complete after `bytes` arrived.
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<Piece>) {
        self.buf.extend_from_slice(bytes);
        while let Some(pos) = memchr::memchr(b'\n', &self.buf) {
            let mut line: Vec<u8> = self.buf.drain(..=pos).collect();
            if self.passing {
                self.passing = false;
                out.push(Piece::Raw(line));
            } else {
                line.pop();
                out.push(Piece::Line(line));
            }
        }
        if self.buf.len() > MAX_HELD_LINE || (self.passing && !self.buf.is_empty()) {
            self.passing = true;
            out.push(Piece::Raw(std::mem::take(&mut self.buf)));
        }
    }

    /// What is left at EOF: a last line without its newline.
    fn finish(&mut self) -> Option<Piece> {
        let rest = std::mem::take(&mut self.buf);
        match (rest.is_empty(), self.passing) {
            (true, _) => None,
            (false, true) => Some(Piece::Raw(rest)),
            (false, false) => Some(Piece::Line(rest)),
        }
    }
}

async fn sleep_until(until: Instant) {
    tokio::time::sleep_until(until.into()).await;
}

/// The CLI's stdout to the runtime, line by line, with the faults' steps
/// around each line.
async fn stdout_pump(
    mut from: Box<dyn AsyncRead + Send + Unpin>,
    mut to: DuplexStream,
    engine: Arc<Engine>,
) {
    let mut lines = Lines::default();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut pieces = Vec::new();
    loop {
        let n = tokio::select! {
            biased;
            () = engine.close_stdout.cancelled() => return,
            n = from.read(&mut chunk) => n.unwrap_or(0),
        };
        if n == 0 {
            pieces.extend(lines.finish());
        } else {
            lines.feed(&chunk[..n], &mut pieces);
        }
        for piece in pieces.drain(..) {
            if let Some(until) = engine.stdout_hold() {
                sleep_until(until).await;
            }
            let open = match piece {
                Piece::Raw(bytes) => to.write_all(&bytes).await.is_ok(),
                Piece::Line(line) => deliver(&line, &mut to, &engine).await,
            };
            if !open || engine.close_stdout.is_cancelled() {
                return;
            }
        }
        if n == 0 {
            return;
        }
    }
}

/// One stdout line with its faults; false once the pipe is closed.
async fn deliver(line: &[u8], to: &mut DuplexStream, engine: &Engine) -> bool {
    let plan = engine.on_stdout_line(line);
    if !steps(&plan.before, to).await {
        return false;
    }
    let line = plan.replace.as_deref().unwrap_or(line);
    if to.write_all(line).await.is_err() || to.write_all(b"\n").await.is_err() {
        return false;
    }
    steps(&plan.after, to).await
}

async fn steps(steps: &[Step], to: &mut DuplexStream) -> bool {
    for step in steps {
        match step {
            Step::Stall(d) => tokio::time::sleep(*d).await,
            Step::Close => return false,
            Step::Inject(line) => {
                if to.write_all(line).await.is_err() || to.write_all(b"\n").await.is_err() {
                    return false;
                }
            }
        }
    }
    true
}

/// The runtime's stdin writes to the CLI, line by line: held by a stall,
/// a reply dropped or delayed; the EOF passed on after the `stdin-eof`
/// faults.
async fn stdin_pump(
    mut from: DuplexStream,
    mut to: Box<dyn AsyncWrite + Send + Unpin>,
    engine: Arc<Engine>,
) {
    let mut lines = Lines::default();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut pieces = Vec::new();
    loop {
        let n = tokio::select! {
            biased;
            () = engine.close_stdin.cancelled() => break,
            n = from.read(&mut chunk) => n.unwrap_or(0),
        };
        if n == 0 {
            pieces.extend(lines.finish());
        } else {
            lines.feed(&chunk[..n], &mut pieces);
        }
        for piece in pieces.drain(..) {
            let ok = match piece {
                Piece::Raw(bytes) => to.write_all(&bytes).await.is_ok(),
                Piece::Line(mut line) => {
                    let (hold, reply) = engine.on_stdin_line(&line);
                    if let Some(until) = hold {
                        sleep_until(until).await;
                    }
                    match reply {
                        Reply::Drop => continue,
                        Reply::Delay(d) => tokio::time::sleep(d).await,
                        Reply::Pass => {}
                    }
                    line.push(b'\n');
                    to.write_all(&line).await.is_ok() && to.flush().await.is_ok()
                }
            };
            // The CLI's stdin is gone: dropping `from` fails the runtime's
            // next write, as the closed pipe itself would.
            if !ok {
                return;
            }
        }
        if n == 0 {
            if let Some(until) = engine.on_stdin_eof() {
                sleep_until(until).await;
            }
            break;
        }
    }
    let _ = to.shutdown().await;
}
