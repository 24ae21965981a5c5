//! `ReaderActor`: the ONE stdout read loop, framing and routing.
//!
//! The loop is a task owned by the actor (stopping or killing the actor
//! aborts it), and tells the actor how it ended (`ReaderMsg::LoopEnded`);
//! the actor reports that to the supervisor. Consumer frames go straight
//! into the byte-bounded queue; replies to our requests are cast to
//! `ControlDispatch`; the CLI's requests are admitted by the loop itself
//! (`admission.rs`, in line order) and handed to a new `Handler` actor with
//! their reply token. A request it cannot admit (a duplicate id, or one
//! arriving during shutdown) gets a token too, spent at once on the error
//! reply; the reader writes nothing to stdin itself.

pub(crate) mod admission;
pub(crate) mod envelope;
pub mod framing;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::FutureExt;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use tokio::io::AsyncRead;
use tokio_util::sync::CancellationToken;
use tokio_util::task::AbortOnDropHandle;
use tracing::Instrument;

use crate::session::backpressure::{Admit, Batcher, FrameSender};

use crate::dispatch::handler::{HandlerActor, HandlerArgs, InboundHandler};
use crate::dispatch::inbound::{InboundRequest, RawRequest};
use crate::dispatch::msg::DispatchMsg;
use crate::events::{Counters, Diagnostic, SkipReason, prefix_of};
use crate::reader::admission::Admission;
use crate::reader::envelope::{Envelope, OversizedKind, Unroutable};
use crate::reader::framing::{Line, LineReader};
use crate::session::config::{DivertRoom, FrameDivert};
use crate::session::frame::Frame;
use crate::session::record::SessionRecord;
use crate::session::tap::WireDirection;
use crate::supervisor::msg::SupervisorMsg;
use crate::transport::stdin_queue::StdinTx;

/// How much of a skipped line a diagnostic carries.
const DIAG_PREFIX: usize = 200;

pub(crate) type BoxReader = Box<dyn AsyncRead + Send + Unpin>;

/// How the read loop ended.
#[derive(Debug)]
pub(crate) enum LoopEnd {
    /// Stdout reached EOF; every frame read was handed on.
    Eof,
    /// Reading stdout failed, or the loop panicked.
    Failed(String),
}

/// What the reader hears: from its own read loop, how it ended.
pub(crate) enum ReaderMsg {
    LoopEnded(LoopEnd),
}

pub(crate) struct ReaderArgs {
    pub(crate) stdout: BoxReader,
    pub(crate) max_line_bytes: usize,
    pub(crate) frames: FrameSender,
    pub(crate) divert: Option<FrameDivert>,
    pub(crate) divert_room: Option<DivertRoom>,
    pub(crate) dispatch: ActorRef<DispatchMsg>,
    pub(crate) callback: Arc<dyn InboundHandler>,
    pub(crate) handler_timeout: Option<Duration>,
    pub(crate) supervisor: ActorRef<SupervisorMsg>,
    /// For the reply tokens the admission makes.
    pub(crate) stdin: Arc<StdinTx>,
    /// The parent of every request's cancellation token; the shutdown
    /// cancels it.
    pub(crate) inbound_cancel: CancellationToken,
    /// Latched when nobody reads stdout any more.
    pub(crate) stdout_done: CancellationToken,
    pub(crate) shared: Arc<SessionRecord>,
}

pub(crate) struct ReaderState {
    task: AbortOnDropHandle<()>,
    supervisor: ActorRef<SupervisorMsg>,
}

/// The reader actor.
pub(crate) struct ReaderActor;

