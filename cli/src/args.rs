//! Argument checks shared by the subcommands.

use std::time::Duration;

/// `--name SECS` as a duration; a negative or non-finite value is a usage error.
pub(crate) fn seconds(name: &str, secs: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(secs).map_err(|_| format!("--{name} must be a non-negative number"))
}
