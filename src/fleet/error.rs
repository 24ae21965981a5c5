//! What can go wrong talking to the fleet's streams.

use std::time::Duration;

/// A fleet operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FleetError {
    /// The NATS server could not be reached.
    #[error("cannot connect to NATS at {url}")]
    Connect {
        /// The server URL, as given.
        url: String,
        /// The client's error.
        #[source]
        source: async_nats::ConnectError,
    },
    /// A stream or consumer exists with settings this layout cannot use.
    #[error(transparent)]
    Incompatible(#[from] IncompatibleLayout),
    /// A JetStream request (stream or consumer management, publish, fetch)
    /// failed; `what` says which.
    #[error("JetStream: {what} failed")]
    JetStream {
        /// The operation, e.g. `publish the job j-1`.
        what: String,
        /// The client's error.
        #[source]
        source: async_nats::Error,
    },
    /// No outcome was recorded for the job within the wait.
    #[error("no outcome for job {job_id} within {:.1} s", waited.as_secs_f64())]
    Timeout {
        /// The job.
        job_id: String,
        /// How long it waited.
        waited: Duration,
    },
    /// A job is not valid (see [`InvalidJob`](super::InvalidJob)).
    #[error(transparent)]
    InvalidJob(#[from] super::InvalidJob),
    /// A message in a fleet stream is not what the fleet writes there.
    #[error("a malformed message on {subject}")]
    Malformed {
        /// Where it was.
        subject: String,
        /// Why it did not parse.
        #[source]
        source: serde_json::Error,
    },
}

impl FleetError {
    pub(crate) fn js(what: impl Into<String>, source: impl Into<async_nats::Error>) -> Self {
        Self::JetStream {
            what: what.into(),
            source: source.into(),
        }
    }
}

/// An existing stream or consumer does not match the
/// [`StreamLayout`](super::StreamLayout): a worker refuses to start against
/// it rather than change what other workers or submitters rely on.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "the existing {kind} {name} is incompatible: {setting} is {found}, this layout needs {expected} \
     (delete it, or choose other names with the layout's prefix)"
)]
#[non_exhaustive]
pub struct IncompatibleLayout {
    /// `stream` or `consumer`.
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// The setting that differs, e.g. `retention`.
    pub setting: &'static str,
    /// What the layout needs.
    pub expected: String,
    /// What the server has.
    pub found: String,
}