/// What routing a line left to wait for.
enum Then {
    Done,
    /// A CLI request: spawn its handler.
    StartHandler(InboundRequest),
    /// A frame for the consumer, whose queue is full.
    WaitForRoom(Frame),
    /// The divert took the frame, and its receiver is full.
    WaitForDivertRoom(futures::future::BoxFuture<'static, ()>),
}

struct Loop {
    frames: Batcher,
    divert: Option<FrameDivert>,
    divert_room: Option<DivertRoom>,
    consumer_gone: bool,
    dispatch: ActorRef<DispatchMsg>,
    callback: Arc<dyn InboundHandler>,
    handler_timeout: Option<Duration>,
    admission: Admission,
    shared: Arc<SessionRecord>,
}

impl Loop {
    /// Admits a CLI request and spawns its handler, linked to dispatch: the
    /// handler's `pre_start` runs here, its callback on its own task, so a
    /// request crosses no mailbox before its callback runs. A handler that
    /// fails to spawn drops its token, which answers with an error.
    async fn start_handler(&mut self, request: InboundRequest) {
        // A refused request has had its one reply (its token's) already.
        let Some(token) = self.admission.admit(&request.request_id) else {
            return;
        };
        let args = HandlerArgs {
            request,
            callback: self.callback.clone(),
            token,
            timeout: self.handler_timeout,
            shared: self.shared.clone(),
        };
        if let Err(e) =
            Actor::spawn_linked(None, HandlerActor, args, self.dispatch.get_cell()).await
        {
            tracing::warn!(parent: &self.shared.span, error = %e, "an inbound handler did not start");
        }
    }

    fn skipped(&self, reason: SkipReason, line: &[u8]) {
        self.shared.diagnostic(Diagnostic::LineSkipped {
            reason,
            prefix: prefix_of(line, DIAG_PREFIX),
        });
    }

    fn route(&mut self, line: Bytes) -> Then {
        // A divert sees a plain frame before the envelope scan when the
        // line names its type first (the CLI's key order): a flood of
        // frames it takes (the session mirror's) costs no scan. A frame it
        // leaves goes the usual way, without being offered twice.
        if let (Some(divert), Some(kind)) = (&mut self.divert, envelope::leading_plain_kind(&line))
        {
            let frame = Frame { kind, line };
            if divert(&frame) {
                return self.divert_taken();
            }
            return self.route_scanned(frame.line, true);
        }
        self.route_scanned(line, false)
    }

    /// Routes `line` by its scanned envelope; `offered`: the divert has
    /// seen it already.
    fn route_scanned(&mut self, line: Bytes, offered: bool) -> Then {
        let env = match envelope::peek(&line) {
            Ok(env) => env,
            Err(Unroutable::NotJson) => {
                self.skipped(SkipReason::NotJson, &line);
                return Then::Done;
            }
            Err(Unroutable::Malformed) => {
                self.skipped(SkipReason::Malformed, &line);
                return Then::Done;
            }
        };
        let msg = match env {
            Envelope::ControlResponse {
                request_id,
                outcome,
            } => DispatchMsg::Response {
                id: request_id,
                outcome,
            },
            Envelope::ControlRequest {
                request_id,
                subtype,
                request,
            } => {
                // The line itself goes on: the handler decodes the span once.
                let request = match request {
                    Some(span) => match RawRequest::in_line(line.clone(), span) {
                        Some(r) => r,
                        None => {
                            self.skipped(SkipReason::Malformed, &line);
                            return Then::Done;
                        }
                    },
                    None => RawRequest::null(),
                };
                let request = InboundRequest {
                    request_id,
                    subtype,
                    request,
                };
                return Then::StartHandler(request);
            }
            Envelope::ControlCancel { request_id } => {
                self.admission.cancel(&request_id);
                return Then::Done;
            }
            Envelope::Message {
                kind,
                init_session_id,
            } => {
                if let Some(id) = init_session_id {
                    self.shared.record_session_id(id);
                }
                if kind == "result" {
                    self.shared.turn_ended();
                }
                return self.deliver(Frame { kind, line }, offered);
            }
        };
        let _ = self.dispatch.cast(msg);
        Then::Done
    }

