//! A hook that rewrites the CLI's command before the runtime spawns it.

use std::sync::Arc;

use crate::process::ProcessSpec;

/// Rewrites the fully computed CLI command (program, argv, environment,
/// working directory) into the command actually spawned: the CLI wrapped in
/// `bwrap`, `unshare`, `ssh host --`, `docker exec -i ...`.
///
/// The runtime still spawns what the hook returns, so it keeps owning the
/// pipes, the process group, the keeper and the shutdown ladder: stdin EOF,
/// then SIGTERM and SIGKILL go to the *wrapper's* process group. A wrapper
/// that `exec`s the CLI (`bwrap`, `unshare`, `env`, `sh -c 'exec "$@"'`)
/// becomes the CLI, so signals reach it directly. One that runs the CLI as a
/// child keeps it in its group, so the group signals and the after-exit
/// sweep of the group still reach it; a wrapper that moves the CLI into
/// another group or session (`setsid`, a remote host) is out of the
/// ladder's reach: bring a [`Transport`](super::Transport) then.
///
/// Start from a clone of the spec it gets: a fresh
/// [`ProcessSpec::new`] would drop its [`user`](ProcessSpec::user) (the CLI
/// would then run as the host's user), its environment and working
/// directory. Clearing `user` is for a wrapper that switches the user
/// itself (`bwrap --uid`, `ssh tenant@host`). The session label is kept
/// when the returned spec has none.
///
/// Any `Fn(ProcessSpec) -> Result<ProcessSpec, SpawnerError>` is a spawner:
///
/// ```
/// # use claude_agent_actors::channel::{Spawner, SpawnerError};
/// # use claude_agent_actors::process::ProcessSpec;
/// let sandboxed = |spec: ProcessSpec| -> Result<ProcessSpec, SpawnerError> {
///     let mut wrapped = spec.clone();
///     wrapped.program = "unshare".into();
///     wrapped.args = vec!["--user".into(), "--map-root-user".into(), "--net".into()];
///     wrapped.args.push(spec.program.into_os_string());
///     wrapped.args.extend(spec.args);
///     Ok(wrapped)
/// };
/// let spec = sandboxed.prepare(ProcessSpec::new("claude")).unwrap();
/// assert_eq!(spec.program.to_str(), Some("unshare"));
/// assert_eq!(spec.args.last().and_then(|a| a.to_str()), Some("claude"));
/// ```
pub trait Spawner: Send + Sync + 'static {
    /// The command to spawn in place of `spec`. Called once per spawn, on
    /// the connecting task: keep it quick and never block.
    fn prepare(&self, spec: ProcessSpec) -> Result<ProcessSpec, SpawnerError>;
}

impl<F> Spawner for F
where
    F: Fn(ProcessSpec) -> Result<ProcessSpec, SpawnerError> + Send + Sync + 'static,
{
    fn prepare(&self, spec: ProcessSpec) -> Result<ProcessSpec, SpawnerError> {
        self(spec)
    }
}

/// A shared spawner, as stored in configs that are cloned per session.
pub type SharedSpawner = Arc<dyn Spawner>;

/// Why a [`Spawner`] refused to prepare a command.
#[derive(Debug, thiserror::Error)]
#[error("{reason}")]
pub struct SpawnerError {
    reason: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl SpawnerError {
    /// A refusal saying `reason`.
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            source: None,
        }
    }

    /// A refusal saying `reason`, caused by `source`.
    pub fn with_source(
        reason: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            reason: reason.into(),
            source: Some(Box::new(source)),
        }
    }
}
