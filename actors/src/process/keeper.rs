//! The keeper: a small process that outlives the host and kills what the
//! host leaves behind.
//!
//! A CLI and everything it starts (a Bash tool's `sleep 300`, a dev server)
//! live in the CLI's own process group. If the host dies without running any
//! code (SIGKILL, OOM kill, a panic with `abort`), nothing in the host can
//! signal those groups, and a parent-death signal reaches only the CLI, not
//! its children. So the first spawn starts one keeper per host process: a
//! POSIX `sh` running a fixed script, in its own process group, ignoring
//! HUP/INT/TERM/QUIT. The host tells it `+PGID` when a group is born and
//! `-PGID` once the group has been killed and reaped. When the host's end
//! of the keeper's stdin closes (the kernel closes it when the host dies,
//! however it dies), the keeper SIGKILLs every group still registered and
//! exits.
//!
//! Because the keeper, not the kernel's parent-death signal, gives the
//! "nothing outlives the host" guarantee, spawns need no `pre_exec` hook and
//! std starts the CLI with `posix_spawn` (`clone(CLONE_VM | CLONE_VFORK)`),
//! never copying the host's page tables. If no keeper can be started (no
//! `/bin/sh`), spawning falls back to `fork` with `PR_SET_PDEATHSIG`, which
//! covers the CLI but not its children.
//!
//! Caveats: a group is registered right after `posix_spawn` returns, so a
//! host killed in those microseconds leaves that one CLI to its parent-death
//! handling (it sees stdin EOF). A process that leaves its group (`setsid`)
//! escapes the keeper as it escapes group signals. The write end is
//! non-blocking: a keeper that stops reading (stopped by a debugger) makes
//! registration fail with a warning rather than stall a tokio worker.

use std::collections::BTreeSet;
use std::io::Write;
use std::os::fd::AsFd;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, MutexGuard};

/// The keeper's program, read by `sh -c`. Group ids are digits only (we
/// write them), so the word splitting below is safe.
const SCRIPT: &str = r#"trap '' HUP INT TERM QUIT PIPE
g=' '
while IFS= read -r l; do
  case $l in
    +*) g="$g${l#+} " ;;
    -*) p=${l#-}; case $g in *" $p "*) g="${g%% "$p" *} ${g#* "$p" }" ;; esac ;;
  esac
done
for p in $g; do kill -s KILL -- "-$p" 2>/dev/null; done
"#;

/// The name the keeper shows in `ps` (its `$0`).
pub(crate) const KEEPER_NAME: &str = "claude-agent-keeper";

struct Keeper {
    child: Child,
    stdin: ChildStdin,
}

#[derive(Default)]
struct State {
    keeper: Option<Keeper>,
    /// Groups the keeper must kill if we die; replayed to a new keeper.
    groups: BTreeSet<u32>,
    /// Starting a keeper failed once: do not try at every spawn.
    unavailable: bool,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn lock() -> MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes sure a keeper runs; false when none can be started (the caller
/// then falls back to the parent-death signal).
pub(super) fn ensure() -> bool {
    let mut guard = lock();
    let state = guard.get_or_insert_with(State::default);
    if state.unavailable {
        return false;
    }
    if keeper_alive(state) {
        return true;
    }
    match start(&state.groups) {
        Ok(keeper) => {
            state.keeper = Some(keeper);
            true
        }
        Err(e) => {
            tracing::warn!(
                error = %e,
                "cannot start the process keeper; CLIs get a parent-death signal instead, \
                 and their children may outlive a killed host"
            );
            state.unavailable = true;
            false
        }
    }
}

/// Registers a new process group: the keeper kills it if we die.
pub(super) fn register(pgid: u32) {
    let mut guard = lock();
    let state = guard.get_or_insert_with(State::default);
    state.groups.insert(pgid);
    send(state, &format!("+{pgid}\n"));
}

/// Forgets a group that has been killed and reaped.
pub(super) fn forget(pgid: u32) {
    let mut guard = lock();
    let Some(state) = guard.as_mut() else { return };
    if state.groups.remove(&pgid) {
        send(state, &format!("-{pgid}\n"));
    }
}

/// The keeper's pid, if one runs (for diagnostics and tests).
pub fn keeper_pid() -> Option<u32> {
    lock()
        .as_ref()
        .and_then(|s| s.keeper.as_ref())
        .map(|k| k.child.id())
}

/// The process groups the keeper would kill if this process died now.
pub fn registered_groups() -> Vec<u32> {
    lock()
        .as_ref()
        .map(|s| s.groups.iter().copied().collect())
        .unwrap_or_default()
}

/// Writes one short line; on a dead keeper, starts a new one (which is
/// handed every registered group). Lines are far below `PIPE_BUF`, so a
/// write is atomic and, the pipe being non-blocking, never waits.
fn send(state: &mut State, line: &str) {
    if state.unavailable {
        return;
    }
    let written = match state.keeper.as_mut() {
        Some(k) => (&k.stdin).write_all(line.as_bytes()),
        None => Err(std::io::ErrorKind::NotConnected.into()),
    };
    let Err(e) = written else { return };
    if e.kind() == std::io::ErrorKind::WouldBlock {
        tracing::warn!("the process keeper is not reading; a group may outlive a killed host");
        return;
    }
    // The keeper died (someone killed it): reap it and start another.
    if let Some(mut old) = state.keeper.take() {
        let _ = old.child.kill();
        let _ = old.child.wait();
    }
    match start(&state.groups) {
        Ok(keeper) => state.keeper = Some(keeper),
        Err(e) => tracing::warn!(error = %e, "cannot restart the process keeper"),
    }
}

fn keeper_alive(state: &mut State) -> bool {
    match state.keeper.as_mut().map(|k| k.child.try_wait()) {
        Some(Ok(None)) => true,
        Some(_) => {
            state.keeper = None;
            false
        }
        None => false,
    }
}

fn start(groups: &BTreeSet<u32>) -> std::io::Result<Keeper> {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(SCRIPT)
        .arg(KEEPER_NAME)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Its own group: a Ctrl-C at the terminal, meant for the host, must not
    // take the keeper with it.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn()?;
    let Some(stdin) = child.stdin.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(std::io::Error::other("keeper started without a stdin pipe"));
    };
    rustix::io::ioctl_fionbio(stdin.as_fd(), true)?;
    let keeper = Keeper { child, stdin };
    let mut replay = String::new();
    for pgid in groups {
        replay.push_str(&format!("+{pgid}\n"));
    }
    if !replay.is_empty() {
        (&keeper.stdin).write_all(replay.as_bytes())?;
    }
    Ok(keeper)
}
