//! Spawning and reaping the CLI process.
//!
//! Every CLI runs in its own process group (so signals and cleanup reach the
//! grandchildren a Bash tool leaves behind), with piped stdio, and is reaped
//! on every path: [`ChildProcess::wait`], or `Drop`, which kills the group
//! and reaps without blocking.
//!
//! # Design and caveats
//!
//! - **Nothing outlives the host.** A small keeper process (see
//!   [`keeper_pid`]), started at the first spawn, SIGKILLs every registered
//!   CLI process group when the host dies, however it dies. Spawns therefore
//!   need no `pre_exec` hook, and the CLI starts with `posix_spawn`
//!   (vfork-style: the host's page tables are not copied). On glibc that
//!   call is made here, with an environment block that points into ours
//!   instead of the copy std's `Command` makes of it (`direct_spawn.rs`),
//!   on the caller's thread. Set [`ProcessSpec::parent_death_signal`] to
//!   `false` to opt out.
//! - **One spawner thread.** Where no keeper can run, the child gets
//!   `SIGKILL` when its parent dies (`PR_SET_PDEATHSIG`, set in a `pre_exec`
//!   hook, so std forks). The kernel fires that signal when the *thread*
//!   that forked the child exits, so all spawns go through one dedicated
//!   thread that never exits. The child also checks, before `exec`, that its
//!   parent is still us (we may have died before `prctl`).
//! - **Not `tokio::process`.** We spawn with `std::process` on that thread
//!   (tokio's `Command` needs a runtime context there and ties reaping to the
//!   runtime's SIGCHLD handling), then wrap the pipes as tokio types and wait
//!   on a Linux pidfd, opened by the first `wait` (a session calls it once
//!   the CLI's stdout closed or it signalled the CLI, so an idle session
//!   holds only its three pipes). One more thread, started by the first
//!   such wait, waits on every pidfd at once in `epoll` (`exit_watch.rs`:
//!   tokio would need its `net` feature for that). Without pidfds (old
//!   kernels, seccomp, other unix) `wait` polls `try_wait` at intervals up
//!   to 50 ms. [`spawn`] therefore needs a tokio runtime with IO enabled.
//! - **No zombies.** Dropping an unreaped [`ChildProcess`] sends `SIGKILL`
//!   to the group and hands the child to a small reaper thread if it has not
//!   died by the time `drop` returns.
//! - **Group kill after reaping.** Once the leader is reaped and its group is
//!   empty, the kernel may reuse the number. `kill_group_remnants` and
//!   `Drop` signal the group after reaping; do it promptly.
//! - **Another user.** [`ProcessSpec::user`] runs the CLI as another OS
//!   user (see [`resolve_user`]); that spawn forks, as `posix_spawn` cannot
//!   change ids.
//! - Everything spawned and not yet reaped is listed by [`live_processes`].
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use claude_agent_actors::process::{spawn, ProcessSpec, Signal};
//! let mut child = spawn(ProcessSpec::new("sleep")).await?;
//! child.signal_group(Signal::Term)?;
//! let exit = child.wait().await?;
//! println!("{exit}");
//! child.kill_group_remnants()?;
//! # Ok(()) }
//! ```

mod child;
mod control;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod direct_spawn;
mod exit;
#[cfg(target_os = "linux")]
mod exit_watch;
mod group;
mod keeper;
mod registry;
pub(crate) mod sigchld;
mod spec;
mod sys;
mod threads;
mod user;

pub use child::ChildProcess;
pub use control::ProcessControl;
pub use exit::{ExitInfo, Signal, signal_name};
pub use keeper::{keeper_pid, registered_groups};
pub use registry::{ProcessInfo, live_processes};
pub use spec::ProcessSpec;
pub use user::{UserAccount, UserError, resolve_user};

/// Spawns `spec` in its own process group with piped stdio.
///
/// Must be called within a tokio runtime with IO enabled. If the returned
/// future is dropped mid-spawn, the child is killed and reaped.
pub async fn spawn(spec: ProcessSpec) -> std::io::Result<ChildProcess> {
    if let Err(e) = tokio::runtime::Handle::try_current() {
        return Err(std::io::Error::other(format!(
            "spawning a process needs a tokio runtime: {e}"
        )));
    }
    let kept = spec.parent_death_signal && keeper::ensure();
    let mut waits = TEXT_BUSY_WAITS.iter();
    let spawned = loop {
        match spawn_once(&spec, kept).await {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => match waits.next() {
                Some(wait) => tokio::time::sleep(*wait).await,
                None => return Err(e),
            },
            spawned => break spawned?,
        }
    };
    ChildProcess::new(spawned, spec.session_label)
}

/// The waits before spawning again when `exec` said ETXTBSY. A program
/// written just before (a wrapper script) is busy while any child another
/// thread forked in the meantime still holds the writer's descriptor: from
/// that fork to that child's own `exec`, which closes it. The window is a
/// fork's length; these ride it out, and a program that stays busy fails
/// after about 0.1 s.
const TEXT_BUSY_WAITS: [std::time::Duration; 4] = [
    std::time::Duration::from_millis(1),
    std::time::Duration::from_millis(5),
    std::time::Duration::from_millis(20),
    std::time::Duration::from_millis(80),
];

/// One attempt: on the caller's thread where `posix_spawn` can do it, else
/// on the spawner thread.
async fn spawn_once(spec: &ProcessSpec, kept: bool) -> std::io::Result<threads::Spawned> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some(direct) = direct_spawn::DirectSpawn::prepare(spec, kept) {
        // Here, on the caller's thread: `posix_spawn` returns as soon as the
        // child has called `exec` (the parent waits on a vfork), a bounded
        // call like the one tokio's `process::Command::spawn` makes on a
        // worker. The hop to the spawner thread and back cost two thread
        // wake-ups per session, most of the context switches of a connect.
        let spawned = direct?.spawn()?;
        if kept {
            keeper::register(spawned.pid);
        }
        return Ok(spawned);
    }
    threads::spawn_on_spawner(spec.command(kept), kept).await
}
