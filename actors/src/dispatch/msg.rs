//! What `ControlDispatch` hears: our requests, the CLI's replies to them,
//! and the shutdown that fails what is left.

use bytes::Bytes;
use ractor::RpcReplyPort;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::error::ControlError;

/// Where the reply to one of our requests goes.
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
    /// An oversized line was a control request: answer it with an error.
    RejectOversized { id: String, len: u64 },
    /// Shutdown: fail pending requests with `error`, and every later one.
    /// Replies how many were failed.
    FailAll {
        error: ControlError,
        reply: RpcReplyPort<usize>,
    },
}
