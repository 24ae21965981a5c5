//! `ControlDispatch`: pairs our control requests with their replies by
//! request id, and runs one `Handler` actor per control request from the CLI.
//!
//! The reader casts every control line here; nothing in `handle` waits on
//! the CLI or on user code (handlers run on their own tasks).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::error::ControlError;
use crate::events::{Counters, Diagnostic};
use crate::handler::{HandlerActor, HandlerArgs, HandlerMsg, InboundHandler, reply_line};
use crate::inbound::InboundRequest;
use crate::shared::Shared;
use crate::stdin_queue::push_control_detached;

pub(crate) type ReplyTx = oneshot::Sender<Result<Value, ControlError>>;

pub(crate) enum DispatchMsg {
    /// Register a request of ours and write it.
    Outbound {
        id: String,
        line: Bytes,
        reply: ReplyTx,
    },
    /// The caller stopped waiting (timeout or dropped future).
    Forget { id: String },
    /// A `control_response` from the CLI.
    Response {
        id: String,
        outcome: Result<Value, String>,
    },
    /// A `control_request` from the CLI.
    Inbound(InboundRequest),
    /// A `control_cancel_request` from the CLI.
    Cancel { id: String },
    /// An oversized line was a control request: answer it with an error.
    RejectOversized { id: String, len: u64 },
    /// Shutdown: fail pending requests with `error`, cancel handlers.
    /// Replies (requests failed, handlers cancelled).
    FailAll {
        error: ControlError,
        reply: RpcReplyPort<(usize, usize)>,
    },
}

pub(crate) struct DispatchArgs {
    pub(crate) callback: Arc<dyn InboundHandler>,
    pub(crate) handler_timeout: Option<Duration>,
    pub(crate) shared: Arc<Shared>,
}

struct Running {
    actor: ActorRef<HandlerMsg>,
    cancel: CancellationToken,
}

pub(crate) struct DispatchState {
    args: DispatchArgs,
    pending: HashMap<String, ReplyTx>,
    handlers: HashMap<String, Running>,
    by_actor: HashMap<ActorId, String>,
    closed: Option<ControlError>,
}

impl DispatchState {
    fn sync_counters(&self) {
        let c = &self.args.shared.counters;
        Counters::set(&c.requests_pending, self.pending.len() as u64);
        Counters::set(&c.handlers_pending, self.handlers.len() as u64);
    }

    /// Queues a control line without waiting (we are inside `handle`).
    fn write(&self, line: Bytes) {
        push_control_detached(&self.args.shared, line);
    }

    async fn spawn_handler(&mut self, myself: &ActorRef<DispatchMsg>, req: InboundRequest) {
        let id = req.request_id.clone();
        if self.closed.is_some() {
            self.write(reply_line(&id, Err("the session is shutting down".into())));
            return;
        }
        if self.handlers.contains_key(&id) {
            self.write(reply_line(
                &id,
                Err(format!("duplicate control request id {id:?}")),
            ));
            return;
        }
        let cancel = CancellationToken::new();
        let args = HandlerArgs {
            request: req,
            callback: self.args.callback.clone(),
            cancel: cancel.clone(),
            timeout: self.args.handler_timeout,
            shared: self.args.shared.clone(),
        };
        match Actor::spawn_linked(None, HandlerActor, args, myself.get_cell()).await {
            Ok((actor, _)) => {
                self.by_actor.insert(actor.get_id(), id.clone());
                self.handlers.insert(id, Running { actor, cancel });
            }
            Err(e) => self.write(reply_line(
                &id,
                Err(format!("failed to start a handler: {e}")),
            )),
        }
    }
}

/// The dispatch actor.
pub(crate) struct ControlDispatch;

impl Actor for ControlDispatch {
    type Msg = DispatchMsg;
    type State = DispatchState;
    type Arguments = DispatchArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<DispatchMsg>,
        args: DispatchArgs,
    ) -> Result<DispatchState, ActorProcessingErr> {
        Ok(DispatchState {
            args,
            pending: HashMap::new(),
            handlers: HashMap::new(),
            by_actor: HashMap::new(),
            closed: None,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<DispatchMsg>,
        msg: DispatchMsg,
        st: &mut DispatchState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            DispatchMsg::Outbound { id, line, reply } => {
                if let Some(err) = &st.closed {
                    let _ = reply.send(Err(err.clone()));
                } else {
                    // Registered before the write, so the reply always finds it.
                    st.pending.insert(id, reply);
                    st.write(line);
                }
            }
            DispatchMsg::Forget { id } => {
                st.pending.remove(&id);
            }
            DispatchMsg::Response { id, outcome } => match st.pending.remove(&id) {
                Some(tx) => {
                    let _ = tx.send(outcome.map_err(|message| ControlError::Remote { message }));
                }
                None => st
                    .args
                    .shared
                    .diagnostic(Diagnostic::UnknownControlResponse { request_id: id }),
            },
            DispatchMsg::Inbound(req) => st.spawn_handler(&myself, req).await,
            DispatchMsg::Cancel { id } => {
                if let Some(h) = st.handlers.get(&id) {
                    h.cancel.cancel();
                }
            }
            DispatchMsg::RejectOversized { id, len } => {
                let max = "the session's max_line_bytes";
                st.write(reply_line(
                    &id,
                    Err(format!("control request of {len} bytes exceeds {max}")),
                ));
                st.args
                    .shared
                    .diagnostic(Diagnostic::OversizedControlRequestAnswered { request_id: id });
            }
            DispatchMsg::FailAll { error, reply } => {
                let failed = st.pending.len();
                for (_, tx) in st.pending.drain() {
                    let _ = tx.send(Err(error.clone()));
                }
                let cancelled = st.handlers.len();
                for h in st.handlers.values() {
                    h.cancel.cancel();
                }
                st.closed = Some(error);
                let _ = reply.send((failed, cancelled));
            }
        }
        st.sync_counters();
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        _myself: ActorRef<DispatchMsg>,
        evt: SupervisionEvent,
        st: &mut DispatchState,
    ) -> Result<(), ActorProcessingErr> {
        // A handler ending is normal; one failing must still leave the CLI an answer.
        let (cell, failure) = match evt {
            SupervisionEvent::ActorTerminated(cell, _, _) => (cell, None),
            SupervisionEvent::ActorFailed(cell, err) => (cell, Some(err.to_string())),
            _ => return Ok(()),
        };
        if let Some(id) = st.by_actor.remove(&cell.get_id()) {
            st.handlers.remove(&id);
            if let Some(reason) = failure {
                st.write(reply_line(&id, Err(format!("handler failed: {reason}"))));
            }
        }
        st.sync_counters();
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<DispatchMsg>,
        st: &mut DispatchState,
    ) -> Result<(), ActorProcessingErr> {
        for h in st.handlers.values() {
            h.cancel.cancel();
            h.actor.stop(None);
        }
        for (_, tx) in st.pending.drain() {
            let _ = tx.send(Err(ControlError::ShuttingDown));
        }
        st.sync_counters();
        Ok(())
    }
}
