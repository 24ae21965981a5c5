//! `ControlDispatch`: owns our pending control requests, paired with their
//! replies by request id, and supervises the `Handler` actors that answer
//! the CLI's.
//!
//! The reader admits each CLI request (`reader/admission.rs`) and spawns its
//! handler linked to this actor, so a request never waits for this mailbox.
//! A handler's reply is its `ReplyToken`'s business (an error reply from
//! `Drop` if the handler dies unanswered), so here a handler ending is only
//! worth a log line. Nothing in `handle` waits on the CLI or on user code.

pub(crate) mod handler;
pub(crate) mod inbound;
pub(crate) mod msg;
pub(crate) mod outcome;
pub(crate) mod reply;
pub(crate) mod request;

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use ractor::{Actor, ActorProcessingErr, ActorRef, SupervisionEvent};

use crate::dispatch::msg::{DispatchMsg, ReplyTx};
use crate::dispatch::reply::ReplyToken;
use crate::error::ControlError;
use crate::events::{Counters, Diagnostic};
use crate::session::record::SessionRecord;
use crate::transport::stdin_queue::{StdinTx, push_control_detached};

pub(crate) struct DispatchArgs {
    pub(crate) stdin: Arc<StdinTx>,
    pub(crate) shared: Arc<SessionRecord>,
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
        push_control_detached(&self.args.stdin, &self.args.shared, line);
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
                let why = format!("control request of {len} bytes exceeds {max}");
                // Never admitted: its one reply is a refusal's token.
                ReplyToken::refuse(id.clone(), why, &st.args.stdin, &st.args.shared);
                st.args
                    .shared
                    .diagnostic(Diagnostic::OversizedControlRequestAnswered { request_id: id });
            }
            DispatchMsg::FailAll { error, reply } => {
                let failed = st.pending.len();
                for (_, tx) in st.pending.drain() {
                    let _ = tx.send(Err(error.clone()));
                }
                st.closed = Some(error);
                let _ = reply.send(failed);
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
        // A handler ending is normal. One that failed has already answered
        // through its reply token's Drop; overriding this keeps dispatch
        // running (ractor's default would stop it with the child).
        if let SupervisionEvent::ActorFailed(cell, err) = evt {
            tracing::warn!(parent: &st.args.shared.span, actor = %cell.get_id(), %err, "inbound handler failed");
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<DispatchMsg>,
        st: &mut DispatchState,
    ) -> Result<(), ActorProcessingErr> {
        for (_, tx) in st.pending.drain() {
            let _ = tx.send(Err(ControlError::ShuttingDown));
        }
        st.sync_counters();
        Ok(())
    }
}
