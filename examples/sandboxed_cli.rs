//! Running each CLI in a sandbox with a custom spawner: the SDK computes
//! the CLI command, the spawner wraps it in `bwrap` (bubblewrap) or, where
//! that is missing, `unshare`, and the runtime spawns the wrapper, so it
//! still owns the pipes, the process group and the shutdown ladder.
//!
//! ```text
//! cargo run --example sandboxed_cli -- "What is in /etc/hostname?"
//! SANDBOX=unshare cargo run --example sandboxed_cli -- "hello"
//! ```
//!
//! With `bwrap`: the whole file system read-only, a fresh `/tmp`, the
//! working directory and `$HOME` (the CLI keeps its settings there)
//! writable, own PID, IPC and UTS namespaces. With `unshare`: own user
//! (mapped to root inside), IPC and UTS namespaces. Both wrappers `exec`
//! the CLI or keep it in their process group, so the ladder's signals
//! reach it. The network stays shared: the CLI needs the API. The CLI is
//! found by discovery; without one, or when the sandbox is not permitted
//! here, the program prints why and exits 1.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use claude_agent::protocol::Message;
use claude_agent::{
    client::ClientBuilder, options::Options, runtime::channel::SpawnerError,
    runtime::process::ProcessSpec,
};
use futures::StreamExt;

/// The sandbox tools this example knows.
#[derive(Clone, Copy)]
enum Sandbox {
    Bwrap,
    Unshare,
}

impl Sandbox {
    fn program(self) -> &'static str {
        match self {
            Self::Bwrap => "bwrap",
            Self::Unshare => "unshare",
        }
    }

    /// The wrapper's own arguments, before the CLI's program and argv.
    fn args(self, work: &Path, home: Option<&Path>) -> Vec<OsString> {
        let mut args: Vec<OsString> = Vec::new();
        match self {
            Self::Bwrap => {
                for a in ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"] {
                    args.push(a.into());
                }
                args.extend(["--tmpfs".into(), "/tmp".into()]);
                for dir in std::iter::once(work).chain(home) {
                    args.extend(["--bind".into(), dir.into(), dir.into()]);
                }
                for a in ["--unshare-pid", "--unshare-ipc", "--unshare-uts"] {
                    args.push(a.into());
                }
                // No `--new-session`: a new session would take the CLI out
                // of the process group the ladder signals.
                args.push("--die-with-parent".into());
                args.extend(["--chdir".into(), work.into(), "--".into()]);
            }
            Self::Unshare => {
                for a in ["--user", "--map-root-user", "--ipc", "--uts", "--"] {
                    args.push(a.into());
                }
            }
        }
        args
    }

    /// The spawner: the computed CLI command, wrapped.
    fn spawner(
        self,
        work: PathBuf,
        home: Option<PathBuf>,
    ) -> impl Fn(ProcessSpec) -> Result<ProcessSpec, SpawnerError> + Send + Sync + 'static {
        move |cli: ProcessSpec| {
            let mut wrapped = cli.clone();
            wrapped.program = self.program().into();
            wrapped.args = self.args(&work, home.as_deref());
            wrapped.args.push(cli.program.into_os_string());
            wrapped.args.extend(cli.args);
            Ok(wrapped)
        }
    }
}

/// `SANDBOX` if set, else `bwrap` when it runs here, else `unshare`; `None`
/// when the chosen one cannot create its namespaces (no user namespaces
/// for unprivileged users, a container's seccomp profile, ...).
async fn pick_sandbox() -> Option<Sandbox> {
    let wanted = std::env::var("SANDBOX").ok();
    let candidates = match wanted.as_deref() {
        Some("bwrap") => vec![Sandbox::Bwrap],
        Some("unshare") => vec![Sandbox::Unshare],
        _ => vec![Sandbox::Bwrap, Sandbox::Unshare],
    };
    let here = std::env::current_dir().ok()?;
    for sandbox in candidates {
        let probe = tokio::process::Command::new(sandbox.program())
            .args(sandbox.args(&here, None))
            .arg("true")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .await;
        if matches!(probe, Ok(s) if s.success()) {
            return Some(sandbox);
        }
    }
    None
}

#[tokio::main]
async fn main() -> ExitCode {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is in /etc/hostname?".to_owned());
    let Some(sandbox) = pick_sandbox().await else {
        eprintln!("neither bwrap nor unshare can create namespaces here");
        return ExitCode::FAILURE;
    };
    let Ok(work) = std::env::current_dir() else {
        eprintln!("cannot read the working directory");
        return ExitCode::FAILURE;
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    println!("sandbox: {}", sandbox.program());

    let options = Options::new().max_turns(1).cwd(&work);
    let mut messages = ClientBuilder::new(options)
        .spawner(sandbox.spawner(work, home))
        .query(prompt);
    while let Some(item) = messages.next().await {
        match item {
            Ok(Message::Result(result)) => {
                println!("{}", result.result.as_deref().unwrap_or_default());
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(report) = messages.shutdown_report() {
        println!("shutdown: {}", report.cause);
    }
    ExitCode::SUCCESS
}
