//! `TransportActor`: owns the channel's writer and its `ChannelControl`.
//!
//! Two tasks do the waiting so the actor never blocks in `handle`:
//! - the stdin writer task (`stdin_queue.rs`) writes what the senders of the
//!   two-lane, byte-bounded stdin queue could not write at once (they push
//!   there directly, not through this actor); a CLI that stops reading stdin
//!   stalls only that task and the senders' waits for room (escalation
//!   goes through the other task);
//! - the lifecycle task owns the `ChannelControl`, waits for the far end to
//!   end (for a subprocess, once its stdout closed or it was signalled;
//!   `SIGCHLD` ticks before that), and carries out terminate / kill /
//!   cleanup meanwhile.
//!
//! Both are aborted when the actor's state is dropped (stop, kill or panic),
//! which drops the `ChannelControl`; a `ChildProcess` kills its group on drop.

pub(crate) mod msg;
pub(crate) mod stdin_queue;

use std::sync::Arc;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use tokio::io::AsyncWrite;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::AbortOnDropHandle;
use tracing::Instrument;

use crate::channel::ChannelControl;
use crate::events::LifecycleEvent;
use crate::process::ExitInfo;
use crate::session::record::SessionRecord;
use crate::supervisor::msg::SupervisorMsg;
use crate::transport::msg::TransportMsg;
use crate::transport::stdin_queue::StdinTx;

/// The far end has ended; `exit` is its status when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ended {
    pub(crate) exit: Option<ExitInfo>,
}

/// `None` until the far end ended. A closed channel means the lifecycle
/// task is gone (its `ChannelControl` was dropped, which kills the process).
pub(crate) type EndedWatch = watch::Receiver<Option<Ended>>;

enum LifeCmd {
    Terminate,
    Kill,
    Cleanup(RpcReplyPort<Result<bool, String>>),
}

pub(crate) struct TransportArgs {
    pub(crate) writer: Box<dyn AsyncWrite + Send + Unpin>,
    pub(crate) control: Box<dyn ChannelControl>,
    pub(crate) ended: watch::Sender<Option<Ended>>,
    pub(crate) supervisor: ActorRef<SupervisorMsg>,
    /// The stdin queue whose pipe the writer task owns.
    pub(crate) stdin: Arc<StdinTx>,
    pub(crate) shared: Arc<SessionRecord>,
    /// Cancelled when nobody reads the CLI's stdout any more (EOF, mostly).
    pub(crate) stdout_done: CancellationToken,
}

pub(crate) struct TransportState {
    close_stdin: CancellationToken,
    life_tx: mpsc::UnboundedSender<LifeCmd>,
    _writer: AbortOnDropHandle<()>,
    _life: AbortOnDropHandle<()>,
}

/// The transport actor.
pub(crate) struct TransportActor;

/// The lifecycle task's ends: where it announces the far end's end.
struct LifeEnds {
    ended: watch::Sender<Option<Ended>>,
    supervisor: ActorRef<SupervisorMsg>,
    shared: Arc<SessionRecord>,
}

impl LifeEnds {
    fn announce(&self, r: std::io::Result<ExitInfo>) {
        let exit = match r {
            Ok(exit) => Some(exit),
            Err(e) => {
                tracing::warn!(error = %e, "waiting for the CLI failed");
                None
            }
        };
        let _ = self.ended.send(Some(Ended { exit }));
        self.shared.lifecycle(LifecycleEvent::Exited { exit });
        let _ = self.supervisor.cast(SupervisorMsg::FarEndEnded(exit));
    }
}

/// The next `SIGCHLD` tick; never, once the task waits for real.
async fn sigchld_tick(ticks: &mut Option<watch::Receiver<u64>>) -> bool {
    match ticks {
        Some(t) => t.changed().await.is_ok(),
        None => std::future::pending().await,
    }
}

