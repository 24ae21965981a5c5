//! Shared helpers of the benchmark programs in `src/bin/`: figures printed
//! as one JSON object per line on stdout, human text on stderr, the Python
//! SDK peer run as a child process in the same run, and small measuring
//! tools (percentiles, RSS from `/proc`, the open-files limit).

pub mod ccsdk;
pub mod ccsdk_concurrent;
pub mod cores;
pub mod cpu;
pub mod null_store;
pub mod ours_client;
pub mod peer_figures;
pub mod rtt;
pub mod sdkrs;
pub mod store_entries;
pub mod store_session;
pub mod store_sides;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// Everything that can stop a benchmark program.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The fake CLI could not be found or built.
    #[error("fake CLI not available: {0}")]
    FakeCli(String),
    /// The Python peer could not be started or failed.
    #[error("python peer {script} failed: {detail}")]
    Python {
        /// The peer script that failed.
        script: String,
        /// Exit status or spawn error.
        detail: String,
    },
    /// A session of the SDK under test failed.
    #[error("session failed: {0}")]
    Session(String),
    /// A file the benchmark reads or writes failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// Result of the helpers.
pub type Result<T> = std::result::Result<T, BenchError>;

/// Path of the `fake-claude` binary (built on demand by the testkit).
pub fn fake_cli() -> Result<PathBuf> {
    claude_agent_testkit::fake_cli_path().map_err(|e| BenchError::FakeCli(e.to_string()))
}

/// Prints one figure as a JSON line on stdout.
pub fn emit(value: &Value) {
    println!("{value}");
}

/// The workspace root (parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// The Python interpreter of the benchmark venv, if it exists
/// (`scripts/bench-setup.sh` creates it).
pub fn default_python() -> Option<PathBuf> {
    let p = workspace_root().join(".bench/venv/bin/python");
    p.exists().then_some(p)
}

/// Runs `bench/python/<script>` with `args` under `python`, with
/// `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK=1`; its stderr goes to ours, and
/// every JSON line of its stdout is returned.
pub fn run_python(python: &Path, script: &str, args: &[String]) -> Result<Vec<Value>> {
    let path = workspace_root().join("bench/python").join(script);
    let fail = |detail: String| BenchError::Python {
        script: script.to_owned(),
        detail,
    };
    let out = Command::new(python)
        .arg(&path)
        .args(args)
        .env("CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| fail(format!("spawning {}: {e}", python.display())))?;
    if !out.status.success() {
        return Err(fail(format!("exit status {}", out.status)));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

/// Percentile `p` (0..=100) of an ascending-sorted slice, nearest-rank.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// p50 / p99 / max / mean of a sample, in the sample's unit.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Summary {
    /// Sample size.
    pub n: usize,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

impl Summary {
    /// Summarises `values` (any order).
    pub fn of(values: &[f64]) -> Self {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let mean = if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        };
        Self {
            n: v.len(),
            p50: percentile(&v, 50.0),
            p99: percentile(&v, 99.0),
            max: v.last().copied().unwrap_or(f64::NAN),
            mean,
        }
    }
}

/// Resident set size of this process, in KiB (Linux `/proc/self/status`).
pub fn rss_kib() -> Option<u64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// File descriptors this process has open (entries of `/proc/self/fd`).
pub fn open_fds() -> Option<u64> {
    Some(std::fs::read_dir("/proc/self/fd").ok()?.count() as u64)
}

/// Bytes currently allocated on the heap through malloc (glibc
/// `mallinfo2`: `uordblks` + `hblkhd`), in KiB; `None` off glibc.
pub fn heap_kib() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 takes no arguments and returns a plain struct.
        let m = unsafe { libc::mallinfo2() };
        Some(((m.uordblks + m.hblkhd) / 1024) as u64)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}

/// Raises the soft open-files limit to at least `want` (bounded by the hard
/// limit); returns the soft limit in force afterwards.
pub fn raise_nofile(want: u64) -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read or write the struct we pass.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 0;
        }
        if lim.rlim_cur < want {
            let new = libc::rlimit {
                rlim_cur: want.min(lim.rlim_max),
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &new) == 0 {
                lim = new;
            }
        }
    }
    lim.rlim_cur
}

/// The value of a spawned task that returns a [`Result`].
pub fn joined<T>(r: std::result::Result<Result<T>, tokio::task::JoinError>) -> Result<T> {
    r.map_err(|e| BenchError::Session(format!("task: {e}")))?
}

/// A duration in milliseconds, fractional.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `a / b`, or NaN when `b` is zero or missing.
pub fn ratio(a: f64, b: Option<f64>) -> f64 {
    match b {
        Some(b) if b != 0.0 => a / b,
        _ => f64::NAN,
    }
}

/// The first line of `lines` whose fields match all of `fields`.
pub fn find<'a>(lines: &'a [Value], fields: &[(&str, Value)]) -> Option<&'a Value> {
    lines
        .iter()
        .find(|l| fields.iter().all(|(k, v)| l.get(*k) == Some(v)))
}

/// Reads a `permission_rtt` output file: one round trip per line, in
/// nanoseconds; returned in microseconds.
pub fn read_rtt_file(path: &Path) -> Result<Vec<f64>> {
    let text = std::fs::read_to_string(path).map_err(|source| BenchError::Io {
        what: format!("reading {}", path.display()),
        source,
    })?;
    Ok(text
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .map(|ns| ns as f64 / 1000.0)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&v, 100.0), 100.0);
        assert_eq!(percentile(&[7.0], 99.0), 7.0);
        assert!(percentile(&[], 50.0).is_nan());
        let s = Summary::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.n, s.p50, s.max, s.mean), (3, 2.0, 3.0, 2.0));
    }
}
