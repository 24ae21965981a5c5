//! Spawning the library's own tasks, all as one future type.
//!
//! tokio compiles its task machinery (about 2.6 k lines of LLVM IR) once
//! for every future type it spawns, and this crate's copies are its own
//! (the runtime crate boxes its tasks the same way, `actors/src/task.rs`).
//! Boxing costs one allocation per task; the tasks here are per session,
//! per query or per host event, never per frame. Clippy refuses a direct
//! `tokio::spawn` in the crate's non-test code (`clippy.toml`, denied in
//! `lib.rs`); unit tests may spawn directly.

use std::future::Future;
use std::pin::Pin;

use tokio::task::JoinHandle;

/// A task of this crate, boxed.
type BoxTask = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// Spawns `task` on the current runtime (as `tokio::spawn`).
#[allow(clippy::disallowed_methods, reason = "the one place that spawns")]
pub(crate) fn spawn(task: impl Future<Output = ()> + Send + 'static) -> JoinHandle<()> {
    let task: BoxTask = Box::pin(task);
    tokio::spawn(task)
}
