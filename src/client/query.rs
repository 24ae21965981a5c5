//! [`query`]: one-shot sessions as a stream of typed messages.

use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::stream::{self, BoxStream};
use futures::{Stream, StreamExt};
use tokio::sync::watch;
use tokio_util::task::AbortOnDropHandle;

use super::messages::{Kind, Received, Until};
use super::run_end::{self, RunEnd};
use super::{Client, ClientBuilder, Prompt};
use crate::Result;
use crate::extensions::SessionReport;
use crate::options::Options;
use crate::protocol::{Message, SystemMessage, UserMessage};
#[cfg(feature = "transcript")]
use crate::transcript::Transcript;
use crate::transcript::TranscriptRecorder;

/// Runs one session: connects, sends `prompt`, yields every typed message
/// until the run ends, then shuts the CLI down in order.
///
/// The prompt is a string, content blocks, a [`UserMessage`], or a stream of
/// user messages ([`QueryPrompt::Stream`]). The CLI's stdin stays open until
/// the prompt is exhausted, a `result` has arrived after it and the run is
/// over: with callbacks configured, until the CLI reports it is idle (a
/// background agent may still ask for a permission, a hook or an MCP tool
/// after the result), bounded by `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`
/// (ten minutes by default, `0` for no limit) past the last result.
/// Failures are typed items: the CLI not found, exiting before a result
/// (status and stderr tail), a timeout, ... Use [`ClientBuilder::query`] for
/// callbacks and runtime settings.
///
/// ```no_run
/// use futures::StreamExt;
/// use claude_agent::{client::query, options::Options};
/// use claude_agent::protocol::Message;
///
/// # async fn run() -> claude_agent::Result<()> {
/// let mut messages = query("Say hello", Options::new());
/// while let Some(message) = messages.next().await {
///     if let Message::Result(result) = message? {
///         println!("{:?}", result.result);
///     }
/// }
/// # Ok(()) }
/// ```
pub fn query(prompt: impl Into<QueryPrompt>, options: Options) -> Query {
    Query::new(ClientBuilder::new(options), prompt.into().0)
}

/// The prompt of a [`query`]: one turn, or a stream of user messages.
#[derive(Debug)]
pub struct QueryPrompt(pub(crate) PromptSource);

impl QueryPrompt {
    /// A stream of user messages, sent in order as the CLI reads them.
    #[allow(non_snake_case)]
    pub fn Stream(messages: impl Stream<Item = UserMessage> + Send + 'static) -> Self {
        Self(PromptSource::Stream(messages.boxed()))
    }
}

impl<T: Into<Prompt>> From<T> for QueryPrompt {
    fn from(p: T) -> Self {
        Self(PromptSource::One(Box::new(p.into())))
    }
}

pub(crate) enum PromptSource {
    One(Box<Prompt>),
    Stream(BoxStream<'static, UserMessage>),
}

impl std::fmt::Debug for PromptSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::One(p) => f.debug_tuple("One").field(p).finish(),
            Self::Stream(_) => f.write_str("Stream(..)"),
        }
    }
}

/// The messages of a [`query`], as a `Stream`. Dropping it mid-run shuts the
/// session down in the background; nothing is left running.
#[must_use = "a query does nothing unless polled"]
pub struct Query {
    inner: BoxStream<'static, Result<Message>>,
    report: Arc<OnceLock<SessionReport>>,
    // Only `Query::transcript` reads it; without the feature it stays empty.
    #[cfg_attr(not(feature = "transcript"), allow(dead_code))]
    transcript: Arc<OnceLock<TranscriptRecorder>>,
}

impl std::fmt::Debug for Query {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("finished", &self.report.get().is_some())
            .finish_non_exhaustive()
    }
}

impl Query {
    pub(crate) fn new(mut builder: ClientBuilder, prompt: PromptSource) -> Self {
        prepare(&mut builder);
        let transcript = Arc::new(OnceLock::new());
        let state = State::Connect {
            builder: Box::new(builder),
            prompt,
            transcript: transcript.clone(),
        };
        Self::with_state(state, transcript)
    }

    /// A query on a CLI [`startup`](super::warm) already started.
    pub(crate) fn warm(client: Client, plan: RunPlan, prompt: PromptSource) -> Self {
        let transcript = Arc::new(OnceLock::new());
        let state = State::Warm {
            client,
            plan,
            prompt,
            transcript: transcript.clone(),
        };
        Self::with_state(state, transcript)
    }

    fn with_state(state: State, transcript: Arc<OnceLock<TranscriptRecorder>>) -> Self {
        let report = Arc::new(OnceLock::new());
        let out = report.clone();
        let inner = stream::unfold(state, move |st| step(st, out.clone())).boxed();
        Self {
            inner,
            report,
            transcript,
        }
    }

