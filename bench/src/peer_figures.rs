//! The Rust peers' phases of the concurrent-sessions benchmark (b): one
//! driver per phase, given a peer's own job or connect/disconnect, and what
//! each measures, in the same terms as this SDK's phase rows.

use std::future::Future;
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::cpu::HostCpu;
use crate::{BenchError, Result, joined, ms, open_fds, rss_kib};

/// Runs `job` once to warm up, then `n` times at once (a task each); wall
/// time to the last one. A job that fails counts as not completed (the row
/// shows it) rather than ending the phase.
pub async fn jobs_phase<F, Fut>(fake: &Path, n: usize, job: F) -> Result<JobsFigure>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<bool>> + Send + 'static,
{
    job().await?;
    let cpu = HostCpu::start(fake);
    let t0 = Instant::now();
    let tasks: Vec<_> = (0..n).map(|_| tokio::spawn(job())).collect();
    let mut completed = 0;
    for t in tasks {
        match t.await {
            Ok(Ok(true)) => completed += 1,
            Ok(Ok(false)) => {}
            Ok(Err(e)) => eprintln!("{e}"),
            Err(e) => return Err(BenchError::Session(format!("task: {e}"))),
        }
    }
    Ok(JobsFigure {
        completed,
        wall_ms: ms(t0.elapsed()),
        cpu_ms: cpu.elapsed_ms(),
        sys_ms: cpu.sys_ms(),
        switches: cpu.switches(),
    })
}

/// Connects and disconnects one client to warm up, then connects `n` at
/// once (a task each) and measures the RSS, file descriptors and host CPU
/// they add; then disconnects all of them at once.
pub async fn idle_phase<C, Con, ConFut, Dis, DisFut>(
    fake: &Path,
    n: usize,
    connect: Con,
    disconnect: Dis,
) -> Result<IdleFigure>
where
    C: Send + 'static,
    Con: Fn() -> ConFut,
    ConFut: Future<Output = Result<C>> + Send + 'static,
    Dis: Fn(C) -> DisFut,
    DisFut: Future<Output = Result<()>> + Send + 'static,
{
    disconnect(connect().await?).await?;
    let before = rss_kib().unwrap_or(0);
    let fds_before = open_fds().unwrap_or(0);
    let cpu = HostCpu::start(fake);
    let t0 = Instant::now();
    let tasks: Vec<_> = (0..n).map(|_| tokio::spawn(connect())).collect();
    let mut clients = Vec::with_capacity(n);
    for t in tasks {
        clients.push(joined(t.await)?);
    }
    let connect_ms = ms(t0.elapsed());
    let connect_cpu_ms = cpu.elapsed_ms();
    let (connect_sys_ms, connect_helpers_ms) = (cpu.sys_ms(), cpu.helpers_ms());
    let connect_switches = cpu.switches();
    let after = rss_kib().unwrap_or(0);
    let fds_after = open_fds().unwrap_or(0);
    let t1 = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|c| tokio::spawn(disconnect(c)))
        .collect();
    for t in tasks {
        joined(t.await)?;
    }
    Ok(IdleFigure {
        connect_ms,
        rss_before_kib: before,
        rss_after_kib: after,
        fds_before,
        fds_after,
        connect_cpu_ms,
        connect_sys_ms,
        connect_helpers_ms,
        connect_switches,
        drain_ms: ms(t1.elapsed()),
    })
}

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
    /// Open file descriptors before the first connect.
    pub fds_before: u64,
    /// Open file descriptors with every session connected.
    pub fds_after: u64,
    /// Host CPU (this process and its helper processes) while connecting.
    pub connect_cpu_ms: f64,
    /// The kernel's part of `connect_cpu_ms` (this process only).
    pub connect_sys_ms: f64,
    /// The helper processes' part of `connect_cpu_ms` (for this SDK, the
    /// keeper).
    pub connect_helpers_ms: f64,
    /// Context switches of this process's threads while connecting.
    pub connect_switches: f64,
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
            "fds_per_session": self.fds_after.saturating_sub(self.fds_before) as f64 / n as f64,
            "connect_cpu_ms_per_session": self.connect_cpu_ms / n as f64,
            "connect_sys_ms_per_session": self.connect_sys_ms / n as f64,
            "connect_helpers_ms_per_session": self.connect_helpers_ms / n as f64,
            "connect_switches_per_session": self.connect_switches / n as f64,
            "drain_ms": self.drain_ms})
    }
}
