//! From [`Options`] plus callbacks and runtime settings to a running session.

use std::sync::Arc;
use std::time::Duration;

use claude_agent_actors::framing::DEFAULT_MAX_LINE_BYTES;
use claude_agent_actors::stderr::OnLine;
use claude_agent_actors::{
    DEFAULT_CONTROL_TIMEOUT, DEFAULT_GRACE, DEFAULT_MAX_BUFFERED_BYTES, Watchdog,
};

use super::{Prompt, Query};
#[cfg(feature = "mcp")]
use crate::callbacks::mcp::SdkMcpServer;
use crate::callbacks::{Callbacks, CanUseTool, DecisionObserver};
#[cfg(feature = "hooks")]
use crate::callbacks::{HookEventKind, HookMatcher};
use crate::extensions::diagnostics::OnDiagnostic;
use crate::extensions::{DynExtension, Extension};
use crate::options::Options;
use crate::telemetry::Telemetry;
#[cfg(feature = "transcript")]
use crate::transcript::EntryPoint;

/// How the runtime treats the session: timeouts, buffers, shutdown grace.
#[derive(Clone)]
pub(crate) struct Runtime {
    pub(crate) grace: Duration,
    pub(crate) term_grace: Duration,
    pub(crate) initialize_timeout: Option<Duration>,
    pub(crate) control_timeout: Duration,
    pub(crate) handler_timeout: Option<Duration>,
    pub(crate) max_line_bytes: usize,
    pub(crate) max_buffered_bytes: usize,
    pub(crate) idle_watchdog: Option<Watchdog>,
    pub(crate) on_stderr: Option<OnLine>,
    pub(crate) on_diagnostic: Option<OnDiagnostic>,
    pub(crate) label: Option<String>,
    /// Keep a transcript of the run.
    #[cfg(feature = "transcript")]
    pub(crate) transcript: bool,
    /// Write every raw frame, both directions, to this NDJSON file.
    #[cfg(feature = "transcript")]
    pub(crate) record_frames: Option<std::path::PathBuf>,
    #[cfg(feature = "transcript")]
    pub(crate) entry: EntryPoint,
    pub(crate) telemetry: Telemetry,
    pub(crate) tenant: Option<String>,
    pub(crate) launch: super::launch::Launch,
    /// Where the transcript is mirrored (`session_store`), and how.
    #[cfg(feature = "store")]
    pub(crate) session_store: Option<Arc<dyn crate::store::SessionStore>>,
    #[cfg(feature = "store")]
    pub(crate) mirror: crate::store::mirror::MirrorSettings,
    /// The user's extensions, outermost first.
    pub(crate) extensions: Vec<Arc<dyn DynExtension>>,
    /// Faults injected into each session (`fault_plan`).
    #[cfg(feature = "fault-injection")]
    pub(crate) faults: Option<crate::fault::FaultPlan>,
}

impl Runtime {
    /// A session store, a transcript or a frame recording is wired in at
    /// connect (each is behind its feature).
    #[cfg(feature = "host")]
    pub(crate) fn mirrors_or_records(&self) -> bool {
        #[cfg(feature = "store")]
        if self.session_store.is_some() {
            return true;
        }
        #[cfg(feature = "transcript")]
        if self.transcript || self.record_frames.is_some() {
            return true;
        }
        false
    }
}

impl Default for Runtime {
    fn default() -> Self {
        Self {
            grace: DEFAULT_GRACE,
            term_grace: DEFAULT_GRACE,
            initialize_timeout: None,
            control_timeout: DEFAULT_CONTROL_TIMEOUT,
            handler_timeout: None,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_buffered_bytes: DEFAULT_MAX_BUFFERED_BYTES,
            idle_watchdog: None,
            on_stderr: None,
            on_diagnostic: None,
            label: None,
            #[cfg(feature = "transcript")]
            transcript: false,
            #[cfg(feature = "transcript")]
            record_frames: None,
            #[cfg(feature = "transcript")]
            entry: EntryPoint::Client,
            telemetry: Telemetry::disabled(),
            tenant: None,
            launch: super::launch::Launch::Subprocess,
            #[cfg(feature = "store")]
            session_store: None,
            #[cfg(feature = "store")]
            mirror: Default::default(),
            extensions: Vec::new(),
            #[cfg(feature = "fault-injection")]
            faults: None,
        }
    }
}

