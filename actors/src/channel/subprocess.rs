//! The default channel: the CLI as a local subprocess.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;

use super::{ChannelControl, ChannelError, Connection, SharedSpawner, Spawner, Transport};
use crate::process::{self, ChildProcess, ExitInfo, ProcessSpec, Signal};

/// Runs the CLI as a local subprocess in its own process group.
///
/// [`connect`](Transport::connect) checks that the program and working
/// directory exist before spawning, so a typo costs no side effects. With a
/// [`Spawner`], the spec it returns is checked and spawned instead.
#[derive(Clone)]
pub struct SubprocessTransport {
    spec: ProcessSpec,
    spawner: Option<SharedSpawner>,
}

impl std::fmt::Debug for SubprocessTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubprocessTransport")
            .field("spec", &self.spec)
            .field("spawner", &self.spawner.is_some())
            .finish()
    }
}

impl SubprocessTransport {
    /// A transport that will spawn `spec`.
    pub fn new(spec: ProcessSpec) -> Self {
        Self {
            spec,
            spawner: None,
        }
    }

    /// Lets `spawner` rewrite the spec just before it is spawned.
    pub fn with_spawner(mut self, spawner: impl Spawner) -> Self {
        self.spawner = Some(Arc::new(spawner));
        self
    }

    /// Like [`with_spawner`](Self::with_spawner), with a shared spawner.
    pub fn with_shared_spawner(mut self, spawner: SharedSpawner) -> Self {
        self.spawner = Some(spawner);
        self
    }

    /// The spec that will be spawned.
    pub fn spec(&self) -> &ProcessSpec {
        &self.spec
    }
}

impl Transport for SubprocessTransport {
    fn kind(&self) -> &'static str {
        "subprocess"
    }

    fn connect(self: Box<Self>) -> BoxFuture<'static, Result<Connection, ChannelError>> {
        Box::pin(async move {
            let spec = match &self.spawner {
                Some(spawner) => {
                    let label = self.spec.session_label.clone();
                    let mut spec = spawner.prepare(self.spec).map_err(ChannelError::Spawner)?;
                    // A spawner that built a fresh spec keeps the session's
                    // name in the live-process registry.
                    if spec.session_label.is_none() {
                        spec.session_label = label;
                    }
                    spec
                }
                None => self.spec,
            };
            check_spec(&spec)?;
            let program = spec.program.clone();
            let mut child = process::spawn(spec).await.map_err(|source| {
                if source.kind() == std::io::ErrorKind::NotFound {
                    ChannelError::NotFound {
                        path: program.clone(),
                    }
                } else if source.kind() == std::io::ErrorKind::PermissionDenied {
                    ChannelError::NotExecutable {
                        path: program.clone(),
                        reason: "permission denied",
                    }
                } else {
                    ChannelError::Spawn {
                        program: program.clone(),
                        source,
                    }
                }
            })?;
            let missing = || ChannelError::Spawn {
                program: program.clone(),
                source: std::io::Error::other("child has no piped stdio"),
            };
            let reader = child.take_stdout().ok_or_else(missing)?;
            let writer = child.take_stdin().ok_or_else(missing)?;
            let stderr = child.take_stderr().ok_or_else(missing)?;
            Ok(Connection {
                reader: Box::new(reader),
                writer: Box::new(super::stdin::StdinWriter::new(writer)),
                stderr: Some(Box::new(stderr)),
                control: Box::new(SubprocessControl { child }),
            })
        })
    }
}

/// The typed pre-spawn checks: working directory, then program.
fn check_spec(spec: &ProcessSpec) -> Result<(), ChannelError> {
    if let Some(cwd) = &spec.cwd {
        if !cwd.is_dir() {
            return Err(ChannelError::CwdMissing { path: cwd.clone() });
        }
    }
    if resolve_program(spec).is_none() {
        if let Some(reason) = not_executable(spec) {
            return Err(ChannelError::NotExecutable {
                path: spec.program.clone(),
                reason,
            });
        }
        return Err(ChannelError::NotFound {
            path: spec.program.clone(),
        });
    }
    Ok(())
}

/// For a program given as a path that exists: why it cannot be executed.
fn not_executable(spec: &ProcessSpec) -> Option<&'static str> {
    let program = &spec.program;
    if program.components().count() <= 1 && !program.is_absolute() {
        return None;
    }
    let path = match &spec.cwd {
        Some(cwd) if program.is_relative() => cwd.join(program),
        _ => program.clone(),
    };
    let meta = std::fs::metadata(path).ok()?;
    Some(if meta.is_dir() {
        "it is a directory"
    } else if !meta.is_file() {
        "it is not a regular file"
    } else {
        "no execute permission"
    })
}

/// Where the OS will find the program: a path (relative to the child's
/// working directory), or a bare name searched in the child's `PATH`.
pub(crate) fn resolve_program(spec: &ProcessSpec) -> Option<PathBuf> {
    let program = &spec.program;
    if program.components().count() > 1 || program.is_absolute() {
        let path = match &spec.cwd {
            Some(cwd) if program.is_relative() => cwd.join(program),
            _ => program.clone(),
        };
        return is_executable(&path).then_some(path);
    }
    let path_var = child_path_var(spec)?;
    std::env::split_paths(&path_var)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

/// The `PATH` the child will see.
fn child_path_var(spec: &ProcessSpec) -> Option<std::ffi::OsString> {
    let is_path = |k: &OsStr| k == "PATH";
    if let Some((_, v)) = spec.env.iter().rev().find(|(k, _)| is_path(k)) {
        return Some(v.clone());
    }
    if spec.env_remove.iter().any(|k| is_path(k)) {
        return None;
    }
    std::env::var_os("PATH")
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// [`ChannelControl`] over a [`ChildProcess`]: signals go to its group.
#[derive(Debug)]
pub struct SubprocessControl {
    child: ChildProcess,
}

impl SubprocessControl {
    /// The underlying process.
    pub fn child(&self) -> &ChildProcess {
        &self.child
    }
}

impl ChannelControl for SubprocessControl {
    fn pid(&self) -> Option<u32> {
        Some(self.child.pid())
    }

    fn pgid(&self) -> Option<u32> {
        Some(self.child.pgid())
    }

    fn supports_signals(&self) -> bool {
        true
    }

    fn terminate(&mut self) -> std::io::Result<()> {
        self.child.signal_group(Signal::Term)
    }

    fn kill(&mut self) -> std::io::Result<()> {
        self.child.signal_group(Signal::Kill)
    }

    fn wait(&mut self) -> BoxFuture<'_, std::io::Result<ExitInfo>> {
        Box::pin(self.child.wait())
    }

    fn try_wait(&mut self) -> std::io::Result<Option<ExitInfo>> {
        self.child.try_wait()
    }

    /// The child is ours, so `SIGCHLD` announces its exit; its `wait` opens
    /// a pidfd on Linux.
    fn wait_lazily(&self) -> bool {
        cfg!(target_os = "linux")
    }

    fn cleanup(&mut self) -> std::io::Result<bool> {
        self.child.kill_group_remnants().map(|n| n > 0)
    }
}
