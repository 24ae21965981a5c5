//! Warm spares: CLIs started and initialised ahead of demand from one
//! template builder, handed to the next admitted session whose builder
//! *matches* the template.
//!
//! Matching is exact and conservative: both builders have no callbacks,
//! in-process MCP servers, session store, transcript, frame recording,
//! stderr observer, custom spawner or transport (all of these are wired
//! into a session when it connects, so a CLI started without them cannot
//! serve them), and they compute the same CLI command
//! (program, argv, environment, working directory), the same
//! `initialize` request, the same OS user and the same runtime settings
//! (graces, timeouts, buffer limits, watchdog). Tenant and label are not
//! compared: a spare started for the template serves any tenant. A
//! diagnostics observer is the exception: it only listens to the session's
//! events, so a spare handed out starts feeding the served builder's
//! observer from then on (the template itself must have none, or the
//! spare's diagnostics would go to two observers).
//!
//! The pool's slots (ready and starting spares) are the host core's
//! bookkeeping; the starts run on their own tasks and report back.

use ractor::ActorRef;
use serde_json::Value;

use super::msg::HostMsg;
use crate::client::ClientBuilder;
use crate::options::{CliCommand, CommandContext};

/// What two builders must share for a spare of one to serve the other.
#[derive(Debug, PartialEq)]
pub(crate) struct SpareKey {
    command: CliCommand,
    initialize: Value,
    user: Option<String>,
    runtime: String,
}

impl SpareKey {
    /// The key of `b`, or `None` when `b` wires anything in at connect
    /// (its diagnostics observer aside: see the module's doc).
    pub(crate) fn of(b: &ClientBuilder) -> Option<Self> {
        let r = &b.runtime;
        let plain = b.callbacks.is_empty()
            && !r.mirrors_or_records()
            && r.on_stderr.is_none()
            && r.extensions.is_empty()
            && b.launches_plain_subprocess();
        if !plain {
            return None;
        }
        let program = b
            .options
            .cli_path
            .clone()
            .unwrap_or_else(|| "claude".into());
        let command = b
            .options
            .to_command(program, &CommandContext::default())
            .ok()?;
        let runtime = format!(
            "{:?} {:?} {:?} {:?} {:?} {} {} {:?}",
            r.grace,
            r.term_grace,
            r.initialize_timeout,
            r.control_timeout,
            r.handler_timeout,
            r.max_line_bytes,
            r.max_buffered_bytes,
            r.idle_watchdog,
        );
        Some(Self {
            command,
            initialize: b.options.initialize_request(None),
            user: b.options.user.clone(),
            runtime,
        })
    }
}

/// Starts `n` spares from `template`, each on its own task; each start
/// reports back to the host as [`HostMsg::SpareStarted`].
pub(crate) fn start(n: usize, template: &ClientBuilder, host: &ActorRef<HostMsg>) {
    for _ in 0..n {
        let builder = template.clone();
        let host = host.clone();
        crate::task::spawn(async move {
            let client = match builder.connect().await {
                Ok(c) => Some(c),
                Err(e) => {
                    tracing::warn!(error = ?e, "a warm spare could not be started");
                    None
                }
            };
            if let Err(unsent) = host.cast(HostMsg::SpareStarted(client)) {
                // The host is gone: the spare's drop shuts it down.
                drop(unsent);
            }
        });
    }
}

/// The key of the spares `template` makes, or `None` (with a warning) when
/// the template wires anything in at connect, a diagnostics observer
/// included: then the host keeps no spares.
pub(crate) fn template_key(template: &ClientBuilder) -> Option<SpareKey> {
    let key = SpareKey::of(template).filter(|_| template.runtime.on_diagnostic.is_none());
    if key.is_none() {
        tracing::warn!("the warm-spare template wires callbacks in at connect: no spares");
    }
    key
}