    /// The run's transcript, when enabled with [`ClientBuilder::transcript`]
    /// (complete once the stream has ended). Needs the `transcript` feature.
    #[cfg(feature = "transcript")]
    pub fn transcript(&self) -> Option<Transcript> {
        self.transcript.get().map(TranscriptRecorder::snapshot)
    }

    /// The session's report, once the stream has ended (how the CLI exited,
    /// whether escalation was needed, the stderr tail, the mirror's counts).
    pub fn shutdown_report(&self) -> Option<&SessionReport> {
        self.report.get()
    }
}

impl Stream for Query {
    type Item = Result<Message>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.poll_next_unpin(cx)
    }
}

enum State {
    Connect {
        builder: Box<ClientBuilder>,
        prompt: PromptSource,
        transcript: Arc<OnceLock<TranscriptRecorder>>,
    },
    Warm {
        client: Client,
        plan: RunPlan,
        prompt: PromptSource,
        transcript: Arc<OnceLock<TranscriptRecorder>>,
    },
    Reading(Box<Reading>),
    Done,
}

/// What a query's builder settles before the CLI starts: its entry point
/// and the session-state frames the end-of-run logic reads.
pub(crate) fn prepare(builder: &mut ClientBuilder) {
    #[cfg(feature = "transcript")]
    {
        builder.runtime.entry = crate::transcript::EntryPoint::Query;
    }
    let inherited = std::env::var_os(run_end::READS_SESSION_STATE_ENV);
    run_end::ask_for_session_state(Arc::make_mut(&mut builder.options), inherited.as_deref());
}

/// How a query's run ends, fixed from its builder before it connects.
pub(crate) struct RunPlan {
    run_end: RunEnd,
    ceiling: Option<Duration>,
}

impl RunPlan {
    pub(crate) fn of(builder: &ClientBuilder) -> Self {
        let callbacks = &builder.callbacks;
        let needs_stdin = callbacks.answers_cli_requests();
        let configured = run_end::env_value(&builder.options, run_end::CEILING_ENV);
        let inherited = std::env::var_os(run_end::CEILING_ENV);
        let ceiling = run_end::ceiling(configured.as_deref(), inherited.as_deref());
        Self {
            run_end: RunEnd::new(needs_stdin, ceiling),
            ceiling,
        }
    }
}

struct Reading {
    client: Client,
    messages: BoxStream<'static, Received>,
    /// User messages written so far, and whether the prompt is exhausted.
    sent: watch::Receiver<Sent>,
    /// Prompts already told to `run_end`.
    prompts_seen: u64,
    /// `result` frames seen (parsed or not).
    results: u64,
    /// Whether the run is over past its last result.
    run_end: RunEnd,
    /// Writes a streamed prompt; aborted if the query is dropped.
    _sender: Option<AbortOnDropHandle<()>>,
    /// EOF was sent.
    closing: bool,
    /// How long the CLI may go on after EOF (its own wait for background
    /// work) before the ordered shutdown starts; `None`: no limit.
    after_eof: Option<Duration>,
    /// When that wait ends, once EOF was sent.
    eof_deadline: Option<Instant>,
}

/// Progress of writing the prompt.
#[derive(Debug, Clone, Copy, Default)]
struct Sent {
    messages: u64,
    exhausted: bool,
}

impl Reading {
    /// Tells `run_end` about prompts written since last time. One whose
    /// result already arrived (the CLI can answer before the sender records
    /// the write) owes nothing more.
    fn sync_prompts(&mut self) -> Sent {
        let sent = *self.sent.borrow();
        if sent.messages > self.prompts_seen {
            self.prompts_seen = sent.messages;
            if self.results < sent.messages {
                self.run_end.prompt_sent();
            }
        }
        sent
    }

    /// Closes stdin once nothing more can need it: the prompt is exhausted,
    /// every message sent has had its turn end (a `result` each, or the CLI
    /// went idle after one), and the run is over ([`RunEnd`]: no background
    /// agent may still ask a callback). Until then stdin stays open, so
    /// callbacks of later turns and background work still get answers.
    fn close_if_done(&mut self) {
        let sent = self.sync_prompts();
        let caught_up = self.results >= sent.messages || (self.run_end.idle() && self.results > 0);
        if self.closing || !sent.exhausted || !caught_up || !self.run_end.ended() {
            return;
        }
        self.closing = true;
        if !self.run_end.background_pending() {
            // Nothing left to do: the ordered shutdown (EOF, then the grace
            // before any signal); the runtime keeps reading meanwhile.
            let c = self.client.clone();
            crate::task::spawn(async move { drop(c.shutdown().await) });
            return;
        }
        // Background work may still run (an agent's follow-up turn): EOF
        // and no grace clock, as under the official SDKs; the CLI exits on
        // its own when done, and `messages` ends then. Past the CLI's own
        // wait for such work, the ordered shutdown ends it.
        self.client.end_input();
        self.eof_deadline = self.after_eof.map(|d| Instant::now() + d);
    }
}

