//! Shared by the fleet tests: NATS (the machine's, or a private
//! `nats-server` a test can stop and restart), the PostgreSQL store URL,
//! worker processes (each with its own HOME and CLI config dir) whose
//! `--json` events are collected as they come, `submit`, and the checks
//! that nothing is left behind.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use claude_agent::fleet::{Fleet, StreamLayout};
use serde_json::Value;

/// Set to `1` (as CI does) to make a missing server a failure.
pub const ENV_REQUIRE: &str = "CLAUDE_AGENT_REQUIRE_SERVICES";

/// Bound on anything a test waits for.
pub const PATIENCE: Duration = Duration::from_secs(120);

fn reachable(addr: &str) -> bool {
    addr.parse::<SocketAddr>()
        .is_ok_and(|a| TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok())
}

fn skip(what: &str) -> Option<String> {
    if std::env::var(ENV_REQUIRE).as_deref() == Ok("1") {
        panic!("{what} (and {ENV_REQUIRE}=1)");
    }
    eprintln!("skipped: {what}; set {ENV_REQUIRE}=1 to make this a failure");
    None
}

/// The machine's NATS (`CLAUDE_AGENT_TEST_NATS_URL`, default
/// nats://127.0.0.1:4222), or `None` (after saying so) when unreachable.
pub fn shared_nats() -> Option<String> {
    let url = std::env::var("CLAUDE_AGENT_TEST_NATS_URL")
        .unwrap_or_else(|_| "nats://127.0.0.1:4222".into());
    let addr = url.trim_start_matches("nats://").to_owned();
    if reachable(&addr) {
        Some(url)
    } else {
        skip(&format!("NATS at {url} is unreachable"))
    }
}

/// The PostgreSQL store URL (`CLAUDE_AGENT_TEST_POSTGRES_URL`), or `None`
/// when the server is unreachable. Workers share its default schema;
/// tests isolate by tenant (the store's project key) and job ids.
pub fn postgres_url() -> Option<String> {
    let url = std::env::var("CLAUDE_AGENT_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    if reachable("127.0.0.1:5432") || !url.contains("127.0.0.1:5432") {
        Some(url)
    } else {
        skip(&format!("PostgreSQL at {url} is unreachable"))
    }
}

/// A name no other test run uses.
pub fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        nanos % 1_000_000_000_000
    )
}

/// A private `nats-server -js` on a free port with its store in a temp dir.
pub struct NatsServer {
    child: Option<Child>,
    pub port: u16,
    dir: tempfile::TempDir,
}

pub const NATS_SERVER: &str = "/usr/sbin/nats-server";

