//! The supervisor's children, spawned linked in start order: transport,
//! dispatch, reader. A failure part-way kills what was already started.

use ractor::{Actor, ActorProcessingErr, ActorRef};
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

use crate::channel::Connection;
use crate::dispatch::msg::DispatchMsg;
use crate::dispatch::{ControlDispatch, DispatchArgs};
use crate::reader::{ReaderActor, ReaderArgs, ReaderMsg};
use crate::supervisor::SupervisorArgs;
use crate::supervisor::msg::SupervisorMsg;
use crate::transport::msg::TransportMsg;
use crate::transport::{TransportActor, TransportArgs};

/// The supervisor's children, in start order.
#[derive(Clone)]
pub(crate) struct Children {
    pub(crate) transport: ActorRef<TransportMsg>,
    pub(crate) dispatch: ActorRef<DispatchMsg>,
    pub(crate) reader: ActorRef<ReaderMsg>,
}

type Started = (
    Children,
    Option<crate::reader::BoxReader>,
    oneshot::Sender<Children>,
);

pub(crate) async fn spawn_children(
    myself: &ActorRef<SupervisorMsg>,
    a: SupervisorArgs,
    ended_tx: watch::Sender<Option<crate::transport::Ended>>,
    inbound_cancel: CancellationToken,
    stdout_done: CancellationToken,
) -> Result<Started, ActorProcessingErr> {
    let Connection {
        reader,
        writer,
        stderr,
        control,
    } = a.conn;
    let cell = myself.get_cell();
    let (transport, _) = Actor::spawn_linked(
        None,
        TransportActor,
        TransportArgs {
            writer,
            control,
            ended: ended_tx,
            supervisor: myself.clone(),
            stdin: a.stdin.clone(),
            shared: a.shared.clone(),
            stdout_done: stdout_done.clone(),
        },
        cell.clone(),
    )
    .await?;
    let dispatch = match Actor::spawn_linked(
        None,
        ControlDispatch,
        DispatchArgs {
            stdin: a.stdin.clone(),
            shared: a.shared.clone(),
        },
        cell.clone(),
    )
    .await
    {
        Ok((d, _)) => d,
        Err(e) => {
            transport.kill();
            return Err(e.into());
        }
    };
    let reader = match Actor::spawn_linked(
        None,
        ReaderActor,
        ReaderArgs {
            stdout: reader,
            max_line_bytes: a.max_line_bytes,
            frames: a.frames,
            divert: a.divert,
            divert_room: a.divert_room,
            dispatch: dispatch.clone(),
            callback: a.inbound,
            handler_timeout: a.handler_timeout,
            supervisor: myself.clone(),
            stdin: a.stdin,
            inbound_cancel,
            stdout_done,
            shared: a.shared,
        },
        cell,
    )
    .await
    {
        Ok((r, _)) => r,
        Err(e) => {
            dispatch.kill();
            transport.kill();
            return Err(e.into());
        }
    };
    Ok((
        Children {
            transport,
            dispatch,
            reader,
        },
        stderr,
        a.children_out,
    ))
}
