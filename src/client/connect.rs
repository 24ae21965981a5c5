//! [`ClientBuilder::connect`]: the builder's settings as a list of
//! extensions, run phase by phase around the session's start.

use std::sync::Arc;

use claude_agent_actors::process::{ProcessSpec, UserAccount};
use claude_agent_actors::{InboundHandler, Session, SessionConfig};

use super::{Client, ClientBuilder};
use crate::Result;
use crate::callbacks::DecisionObserver;
use crate::discovery;
use crate::extensions::diagnostics::DiagnosticsExtension;
#[cfg(feature = "hooks")]
use crate::extensions::hook_check::HookCheckExtension;
use crate::extensions::mcp_check::McpCheckExtension;
#[cfg(feature = "store")]
use crate::extensions::mirror::MirrorExtension;
#[cfg(feature = "transcript")]
use crate::extensions::record_frames::RecordFramesExtension;
use crate::extensions::run_as::RunAsExtension;
#[cfg(feature = "store")]
use crate::extensions::store_restore::StoreRestoreExtension;
#[cfg(feature = "telemetry")]
use crate::extensions::telemetry::TelemetryExtension;
use crate::extensions::transcript::TranscriptExtension;
use crate::extensions::version_warning::VersionWarningExtension;
use crate::extensions::{ExtensionList, PreStart};
use crate::options::CommandContext;
use crate::telemetry::SessionTrace;

/// One connect's extensions, with the built-ins the client reads from
/// while the session runs.
struct Extensions {
    list: ExtensionList,
    trace: Option<Arc<SessionTrace>>,
    transcript: Option<Arc<TranscriptExtension>>,
    #[cfg(feature = "store")]
    mirror: Option<Arc<MirrorExtension>>,
}

impl ClientBuilder {
    /// Starts the CLI and waits for its `initialize` reply; the
    /// [extensions](crate::extensions) run around it.
    pub async fn connect(self) -> Result<Client> {
        crate::callbacks::shadowed::warn_if_shadowed(
            &self.options,
            self.callbacks.can_use_tool.is_some(),
        );
        let extensions = self.extensions();
        let client = match self.start(&extensions).await {
            Ok(client) => client,
            Err(e) => {
                extensions.list.connect_failed(&e);
                return Err(e);
            }
        };
        if let Err(e) = client.post_start().await {
            extensions.list.connect_failed(&e);
            client.shutdown().await;
            return Err(e);
        }
        Ok(client)
    }

    /// The built-in extensions this builder's settings ask for, inside the
    /// user's (outermost first).
    fn extensions(&self) -> Extensions {
        let rt = &self.runtime;
        let mut list = ExtensionList::default();
        for e in &rt.extensions {
            list.push(e.clone());
        }
        #[cfg(feature = "hooks")]
        list.push(Arc::new(HookCheckExtension::new(
            self.callbacks.hooks.clone(),
        )));
        list.push(Arc::new(McpCheckExtension));
        list.push(Arc::new(VersionWarningExtension));
        let trace = rt.telemetry.session(rt.tenant.as_deref());
        #[cfg(feature = "telemetry")]
        if let Some(t) = &trace {
            list.push(Arc::new(TelemetryExtension::new(t.clone())));
        }
        #[cfg(feature = "transcript")]
        let transcript = rt
            .transcript
            .then(|| Arc::new(TranscriptExtension::new(rt.entry)));
        #[cfg(not(feature = "transcript"))]
        let transcript: Option<Arc<TranscriptExtension>> = None;
        #[cfg(feature = "transcript")]
        if let Some(t) = &transcript {
            list.push(t.clone());
        }
        #[cfg(feature = "fault-injection")]
        let faults = rt.faults.clone().map(|plan| {
            let faults = Arc::new(crate::fault::FaultExtension::new(plan, transcript.clone()));
            list.push(faults.clone());
            faults
        });
        if rt.on_diagnostic.is_some() || transcript.is_some() {
            let observer = rt.on_diagnostic.clone();
            let diagnostics = DiagnosticsExtension::new(observer, transcript.clone());
            list.push(Arc::new(diagnostics));
        }
        #[cfg(feature = "transcript")]
        if let Some(path) = &rt.record_frames {
            list.push(Arc::new(RecordFramesExtension::new(path.clone())));
        }
        #[cfg(feature = "store")]
        let store = rt.session_store.clone();
        // The mirror appends through the plan's store faults.
        #[cfg(feature = "fault-injection")]
        let store = match (store, &faults) {
            (Some(s), Some(f)) => Some(f.wrap_store(s)),
            (s, _) => s,
        };
        #[cfg(feature = "store")]
        let mirror = store
            .as_ref()
            .map(|store| Arc::new(MirrorExtension::new(store.clone(), rt.mirror.clone())));
        #[cfg(feature = "store")]
        if let Some(m) = &mirror {
            list.push(m.clone());
        }
        list.push(Arc::new(RunAsExtension));
        #[cfg(feature = "store")]
        if let Some(store) = &rt.session_store {
            let key = rt.mirror.project_key.clone();
            list.push(Arc::new(StoreRestoreExtension::new(store.clone(), key)));
        }
        Extensions {
            list,
            trace,
            transcript,
            #[cfg(feature = "store")]
            mirror,
        }
    }

