//! A fleet of workers on NATS JetStream (the client, [`Fleet`], needs the
//! feature `nats`), and the job format it shares with the `host` command
//! ([`JobSpec`], [`parse_jobs`], [`JobOutcome`]), which does not.
//!
//! ```text
//!  submit ──► <prefix>.jobs ──► [JOBS stream, work queue] ──► durable pull consumer
//!                                                               │    │    │
//!                                                          worker worker worker
//!                                                          (Host + session store)
//!  await / stream ◄── [RESULTS stream] ◄── <prefix>.results.<job> ◄──┘
//!                     [DEAD stream]    ◄── <prefix>.dead.<job>  (after max deliveries)
//! ```
//!
//! [`Fleet`] is the client side: [`submit`](Fleet::submit) a [`JobSpec`]
//! (the `host` command's job format, plus an id and an optional session to
//! continue), [`await an outcome`](Fleet::outcome) by job id, or
//! [`stream every outcome`](Fleet::results). The `claude-agent worker`
//! command is the other side; it uses the same [`StreamLayout`] and the
//! worker helpers here ([`Fleet::consumer`], [`Fleet::record`],
//! [`Fleet::dead_letter`]).
//!
//! Execution is at least once (a worker that dies mid-turn leaves the job
//! to be run again, tools included); outcome recording is exactly once per
//! job id: an outcome is published only if its subject
//! (`<results>.<job id>`) holds none yet, which the server checks in the
//! publish itself, and a worker given a job again finds the outcome
//! recorded and acks the job without running it. [`Fleet`] has an example.

#[cfg(feature = "nats")]
mod client;
#[cfg(feature = "nats")]
mod error;
mod job;
mod job_options;
#[cfg(feature = "nats")]
mod layout;
mod outcome;
#[cfg(feature = "nats")]
mod results;

#[cfg(feature = "nats")]
pub use async_nats;
#[cfg(feature = "nats")]
pub use client::{DEFAULT_CONNECT_TIMEOUT, Fleet, RecordedOutcome, Submitted};
#[cfg(feature = "nats")]
pub use error::{FleetError, IncompatibleLayout};
pub use job::{InvalidJob, JobId, JobLine, JobSpec, Redelivery, parse_jobs};
pub use job_options::OPTION_KEYS;
#[cfg(feature = "nats")]
pub use layout::StreamLayout;
pub use outcome::{DeadLetter, JobOutcome};
