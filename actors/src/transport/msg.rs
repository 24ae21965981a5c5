//! What the `TransportActor` hears: the steps of closing the channel.

use ractor::RpcReplyPort;

pub(crate) enum TransportMsg {
    /// Send EOF after the lines already queued.
    CloseStdin,
    /// Polite stop (SIGTERM to the group, or close).
    Terminate,
    /// Forceful stop (SIGKILL to the group, or abort).
    Kill,
    /// After the far end ended: kill leftovers of the group.
    Cleanup(RpcReplyPort<Result<bool, String>>),
}
