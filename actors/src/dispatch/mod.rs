//! `ControlDispatch`: pairs our control requests with their replies by
//! request id, and supervises the `Handler` actors that answer the CLI's.
//!
//! The reader admits each CLI request (`dispatch/running.rs`) and spawns its handler
//! linked to this actor, so a request never waits for this mailbox; here we
//! hear when a handler ends (a failed one still leaves the CLI an answer),
//! and at shutdown cancel them all. Nothing in `handle` waits on the CLI or
//! on user code.

pub(crate) mod handler;
pub(crate) mod inbound;
pub(crate) mod msg;
pub(crate) mod outcome;
pub(crate) mod request;
pub(crate) mod running;

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use ractor::{Actor, ActorProcessingErr, ActorRef, SupervisionEvent};

use crate::dispatch::handler::reply_line;
use crate::dispatch::msg::{DispatchMsg, ReplyTx};
use crate::error::ControlError;
use crate::events::{Counters, Diagnostic};
use crate::session::shared::Shared;
use crate::transport::stdin_queue::push_control_detached;

pub(crate) struct DispatchArgs {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct DispatchState {
    args: DispatchArgs,
    pending: HashMap<String, ReplyTx>,
    closed: Option<ControlError>,
}

impl DispatchState {
    fn sync_counters(&self) {
        let c = &self.args.shared.counters;
        Counters::set(&c.requests_pending, self.pending.len() as u64);
    }

    /// Queues a control line without waiting (we are inside `handle`).
    fn write(&self, line: Bytes) {
        push_control_detached(&self.args.shared, line);
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
            closed: None,
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<DispatchMsg>,
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
                let cancelled = st.args.shared.running.close();
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
        let shared = &st.args.shared;
        let gone = shared.running.actor_ended(&cell.get_id(), &shared.counters);
        // Still in the table: it ended (failed, or was killed) without answering.
        if let Some(id) = gone {
            let reason = failure.unwrap_or_else(|| "it stopped before replying".to_owned());
            st.write(reply_line(&id, Err(format!("handler failed: {reason}"))));
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<DispatchMsg>,
        st: &mut DispatchState,
    ) -> Result<(), ActorProcessingErr> {
        st.args.shared.running.stop_all();
        for (_, tx) in st.pending.drain() {
            let _ = tx.send(Err(ControlError::ShuttingDown));
        }
        st.sync_counters();
        Ok(())
    }
}