    /// `pre_start`, the session config, `configure`, the start.
    async fn start(mut self, extensions: &Extensions) -> Result<Client> {
        let mut command = CommandContext {
            permission_callback: self.callbacks.can_use_tool.is_some(),
            ..CommandContext::default()
        };
        let mut start = PreStart::new(&mut self.options, &mut command);
        extensions.list.pre_start(&mut start).await?;
        let (user, observers) = (start.user, start.decision_observers);
        let (config, builder) = self.session_config(command, user, observers)?;
        let config = extensions.list.configure(config)?;
        // Boxed by the runtime: the four actors' start-up does not sit inline
        // in every connect future, copied whole each time one is spawned.
        let (session, frames) = Session::start(config).await?;
        let transcript = extensions.transcript.as_ref().and_then(|t| t.recorder());
        #[cfg(feature = "store")]
        let mirror_errors = extensions.mirror.as_ref().and_then(|m| m.take_errors());
        // Only the mirror injects messages into the stream.
        #[cfg(not(feature = "store"))]
        let mirror_errors = None;
        Ok(Client::new(
            session,
            frames,
            builder,
            extensions.list.clone(),
            extensions.trace.clone(),
            transcript,
            mirror_errors,
        ))
    }

    /// The runtime's session config for these options and what the
    /// extensions set before: the command context, the user the CLI runs
    /// as, observers of the session's callback decisions.
    fn session_config(
        mut self,
        command: CommandContext,
        user: Option<UserAccount>,
        observers: Vec<DecisionObserver>,
    ) -> Result<(SessionConfig, Self)> {
        #[cfg(feature = "mcp")]
        self.register_sdk_servers()?;
        // The session's own server list, shared with its Client.
        self.callbacks = self.callbacks.for_session();
        let mut callbacks = self.callbacks.clone();
        for observer in observers {
            callbacks = callbacks.on_decision(observer);
        }
        let inbound: Arc<dyn InboundHandler> = Arc::new(callbacks);
        let program = match &self.options.cli_path {
            Some(p) => p.clone(),
            None => discovery::find_cli(None, self.options.cwd.as_deref())?,
        };
        let cmd = self.options.to_command(program, &command)?;
        let mut spec = ProcessSpec::new(cmd.program);
        spec.args = cmd.args;
        spec.env = cmd.env;
        spec.env_remove = cmd.env_remove;
        spec.cwd = cmd.cwd;
        spec.session_label = self.runtime.label.clone();
        spec.user = user;
        let mut initialize = self
            .options
            .initialize_request(self.callbacks.initialize_hooks_json());
        self.callbacks.add_initialize_fields(&mut initialize);
        let rt = &self.runtime;
        let mut config = rt
            .launch
            .session_config(spec)
            .initialize(initialize)
            .control_timeout(rt.control_timeout)
            .handler_timeout(rt.handler_timeout)
            .max_line_bytes(rt.max_line_bytes)
            .max_buffered_bytes(rt.max_buffered_bytes)
            .grace(rt.grace)
            .term_grace(rt.term_grace)
            .idle_watchdog(rt.idle_watchdog)
            .inbound(inbound);
        if let Some(t) = rt.initialize_timeout {
            config = config.initialize_timeout(t);
        }
        if let Some(f) = &rt.on_stderr {
            config = config.on_stderr(f.clone());
        }
        if let Some(label) = &rt.label {
            config = config.label(label.clone());
        }
        Ok((config, self))
    }
}
