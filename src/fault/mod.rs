//! Fault injection at named protocol points, against the real CLI or the
//! fake (feature `fault-injection`).
//!
//! A [`FaultPlan`] is a list of [`Fault`]s, each an [`Action`] at a
//! [`Point`], written `ACTION@POINT` (a [`Fault`] parses from it; the
//! syntax is [`SYNTAX`]). Give it to
//! [`ClientBuilder::fault_plan`](crate::client::ClientBuilder::fault_plan) (or a
//! [`Host`](crate::host::Host)'s session builder) and every session it connects
//! runs with it: the plan sits between the runtime and the CLI's pipes and
//! process, so it works the same over any CLI.
//!
//! - **Points**: before or after the Nth stdout frame of a kind (`init`,
//!   `assistant`, `result`, `control_request[.SUBTYPE]`, `hook_callback`,
//!   `mcp_message`, ...), each frame of a kind by chance (`random:`, drawn
//!   from the plan's [seed](FaultPlan::seed)), the runtime closing stdin
//!   (`stdin-eof`), the store mirror's final flush (`mid-flush`).
//! - **Actions**: any signal to the CLI's group or leader, SIGSTOP and
//!   SIGCONT, a held stdout or stdin, a closed pipe, a delayed or dropped
//!   control reply, a corrupted, truncated or injected line, a callback that
//!   hangs or panics, a store that stalls or fails.
//!
//! Every fault that fires is recorded: in the [`SessionReport`](crate::extensions::SessionReport)
//! under `extensions.faults` (read it with [`FaultReport::from_report`]),
//! and in the [transcript](crate::client::ClientBuilder::transcript) when one is
//! kept. [`FaultReport`]'s checks ([`check`]) then say whether the runtime
//! held its promises: no process left, one reply per request, the signals
//! in the report accounted for; [`check::no_store_entry_lost`] compares the
//! session store with the CLI's own transcript file.
//!
//! ```no_run
//! use std::time::Duration;
//! use claude_agent::fault::{FaultPlan, FaultReport};
//! use claude_agent::{client::Client, options::Options};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let plan = FaultPlan::new().with("kill@control_request.can_use_tool:1")?;
//! let client = Client::builder(Options::new())
//!     .can_use_tool(claude_agent::callbacks::AllowList::new(["Bash"], Vec::<String>::new()))
//!     .fault_plan(plan)
//!     .connect()
//!     .await?;
//! client.send("run `ls`").await?;
//! // ... the turn ends without a result: the CLI was killed.
//! let report = client.shutdown().await;
//! let faults = FaultReport::from_report(&report).expect("the plan's part");
//! assert_eq!(faults.fired("kill").count(), 1);
//! faults.no_process_left(Duration::from_secs(5)).await?;
//! faults.one_reply_per_request()?;
//! faults.signals_match(&report.runtime)?;
//! # Ok(()) }
//! ```
//!
//! The catalogue of faults, with what the runtime does and what a user
//! sees for each, is `docs/FAULTS.md`.

mod action;
pub mod check;
mod engine;
mod extension;
mod peek;
mod pipes;
mod point;
mod record;
mod report;
mod signal;
mod spec;
mod wrap;

pub use action::{Action, DEFAULT_INJECTED_LINE, Target};
pub use check::CheckFailure;
pub use point::{FrameKind, Point, When};
pub use record::{InjectedFault, RequestTally};
pub use report::{FaultReport, REPORT_KEY};
pub use spec::{Fault, FaultSpecError, SYNTAX};

pub(crate) use extension::FaultExtension;

/// Faults to inject into each session a builder connects, in order; the
/// seed fixes the frames `random:` points pick.
///
/// ```
/// use claude_agent::fault::FaultPlan;
///
/// let plan = FaultPlan::new()
///     .with("stall-stdout:3000@assistant:1")?
///     .with("corrupt@random:stream_event:10")?
///     .seed(7);
/// assert_eq!(plan.faults().len(), 2);
/// # Ok::<(), claude_agent::fault::FaultSpecError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultPlan {
    faults: Vec<Fault>,
    seed: u64,
}

impl FaultPlan {
    /// An empty plan, seed 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a fault.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.faults.push(fault);
        self
    }

    /// Adds the fault `spec` (`ACTION@POINT`).
    pub fn with(self, spec: &str) -> Result<Self, FaultSpecError> {
        Ok(self.fault(spec.parse()?))
    }

    /// The seed of the `random:` points (default 0): the same seed and the
    /// same frames fire the same faults.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The plan's seed.
    pub fn seed_value(&self) -> u64 {
        self.seed
    }

    /// The plan's faults, in order.
    pub fn faults(&self) -> &[Fault] {
        &self.faults
    }

    /// True when the plan has no fault.
    pub fn is_empty(&self) -> bool {
        self.faults.is_empty()
    }
}

impl crate::client::ClientBuilder {
    /// Injects `plan`'s faults into every session this builder connects
    /// (feature `fault-injection`); see [`fault`](crate::fault).
    ///
    /// ```no_run
    /// use claude_agent::fault::FaultPlan;
    /// use claude_agent::{client::Client, options::Options};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = Client::builder(Options::new())
    ///     .fault_plan(FaultPlan::new().with("stall-stdout:3000@assistant:1")?)
    ///     .connect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn fault_plan(mut self, plan: FaultPlan) -> Self {
        self.runtime.faults = (!plan.is_empty()).then_some(plan);
        self
    }
}
