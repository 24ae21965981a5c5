//! How a session's CLI is started: the built-in subprocess, the subprocess
//! with a user's [`Spawner`] rewriting its command, or a user's own
//! [`Transport`].

use std::sync::Arc;

use claude_agent_actors::SessionConfig;
use claude_agent_actors::channel::{SharedSpawner, SubprocessTransport, Transport};
use claude_agent_actors::process::ProcessSpec;

/// Makes the byte channel for one session from the CLI command the SDK
/// computed (program, argv, environment, working directory, user): run it
/// over `ssh`, in a container, on a remote runner.
///
/// Called once per connect (a `Host` restart connects
/// again), on the connecting task: keep it quick; the slow part belongs in
/// [`Transport::connect`].
///
/// Any `Fn(ProcessSpec) -> Box<dyn Transport>` is a factory.
pub trait TransportFactory: Send + Sync + 'static {
    /// The transport that will carry the session whose CLI command is `command`.
    fn make(&self, command: ProcessSpec) -> Box<dyn Transport>;
}

impl<F> TransportFactory for F
where
    F: Fn(ProcessSpec) -> Box<dyn Transport> + Send + Sync + 'static,
{
    fn make(&self, command: ProcessSpec) -> Box<dyn Transport> {
        self(command)
    }
}

/// The launch a builder was given.
#[derive(Clone, Default)]
pub(crate) enum Launch {
    /// The computed command, spawned as is.
    #[default]
    Subprocess,
    /// The command as rewritten by a spawner, spawned by the runtime.
    Spawner(SharedSpawner),
    /// A user's transport.
    Transport(Arc<dyn TransportFactory>),
}

impl Launch {
    /// The session config around the transport that will run `spec`: the
    /// runtime's subprocess defaults (the stream-close timeout from the
    /// spec's environment, its label), with a spawner's or a user's
    /// transport in place of the plain subprocess. The common case builds
    /// one transport and copies nothing.
    pub(crate) fn session_config(&self, spec: ProcessSpec) -> SessionConfig {
        match self {
            Self::Subprocess => SessionConfig::subprocess(spec),
            _ => {
                let mut config = SessionConfig::subprocess(spec.clone());
                config.transport = self.transport(spec);
                config
            }
        }
    }

    /// The transport that will run `spec`.
    pub(crate) fn transport(&self, spec: ProcessSpec) -> Box<dyn Transport> {
        match self {
            Self::Subprocess => Box::new(SubprocessTransport::new(spec)),
            Self::Spawner(s) => {
                Box::new(SubprocessTransport::new(spec).with_shared_spawner(s.clone()))
            }
            Self::Transport(f) => f.make(spec),
        }
    }
}
