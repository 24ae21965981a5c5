//! The fleet's client: submit jobs, await and stream outcomes, and the
//! worker's side of the streams.

use std::time::Duration;

use async_nats::jetstream::consumer::PullConsumer;
use async_nats::jetstream::context::PublishErrorKind;
use async_nats::jetstream::message::PublishMessage;
use async_nats::jetstream::stream::{LastRawMessageErrorKind, Stream as JsStream};
use async_nats::jetstream::{self as js};
use futures::StreamExt;
use futures::stream::BoxStream;
use serde::Serialize;

use super::results;
use super::{DeadLetter, FleetError, JobId, JobOutcome, JobSpec, StreamLayout};

/// The bound on connecting to the server that [`Fleet::connect`] sets
/// (async-nats's own default is 5 s); [`Fleet::connect_with`] takes the
/// caller's [`ConnectOptions::connection_timeout`](async_nats::ConnectOptions::connection_timeout).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection to a fleet's streams. Cheap to clone.
///
/// ```no_run
/// use std::time::Duration;
/// use claude_agent::fleet::{Fleet, JobSpec, StreamLayout};
///
/// # async fn fleet() -> Result<(), claude_agent::fleet::FleetError> {
/// let fleet = Fleet::connect("nats://127.0.0.1:4222", StreamLayout::new()).await?;
/// let job = fleet.submit(JobSpec::new("tenant-a", "summarize the README")).await?;
/// let outcome = fleet.outcome(&job.job_id, Duration::from_secs(600)).await?;
/// if let Some(session) = outcome.session_id {
///     // The conversation goes on, on whichever worker takes it.
///     fleet.submit(JobSpec::new("tenant-a", "now shorter").continuing(session)).await?;
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Fleet {
    client: async_nats::Client,
    js: js::Context,
    layout: StreamLayout,
    results: JsStream,
}

/// A submitted job.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Submitted {
    /// Its id (generated when the job had none).
    pub job_id: JobId,
    /// The server had seen this id within the dedup window: nothing new
    /// was queued.
    pub duplicate: bool,
}

/// An outcome read from the results stream.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RecordedOutcome {
    /// The outcome.
    pub outcome: JobOutcome,
    /// Outcomes recorded after this one, when it was read (0: caught up).
    pub pending: u64,
    /// Its sequence in the results stream.
    pub sequence: u64,
}

impl Fleet {
    /// Connects to the NATS server at `url` and creates the layout's
    /// streams, or checks the existing ones ([`FleetError::Incompatible`]).
    /// The connection reconnects by itself after a server restart.
    /// Connecting may take [`DEFAULT_CONNECT_TIMEOUT`] (10 s).
    pub async fn connect(url: &str, layout: StreamLayout) -> Result<Self, FleetError> {
        let options = async_nats::ConnectOptions::new().connection_timeout(DEFAULT_CONNECT_TIMEOUT);
        Self::connect_with(url, layout, options).await
    }

    /// [`connect`](Self::connect) with the client's options, e.g. an
    /// [`event_callback`](async_nats::ConnectOptions::event_callback) to
    /// hear of disconnects and reconnects, or a
    /// [`connection_timeout`](async_nats::ConnectOptions::connection_timeout)
    /// (taken as given: async-nats's default is 5 s,
    /// [`DEFAULT_CONNECT_TIMEOUT`] is what `connect` sets). The client's
    /// name is set here.
    pub async fn connect_with(
        url: &str,
        layout: StreamLayout,
        options: async_nats::ConnectOptions,
    ) -> Result<Self, FleetError> {
        let client = options
            .name("claude-agent")
            .connect(url)
            .await
            .map_err(|source| FleetError::Connect {
                url: url.to_owned(),
                source,
            })?;
        let js = js::new(client.clone());
        layout.ensure_streams(&js).await?;
        let results = js
            .get_stream(&layout.results_stream)
            .await
            .map_err(|e| FleetError::js(format!("open the stream {}", layout.results_stream), e))?;
        Ok(Self {
            client,
            js,
            layout,
            results,
        })
    }

    /// The layout in use.
    pub fn layout(&self) -> &StreamLayout {
        &self.layout
    }

    /// The underlying client (e.g. to flush before exiting).
    pub fn client(&self) -> &async_nats::Client {
        &self.client
    }

    /// Queues `job`, its id generated when absent. A job whose id the jobs
    /// stream saw within the dedup window is not queued again
    /// ([`Submitted::duplicate`]).
    pub async fn submit(&self, mut job: JobSpec) -> Result<Submitted, FleetError> {
        job.validate()?;
        let job_id = match job.job_id()? {
            Some(id) => id,
            None => JobId::generate(),
        };
        job.id = Some(serde_json::Value::String(job_id.to_string()));
        let ack = self
            .publish(&self.layout.jobs_subject, &job_id, &job, "submit the job")
            .await?;
        Ok(Submitted {
            job_id,
            duplicate: ack.duplicate,
        })
    }

    /// Waits up to `wait` for the job's outcome (one already recorded is
    /// returned at once).
    pub async fn outcome(&self, job_id: &JobId, wait: Duration) -> Result<JobOutcome, FleetError> {
        let subject = self.layout.result_subject(&job_id.subject_token());
        let next = async {
            let mut results = self.read(subject).await?;
            Ok::<_, FleetError>(results.next().await)
        };
        match tokio::time::timeout(wait, next).await {
            Ok(Ok(Some(r))) => r.map(|r| r.outcome),
            Ok(Err(e)) => Err(e),
            Ok(Ok(None)) | Err(_) => Err(FleetError::Timeout {
                job_id: job_id.to_string(),
                waited: wait,
            }),
        }
    }

