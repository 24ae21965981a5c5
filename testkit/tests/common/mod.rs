//! Spawns the real fake-claude binary with piped stdio and bounded reads.
//! Dropping a `Running` kills and reaps the process, so a failing test
//! leaves nothing behind.
#![allow(dead_code, unreachable_pub)]

use claude_agent_testkit::{FakeCli, Script};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Upper bound for any single wait in these tests.
pub const DEADLINE: Duration = Duration::from_secs(10);

pub struct Running {
    pub child: Child,
    pub fake: FakeCli,
    pub stdin: Option<ChildStdin>,
    lines: Receiver<Option<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_done: Receiver<()>,
    pub dir: tempfile::TempDir,
}

impl Running {
    pub fn start(script: &Script) -> Self {
        Self::start_with(script, &["--output-format", "stream-json"], |_| {})
    }

    pub fn start_with(script: &Script, args: &[&str], tweak: impl FnOnce(&mut Command)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let fake = script.install(dir.path()).unwrap();
        let mut cmd = fake.command();
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        tweak(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            loop {
                let mut line = Vec::new();
                match out.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(None);
                        return;
                    }
                    Ok(_) => {
                        if tx.send(Some(line)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = stderr.clone();
        let mut err = child.stderr.take().unwrap();
        let (done_tx, stderr_done) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = err.read(&mut buf) {
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            let _ = done_tx.send(());
        });
        Running {
            child,
            fake,
            stdin,
            lines,
            stderr,
            stderr_done,
            dir,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, v: Value) {
        self.send_raw(&format!("{v}\n"));
    }

    pub fn send_raw(&mut self, s: &str) {
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        stdin.write_all(s.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next raw stdout line (with its `\n`), or `None` at EOF.
    pub fn next_raw(&self) -> Option<Vec<u8>> {
        match self.lines.recv_timeout(DEADLINE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no stdout line within {DEADLINE:?}"),
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    pub fn line(&self) -> String {
        let raw = self
            .next_raw()
            .expect("stdout closed while a line was expected");
        String::from_utf8(raw).unwrap()
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.line()).unwrap()
    }

    /// Asserts stdout reaches EOF (within the deadline) with nothing left.
    pub fn expect_stdout_eof(&self) {
        if let Some(line) = self.next_raw() {
            panic!(
                "expected stdout EOF, got {:?}",
                String::from_utf8_lossy(&line)
            );
        }
    }

    /// All of stderr; waits (bounded) for stderr EOF, so call it once the
    /// process has exited.
    pub fn stderr_after_exit(&self) -> String {
        let _ = self.stderr_done.recv_timeout(DEADLINE);
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Waits (bounded) for the process to exit.
    pub fn wait(&mut self) -> ExitStatus {
        let end = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < end,
                "fake-claude did not exit within {DEADLINE:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// True if the process is still running after `d` (used only to prove
    /// something does NOT happen, e.g. a signal being ignored).
    pub fn still_running_after(&mut self, d: Duration) -> bool {
        let end = Instant::now() + d;
        while Instant::now() < end {
            if self.child.try_wait().unwrap().is_some() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }

    pub fn signal(&self, sig: rustix::process::Signal) {
        let pid = rustix::process::Pid::from_raw(self.pid() as i32).unwrap();
        rustix::process::kill_process(pid, sig).unwrap();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stdin = None;
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// `control_request` envelope as an SDK sends it.
pub fn control_request(id: &str, subtype: &str) -> Value {
    serde_json::json!({"type": "control_request", "request_id": id, "request": {"subtype": subtype}})
}

/// A user message as an SDK sends it.
pub fn user(text: &str) -> Value {
    serde_json::json!({"type": "user", "message": {"role": "user", "content": text},
        "parent_tool_use_id": null, "session_id": "default"})
}

/// Waits (bounded) for a child spawned outside `Running`; kills it on timeout.
pub fn wait_bounded(child: &mut Child) -> ExitStatus {
    let end = Instant::now() + DEADLINE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("child did not exit within {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Polls (bounded) until `path` exists.
pub fn wait_for_file(path: &std::path::Path) -> bool {
    let end = Instant::now() + DEADLINE;
    while !path.exists() {
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    true
}
