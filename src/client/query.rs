//! [`query`]: one-shot sessions as a stream of typed messages.

use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use claude_agent_actors::ShutdownReport;
use futures::stream::{self, BoxStream};
use futures::{Stream, StreamExt};
use tokio::sync::watch;
use tokio_util::task::AbortOnDropHandle;

use super::messages::{Kind, Received, Until};
use super::{Client, ClientBuilder, Prompt};
use crate::Result;
use crate::options::Options;
use crate::protocol::{Message, UserMessage};
use crate::transcript::{Transcript, TranscriptRecorder};

/// Runs one session: connects, sends `prompt`, yields every typed message
/// until the run ends, then shuts the CLI down in order.
///
/// The prompt is a string, content blocks, a [`UserMessage`], or a stream of
/// user messages ([`QueryPrompt::Stream`]). The CLI's stdin stays open until
/// the prompt is exhausted and a `result` has arrived after it, so
/// permission, hook and MCP callbacks keep working for the whole run.
/// Failures are typed items: the CLI not found, exiting before a result
/// (status and stderr tail), a timeout, ... Use [`ClientBuilder::query`] for
/// callbacks and runtime settings.
///
/// ```no_run
/// use futures::StreamExt;
/// use claude_agent::{query, Options};
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
    report: Arc<OnceLock<ShutdownReport>>,
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
        builder.runtime.entry = crate::transcript::EntryPoint::Query;
        let report = Arc::new(OnceLock::new());
        let transcript = Arc::new(OnceLock::new());
        let state = State::Connect {
            builder: Box::new(builder),
            prompt,
            transcript: transcript.clone(),
        };
        let out = report.clone();
        let inner = stream::unfold(state, move |st| step(st, out.clone())).boxed();
        Self {
            inner,
            report,
            transcript,
        }
    }

    /// The run's transcript, when enabled with [`ClientBuilder::transcript`]
    /// (complete once the stream has ended).
    pub fn transcript(&self) -> Option<Transcript> {
        self.transcript.get().map(TranscriptRecorder::snapshot)
    }

    /// The shutdown report, once the stream has ended (how the CLI exited,
    /// whether escalation was needed, the stderr tail).
    pub fn shutdown_report(&self) -> Option<&ShutdownReport> {
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
    Reading(Box<Reading>),
    Done,
}

struct Reading {
    client: Client,
    messages: BoxStream<'static, Received>,
    /// User messages written so far, and whether the prompt is exhausted.
    sent: watch::Receiver<Sent>,
    /// `result` frames seen (parsed or not).
    results: u64,
    /// Writes a streamed prompt; aborted if the query is dropped.
    _sender: Option<AbortOnDropHandle<()>>,
    /// EOF was requested.
    closing: bool,
}

/// Progress of writing the prompt.
#[derive(Debug, Clone, Copy, Default)]
struct Sent {
    messages: u64,
    exhausted: bool,
}

impl Reading {
    /// Closes stdin once nothing more can need it: the prompt is exhausted
    /// and every message sent has had its turn end (a `result` each), or
    /// the CLI said it went idle after the last result. Until then stdin
    /// stays open, so callbacks of later turns still get answers.
    fn close_if_done(&mut self, idle: bool) {
        let sent = *self.sent.borrow();
        let caught_up = self.results >= sent.messages || (idle && self.results > 0);
        if self.closing || !sent.exhausted || !caught_up {
            return;
        }
        // EOF now; the runtime keeps reading, so frames that trail the
        // result still arrive on `messages` before it ends.
        self.closing = true;
        let c = self.client.clone();
        tokio::spawn(async move { c.shutdown().await });
    }
}

async fn step(
    state: State,
    report: Arc<OnceLock<ShutdownReport>>,
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
        State::Reading(r) => r,
    };
    loop {
        let prompt_open = !r.sent.borrow().exhausted;
        let received = tokio::select! {
            received = r.messages.next() => received,
            // The prompt may end after the last result: check then too.
            changed = r.sent.changed(), if prompt_open => {
                if changed.is_err() {
                    // The sender is gone without finishing: treat as ended.
                    let last = *r.sent.borrow();
                    r.sent = watch::channel(Sent { exhausted: true, ..last }).1;
                }
                r.close_if_done(false);
                continue;
            }
        };
        let Some(Received { kind, message }) = received else {
            let _ = report.set(r.client.shutdown().await);
            return None;
        };
        match kind {
            Kind::Result => {
                r.results += 1;
                r.close_if_done(false);
            }
            Kind::Idle => r.close_if_done(true),
            Kind::Failure => {
                // A transport failure ends the run; finish the shutdown so
                // the report is there when the stream ends.
                let _ = report.set(r.client.shutdown().await);
                return Some((message, State::Done));
            }
            Kind::Other => {}
        }
        return Some((message, State::Reading(r)));
    }
}

async fn start(
    builder: ClientBuilder,
    prompt: PromptSource,
    transcript: &OnceLock<TranscriptRecorder>,
) -> Result<Box<Reading>> {
    let client = builder.connect().await?;
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
            Some(AbortOnDropHandle::new(tokio::spawn(async move {
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
        results: 0,
        _sender: sender,
        closing: false,
    }))
}
