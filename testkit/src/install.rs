//! Turning a [`Script`] into everything a test needs to spawn the fake CLI.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::cli::{ENV_PID_FILE, ENV_RECORD, ENV_SCRIPT};
use crate::error::TestkitError;
use crate::locate::fake_cli_path;
use crate::script_builder::Script;

/// Distinguishes several installs into the same directory.
static INSTALLS: AtomicU64 = AtomicU64::new(0);

/// What a test needs to spawn the fake CLI: program, environment, and where
/// it will leave its record and pid.
#[derive(Debug, Clone)]
pub struct FakeCli {
    /// The `fake-claude` binary ([`fake_cli_path`]).
    pub program: PathBuf,
    /// `FAKE_CLAUDE_SCRIPT`, `FAKE_CLAUDE_RECORD`, `FAKE_CLAUDE_PID_FILE`.
    pub env: Vec<(String, String)>,
    /// Every stdin line the fake CLI receives is appended here.
    pub record_path: PathBuf,
    /// The fake CLI writes its pid here at start.
    pub pid_file: PathBuf,
}

impl Script {
    /// Writes the script into `dir` (which must exist and outlive the run)
    /// and returns everything needed to spawn it. Several installs into one
    /// directory do not collide.
    ///
    /// ```no_run
    /// use claude_agent_testkit::Script;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let fake = Script::new().expect_initialize().loop_turns("hi").install(dir.path())?;
    /// let mut child = fake.command().stdin(std::process::Stdio::piped()).spawn()?;
    /// drop(child.stdin.take()); // EOF: the fake CLI exits 0
    /// assert!(child.wait()?.success());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn install(&self, dir: &Path) -> Result<FakeCli, TestkitError> {
        let n = INSTALLS.fetch_add(1, Ordering::Relaxed);
        let stem = format!("fake-claude-{}-{n}", std::process::id());
        let script_path = dir.join(format!("{stem}.script.json"));
        std::fs::write(&script_path, self.to_json()).map_err(|source| TestkitError::Io {
            action: "writing script",
            path: script_path.clone(),
            source,
        })?;
        let record_path = dir.join(format!("{stem}.stdin.ndjson"));
        let pid_file = dir.join(format!("{stem}.pid"));
        let lossy = |p: &Path| p.to_string_lossy().into_owned();
        Ok(FakeCli {
            program: fake_cli_path()?,
            env: vec![
                (ENV_SCRIPT.to_owned(), lossy(&script_path)),
                (ENV_RECORD.to_owned(), lossy(&record_path)),
                (ENV_PID_FILE.to_owned(), lossy(&pid_file)),
            ],
            record_path,
            pid_file,
        })
    }
}

impl FakeCli {
    /// A `Command` for the program with [`FakeCli::env`] set; stdio is left
    /// at std's defaults for the caller to choose.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd
    }

    /// The stdin lines recorded so far, parsed; a line that is not JSON
    /// comes back as a JSON string. A missing record is empty.
    pub fn recorded_lines(&self) -> Vec<Value> {
        let Ok(text) = std::fs::read_to_string(&self.record_path) else {
            return Vec::new();
        };
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| Value::String(l.to_owned())))
            .collect()
    }

    /// The arguments the fake CLI was started with (program name excluded),
    /// once it has started.
    pub fn recorded_argv(&self) -> Option<Vec<String>> {
        let mut path = self.record_path.clone().into_os_string();
        path.push(".argv");
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    }

    /// The environment the fake CLI was started with, once it has started.
    pub fn recorded_env(&self) -> Option<serde_json::Map<String, Value>> {
        let mut path = self.record_path.clone().into_os_string();
        path.push(".env");
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    }

    /// The fake CLI's pid, once it has started (from [`FakeCli::pid_file`]).
    pub fn pid(&self) -> Option<u32> {
        std::fs::read_to_string(&self.pid_file)
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}
