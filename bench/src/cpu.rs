//! Host CPU over a phase of a benchmark: this process's threads plus every
//! live child process that is not a CLI (for this SDK, the keeper), so a
//! side cannot look cheaper by moving work into a helper process.

use std::path::{Path, PathBuf};

/// CPU time used so far by this process and its non-CLI children, in ms.
pub fn host_cpu_ms(cli: &Path) -> f64 {
    self_cpu_ms() + helper_children_cpu_ms(cli)
}

/// A running measurement of [`host_cpu_ms`].
#[derive(Debug, Clone)]
pub struct HostCpu {
    cli: PathBuf,
    start_self: f64,
    start_sys: f64,
    start_switches: f64,
    start_helpers: f64,
}

impl HostCpu {
    /// Starts measuring; `cli` is the CLI binary whose processes do not count.
    pub fn start(cli: &Path) -> Self {
        Self {
            cli: cli.to_path_buf(),
            start_self: self_cpu_ms(),
            start_sys: self_sys_ms(),
            start_switches: context_switches(),
            start_helpers: helper_children_cpu_ms(cli),
        }
    }

    /// Host CPU since [`HostCpu::start`], in ms.
    pub fn elapsed_ms(&self) -> f64 {
        self.self_ms() + self.helpers_ms()
    }

    /// This process's part of [`HostCpu::elapsed_ms`].
    pub fn self_ms(&self) -> f64 {
        self_cpu_ms() - self.start_self
    }

    /// The kernel's part of [`HostCpu::self_ms`].
    pub fn sys_ms(&self) -> f64 {
        self_sys_ms() - self.start_sys
    }

    /// This process's context switches since the start.
    pub fn switches(&self) -> f64 {
        context_switches() - self.start_switches
    }

    /// The helper processes' part of [`HostCpu::elapsed_ms`].
    pub fn helpers_ms(&self) -> f64 {
        helper_children_cpu_ms(&self.cli) - self.start_helpers
    }
}

fn rusage() -> Option<libc::rusage> {
    rusage_of(libc::RUSAGE_SELF)
}

fn rusage_of(who: libc::c_int) -> Option<libc::rusage> {
    // SAFETY: getrusage only writes the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `who` is RUSAGE_SELF or RUSAGE_CHILDREN.
    (unsafe { libc::getrusage(who, &mut ru) } == 0).then_some(ru)
}

/// User plus system CPU of every child process reaped so far (and of the
/// descendants each of them reaped), in ms: what a side that ran as child
/// processes cost, once they have been waited for.
pub fn reaped_children_cpu_ms() -> f64 {
    rusage_of(libc::RUSAGE_CHILDREN).map_or(f64::NAN, |ru| tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime))
}

/// User plus system CPU of process `pid` so far, in ms (`/proc`).
pub fn process_cpu_ms(pid: u32) -> Option<f64> {
    let f = stat_fields(Path::new("/proc").join(pid.to_string()).as_path())?;
    Some(stat_cpu_ms(&f))
}

/// The first process named `comm` whose command line has an argument equal
/// to `arg` (`None`: any), for example the `nats-server` serving a port.
pub fn find_process(comm: &str, arg: Option<&str>) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let path = entry.path();
        if std::fs::read_to_string(path.join("comm")).map_or(true, |c| c.trim() != comm) {
            continue;
        }
        let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
        let mut args = cmdline.split(|b| *b == 0).map(String::from_utf8_lossy);
        if arg.is_none_or(|want| args.any(|a| a == want)) {
            return Some(pid);
        }
    }
    None
}

/// `/proc/PID/stat`'s fields after the `(comm)`, which may contain spaces:
/// element 0 is field 3 (state), so field N is at N - 3.
fn stat_fields(proc_dir: &Path) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(proc_dir.join("stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// utime + stime (fields 14 and 15), in ms.
fn stat_cpu_ms(f: &[String]) -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let get = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (get(14 - 3) + get(15 - 3)) / ticks * 1000.0
}

fn tv_ms(t: libc::timeval) -> f64 {
    t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0
}

/// User plus system CPU of every thread of this process so far, in ms.
pub fn self_cpu_ms() -> f64 {
    rusage().map_or(f64::NAN, |ru| tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime))
}

/// This process's system (kernel) CPU so far, in ms.
pub fn self_sys_ms() -> f64 {
    rusage().map_or(f64::NAN, |ru| tv_ms(ru.ru_stime))
}

/// Context switches of this process's threads so far (voluntary: a
/// thread parked; involuntary: it was preempted).
pub fn context_switches() -> f64 {
    rusage().map_or(f64::NAN, |ru| (ru.ru_nvcsw + ru.ru_nivcsw) as f64)
}

fn helper_children_cpu_ms(cli: &Path) -> f64 {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    let mut total = 0.0;
    for entry in dir.flatten() {
        let path = entry.path();
        let Some(f) = stat_fields(&path) else {
            continue;
        };
        // Field 4: the parent's pid.
        if f.get(1) != Some(&me) {
            continue;
        }
        if std::fs::read_link(path.join("exe")).is_ok_and(|exe| exe == cli) {
            continue;
        }
        total += stat_cpu_ms(&f);
    }
    total
}
