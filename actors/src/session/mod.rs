//! The user's side of a session: the handle, how a session starts, its
//! configuration, its identity and status, and the bounded frame stream.

pub(crate) mod backpressure;
pub(crate) mod budget;
pub(crate) mod config;
pub(crate) mod frame;
pub(crate) mod handle;
pub(crate) mod live_sessions;
pub(crate) mod record;
pub(crate) mod start;
pub(crate) mod status;
pub(crate) mod stream;
pub(crate) mod tap;
