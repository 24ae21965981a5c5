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
//! Pure bookkeeping owned by the host's supervisor actor; the starts and
//! shutdowns run on their own tasks.

use std::collections::VecDeque;

use ractor::ActorRef;
use serde_json::Value;

use super::supervisor::HostMsg;
use crate::options::{CliCommand, CommandContext};
use crate::{Client, ClientBuilder};

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
            && r.session_store.is_none()
            && !r.transcript
            && r.record_frames.is_none()
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

/// The pool: how many to keep, the template, the ready and starting ones.
pub(crate) struct Spares {
    want: usize,
    template: Box<ClientBuilder>,
    key: Option<SpareKey>,
    ready: VecDeque<Client>,
    starting: usize,
}

impl Spares {
    pub(crate) fn new(want: usize, template: Box<ClientBuilder>) -> Self {
        let key = SpareKey::of(&template).filter(|_| template.runtime.on_diagnostic.is_none());
        if key.is_none() {
            tracing::warn!("the warm-spare template wires callbacks in at connect: no spares");
        }
        Self {
            want: if key.is_some() { want } else { 0 },
            template,
            key,
            ready: VecDeque::new(),
            starting: 0,
        }
    }

    /// Slots the spares hold (ready or starting).
    pub(crate) fn slots(&self) -> usize {
        self.ready.len() + self.starting
    }

    pub(crate) fn ready(&self) -> usize {
        self.ready.len()
    }

    /// A ready spare for `builder`, if it matches the template. A spare
    /// whose CLI ended while waiting is shut down and skipped.
    pub(crate) fn take_matching(&mut self, builder: &ClientBuilder) -> Option<Client> {
        if self.ready.is_empty() || self.key.is_none() || SpareKey::of(builder) != self.key {
            return None;
        }
        while let Some(c) = self.ready.pop_front() {
            if !c.session().is_closed() {
                if let Some(observer) = &builder.runtime.on_diagnostic {
                    crate::client::forward_diagnostics(
                        c.session().subscribe_events(),
                        Some(observer.clone()),
                        None,
                    );
                }
                return Some(c);
            }
            tokio::spawn(async move { c.shutdown().await });
        }
        None
    }

    /// Gives up one ready spare's slot (for a session it cannot serve);
    /// the caller shuts it down.
    pub(crate) fn evict(&mut self) -> Option<Client> {
        self.ready.pop_back()
    }

    /// A start finished.
    pub(crate) fn started(&mut self, client: Option<Client>) {
        self.starting = self.starting.saturating_sub(1);
        if let Some(c) = client {
            self.ready.push_back(c);
        }
    }

    /// Every ready spare (a drain).
    pub(crate) fn take_all(&mut self) -> Vec<Client> {
        self.want = 0;
        self.ready.drain(..).collect()
    }

    /// Starts spares up to the wanted count, within `room` free slots.
    pub(crate) fn refill(&mut self, room: usize, host: &ActorRef<HostMsg>) {
        let n = self.want.saturating_sub(self.slots()).min(room);
        for _ in 0..n {
            self.starting += 1;
            let builder = (*self.template).clone();
            let host = host.clone();
            tokio::spawn(async move {
                let client = match builder.connect().await {
                    Ok(c) => Some(c),
                    Err(e) => {
                        tracing::warn!(error = %e, "a warm spare could not be started");
                        None
                    }
                };
                if let Err(unsent) = host.cast(HostMsg::SpareReady(client)) {
                    // The host is gone: the spare's drop shuts it down.
                    drop(unsent);
                }
            });
        }
    }
}