    /// Queues `frame` for the consumer, unless the divert (when it was not
    /// `offered` the frame already) takes it.
    fn deliver(&mut self, frame: Frame, offered: bool) -> Then {
        if let Some(divert) = self.divert.as_mut().filter(|_| !offered) {
            if divert(&frame) {
                return self.divert_taken();
            }
        }
        if self.consumer_gone {
            self.delivered(Admit::ConsumerGone);
            return Then::Done;
        }
        match self.frames.try_push(frame) {
            Ok(admit) => {
                self.delivered(admit);
                Then::Done
            }
            Err(frame) => Then::WaitForRoom(frame),
        }
    }

    /// Queues `frame` once the consumer's queue has room.
    async fn deliver_when_room(&mut self, frame: Frame) {
        let admit = self.frames.push(frame).await;
        self.delivered(admit);
    }

    fn delivered(&mut self, admit: Admit) {
        let c = &self.shared.counters;
        if !self.consumer_gone && admit == Admit::Queued {
            Counters::add(&c.frames_to_consumer, 1);
        } else {
            self.consumer_gone = true;
            Counters::add(&c.frames_discarded, 1);
        }
    }

    /// Routes one complete line, waiting only where routing says so. The
    /// waits are boxed (or boxed already): they are rare (a CLI request, a
    /// full queue), and inline they would size the loop's future, which
    /// lives as long as the session, for them.
    async fn route_line(&mut self, line: Bytes) {
        match self.route(line) {
            Then::Done => {}
            Then::StartHandler(request) => Box::pin(self.start_handler(request)).await,
            Then::WaitForRoom(frame) => Box::pin(self.deliver_when_room(frame)).await,
            Then::WaitForDivertRoom(wait) => {
                // Send the consumer's batch first, so that nothing already
                // read waits too (a turn's `result` among it).
                self.frames.flush();
                wait.await;
            }
        }
    }

    /// After the divert took a frame: whether to read no more until its
    /// receiver has room (backpressure to the CLI).
    fn divert_taken(&mut self) -> Then {
        match self.divert_room.as_mut().and_then(|room| room()) {
            Some(wait) => Then::WaitForDivertRoom(wait),
            None => Then::Done,
        }
    }

