//! The fleet's streams: names, subjects and settings, with documented
//! defaults, each overridable; created idempotently, checked when they
//! exist.

use std::time::Duration;

use async_nats::jetstream::consumer::{AckPolicy, DeliverPolicy, PullConsumer, pull};
use async_nats::jetstream::context::GetStreamErrorKind;
use async_nats::jetstream::stream::{self, DiscardPolicy, RetentionPolicy, StorageType};
use async_nats::jetstream::{self as js, ErrorCode};

use super::{FleetError, IncompatibleLayout};

/// Where the fleet's jobs and outcomes live in JetStream.
///
/// | setting | default | |
/// |---|---|---|
/// | `jobs_stream` | `CLAUDE_AGENT_JOBS` | work-queue retention: a job leaves when acked or terminated |
/// | `jobs_subject` | `claude-agent.jobs` | submissions; deduplicated by job id within `dedup_window` |
/// | `consumer` | `claude-agent-workers` | the workers' shared durable pull consumer, explicit acks |
/// | `ack_wait` | 30 s | a job not acked (or marked in progress) for this long is redelivered |
/// | `max_deliveries` | 5 | deliveries before a failing job goes to the dead-letter subject |
/// | `results_stream` | `CLAUDE_AGENT_RESULTS` | limits retention, kept `results_max_age` |
/// | `results_subject` | `claude-agent.results` | an outcome at `<results_subject>.<job id token>` |
/// | `dead_letter_stream` | `CLAUDE_AGENT_DEAD` | limits retention, kept `results_max_age` |
/// | `dead_letter_subject` | `claude-agent.dead` | a dead letter at `<dead_letter_subject>.<job id token>` |
/// | `dedup_window` | 2 min | submissions and outcomes with a job id seen this recently are dropped |
/// | `results_max_age` | 7 days | |
///
/// [`StreamLayout::with_prefix`] derives every name from one prefix (one
/// fleet per prefix on a server). Workers check the existing streams and
/// consumer against the layout and refuse an incompatible one
/// ([`IncompatibleLayout`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamLayout {
    /// The jobs stream.
    pub jobs_stream: String,
    /// The subject jobs are submitted on.
    pub jobs_subject: String,
    /// The workers' durable consumer.
    pub consumer: String,
    /// How long a delivered job may go without an ack or a progress mark.
    pub ack_wait: Duration,
    /// Deliveries of a failing job before it is dead-lettered.
    pub max_deliveries: u32,
    /// The results stream.
    pub results_stream: String,
    /// The prefix of outcome subjects.
    pub results_subject: String,
    /// The dead-letter stream.
    pub dead_letter_stream: String,
    /// The prefix of dead-letter subjects.
    pub dead_letter_subject: String,
    /// Deduplication window of submissions and outcomes.
    pub dedup_window: Duration,
    /// How long outcomes and dead letters are kept.
    pub results_max_age: Duration,
}

impl Default for StreamLayout {
    fn default() -> Self {
        Self::with_prefix("claude-agent")
    }
}

impl StreamLayout {
    /// The defaults (see the table above).
    pub fn new() -> Self {
        Self::default()
    }

    /// Every name derived from `prefix` (the default is `claude-agent`):
    /// streams `<PREFIX>_JOBS`, `_RESULTS`, `_DEAD` (upper case, `-` and
    /// `.` as `_`), subjects `<prefix>.jobs`, `.results`, `.dead`, consumer
    /// `<prefix>-workers`.
    pub fn with_prefix(prefix: &str) -> Self {
        let upper: String = prefix
            .chars()
            .map(|c| match c {
                '-' | '.' => '_',
                c => c.to_ascii_uppercase(),
            })
            .collect();
        Self {
            jobs_stream: format!("{upper}_JOBS"),
            jobs_subject: format!("{prefix}.jobs"),
            consumer: format!("{}-workers", prefix.replace('.', "-")),
            ack_wait: Duration::from_secs(30),
            max_deliveries: 5,
            results_stream: format!("{upper}_RESULTS"),
            results_subject: format!("{prefix}.results"),
            dead_letter_stream: format!("{upper}_DEAD"),
            dead_letter_subject: format!("{prefix}.dead"),
            dedup_window: Duration::from_secs(120),
            results_max_age: Duration::from_secs(7 * 24 * 3600),
        }
    }

    /// With this ack wait.
    pub fn ack_wait(mut self, wait: Duration) -> Self {
        self.ack_wait = wait;
        self
    }

    /// With this many deliveries before a failing job is dead-lettered
    /// (at least 1).
    pub fn max_deliveries(mut self, n: u32) -> Self {
        self.max_deliveries = n.max(1);
        self
    }

    /// With this deduplication window.
    pub fn dedup_window(mut self, window: Duration) -> Self {
        self.dedup_window = window;
        self
    }

    /// Keeping outcomes and dead letters this long.
    pub fn results_max_age(mut self, age: Duration) -> Self {
        self.results_max_age = age;
        self
    }

    /// The subject of `token`'s outcome.
    pub(crate) fn result_subject(&self, token: &str) -> String {
        format!("{}.{token}", self.results_subject)
    }

    /// The subject of `token`'s dead letter.
    pub(crate) fn dead_letter_subject_for(&self, token: &str) -> String {
        format!("{}.{token}", self.dead_letter_subject)
    }

