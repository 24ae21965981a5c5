//! What each phase hands an extension: [`PreStart`], [`Started`],
//! [`Stopped`].

use claude_agent_actors::process::UserAccount;
use claude_agent_actors::{Session, SessionStats, ShutdownReport};
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::SessionReport;
use crate::callbacks::DecisionObserver;
use crate::options::{CommandContext, Options};
use crate::protocol::{ParseError, ServerInfo};
use crate::{Error, Result};

/// Before the CLI command is computed: the options it is computed from and
/// the command context (trace context, `--session-mirror`, ...).
///
/// ```
/// use claude_agent::extensions::{Extension, PreStart};
///
/// /// Every session of the builder on one model.
/// struct PinModel(&'static str);
///
/// impl Extension for PinModel {
///     fn name(&self) -> &str {
///         "pin_model"
///     }
///
///     async fn pre_start(&self, start: &mut PreStart<'_>) -> claude_agent::Result<()> {
///         start.update_options(|options| options.model(self.0));
///         Ok(())
///     }
/// }
/// ```
pub struct PreStart<'a> {
    pub(crate) options: &'a mut std::sync::Arc<Options>,
    pub(crate) command: &'a mut CommandContext,
    /// The OS account the CLI runs as (the run-as extension fills it in).
    pub(crate) user: Option<UserAccount>,
    /// Observers added to the session's callbacks, and to no other copy.
    pub(crate) decision_observers: Vec<DecisionObserver>,
}

impl<'a> PreStart<'a> {
    pub(crate) fn new(
        options: &'a mut std::sync::Arc<Options>,
        command: &'a mut CommandContext,
    ) -> Self {
        Self {
            options,
            command,
            user: None,
            decision_observers: Vec::new(),
        }
    }

    /// The options the command will be computed from.
    pub fn options(&self) -> &Options {
        self.options
    }

    /// Changes the options before the command is computed, with their
    /// builder methods: `start.update_options(|o| o.model("..."))`.
    pub fn update_options(&mut self, change: impl FnOnce(Options) -> Options) {
        let options = self.options_mut();
        *options = change(std::mem::take(options));
    }

    /// The options, for the SDK's own extensions to change in place.
    pub(crate) fn options_mut(&mut self) -> &mut Options {
        // Copied only here: an unchanged session shares its options.
        std::sync::Arc::make_mut(self.options)
    }

    /// What the command is computed with besides the options.
    pub fn command_context_mut(&mut self) -> &mut CommandContext {
        self.command
    }
}

impl std::fmt::Debug for PreStart<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreStart")
            .field("options", &self.options)
            .field("command", &self.command)
            .finish_non_exhaustive()
    }
}

/// A makes-a-probe function: telemetry reads the live session through it
/// without keeping it alive.
pub(crate) type MakeProbe<'a> = &'a (dyn Fn() -> crate::telemetry::Probe + Send + Sync);

/// A session that started: the CLI replied to `initialize`.
///
/// ```
/// use claude_agent::Error;
/// use claude_agent::extensions::{Extension, Started};
///
/// /// Refuses a CLI that does not say its version.
/// struct KnownVersion;
///
/// impl Extension for KnownVersion {
///     fn name(&self) -> &str {
///         "known_version"
///     }
///
///     async fn post_start(&self, started: &Started<'_>) -> claude_agent::Result<()> {
///         match started.server_info()?.claude_code_version {
///             Some(_) => Ok(()),
///             None => Err(Error::extension(self.name(), "the CLI did not say its version")),
///         }
///     }
/// }
/// ```
pub struct Started<'a> {
    pub(crate) session: &'a Session,
    pub(crate) options: &'a Options,
    #[cfg_attr(not(feature = "telemetry"), allow(dead_code))]
    pub(crate) make_probe: MakeProbe<'a>,
}

impl Started<'_> {
    /// The runtime session (pid, session id, events, counters).
    pub fn session(&self) -> &Session {
        self.session
    }

    /// The options the session was started with.
    pub fn options(&self) -> &Options {
        self.options
    }

    /// The CLI's `initialize` reply, as sent.
    pub fn server_info_raw(&self) -> &Value {
        self.session.server_info()
    }

    /// The CLI's `initialize` reply (version, commands, models, ...); a
    /// reply that does not decode is [`Error::Parse`].
    pub fn server_info(&self) -> Result<ServerInfo> {
        decode_server_info(self.session.server_info())
    }
}