impl NatsServer {
    /// `None` (after saying so) when the binary is missing.
    pub fn start() -> Option<Self> {
        if !Path::new(NATS_SERVER).is_file() {
            skip(&format!("{NATS_SERVER} is missing"))?;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut server = Self {
            child: None,
            port,
            dir: tempfile::tempdir().unwrap(),
        };
        server.launch();
        Some(server)
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    fn launch(&mut self) {
        let child = Command::new(NATS_SERVER)
            .args([
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-sd",
            ])
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let addr = format!("127.0.0.1:{}", self.port);
        assert!(
            wait_until(Duration::from_secs(20), || reachable(&addr)),
            "nats-server did not listen on {addr}"
        );
    }

    /// Kills the server (SIGKILL: no goodbye to its clients).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Stops the server (SIGTERM: it flushes its store and closes its
    /// clients' connections) and starts it again on the same port and
    /// store. (A SIGKILLed single server may lose writes it had already
    /// acknowledged: its file store flushes in the background.)
    pub fn restart(&mut self) {
        if let Some(mut c) = self.child.take() {
            unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
            let _ = c.wait();
        }
        self.launch();
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Polls `cond` until true or `deadline` passed (a condition wait, not a
/// fixed sleep).
pub fn wait_until(deadline: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + deadline;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Events a worker printed, shared with the thread reading them.
type Events = Arc<(Mutex<(Vec<Value>, bool)>, Condvar)>;

/// A `claude-agent worker` process with its own HOME, CLI config dir and
/// cwd.
pub struct Worker {
    pub name: String,
    child: Child,
    events: Events,
    pub home: tempfile::TempDir,
    stderr: Arc<Mutex<String>>,
}

impl Worker {
    /// Starts a worker; `env` goes to it (and so to its CLIs). `--grace`
    /// and `--term-grace` are 0.5 s unless `extra` sets them.
    pub fn spawn(
        nats: &str,
        prefix: &str,
        store: &str,
        cli: &Path,
        env: &[(String, String)],
        extra: &[&str],
    ) -> Self {
        let home = tempfile::tempdir().unwrap();
        Self::spawn_in(home, nats, prefix, store, cli, env, extra)
    }

    /// [`Worker::spawn`] with a HOME the test prepared (its cwd is
    /// `home/work`, its CLI config dir `home/.claude`).
    pub fn spawn_in(
        home: tempfile::TempDir,
        nats: &str,
        prefix: &str,
        store: &str,
        cli: &Path,
        env: &[(String, String)],
        extra: &[&str],
    ) -> Self {
        let name = unique("w");
        let cwd = home.path().join("work");
        std::fs::create_dir_all(&cwd).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
        cmd.args([
            "worker", "--json", "--queue", nats, "--store", store, "--prefix", prefix,
        ])
        .arg("--cli")
        .arg(cli)
        .args(["--name", &name])
        .args(extra)
        .current_dir(&cwd)
        .env("HOME", home.path())
        .env("CLAUDE_CONFIG_DIR", home.path().join(".claude"))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        // Short shutdown waits unless the test sets its own.
        for flag in ["--grace", "--term-grace"] {
            if !extra.contains(&flag) {
                cmd.args([flag, "0.5"]);
            }
        }
        let mut child = cmd.spawn().unwrap();
        let events: Events = Arc::new((Mutex::new((Vec::new(), false)), Condvar::new()));
        let stdout = child.stdout.take().unwrap();
        let sink = events.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v = serde_json::from_str(&line).unwrap_or(Value::String(line));
                sink.0.lock().unwrap().0.push(v);
                sink.1.notify_all();
            }
            sink.0.lock().unwrap().1 = true;
            sink.1.notify_all();
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let err_sink = stderr.clone();
        let pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                let mut s = err_sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let worker = Self {
            name,
            child,
            events,
            home,
            stderr,
        };
        assert!(
            worker.wait_for(PATIENCE, |e| e
                .iter()
                .any(|v| v["kind"] == "worker_started")),
            "worker did not start: {}",
            worker.stderr()
        );
        worker
    }

    /// Waits until `cond` holds for the events so far (or the output ended);
    /// returns whether it holds.
    pub fn wait_for(&self, deadline: Duration, cond: impl Fn(&[Value]) -> bool) -> bool {
        let end = Instant::now() + deadline;
        let (lock, cvar) = &*self.events;
        let mut guard = lock.lock().unwrap();
        loop {
            if cond(&guard.0) {
                return true;
            }
            let now = Instant::now();
            if guard.1 || now >= end {
                return false;
            }
            guard = cvar.wait_timeout(guard, end - now).unwrap().0;
        }
    }

    pub fn events(&self) -> Vec<Value> {
        self.events.0.lock().unwrap().0.clone()
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn signal(&self, sig: i32) {
        unsafe { libc::kill(self.child.id() as i32, sig) };
    }

    /// Waits (bounded) for the process to exit.
    pub fn wait_exit(&mut self, deadline: Duration) -> ExitStatus {
        let end = Instant::now() + deadline;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < end, "worker {} did not exit", self.name);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Ids of the jobs a worker started and has not settled (recorded,
/// released, retried or skipped).
pub fn in_flight(events: &[Value]) -> Vec<String> {
    let mut open = Vec::new();
    for e in events {
        let id = e["job_id"].as_str().unwrap_or_default().to_owned();
        match e["kind"].as_str() {
            Some("job_started") => open.push(id),
            Some("job_recorded" | "job_released" | "job_retry" | "job_skipped") => {
                open.retain(|o| *o != id)
            }
            _ => {}
        }
    }
    open
}

/// `claude-agent submit --json --prefix PREFIX ...ARGS`, its output.
pub fn submit(nats: &str, prefix: &str, jobs: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["submit", "--json", "--queue", nats, "--prefix", prefix])
        .arg("--jobs")
        .arg(jobs)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The JSON lines of an output's stdout.
pub fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Writes `jobs` as an NDJSON file in `dir`.
pub fn write_jobs(dir: &Path, jobs: &[Value]) -> PathBuf {
    let path = dir.join("jobs.ndjson");
    let text: String = jobs.iter().map(|j| format!("{j}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// Pids of live processes whose environment has `key=value` (the fake
/// CLIs of one test: their script path is unique to it).
pub fn processes_with_env(key: &str, value: &str) -> Vec<u32> {
    let needle = format!("{key}={value}");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(env) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let has = env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes());
        if has
            && claude_agent_testkit::process_state(pid) == claude_agent_testkit::ProcState::Running
        {
            pids.push(pid);
        }
    }
    pids
}

/// Deletes the fleet's streams (runs in its own runtime: callable from
/// sync tests and from drops).
pub fn delete_streams(nats: &str, prefix: &str) {
    let (nats, prefix) = (nats.to_owned(), prefix.to_owned());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let connect = Fleet::connect(&nats, StreamLayout::with_prefix(&prefix));
            if let Ok(Ok(fleet)) = tokio::time::timeout(Duration::from_secs(20), connect).await {
                let _ = tokio::time::timeout(Duration::from_secs(20), fleet.delete_streams()).await;
            }
        });
    })
    .join()
    .unwrap();
}

/// Deletes a fleet's streams when dropped, even when the test failed.
pub struct StreamsGuard {
    pub nats: String,
    pub prefix: String,
}

impl Drop for StreamsGuard {
    fn drop(&mut self) {
        delete_streams(&self.nats, &self.prefix);
    }
}

/// A fake CLI answering one turn after `ms`.
pub fn turn_after(dir: &Path, ms: u64) -> claude_agent_testkit::FakeCli {
    claude_agent_testkit::Script::new()
        .expect_initialize()
        .expect("user", None)
        .sleep_ms(ms)
        .emit(crate::common::assistant("done"))
        .emit(crate::common::result("success", "done"))
        .install(dir)
        .unwrap()
}