/// Everything needed to start a session: the CLI [`Options`], callbacks
/// (permission prompts, hooks, in-process MCP servers) and runtime settings.
///
/// ```no_run
/// use claude_agent::callbacks::{allow, PermissionContext};
/// use claude_agent::protocol::PermissionRequest;
/// use claude_agent::{client::Client, options::Options};
///
/// # async fn run() -> claude_agent::Result<()> {
/// let client = Client::builder(Options::new().model("claude-sonnet-4-5"))
///     .can_use_tool(|req: PermissionRequest, _ctx: PermissionContext| async move {
///         Ok(allow())
///     })
///     .grace(std::time::Duration::from_secs(10))
///     .connect()
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
#[must_use = "a builder does nothing until `connect` or `query`"]
pub struct ClientBuilder {
    /// Shared: a host keeps a builder per session for restarts and the
    /// session's client keeps one for its lifetime; both share the options
    /// (1.1 KB) unless an extension changes them (copy on write).
    pub(crate) options: Arc<Options>,
    pub(crate) callbacks: Callbacks,
    pub(crate) runtime: Runtime,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("options", &self.options)
            .field("callbacks", &self.callbacks)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// A builder around `options`, with no callbacks and default runtime settings.
    pub fn new(options: Options) -> Self {
        Self {
            options: Arc::new(options),
            callbacks: Callbacks::new(),
            runtime: Runtime::default(),
        }
    }

    /// Answers the CLI's permission prompts (`can_use_tool`); adds
    /// `--permission-prompt-tool stdio` to the CLI's argv.
    pub fn can_use_tool(mut self, callback: impl CanUseTool) -> Self {
        self.callbacks = self.callbacks.with_can_use_tool(callback);
        self
    }

    /// Registers hook callbacks for `event` (feature `hooks`).
    #[cfg(feature = "hooks")]
    pub fn hook(mut self, event: impl Into<HookEventKind>, matcher: HookMatcher) -> Self {
        self.callbacks.hooks = std::mem::take(&mut self.callbacks.hooks).on(event, matcher);
        self
    }

    /// Adds an in-process MCP server; its tools are named
    /// `mcp__<server>__<tool>` for the model (feature `mcp`).
    #[cfg(feature = "mcp")]
    pub fn mcp_server(mut self, server: SdkMcpServer) -> Self {
        self.callbacks = self.callbacks.with_mcp_server(server);
        self
    }

    /// Answers MCP servers' requests for user input (without it, each is
    /// declined).
    pub fn on_elicitation(
        mut self,
        callback: impl crate::callbacks::elicitation::OnElicitation,
    ) -> Self {
        self.callbacks = self.callbacks.with_on_elicitation(callback);
        self
    }