    /// Every outcome in the results stream, oldest first, then each new
    /// one as it is recorded. An outcome recorded twice for one job id
    /// (possible only beyond the dedup window) appears twice.
    pub async fn results(
        &self,
    ) -> Result<BoxStream<'static, Result<RecordedOutcome, FleetError>>, FleetError> {
        self.read(format!("{}.>", self.layout.results_subject))
            .await
    }

    async fn read(
        &self,
        filter_subject: String,
    ) -> Result<BoxStream<'static, Result<RecordedOutcome, FleetError>>, FleetError> {
        Ok(results::follow(self.results.clone(), filter_subject))
    }

    /// For workers: the shared durable consumer of the jobs stream,
    /// created, or checked when it exists ([`FleetError::Incompatible`]).
    pub async fn consumer(&self) -> Result<PullConsumer, FleetError> {
        self.layout.ensure_consumer(&self.js).await
    }

    /// For workers: the outcome already recorded for `job_id`, if any.
    pub async fn recorded(&self, job_id: &JobId) -> Result<Option<JobOutcome>, FleetError> {
        let subject = self.layout.result_subject(&job_id.subject_token());
        match self.results.get_last_raw_message_by_subject(&subject).await {
            Ok(m) => serde_json::from_slice(&m.payload)
                .map(Some)
                .map_err(|source| FleetError::Malformed { subject, source }),
            Err(e) if matches!(e.kind(), LastRawMessageErrorKind::NoMessageFound) => Ok(None),
            Err(e) => Err(FleetError::js(format!("read {subject}"), e)),
        }
    }

    /// For workers: records `outcome` unless one is recorded for its job
    /// id already; true when it was new.
    ///
    /// The server enforces it in the publish itself (the outcome's subject
    /// must hold no message yet), so two workers that both ran the job, or
    /// a job submitted again after the dedup window, still leave exactly
    /// one outcome, without a look-up first.
    pub async fn record(&self, outcome: &JobOutcome) -> Result<bool, FleetError> {
        let subject = self.layout.result_subject(&outcome.job_id.subject_token());
        self.create(&subject, &outcome.job_id, outcome, "record the outcome")
            .await
    }

    /// For workers: publishes a job's dead letter, unless one is there
    /// for its job id already; true when it was new.
    pub async fn dead_letter(&self, letter: &DeadLetter) -> Result<bool, FleetError> {
        let subject = self
            .layout
            .dead_letter_subject_for(&letter.job_id.subject_token());
        self.create(&subject, &letter.job_id, letter, "publish the dead letter")
            .await
    }

    /// The dead letters recorded, oldest first (for inspection and tests;
    /// reads what is there now, then stops).
    pub async fn dead_letters(&self) -> Result<Vec<DeadLetter>, FleetError> {
        let name = &self.layout.dead_letter_stream;
        let mut stream = self
            .js
            .get_stream(name)
            .await
            .map_err(|e| FleetError::js(format!("open the stream {name}"), e))?;
        let last = stream
            .info()
            .await
            .map_err(|e| FleetError::js(format!("read the stream {name}"), e))?
            .state
            .last_sequence;
        let mut letters = Vec::new();
        let mut seq = 1;
        while seq <= last {
            // A message aged out or deleted is skipped.
            if let Ok(m) = stream.get_raw_message(seq).await {
                letters.push(serde_json::from_slice(&m.payload).map_err(|source| {
                    FleetError::Malformed {
                        subject: m.subject.to_string(),
                        source,
                    }
                })?);
            }
            seq += 1;
        }
        Ok(letters)
    }

    /// Deletes the layout's streams (and with them the consumer): for
    /// tests and for tearing a fleet down.
    pub async fn delete_streams(&self) -> Result<(), FleetError> {
        for name in [
            &self.layout.jobs_stream,
            &self.layout.results_stream,
            &self.layout.dead_letter_stream,
        ] {
            self.js
                .delete_stream(name)
                .await
                .map_err(|e| FleetError::js(format!("delete the stream {name}"), e))?;
        }
        Ok(())
    }

    async fn publish<T: Serialize>(
        &self,
        subject: &str,
        id: &JobId,
        body: &T,
        what: &str,
    ) -> Result<js::publish::PublishAck, FleetError> {
        let message = Self::message(subject, id, body)?;
        let what = format!("{what} {id}");
        self.js
            .send_publish(subject.to_owned(), message)
            .await
            .map_err(|e| FleetError::js(what.clone(), e))?
            .await
            .map_err(|e| FleetError::js(what, e))
    }

    /// Publishes `body` only if `subject` holds no message yet (and `id`
    /// was not published within the dedup window): true when it was new.
    async fn create<T: Serialize>(
        &self,
        subject: &str,
        id: &JobId,
        body: &T,
        what: &str,
    ) -> Result<bool, FleetError> {
        let message = Self::message(subject, id, body)?.expected_last_subject_sequence(0);
        let what = format!("{what} {id}");
        let ack = self
            .js
            .send_publish(subject.to_owned(), message)
            .await
            .map_err(|e| FleetError::js(what.clone(), e))?
            .await;
        match ack {
            Ok(ack) => Ok(!ack.duplicate),
            Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => Ok(false),
            Err(e) => Err(FleetError::js(what, e)),
        }
    }

    fn message<T: Serialize>(
        subject: &str,
        id: &JobId,
        body: &T,
    ) -> Result<PublishMessage, FleetError> {
        let payload = serde_json::to_vec(body).map_err(|source| FleetError::Malformed {
            subject: subject.to_owned(),
            source,
        })?;
        Ok(PublishMessage::build()
            .payload(payload.into())
            .message_id(id.as_str()))
    }
}
