//! The figures of the flood benchmark: one run, one side's best, the
//! Python peer's output, and the report (table on stderr, JSON on stdout).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::json;

/// One run's figure: messages counted after the first, and the wall-clock
/// and CPU time (all threads of this process) from the first message to
/// the `result`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run {
    pub(crate) msgs: u64,
    pub(crate) secs: f64,
    pub(crate) cpu_secs: f64,
}

impl Run {
    fn rate(self) -> f64 {
        self.msgs as f64 / self.secs
    }
    fn per_cpu_second(self) -> f64 {
        self.msgs as f64 / self.cpu_secs
    }
}

/// CPU time of this process so far, in seconds: the sum over its threads
/// of `/proc/self/task/*/schedstat` (nanoseconds on CPU). Less sensitive to
/// load from elsewhere on the machine than wall-clock time.
pub(crate) fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let ns: u64 = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    ns as f64 / 1e9
}

/// One side's figures: best of its runs, by wall clock and by CPU time.
pub(crate) struct Side {
    pub(crate) name: &'static str,
    pub(crate) rate: f64,
    pub(crate) per_cpu: f64,
}

impl Side {
    pub(crate) fn of(
        name: &'static str,
        runs: &[Run],
        frames: u64,
        extra: serde_json::Value,
    ) -> Option<Self> {
        let all: Vec<f64> = runs.iter().map(|r| r.rate()).collect();
        let rate = all.iter().copied().reduce(f64::max)?;
        let per_cpu = runs.iter().map(|r| r.per_cpu_second()).fold(0.0, f64::max);
        let mut line = json!({"bench": "flood", "side": name, "msgs_per_s": rate,
                              "msgs_per_cpu_s": per_cpu, "frames": frames,
                              "all_msgs_per_s": all});
        if let (Some(line), Some(extra)) = (line.as_object_mut(), extra.as_object()) {
            line.extend(extra.clone());
        }
        println!("{line}");
        Some(Self {
            name,
            rate,
            per_cpu,
        })
    }
}

/// Side `python`: one run of `bench/python/flood.py` with the same fake and
/// script; its figure, and what it says about itself (SDK and Python
/// versions).
pub(crate) async fn python_sdk(
    python: &Path,
    fake: &Path,
    frames: u64,
    script: String,
) -> Result<(Run, serde_json::Value), String> {
    let script_py = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/flood.py");
    let out = tokio::process::Command::new(python)
        .arg(&script_py)
        .arg("--cli")
        .arg(fake)
        .args(["--frames", &frames.to_string(), "--reps", "1"])
        .env("FAKE_CLAUDE_SCRIPT_JSON", script)
        // Do not charge the Python side for a `<cli> -v` spawn per session.
        .env("CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK", "1")
        .stderr(Stdio::inherit())
        .output()
        .await
        .map_err(|e| format!("python: cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "python: {} exited with {}",
            script_py.display(),
            out.status
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    let v: serde_json::Value =
        serde_json::from_str(last).map_err(|e| format!("python: bad output {last:?}: {e}"))?;
    let num = |k: &str| v[k].as_f64().ok_or(format!("python: no {k} in {last}"));
    let run = Run {
        msgs: num("msgs")? as u64,
        secs: num("secs")?,
        cpu_secs: num("cpu_secs")?,
    };
    let about = json!({"sdk": v["sdk"], "python": v["python"],
                       "skip_version_check": v["skip_version_check"]});
    Ok((run, about))
}

/// The human table on stderr and the ratios as one JSON line on stdout.
pub(crate) fn report(sides: &[Side], frames: u64) {
    eprintln!(
        "{:<8} {:>14} {:>18}",
        "side", "typed msgs/s", "msgs per CPU-s"
    );
    for s in sides {
        eprintln!("{:<8} {:>14.0} {:>18.0}", s.name, s.rate, s.per_cpu);
    }
    let get = |name: &str| sides.iter().find(|s| s.name == name);
    let ratio = |a: &str, b: &str, cpu: bool| {
        let (a, b) = (get(a)?, get(b)?);
        Some(if cpu {
            a.per_cpu / b.per_cpu
        } else {
            a.rate / b.rate
        })
    };
    let [rp, rb, rp_cpu, rb_cpu] = [
        ratio("rust", "python", false),
        ratio("rust", "bare", false),
        ratio("rust", "python", true),
        ratio("rust", "bare", true),
    ];
    if let (Some(r), Some(c)) = (rp, rp_cpu) {
        eprintln!("rust / python = {r:.2} wall, {c:.2} per CPU-s (target >= 6)");
    }
    if let (Some(r), Some(c)) = (rb, rb_cpu) {
        eprintln!("rust / bare   = {r:.2} wall, {c:.2} per CPU-s (target >= 0.5)");
    }
    println!(
        "{}",
        json!({"bench": "flood", "side": "ratios", "frames": frames,
               "rust_over_python": rp, "rust_over_bare": rb,
               "rust_over_python_per_cpu_s": rp_cpu, "rust_over_bare_per_cpu_s": rb_cpu,
               "python_skip_version_check": true})
    );
}