    fn oversized(&self, prefix: &[u8], len: u64) {
        self.skipped(SkipReason::Oversized { len }, prefix);
        match envelope::scan_oversized_prefix(prefix) {
            OversizedKind::ControlRequest(id) => {
                let _ = self.dispatch.cast(DispatchMsg::RejectOversized { id, len });
            }
            OversizedKind::ControlResponse(id) => {
                self.shared
                    .diagnostic(Diagnostic::OversizedControlResponse {
                        request_id: id.clone(),
                    });
                let _ = self.dispatch.cast(DispatchMsg::Response {
                    id,
                    outcome: Err(format!("the reply was {len} bytes, over max_line_bytes")),
                });
            }
            OversizedKind::Other => {}
        }
    }
}

/// Lines handled per burst before the batch is flushed.
const MAX_BURST: usize = 256;

/// The next line; with `now` set, only if it is available without waiting.
async fn next(
    lines: &mut LineReader<BoxReader>,
    now: bool,
) -> Option<std::io::Result<Option<Line>>> {
    if now {
        lines.next_line().now_or_never()
    } else {
        Some(lines.next_line().await)
    }
}

async fn read_loop(stdout: BoxReader, max_line_bytes: usize, mut lp: Loop) -> LoopEnd {
    let mut lines = LineReader::new(stdout, max_line_bytes);
    let mut burst = 0usize;
    let mut end = LoopEnd::Eof;
    loop {
        // Handle what is already buffered without waiting, then send the
        // consumer's frames as one batch before waiting for more: one
        // wake-up per burst instead of one per frame. A long burst is
        // sent every MAX_BURST lines. The loop waits only with nothing
        // held back (burst 0): a turn's last frame must not sit in the
        // batch while the CLI, its turn over, writes nothing more.
        if burst >= MAX_BURST {
            lp.frames.flush();
            burst = 0;
        }
        let line = match next(&mut lines, burst > 0).await {
            None => {
                lp.frames.flush();
                burst = 0;
                continue;
            }
            Some(Ok(Some(line))) => line,
            Some(Ok(None)) => break,
            Some(Err(e)) => {
                lp.shared.diagnostic(Diagnostic::ReadError {
                    message: e.to_string(),
                });
                end = LoopEnd::Failed(e.to_string());
                break;
            }
        };
        burst += 1;
        lp.shared.touch();
        Counters::add(&lp.shared.counters.frames_in, 1);
        Counters::set(&lp.shared.counters.bytes_in, lines.bytes_read());
        if let Line::Complete(bytes) = &line {
            lp.shared.tap(WireDirection::In, bytes);
        }
        match line {
            Line::Complete(bytes) => lp.route_line(bytes).await,
            Line::Oversized { prefix, len } => lp.oversized(&prefix, len),
            Line::TruncatedAtEof(bytes) => lp.skipped(SkipReason::TruncatedAtEof, &bytes),
        }
    }
    // Send the rest and drop our end of the consumer queue before announcing
    // EOF, so the shutdown's final item is always last.
    lp.frames.flush();
    drop(lp.frames);
    end
}

impl Actor for ReaderActor {
    type Msg = ReaderMsg;
    type State = ReaderState;
    type Arguments = ReaderArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<ReaderMsg>,
        args: ReaderArgs,
    ) -> Result<ReaderState, ActorProcessingErr> {
        let span = args.shared.span.clone();
        let admission = Admission::new(args.inbound_cancel, args.stdin, args.shared.clone());
        let lp = Loop {
            frames: args.frames.batcher(),
            divert: args.divert,
            divert_room: args.divert_room,
            consumer_gone: false,
            dispatch: args.dispatch,
            callback: args.callback,
            handler_timeout: args.handler_timeout,
            admission,
            shared: args.shared,
        };
        let shared = lp.shared.clone();
        let stdout_done = args.stdout_done;
        let (stdout, max_line_bytes) = (args.stdout, args.max_line_bytes);
        // The loop's future is made inside the task, not captured by it: a
        // captured future would be stored twice in the task (as the
        // capture and as the future being polled), and this task lives as
        // long as the session.
        let task = crate::task::spawn(
            async move {
                let run = read_loop(stdout, max_line_bytes, lp);
                // However the loop ends (EOF, a panic, or the actor killed
                // and this task aborted), nobody reads stdout after it: the
                // shutdown must not wait for an EOF that no one will see.
                let _latch = stdout_done.clone().drop_guard();
                // A panic in the loop (framing, a user's wire tap) must end
                // the session through the ordered path, not stall it.
                let end = match AssertUnwindSafe(run).catch_unwind().await {
                    Ok(end) => end,
                    Err(_) => {
                        let message = "the stdout read loop panicked".to_owned();
                        shared.diagnostic(Diagnostic::ReadError {
                            message: message.clone(),
                        });
                        LoopEnd::Failed(message)
                    }
                };
                stdout_done.cancel();
                let _ = myself.cast(ReaderMsg::LoopEnded(end));
            }
            .instrument(span),
        );
        Ok(ReaderState {
            task: AbortOnDropHandle::new(task),
            supervisor: args.supervisor,
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<ReaderMsg>,
        msg: ReaderMsg,
        st: &mut ReaderState,
    ) -> Result<(), ActorProcessingErr> {
        let ReaderMsg::LoopEnded(end) = msg;
        let _ = st.supervisor.cast(match end {
            LoopEnd::Eof => SupervisorMsg::StdoutEof,
            LoopEnd::Failed(reason) => SupervisorMsg::ReadFailed(reason),
        });
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<ReaderMsg>,
        st: &mut ReaderState,
    ) -> Result<(), ActorProcessingErr> {
        // Wait for the loop to be gone (not just told to go), so nothing it
        // holds can reach the consumer after the shutdown's final item.
        st.task.abort();
        let _ = (&mut st.task).await;
        Ok(())
    }
}
