//! Spawning the runtime's own tasks, all as one future type.
//!
//! tokio compiles its task machinery (the cell, the harness, cancellation
//! and output hand-off: about 2.6 k lines of LLVM IR) once for every future
//! type it spawns. Boxing gives every task of this crate the same type, so
//! one copy serves them all; a build of the crate compiles about 8% less.
//! The box is one allocation beside the task's own, and the tasks here are
//! per session or per control request, never per frame. Clippy refuses a
//! direct `tokio::spawn` anywhere else in the crate's non-test code
//! (`clippy.toml`, denied in `lib.rs`); unit tests may spawn directly.

use std::future::Future;
use std::pin::Pin;

use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// A task of the runtime, boxed.
type BoxTask = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// Spawns `task` on the current runtime (as `tokio::spawn`: panics outside
/// one, which no caller here can be).
#[allow(clippy::disallowed_methods, reason = "the one place that spawns")]
pub(crate) fn spawn(task: impl Future<Output = ()> + Send + 'static) -> JoinHandle<()> {
    let task: BoxTask = Box::pin(task);
    tokio::spawn(task)
}

/// Spawns `task` on `rt`.
#[allow(clippy::disallowed_methods, reason = "the one place that spawns")]
pub(crate) fn spawn_on(
    rt: &Handle,
    task: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    let task: BoxTask = Box::pin(task);
    rt.spawn(task)
}