async fn step(
    state: State,
    report: Arc<OnceLock<SessionReport>>,
) -> Option<(Result<Message>, State)> {
    let mut r = match state {
        State::Done => return None,
        State::Connect {
            builder,
            prompt,
            transcript,
        } => match start(*builder, prompt, &transcript).await {
            Ok(r) => r,
            Err(e) => return Some((Err(e), State::Done)),
        },
        State::Warm {
            client,
            plan,
            prompt,
            transcript,
        } => match begin(client, plan, prompt, &transcript).await {
            Ok(r) => r,
            Err(e) => return Some((Err(e), State::Done)),
        },
        State::Reading(r) => r,
    };
    loop {
        let prompt_open = !r.sent.borrow().exhausted;
        // The wait for `idle` after a result is bounded; nothing to wait
        // for once EOF was sent.
        let deadline = r.run_end.deadline().filter(|_| !r.closing);
        let received = tokio::select! {
            received = r.messages.next() => received,
            // The prompt may end after the last result: check then too.
            changed = r.sent.changed(), if prompt_open => {
                if changed.is_err() {
                    // The sender is gone without finishing: treat as ended.
                    let last = *r.sent.borrow();
                    r.sent = watch::channel(Sent { exhausted: true, ..last }).1;
                }
                r.close_if_done();
                continue;
            }
            () = sleep_until(deadline), if deadline.is_some() => {
                r.run_end.ceiling_passed(Instant::now());
                r.close_if_done();
                continue;
            }
            // The CLI outlived its own wait after EOF: the ordered shutdown
            // (grace, then signals) ends it; `messages` ends with it.
            () = sleep_until(r.eof_deadline), if r.eof_deadline.is_some() => {
                r.eof_deadline = None;
                let c = r.client.clone();
                crate::task::spawn(async move { drop(c.shutdown().await) });
                continue;
            }
        };
        let Some(Received { kind, message }) = received else {
            let _ = report.set(r.client.shutdown().await);
            return None;
        };
        r.sync_prompts();
        match kind {
            Kind::Result => {
                r.results += 1;
                r.run_end.on_result(Instant::now());
                r.close_if_done();
            }
            Kind::Idle | Kind::Other => {
                if let Ok(m) = &message {
                    r.run_end.on_message(m, Instant::now());
                }
                r.close_if_done();
                if is_host_only(&message) {
                    // Sent only because query() asked for it; the caller
                    // did not.
                    continue;
                }
            }
            Kind::Failure => {
                // A transport failure ends the run; finish the shutdown so
                // the report is there when the stream ends.
                let _ = report.set(r.client.shutdown().await);
                return Some((message, State::Done));
            }
        }
        return Some((message, State::Reading(r)));
    }
}

/// Sleeps until `deadline`; forever without one (the arm is disabled then).
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(tokio::time::Instant::from_std(d)).await,
        None => std::future::pending().await,
    }
}

/// A `session_state_changed` frame the CLI marked for the SDK host only.
fn is_host_only(message: &Result<Message>) -> bool {
    matches!(
        message,
        Ok(Message::System(SystemMessage::SessionStateChanged(s))) if s.sdk_host_only == Some(true)
    )
}

async fn start(
    builder: ClientBuilder,
    prompt: PromptSource,
    transcript: &OnceLock<TranscriptRecorder>,
) -> Result<Box<Reading>> {
    let plan = RunPlan::of(&builder);
    let client = builder.connect().await?;
    begin(client, plan, prompt, transcript).await
}

/// Sends the prompt to a connected CLI and starts reading the run.
async fn begin(
    client: Client,
    plan: RunPlan,
    prompt: PromptSource,
    transcript: &OnceLock<TranscriptRecorder>,
) -> Result<Box<Reading>> {
    let RunPlan { run_end, ceiling } = plan;
    if let Some(t) = client.transcript_recorder() {
        let _ = transcript.set(t.clone());
    }
    let messages = client.received(Until::End);
    let (sent_tx, sent) = watch::channel(Sent::default());
    let sender = match prompt {
        PromptSource::One(p) => {
            client.send(*p).await?;
            let _ = sent_tx.send(Sent {
                messages: 1,
                exhausted: true,
            });
            None
        }
        PromptSource::Stream(mut prompts) => {
            let c = client.clone();
            Some(AbortOnDropHandle::new(crate::task::spawn(async move {
                while let Some(m) = prompts.next().await {
                    if c.send_message(&m).await.is_err() {
                        break;
                    }
                    sent_tx.send_modify(|s| s.messages += 1);
                }
                sent_tx.send_modify(|s| s.exhausted = true);
            })))
        }
    };
    Ok(Box::new(Reading {
        client,
        messages,
        sent,
        prompts_seen: 0,
        results: 0,
        run_end,
        _sender: sender,
        closing: false,
        after_eof: ceiling,
        eof_deadline: None,
    }))
}
