//! Splitting this machine's cores between the parts of a benchmark: the
//! program and its children on one core, a server (and a client that
//! stands for another machine) on another, so a side's own cost is
//! measured apart from a peer that would run elsewhere in production.

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{BenchError, Result};

/// The cores this process may run on now.
pub fn online_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn mask(core: usize) -> libc::cpu_set_t {
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `core` is below CPU_SETSIZE (checked by the callers' core
    // count, which is at most a few hundred).
    unsafe { libc::CPU_SET(core, &mut set) };
    set
}

/// Pins the calling thread, and the threads and child processes it makes
/// from now on, to `core` (call it first thing in `main`).
pub fn pin_self(core: usize) -> Result<()> {
    let set = mask(core);
    // SAFETY: pid 0 is the calling thread; the set outlives the call.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if rc == 0 {
        Ok(())
    } else {
        Err(BenchError::Io {
            what: format!("pin this process to core {core}"),
            source: std::io::Error::last_os_error(),
        })
    }
}

/// Makes `cmd`'s process run on `core` only (set between fork and exec).
pub fn pin_child(cmd: &mut Command, core: usize) -> &mut Command {
    let set = mask(core);
    // SAFETY: the hook only calls sched_setaffinity, which is
    // async-signal-safe, on a set copied into the closure.
    unsafe {
        cmd.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        })
    }
}

/// A private `nats-server -js` on a free port, its store in a temp dir,
/// pinned to one core; killed on drop.
#[derive(Debug)]
pub struct PinnedNats {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl PinnedNats {
    /// Starts `binary` on `core` and waits (up to 20 s) until it listens.
    pub fn start(binary: &Path, core: usize) -> Result<Self> {
        let io = |what: &str| {
            let what = what.to_owned();
            move |source| BenchError::Io { what, source }
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(io("find a free port"))?
            .port();
        let dir = tempfile::tempdir().map_err(io("nats-server store dir"))?;
        let mut cmd = Command::new(binary);
        cmd.args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = pin_child(&mut cmd, core)
            .spawn()
            .map_err(io(&format!("start {}", binary.display())))?;
        let server = Self {
            child,
            port,
            _dir: dir,
        };
        let end = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() >= end {
                return Err(BenchError::Session(format!(
                    "{} did not listen on 127.0.0.1:{port} within 20 s",
                    binary.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(server)
    }

    /// `nats://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// The server's pid (for its CPU time).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for PinnedNats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