/// Waits for the far end to end and carries out the commands meanwhile.
///
/// A control that [waits lazily](ChannelControl::wait_lazily) is not
/// waited on until its stdout closed (`stdout_done`) or it was signalled:
/// a subprocess's `wait` opens a pidfd, which an idle session need not
/// hold. Until then each `SIGCHLD` tick (see `process::sigchld`) checks
/// `try_wait`, for a CLI that died while a grandchild holds its stdout.
async fn lifecycle_task(
    mut control: Box<dyn ChannelControl>,
    mut rx: mpsc::UnboundedReceiver<LifeCmd>,
    ends: LifeEnds,
    stdout_done: CancellationToken,
) {
    let mut ticks = control.wait_lazily().then(|| {
        let mut t = crate::process::sigchld::subscribe();
        // One check at once: an exit before the subscription sent its
        // SIGCHLD to nobody.
        t.mark_changed();
        t
    });
    let mut done = false;
    loop {
        tokio::select! {
            r = control.wait(), if !done && ticks.is_none() => {
                done = true;
                ends.announce(r);
            }
            open = sigchld_tick(&mut ticks), if !done => {
                if !open {
                    ticks = None;
                    continue;
                }
                match control.try_wait() {
                    Ok(None) => {}
                    Ok(Some(exit)) => {
                        done = true;
                        ends.announce(Ok(exit));
                    }
                    Err(e) => {
                        done = true;
                        ends.announce(Err(e));
                    }
                }
            }
            () = stdout_done.cancelled(), if !done && ticks.is_some() => ticks = None,
            cmd = rx.recv() => match cmd {
                None => break,
                Some(LifeCmd::Terminate) => {
                    if let Err(e) = control.terminate() {
                        tracing::warn!(error = %e, "terminate failed");
                    }
                    ticks = None;
                }
                Some(LifeCmd::Kill) => {
                    if let Err(e) = control.kill() {
                        tracing::warn!(error = %e, "kill failed");
                    }
                    ticks = None;
                }
                Some(LifeCmd::Cleanup(reply)) => {
                    let _ = reply.send(control.cleanup().map_err(|e| e.to_string()));
                }
            }
        }
    }
}

impl Actor for TransportActor {
    type Msg = TransportMsg;
    type State = TransportState;
    type Arguments = TransportArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<TransportMsg>,
        args: TransportArgs,
    ) -> Result<TransportState, ActorProcessingErr> {
        let close_stdin = CancellationToken::new();
        let (life_tx, life_rx) = mpsc::unbounded_channel();
        let span = args.shared.span.clone();
        let writer = crate::task::spawn(
            stdin_queue::writer_task(
                args.writer,
                close_stdin.clone(),
                args.stdin,
                args.shared.clone(),
            )
            .instrument(span.clone()),
        );
        let ends = LifeEnds {
            ended: args.ended,
            supervisor: args.supervisor,
            shared: args.shared,
        };
        let life = crate::task::spawn(
            lifecycle_task(args.control, life_rx, ends, args.stdout_done).instrument(span),
        );
        Ok(TransportState {
            close_stdin,
            life_tx,
            _writer: AbortOnDropHandle::new(writer),
            _life: AbortOnDropHandle::new(life),
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<TransportMsg>,
        msg: TransportMsg,
        st: &mut TransportState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            TransportMsg::CloseStdin => st.close_stdin.cancel(),
            TransportMsg::Terminate => {
                let _ = st.life_tx.send(LifeCmd::Terminate);
            }
            TransportMsg::Kill => {
                let _ = st.life_tx.send(LifeCmd::Kill);
            }
            TransportMsg::Cleanup(reply) => {
                if let Err(mpsc::error::SendError(LifeCmd::Cleanup(reply))) =
                    st.life_tx.send(LifeCmd::Cleanup(reply))
                {
                    let _ = reply.send(Err("the lifecycle task is gone".to_owned()));
                }
            }
        }
        Ok(())
    }
}
