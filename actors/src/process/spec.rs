//! What to spawn.

use std::ffi::OsString;
use std::path::PathBuf;

/// What to spawn: program, arguments, environment and working directory.
///
/// ```
/// # use claude_agent_actors::process::ProcessSpec;
/// let mut spec = ProcessSpec::new("claude");
/// spec.args.push("--print".into());
/// assert!(spec.parent_death_signal);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProcessSpec {
    /// The executable: a path, or a bare name looked up in `PATH`.
    pub program: PathBuf,
    /// Arguments, without the program name.
    pub args: Vec<OsString>,
    /// Variables set on top of the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// Variables removed from the inherited environment (applied before `env`).
    pub env_remove: Vec<OsString>,
    /// Working directory; `None` inherits ours.
    pub cwd: Option<PathBuf>,
    /// The child's process group gets `SIGKILL` when this process dies, even
    /// by `SIGKILL`: through the [keeper](super::keeper_pid), or where none
    /// can run, through the Linux parent-death signal (the CLI only).
    pub parent_death_signal: bool,
    /// A label shown in [`live_processes`](super::live_processes).
    pub session_label: Option<String>,
    /// Run as this user (see [`resolve_user`](super::resolve_user)): its
    /// groups, gid and uid are set in the child before `exec`, and `HOME`,
    /// `USER` and `LOGNAME` are set unless `env` sets them. Such a spawn
    /// forks instead of using `posix_spawn`, which cannot change ids.
    pub user: Option<super::UserAccount>,
}

impl ProcessSpec {
    /// A spec for `program` with no arguments, the inherited environment and
    /// working directory, and the parent-death signal on.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            env_remove: Vec::new(),
            cwd: None,
            parent_death_signal: true,
            session_label: None,
            user: None,
        }
    }

    /// Builds the std command: own process group, all stdio piped. `kept`:
    /// the keeper guards the group, so no parent-death hook is needed and,
    /// unless a `user` switch adds its hook, std spawns with `posix_spawn`
    /// instead of `fork`.
    pub(crate) fn command(&self, kept: bool) -> std::process::Command {
        let mut cmd = std::process::Command::new(&self.program);
        cmd.args(&self.args);
        for key in &self.env_remove {
            cmd.env_remove(key);
        }
        if let Some(user) = &self.user {
            // Before `env`, so the spec's own values win.
            cmd.env("HOME", &user.home)
                .env("USER", &user.name)
                .env("LOGNAME", &user.name);
            super::sys::switch_user(&mut cmd, user);
        }
        for (key, value) in &self.env {
            cmd.env(key, value);
        }
        if let Some(cwd) = &self.cwd {
            cmd.current_dir(cwd);
        }
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        if self.parent_death_signal && !kept {
            super::sys::set_parent_death_signal(&mut cmd);
        }
        cmd
    }
}