    fn jobs_config(&self) -> stream::Config {
        stream::Config {
            name: self.jobs_stream.clone(),
            subjects: vec![self.jobs_subject.clone()],
            retention: RetentionPolicy::WorkQueue,
            storage: StorageType::File,
            discard: DiscardPolicy::Old,
            duplicate_window: self.dedup_window,
            ..Default::default()
        }
    }

    fn kept_config(&self, name: &str, subject: &str) -> stream::Config {
        stream::Config {
            name: name.to_owned(),
            subjects: vec![format!("{subject}.>")],
            retention: RetentionPolicy::Limits,
            storage: StorageType::File,
            discard: DiscardPolicy::Old,
            max_age: self.results_max_age,
            // The server requires the window within max_age.
            duplicate_window: self.dedup_window.min(self.results_max_age),
            allow_direct: true,
            ..Default::default()
        }
    }

    /// Creates the three streams, or checks the existing ones.
    pub(crate) async fn ensure_streams(&self, ctx: &js::Context) -> Result<(), FleetError> {
        ensure_stream(ctx, self.jobs_config()).await?;
        ensure_stream(
            ctx,
            self.kept_config(&self.results_stream, &self.results_subject),
        )
        .await?;
        ensure_stream(
            ctx,
            self.kept_config(&self.dead_letter_stream, &self.dead_letter_subject),
        )
        .await
    }

    /// The workers' consumer: created, or checked when it exists.
    pub(crate) async fn ensure_consumer(
        &self,
        ctx: &js::Context,
    ) -> Result<PullConsumer, FleetError> {
        let want = pull::Config {
            durable_name: Some(self.consumer.clone()),
            ack_policy: AckPolicy::Explicit,
            deliver_policy: DeliverPolicy::All,
            ack_wait: self.ack_wait,
            // One delivery more than the layout allows: the worker that
            // gets it knows every earlier worker died with the job, and
            // dead-letters it instead of running it again.
            max_deliver: i64::from(self.max_deliveries) + 1,
            filter_subject: self.jobs_subject.clone(),
            ..Default::default()
        };
        let stream = ctx
            .get_stream(&self.jobs_stream)
            .await
            .map_err(|e| FleetError::js(format!("look up the stream {}", self.jobs_stream), e))?;
        let consumer: PullConsumer = stream
            .get_or_create_consumer(&self.consumer, want.clone())
            .await
            .map_err(|e| FleetError::js(format!("create the consumer {}", self.consumer), e))?;
        let found = &consumer.cached_info().config;
        let incompatible = |setting, expected: String, found: String| {
            FleetError::from(IncompatibleLayout {
                kind: "consumer",
                name: self.consumer.clone(),
                setting,
                expected,
                found,
            })
        };
        if found.ack_policy != AckPolicy::Explicit {
            return Err(incompatible(
                "ack_policy",
                "explicit".into(),
                format!("{:?}", found.ack_policy),
            ));
        }
        if found.ack_wait != want.ack_wait {
            return Err(incompatible(
                "ack_wait",
                format!("{:?}", want.ack_wait),
                format!("{:?}", found.ack_wait),
            ));
        }
        if found.max_deliver != want.max_deliver {
            return Err(incompatible(
                "max_deliver",
                want.max_deliver.to_string(),
                found.max_deliver.to_string(),
            ));
        }
        if found.filter_subject != want.filter_subject {
            return Err(incompatible(
                "filter_subject",
                want.filter_subject,
                found.filter_subject.clone(),
            ));
        }
        Ok(consumer)
    }
}

/// Creates the stream `want` names, or checks that the existing one keeps
/// what the fleet relies on (retention, subjects, deduplication).
async fn ensure_stream(ctx: &js::Context, want: stream::Config) -> Result<(), FleetError> {
    let found = match ctx.get_stream(&want.name).await {
        Ok(mut s) => s
            .info()
            .await
            .map_err(|e| FleetError::js(format!("read the stream {}", want.name), e))?
            .config
            .clone(),
        Err(e) if is_not_found(&e.kind()) => match ctx.create_stream(want.clone()).await {
            Ok(_) => return Ok(()),
            // Another worker created it meanwhile: check theirs.
            Err(_) => ctx
                .get_stream(&want.name)
                .await
                .map_err(|e| FleetError::js(format!("create the stream {}", want.name), e))?
                .cached_info()
                .config
                .clone(),
        },
        Err(e) => {
            return Err(FleetError::js(
                format!("look up the stream {}", want.name),
                e,
            ));
        }
    };
    let incompatible = |setting, expected: String, found: String| {
        FleetError::from(IncompatibleLayout {
            kind: "stream",
            name: want.name.clone(),
            setting,
            expected,
            found,
        })
    };
    if found.retention != want.retention {
        return Err(incompatible(
            "retention",
            format!("{:?}", want.retention).to_lowercase(),
            format!("{:?}", found.retention).to_lowercase(),
        ));
    }
    if found.subjects != want.subjects {
        return Err(incompatible(
            "subjects",
            want.subjects.join(", "),
            found.subjects.join(", "),
        ));
    }
    if found.duplicate_window.is_zero() {
        return Err(incompatible(
            "duplicate_window",
            format!("{:?}", want.duplicate_window),
            "0 (no deduplication)".into(),
        ));
    }
    Ok(())
}

fn is_not_found(kind: &GetStreamErrorKind) -> bool {
    matches!(kind, GetStreamErrorKind::JetStream(e) if e.error_code() == ErrorCode::STREAM_NOT_FOUND)
}
