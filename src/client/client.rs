//! [`Client`]: a long-lived, multi-turn session.

use std::sync::{Arc, Weak};
use std::time::Duration;
#[cfg(feature = "transcript")]
use std::time::{Instant, SystemTime};

use claude_agent_actors::ControlError;
use claude_agent_actors::{
    ControlStatus, FrameStream, Session, SessionEvent, SessionStats, ShutdownReport,
};
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{Mutex, OnceCell, mpsc};
use tokio_util::sync::CancellationToken;

use super::messages::{self, Inbound, Kind, Until};
use super::prompt::{is_verbatim, mark_verbatim};
use super::{ClientBuilder, Prompt};
#[cfg(feature = "transcript")]
use crate::extensions::transcript::control_record;
use crate::extensions::{ExtensionList, SessionReport, Started, decode_server_info};
use crate::options::Options;
use crate::protocol::{Message, ServerInfo, UserMessage};
use crate::telemetry::{self, SessionTrace};
use crate::transcript::TranscriptRecorder;
#[cfg(feature = "transcript")]
use crate::transcript::{ControlOutcome, Direction, Transcript};
use crate::{Error, Result};

/// A connected Claude Code session: send turns, read typed messages, make
/// control calls, shut down in order.
///
/// `Client` is cheap to clone (an `Arc` inside) and every method takes
/// `&self`, so one session can be driven from many tasks: one task reading
/// [`receive_messages`](Self::receive_messages) while others send prompts or
/// call [`interrupt`](Self::interrupt). Messages have one reader at a time:
/// a second `receive_*` stream waits until the first is dropped.
///
/// Dropping the last clone without [`shutdown`](Self::shutdown) runs the same
/// ordered shutdown in the background (EOF, grace, SIGTERM, grace, SIGKILL);
/// the process is reaped either way.
///
/// ```no_run
/// use futures::StreamExt;
/// use claude_agent::{client::Client, options::Options};
///
/// # async fn run() -> claude_agent::Result<()> {
/// let client = Client::connect(Options::new()).await?;
/// client.send("What is 2 + 2?").await?;
/// let mut turn = client.receive_response();
/// while let Some(message) = turn.next().await {
///     println!("{}", message?.kind());
/// }
/// drop(turn);
/// client.send("And times 3?").await?; // same connection, next turn
/// let report = client.shutdown().await;
/// println!("escalation: {:?}", report.escalation);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) session: Session,
    pub(crate) frames: Arc<Mutex<Inbound>>,
    pub(crate) builder: ClientBuilder,
    pub(crate) transcript: Option<TranscriptRecorder>,
    /// The session's spans and metrics, when telemetry is on.
    pub(crate) telemetry: Option<Arc<SessionTrace>>,
    /// The session's extensions (the built-in ones included).
    pub(crate) extensions: ExtensionList,
    /// The SDK's report, made once by the extensions' `post_stop`. Boxed:
    /// an idle session should not hold its room.
    pub(crate) report: OnceCell<Box<SessionReport>>,
    /// Cancelled by [`Client::hurry`]: the extensions' own final waits
    /// (the mirror's flush) end then too.
    pub(crate) hurried: CancellationToken,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The counters are out of the trace's reach after this.
        if let Some(t) = &self.telemetry {
            t.client_dropped(self.session.stats(), self.session.report());
        }
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("pid", &self.pid())
            .field("session_id", &self.session_id())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Closes the CLI's stdin and nothing else (see
    /// [`Session::end_input`](crate::runtime::Session::end_input)).
    pub(crate) fn end_input(&self) {
        self.inner.session.end_input();
    }

    /// Starts the CLI with `options` and no callbacks. Use
    /// [`Client::builder`] for callbacks and runtime settings.
    pub async fn connect(options: Options) -> Result<Self> {
        ClientBuilder::new(options).connect().await
    }

    /// A builder for callbacks (permissions, hooks, MCP tools) and runtime
    /// settings (grace periods, timeouts, buffer caps).
    pub fn builder(options: Options) -> ClientBuilder {
        ClientBuilder::new(options)
    }

    pub(crate) fn new(
        session: Session,
        frames: FrameStream,
        builder: ClientBuilder,
        extensions: ExtensionList,
        telemetry: Option<Arc<SessionTrace>>,
        transcript: Option<TranscriptRecorder>,
        mirror_errors: Option<mpsc::Receiver<Message>>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                session,
                frames: Arc::new(Mutex::new(Inbound::new(frames, mirror_errors))),
                builder,
                transcript,
                telemetry,
                extensions,
                report: OnceCell::new(),
                hurried: CancellationToken::new(),
            }),
        }
    }

    /// The extensions' `post_start`: the session is up.
    pub(crate) async fn post_start(&self) -> Result<()> {
        // Weak: telemetry never keeps a session alive.
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        let make_probe = move || -> telemetry::Probe {
            let weak = weak.clone();
            Box::new(move || {
                let inner = weak.upgrade()?;
                let s = &inner.session;
                Some((s.report(), s.stats()))
            })
        };
        let started = Started {
            session: &self.inner.session,
            options: &self.inner.builder.options,
            make_probe: &make_probe,
        };
        self.inner.extensions.post_start(&started).await
    }

    /// Sends one user turn: text, content blocks (e.g. an image), or a
    /// [`UserMessage`].
    pub async fn send(&self, prompt: impl Into<Prompt>) -> Result<()> {
        let message = prompt.into().into_message();
        self.send_message(&message).await
    }

    /// Sends every user message of `prompts`, in order.
    pub async fn send_stream<S>(&self, prompts: S) -> Result<()>
    where
        S: Stream<Item = UserMessage> + Send,
    {
        let mut prompts = std::pin::pin!(prompts);
        while let Some(message) = prompts.next().await {
            self.send_message(&message).await?;
        }
        Ok(())
    }

    pub(crate) async fn send_message(&self, message: &UserMessage) -> Result<()> {
        let stamped;
        let message = if self.inner.builder.options.verbatim_prompts && !is_verbatim(message) {
            let mut m = message.clone();
            mark_verbatim(&mut m);
            stamped = m;
            &stamped
        } else {
            message
        };
        let line = Prompt::encode(message)?;
        let trace = self.inner.telemetry.as_deref();
        if let Some(t) = trace {
            t.turn_started();
        }
        // Encoded by us as one `user` line: the runtime need not re-scan it.
        if let Err(e) = self.inner.session.send_user_line(line).await {
            let e = Error::from(e);
            if let Some(t) = trace {
                t.turn_not_sent(&e);
            }
            return Err(e);
        }
        if let Some(t) = &self.inner.transcript {
            t.record_sent_prompt(message);
        }
        Ok(())
    }

    /// Every message, in order, across turns, until the session ends. A
    /// message that fails to parse is an `Err` item and the stream goes on;
    /// the CLI closing its output mid-turn ends the stream with
    /// [`Error::Session`] (exit status and stderr tail inside).
    pub fn receive_messages(&self) -> BoxStream<'static, Result<Message>> {
        if self.inner.telemetry.is_some() {
            return self.received(Until::End).map(|r| r.message).boxed();
        }
        messages::stream(
            self.inner.frames.clone(),
            Until::End,
            self.inner.transcript.clone(),
        )
    }

    /// The messages of one turn, ending after its `result` message. The
    /// connection stays open: frames after the result (e.g. a trailing
    /// `system` frame) wait for the next `receive_*` call.
    pub fn receive_response(&self) -> BoxStream<'static, Result<Message>> {
        if self.inner.telemetry.is_some() {
            return self.received(Until::Result).map(|r| r.message).boxed();
        }
        messages::stream(
            self.inner.frames.clone(),
            Until::Result,
            self.inner.transcript.clone(),
        )
    }

    /// Frames with their envelope kinds, for `query`'s end-of-run logic.
    pub(crate) fn received(&self, until: Until) -> BoxStream<'static, messages::Received> {
        let received = messages::received(
            self.inner.frames.clone(),
            until,
            self.inner.transcript.clone(),
        );
        match self.inner.telemetry.clone() {
            None => received,
            Some(t) => received
                .inspect(move |r| t.observe(r.kind == Kind::Result, &r.message))
                .boxed(),
        }
    }

    /// Sends `request` (an object with a `subtype`) and waits for its reply.
    pub async fn control(&self, request: Value, timeout: Option<Duration>) -> Result<Value> {
        let subtype = request["subtype"].as_str().unwrap_or("").to_owned();
        self.observed_control(subtype, self.inner.session.request(request, timeout))
            .await
    }

    /// [`control`](Self::control) for a request already written as JSON
    /// text: the typed requests, serialized once, straight to text.
    pub(crate) async fn control_json(&self, request: &RawValue, subtype: &str) -> Result<Value> {
        let call = self.inner.session.request_json(request, None);
        self.observed_control(subtype.to_owned(), call).await
    }

    /// Runs a control request inside its telemetry span and transcript
    /// record.
    async fn observed_control(
        &self,
        subtype: String,
        call: impl Future<Output = std::result::Result<Value, ControlError>>,
    ) -> Result<Value> {
        #[cfg(feature = "transcript")]
        let started = (SystemTime::now(), Instant::now());
        let span = self
            .inner
            .telemetry
            .as_ref()
            .map(|t| t.control(&subtype, telemetry::Direction::Out, Vec::new()));
        let result = call.await;
        if let Some(span) = span {
            span.end(ControlStatus::of(&result).as_str(), Vec::new());
        }
        #[cfg(feature = "transcript")]
        if let Some(t) = &self.inner.transcript {
            let outcome = match &result {
                Ok(_) => ControlOutcome::Success,
                Err(ControlError::Timeout { .. }) => ControlOutcome::Timeout,
                Err(e) => ControlOutcome::Error(e.to_string()),
            };
            // The runtime picks the wire id; the transcript keys by order.
            let id = format!("out_{}", self.stats().frames_out);
            t.record_control(control_record(
                id,
                subtype,
                Direction::Outbound,
                started,
                outcome,
            ));
        }
        Ok(result?)
    }

    /// The CLI's `initialize` reply: commands, agents, models, account,
    /// version, permission mode, ...
    /// A reply that does not decode is [`Error::Parse`].
    pub fn server_info(&self) -> Result<ServerInfo> {
        // Decoded from the kept reply in place: no bytes in between.
        decode_server_info(self.inner.session.server_info())
    }

    /// The raw `initialize` reply.
    pub fn server_info_raw(&self) -> &Value {
        self.inner.session.server_info()
    }

    /// The CLI's pid (`None` for a non-process transport).
    pub fn pid(&self) -> Option<u32> {
        self.inner.session.pid()
    }

    /// The CLI's session id, once its first `system/init` frame was read.
    pub fn session_id(&self) -> Option<String> {
        self.inner.session.session_id()
    }

    /// Lifecycle and diagnostic events (spawned, initialized, stdin closed,
    /// exited, escalated, skipped lines, ...), apart from wire messages.
    pub fn events(&self) -> tokio::sync::broadcast::Receiver<SessionEvent> {
        self.inner.session.subscribe_events()
    }

    /// The session's counters.
    pub fn stats(&self) -> SessionStats {
        self.inner.session.stats()
    }

    /// The last lines of the CLI's stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.inner.session.stderr_tail()
    }

    /// The options this client was started with.
    pub fn options(&self) -> &Options {
        &self.inner.builder.options
    }

    /// The underlying runtime session.
    pub fn session(&self) -> &Session {
        &self.inner.session
    }

    /// Ordered shutdown: stop admitting, fail pending requests, EOF, keep
    /// reading, wait `grace`, SIGTERM the group, wait `term_grace`, SIGKILL,
    /// reap; then the [extensions](crate::extensions)' `post_stop`.
    /// Idempotent: every caller gets the same report.
    ///
    /// With a session store (`ClientBuilder::session_store`, feature `store`), the mirror's
    /// pending appends are waited for (at most its flush deadline, or
    /// `store::mirror::HURRIED_FLUSH` once
    /// [`hurry`](Self::hurry) was called) and reported as
    /// `mirror_persisted` / `mirror_unpersisted`.
    pub async fn shutdown(&self) -> SessionReport {
        let report = self.inner.session.shutdown().await;
        self.finish_shutdown(report).await
    }

    /// [`shutdown`](Self::shutdown) giving `cause` as the reason: what the
    /// host uses, so its sessions flush and count their mirror too.
    #[cfg(feature = "host")]
    pub(crate) async fn shutdown_with(
        &self,
        cause: claude_agent_actors::ShutdownCause,
    ) -> SessionReport {
        let report = self.inner.session.shutdown_with(cause).await;
        self.finish_shutdown(report).await
    }

    /// What follows the session's own shutdown, once: the extensions'
    /// `post_stop` (the mirror's flush and counts, telemetry, the
    /// transcript's close, the user's).
    async fn finish_shutdown(&self, runtime: ShutdownReport) -> SessionReport {
        let inner = &self.inner;
        let stats = inner.session.stats();
        let id = inner.session.session_id();
        let report = inner
            .report
            .get_or_init(|| async {
                let stop =
                    inner
                        .extensions
                        .post_stop(runtime, &stats, id.as_deref(), &inner.hurried);
                Box::new(stop.await)
            })
            .await;
        SessionReport::clone(report)
    }

    /// Cuts the shutdown's current wait short: during `grace`, SIGTERM to
    /// the group now; during `term_grace`, SIGKILL. Starts the ordered
    /// shutdown if none began. Meant for a second (and third) Ctrl-C while
    /// [`shutdown`](Self::shutdown) runs; each step is in the report.
    ///
    /// It also cuts the [extensions](crate::extensions)' final waits short
    /// ([`Stopped::hurried`](crate::extensions::Stopped::hurried)): the
    /// session store mirror gives pending appends at most
    /// `HURRIED_FLUSH` more instead of its
    /// flush deadline, and reports what it could not persist
    /// (`system/mirror_error`, `mirror_unpersisted`).
    pub fn hurry(&self) {
        self.inner.hurried.cancel();
        self.inner.session.hurry();
    }

    /// The transcript so far, when enabled with
    /// [`ClientBuilder::transcript`]; after [`shutdown`](Self::shutdown) it
    /// includes how the session closed. Needs the `transcript` feature.
    #[cfg(feature = "transcript")]
    pub fn transcript(&self) -> Option<Transcript> {
        self.inner
            .transcript
            .as_ref()
            .map(TranscriptRecorder::snapshot)
    }

    pub(crate) fn transcript_recorder(&self) -> Option<&TranscriptRecorder> {
        self.inner.transcript.as_ref()
    }
}