impl std::fmt::Debug for Started<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Started")
            .field("pid", &self.session.pid())
            .finish_non_exhaustive()
    }
}

/// The `initialize` reply decoded in place.
pub(crate) fn decode_server_info(raw: &Value) -> Result<ServerInfo> {
    ServerInfo::deserialize(raw).map_err(|e| {
        Error::Parse(ParseError::InvalidField {
            message_type: "control_response/initialize",
            field: "response".to_owned(),
            reason: e.to_string(),
            prefix: raw.to_string().chars().take(120).collect(),
        })
    })
}

/// A session that ended: the runtime's report, the final counters, and the
/// SDK's report that extensions add their parts to.
///
/// ```
/// use claude_agent::extensions::{Extension, Stopped};
///
/// /// Reports how many lines each session read and wrote.
/// struct Traffic;
///
/// impl Extension for Traffic {
///     fn name(&self) -> &str {
///         "traffic"
///     }
///
///     async fn post_stop(&self, stopped: &mut Stopped<'_>) {
///         let stats = *stopped.stats();
///         stopped.report(serde_json::json!({
///             "frames_in": stats.frames_in,
///             "frames_out": stats.frames_out,
///         }));
///     }
/// }
/// ```
pub struct Stopped<'a> {
    pub(crate) report: &'a mut SessionReport,
    pub(crate) stats: &'a SessionStats,
    pub(crate) session_id: Option<&'a str>,
    /// The extension this view is handed to.
    pub(crate) name: &'a str,
    /// Cancelled once the client was hurried.
    pub(crate) hurried: &'a CancellationToken,
}

impl Stopped<'_> {
    /// What the runtime's ordered shutdown did.
    pub fn runtime(&self) -> &ShutdownReport {
        &self.report.runtime
    }

    /// The SDK's report so far (with the parts of the inner extensions).
    pub fn sdk_report(&self) -> &SessionReport {
        self.report
    }

    /// The session's final counters.
    pub fn stats(&self) -> &SessionStats {
        self.stats
    }

    /// The CLI's session id, if its `system/init` frame was read.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id
    }

    /// Sets this extension's part of the report: under its
    /// [`name`](super::Extension::name) in [`SessionReport::extensions`].
    pub fn report(&mut self, value: Value) {
        self.report.extensions.insert(self.name.to_owned(), value);
    }

    /// Completes once the shutdown was cut short
    /// ([`Client::hurry`](crate::client::Client::hurry): a second Ctrl-C, a host
    /// drain's deadline); at once if it already was. An extension's own
    /// final wait (a flush, an upload) should end then, reporting what it
    /// could not finish.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_agent::extensions::{Extension, Stopped};
    ///
    /// /// Waits for an upload at the session's end, unless hurried.
    /// struct Upload;
    ///
    /// impl Extension for Upload {
    ///     fn name(&self) -> &str {
    ///         "upload"
    ///     }
    ///
    ///     async fn post_stop(&self, stopped: &mut Stopped<'_>) {
    ///         let upload = tokio::time::sleep(Duration::from_secs(30)); // stands for the upload
    ///         let done = tokio::select! {
    ///             () = upload => true,
    ///             () = stopped.hurried() => false,
    ///         };
    ///         stopped.report(serde_json::json!({ "uploaded": done }));
    ///     }
    /// }
    /// ```
    pub fn hurried(&self) -> impl Future<Output = ()> + Send + 'static {
        self.hurried.clone().cancelled_owned()
    }

    /// The mirror's counts (the built-in mirror's part).
    #[cfg(feature = "store")]
    pub(crate) fn set_mirror_counts(&mut self, persisted: u64, unpersisted: u64) {
        self.report.mirror_persisted = Some(persisted);
        self.report.mirror_unpersisted = Some(unpersisted);
    }
}

impl std::fmt::Debug for Stopped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stopped")
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}