    /// Shows the CLI's blocking dialogs of `kinds` (declared to the CLI,
    /// which sends no other kind).
    pub fn on_user_dialog<I, S>(
        mut self,
        kinds: I,
        callback: impl crate::callbacks::user_dialog::OnUserDialog,
    ) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.callbacks = self.callbacks.with_on_user_dialog(kinds, callback);
        self
    }

    /// Replaces all callbacks at once.
    pub fn callbacks(mut self, callbacks: Callbacks) -> Self {
        self.callbacks = callbacks;
        self
    }

    /// Observes every callback decision (for transcripts, audit logs).
    pub fn on_decision(mut self, observer: DecisionObserver) -> Self {
        self.callbacks = self.callbacks.on_decision(observer);
        self
    }

    /// Time the CLI gets to exit after EOF before SIGTERM (default 5 s).
    pub fn grace(mut self, grace: Duration) -> Self {
        self.runtime.grace = grace;
        self
    }

    /// Time the CLI gets after SIGTERM before SIGKILL (default 5 s).
    pub fn term_grace(mut self, term_grace: Duration) -> Self {
        self.runtime.term_grace = term_grace;
        self
    }

    /// Timeout of `initialize` (default 60 s, raised by
    /// `CLAUDE_CODE_STREAM_CLOSE_TIMEOUT`).
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.runtime.initialize_timeout = Some(timeout);
        self
    }

    /// Default timeout of control requests such as `interrupt` (60 s).
    pub fn control_timeout(mut self, timeout: Duration) -> Self {
        self.runtime.control_timeout = timeout;
        self
    }

    /// Bound on each callback run; on expiry the CLI gets an error reply.
    pub fn callback_timeout(mut self, timeout: Duration) -> Self {
        self.runtime.handler_timeout = Some(timeout);
        self
    }

    /// Longest stdout line accepted (default 64 MiB); longer lines are
    /// skipped with a diagnostic event.
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.runtime.max_line_bytes = bytes;
        self
    }

    /// Bytes of messages buffered for a slow reader before the session
    /// pauses reading the CLI (default 16 MiB).
    pub fn max_buffered_bytes(mut self, bytes: usize) -> Self {
        self.runtime.max_buffered_bytes = bytes;
        self
    }

    /// Watches for a turn that goes silent.
    pub fn idle_watchdog(mut self, watchdog: Watchdog) -> Self {
        self.runtime.idle_watchdog = Some(watchdog);
        self
    }

    /// Called with each line the CLI writes to stderr (a bounded tail is
    /// also kept and included in errors).
    pub fn on_stderr(mut self, f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.runtime.on_stderr = Some(Arc::new(f));
        self
    }

    /// Called with each of the runtime's diagnostics (a stdout line skipped
    /// as not JSON, malformed or over the line limit; a handler timing
    /// out, ...), from before the first frame on. Runs on a task of its own.
    /// Skipped lines also go into the transcript when one is kept.
    pub fn on_diagnostic(
        mut self,
        f: impl Fn(&claude_agent_actors::Diagnostic) + Send + Sync + 'static,
    ) -> Self {
        self.runtime.on_diagnostic = Some(Arc::new(f));
        self
    }

    /// A label for tracing spans and the live-process registry.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.runtime.label = Some(label.into());
        self
    }

    /// Keeps a [`Transcript`](crate::transcript::Transcript) of the run:
    /// every message, tool calls correlated with their decisions and
    /// results, control requests, and how the session closed. Read it with
    /// [`Client::transcript`](crate::client::Client::transcript) or
    /// [`Query::transcript`]. Off by default: a transcript grows with the
    /// session. Needs the `transcript` feature.
    #[cfg(feature = "transcript")]
    pub fn transcript(mut self, on: bool) -> Self {
        self.runtime.transcript = on;
        self
    }

    /// Writes every raw frame, both directions, with timestamps, to an
    /// NDJSON file (see [`crate::transcript::Recorder`]); such a recording
    /// can be replayed through the fake CLI. Needs the `transcript` feature.
    #[cfg(feature = "transcript")]
    pub fn record_frames(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.runtime.record_frames = Some(path.into());
        self
    }

    /// Records this session's spans and metrics (see [`crate::telemetry`]);
    /// the CLI gets `TRACEPARENT` naming the session span. Default: off.
    /// Needs the `telemetry` feature.
    #[cfg(feature = "telemetry")]
    pub fn telemetry(mut self, telemetry: Telemetry) -> Self {
        self.runtime.telemetry = telemetry;
        self
    }

    /// The tenant this session belongs to: the `tenant` attribute of its
    /// spans and metrics.
    pub fn tenant(mut self, tenant: impl Into<String>) -> Self {
        self.runtime.tenant = Some(tenant.into());
        self
    }

    /// Rewrites the CLI command before it is spawned (wrap it in `bwrap`,
    /// `unshare`, `ssh`); the runtime still owns the process, its group and
    /// the shutdown ladder. See [`Spawner`](claude_agent_actors::channel::Spawner)
    /// and the README's "Custom spawn". Replaces a [`transport`](Self::transport).
    pub fn spawner(mut self, spawner: impl claude_agent_actors::channel::Spawner) -> Self {
        self.runtime.launch = super::launch::Launch::Spawner(Arc::new(spawner));
        self
    }

    /// Runs each session over a transport of the user's, made from the
    /// computed CLI command; the shutdown ladder can then only close stdin
    /// and call the transport's own terminate/kill. Replaces a
    /// [`spawner`](Self::spawner).
    pub fn transport(mut self, factory: impl super::TransportFactory) -> Self {
        self.runtime.launch = super::launch::Launch::Transport(Arc::new(factory));
        self
    }

    /// Adds an [`Extension`]: hooks that run before the CLI starts, once it
    /// replied to `initialize` and once the session ended (see
    /// [`extensions`](crate::extensions) for the phases). Extensions wrap
    /// the built-in ones, the first added outermost; each session the
    /// builder connects runs them.
    ///
    /// ```
    /// use claude_agent::extensions::{Extension, Started};
    /// use claude_agent::{client::Client, options::Options};
    ///
    /// struct Hello;
    ///
    /// impl Extension for Hello {
    ///     fn name(&self) -> &str {
    ///         "hello"
    ///     }
    ///
    ///     async fn post_start(&self, started: &Started<'_>) -> claude_agent::Result<()> {
    ///         println!("CLI {:?} is up", started.session().pid());
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let builder = Client::builder(Options::new()).extension(Hello);
    /// # let _ = builder;
    /// ```
    pub fn extension(mut self, extension: impl Extension) -> Self {
        self.runtime.extensions.push(Arc::new(extension));
        self
    }

    /// The telemetry handle set with [`telemetry`](Self::telemetry) (for a
    /// host recording its own metrics next to the session's).
    #[cfg(feature = "telemetry")]
    pub fn telemetry_handle(&self) -> &Telemetry {
        &self.runtime.telemetry
    }

    /// True when the CLI is spawned as computed (no spawner, no transport).
    #[cfg(feature = "host")]
    pub(crate) fn launches_plain_subprocess(&self) -> bool {
        matches!(self.runtime.launch, super::launch::Launch::Subprocess)
    }

    /// One-shot: connects, sends `prompt`, streams messages until the
    /// result, then shuts down. See [`query`](super::query()).
    pub fn query(self, prompt: impl Into<Prompt>) -> Query {
        Query::new(
            self,
            super::query::PromptSource::One(Box::new(prompt.into())),
        )
    }

    /// One-shot with a streamed prompt ([`QueryPrompt::Stream`](super::QueryPrompt::Stream)) or any
    /// other [`QueryPrompt`](super::QueryPrompt).
    pub fn query_stream(self, prompt: super::QueryPrompt) -> Query {
        Query::new(self, prompt.0)
    }
}
