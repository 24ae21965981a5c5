//! `--fault SPEC` (repeatable) and `--fault-seed N` of `run` and `host`:
//! a fault plan for every session (see the library's `fault` module and
//! docs/FAULTS.md). A spec that does not parse is a usage error naming the
//! bad part and listing the points and actions.

use claude_agent::client::ClientBuilder;
use claude_agent::fault::{Fault, FaultPlan};

/// The fault arguments shared by `run` and `host`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct FaultArgs {
    /// Inject a fault, ACTION@POINT (repeatable), e.g. kill@control_request:1,
    /// stall-stdout:3000@assistant:1. Every fault that fires is listed in the
    /// shutdown report under extensions.faults.
    #[arg(long = "fault", value_name = "SPEC", value_parser = parse_fault)]
    faults: Vec<Fault>,
    /// Seed of the faults at random: points (same seed, same frames).
    #[arg(long, value_name = "N", default_value_t = 0)]
    fault_seed: u64,
}

fn parse_fault(spec: &str) -> Result<Fault, String> {
    spec.parse::<Fault>().map_err(|e| e.to_string())
}

impl FaultArgs {
    /// `builder` with the plan, when there is one.
    pub(crate) fn apply(&self, builder: ClientBuilder) -> ClientBuilder {
        if self.faults.is_empty() {
            return builder;
        }
        let plan = self
            .faults
            .iter()
            .cloned()
            .fold(FaultPlan::new(), FaultPlan::fault)
            .seed(self.fault_seed);
        builder.fault_plan(plan)
    }
}

/// `host --json`: a `faults` line for a session whose plan fired, with
/// the session's id and the plan's report part.
pub(crate) fn outcome_line(outcome: &claude_agent::host::SessionOutcome) -> Option<String> {
    let report = outcome.report.as_ref()?;
    let faults = report.extensions.get(claude_agent::fault::REPORT_KEY)?;
    let line = serde_json::json!({"kind": "faults", "id": outcome.id.0, "faults": faults});
    Some(line.to_string())
}
