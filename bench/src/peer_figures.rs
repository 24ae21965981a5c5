//! What the Rust peers' phases of the concurrent-sessions benchmark (b)
//! measure, in the same terms as this SDK's phase rows.

use serde_json::{Value, json};

/// What a peer's jobs phase measured.
#[derive(Debug, Clone, Copy)]
pub struct JobsFigure {
    /// Jobs whose result was a success.
    pub completed: usize,
    /// First submit to last result.
    pub wall_ms: f64,
    /// Host CPU (this process and its helper processes) over the phase.
    pub cpu_ms: f64,
    /// The kernel's part of `cpu_ms` (this process only).
    pub sys_ms: f64,
    /// Context switches of this process's threads over the phase.
    pub switches: f64,
}

/// What a peer's idle phase measured.
#[derive(Debug, Clone, Copy)]
pub struct IdleFigure {
    /// All sessions connected.
    pub connect_ms: f64,
    /// RSS before the first connect.
    pub rss_before_kib: u64,
    /// RSS with every session connected.
    pub rss_after_kib: u64,
    /// Disconnecting all of them.
    pub drain_ms: f64,
}

impl JobsFigure {
    /// The phase's JSON row for `side`.
    pub fn row(&self, side: &str, n: usize) -> Value {
        json!({"bench": "concurrent", "side": side, "phase": "jobs", "sessions": n,
            "completed": self.completed, "wall_ms": self.wall_ms, "cpu_ms": self.cpu_ms,
            "cpu_ms_per_session": self.cpu_ms / n as f64,
            "sys_ms_per_session": self.sys_ms / n as f64,
            "switches_per_session": self.switches / n as f64})
    }
}

impl IdleFigure {
    /// The phase's JSON row for `side`.
    pub fn row(&self, side: &str, n: usize) -> Value {
        let per = self.rss_after_kib.saturating_sub(self.rss_before_kib) as f64 / n as f64;
        json!({"bench": "concurrent", "side": side, "phase": "idle", "sessions": n,
            "connect_all_ms": self.connect_ms, "rss_before_kib": self.rss_before_kib,
            "rss_after_kib": self.rss_after_kib, "kib_per_session": per,
            "drain_ms": self.drain_ms})
    }
}
