#![allow(unreachable_pub)]
//! The outer side of the crash tests: starts hosts (see `host.rs`), kills
//! each at a seeded random moment, and compares the store with the CLI's
//! own session file.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use claude_agent::store::mirror::DEFAULT_PERSIST_WITHIN;
use claude_agent::store::{SessionKey, SessionStore, project_key_for};
use claude_agent_testkit::model::{Block, ModelScript, ModelServer, Reply};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::crash_host::{CLI, CWD, ROLE, SESSION, STORE_AT, STORE_KIND, STORE_NAME};
use super::local_file::{mirrored_lines, tee_wrapper, watch};

/// Replays a run's kill moments.
const SEED_ENV: &str = "CLAUDE_AGENT_CRASH_SEED";
/// Kills per store (default [`KILLS`]).
const KILLS_ENV: &str = "CLAUDE_AGENT_CRASH_KILLS";
const KILLS: usize = 24;
/// Hosts alive at once, per store.
const PARALLEL: usize = 6;
/// The kill comes this long after the first turn reached the model, at
/// the earliest...
const KILL_AFTER_MIN: Duration = Duration::from_millis(200);
/// ...and at the latest: a few turns in.
const KILL_AFTER_MAX: Duration = Duration::from_secs(10);
/// Beyond the bound, the time an entry may take from the CLI's file to the
/// store: the CLI's frame, the append itself (an fsync, a commit, the
/// pool's first connection) on a 2-core machine loaded by the other hosts
/// (2 s was exceeded by first PostgreSQL appends at a load average of 38).
const MARGIN: Duration = Duration::from_secs(3);
/// Tool calls per turn; each is streamed slowly, so a turn lasts longer
/// than the bound plus the margin and most kills land mid-turn.
const STEPS: usize = 12;
const TURNS: usize = 6;
/// Bound on a host's start-up (many CLIs start at once on a loaded machine).
const START: Duration = Duration::from_secs(120);

/// Where the hosts mirror to; passed to them in their environment.
#[derive(Debug, Clone)]
pub enum StoreSpec {
    File(PathBuf),
    Postgres { url: String, schema: String },
    Redis { url: String, prefix: String },
}

impl StoreSpec {
    fn env(&self) -> [(&'static str, String); 3] {
        let (kind, at, name) = match self {
            StoreSpec::File(dir) => ("file", dir.display().to_string(), String::new()),
            StoreSpec::Postgres { url, schema } => ("postgres", url.clone(), schema.clone()),
            StoreSpec::Redis { url, prefix } => ("redis", url.clone(), prefix.clone()),
        };
        [
            (STORE_KIND, kind.to_owned()),
            (STORE_AT, at),
            (STORE_NAME, name),
        ]
    }
}

/// A splitmix64 generator: the kill moments and session ids from one seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn between(&mut self, low: Duration, high: Duration) -> Duration {
        let span = (high - low).as_millis() as u64;
        low + Duration::from_millis(self.next() % (span + 1))
    }

    fn uuid(&mut self) -> String {
        let (a, b) = (self.next(), self.next());
        let a = (a & 0xffff_ffff_ffff_0fff) | 0x4000;
        let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xffff,
            b >> 48,
            b & 0xffff_ffff_ffff
        )
    }
}

/// One store's round of kills.
pub struct Kills {
    /// The test function the hosts re-execute.
    test: &'static str,
    seed: u64,
    kills: usize,
}

/// What one kill left.
struct Outcome {
    /// Entries of the CLI's file (those the CLI mirrors).
    local: usize,
    /// Entries the store holds.
    stored: usize,
    /// Entries older than the bound plus the margin at the kill.
    required: usize,
    /// Of the required ones, entries of a turn the kill cut short: only the
    /// time bound persists those.
    required_mid_turn: usize,
}

/// A kill's checks passed (what it left), or what failed.
type KillResult = Result<(Outcome, Crashed), String>;

/// What a kill leaves for the resume check: the session's cwd (its
/// project key) and id, and what the store held.
pub struct Crashed {
    pub cwd: tempfile::TempDir,
    pub session: String,
    pub stored: Vec<Value>,
}

impl Kills {
    pub fn new(test: &'static str) -> Self {
        let seed = std::env::var(SEED_ENV)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        let kills = std::env::var(KILLS_ENV)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(KILLS);
        Self { test, seed, kills }
    }

    /// Runs every kill, [`PARALLEL`] at a time, and checks each.
    pub async fn run(self, store: Arc<dyn SessionStore>, spec: StoreSpec) {
        eprintln!(
            "{}: seed {} ({SEED_ENV}={} replays it), {} kills",
            self.test, self.seed, self.seed, self.kills
        );
        let mut rng = Rng(self.seed);
        let plans: Vec<(usize, Duration, String)> = (0..self.kills)
            .map(|i| (i, rng.between(KILL_AFTER_MIN, KILL_AFTER_MAX), rng.uuid()))
            .collect();
        let test = self.test;
        let outcomes: Vec<(usize, Duration, KillResult)> = futures::stream::iter(plans)
            .map(|(i, after, session)| {
                let (store, spec) = (store.clone(), spec.clone());
                async move {
                    let outcome = kill_once(test, &*store, &spec, after, &session).await;
                    (i, after, outcome)
                }
            })
            .buffer_unordered(PARALLEL)
            .collect()
            .await;
        let mut failures = Vec::new();
        let (mut required, mut mid_turn, mut cut) = (0, 0, 0);
        // The session cut deepest into a turn, to resume after the checks.
        let mut deepest: Option<(usize, Crashed)> = None;
        for (i, after, outcome) in outcomes {
            match outcome {
                Ok((o, crashed)) => {
                    eprintln!(
                        "kill {i} after {} ms: {} of {} entries stored, {} required ({} mid-turn)",
                        after.as_millis(),
                        o.stored,
                        o.local,
                        o.required,
                        o.required_mid_turn
                    );
                    required += o.required;
                    mid_turn += o.required_mid_turn;
                    cut += usize::from(o.stored < o.local);
                    if deepest
                        .as_ref()
                        .is_none_or(|(m, _)| o.required_mid_turn > *m)
                    {
                        deepest = Some((o.required_mid_turn, crashed));
                    }
                }
                Err(e) => failures.push(format!("kill {i} after {} ms: {e}", after.as_millis())),
            }
        }
        assert!(
            failures.is_empty(),
            "seed {}: {}",
            self.seed,
            failures.join("\n")
        );
        // Not vacuous: kills cut sessions short, and entries of the turn in
        // progress (which only the time bound persists) were required.
        assert!(cut > 0, "seed {}: no kill left the store behind", self.seed);
        assert!(
            required > 0 && mid_turn > 0,
            "seed {}: nothing of a cut turn was old enough to check",
            self.seed
        );
        if let Some((_, crashed)) = deepest {
            super::crash_resume::resume_on_a_fresh_machine(store, crashed).await;
        }
    }
}

/// The model's answers for one host: turns of [`STEPS`] slow tool calls,
/// then a text.
fn script() -> ModelScript {
    let mut script = ModelScript::new();
    for turn in 0..TURNS {
        for step in 0..STEPS {
            script = script.reply(Reply::Message {
                blocks: vec![Block::ToolUse {
                    id: format!("toolu_{turn}_{step}"),
                    name: "Glob".into(),
                    input: json!({ "pattern": "*.txt" }),
                }],
                stop_reason: "tool_use".into(),
                chunk_delay: Duration::from_millis(250),
            });
        }
        script = script.reply(Reply::text(&format!("turn {turn} done")));
    }
    script
}

/// Starts a host, SIGKILLs it `after` its session is up, waits for its
/// CLI to be gone, then compares.
async fn kill_once(
    test: &str,
    store: &dyn SessionStore,
    spec: &StoreSpec,
    after: Duration,
    session: &str,
) -> KillResult {
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let cwd = tempfile::tempdir().map_err(|e| e.to_string())?;
    let server = ModelServer::start(script())
        .await
        .map_err(|e| e.to_string())?;
    let stderr =
        std::fs::File::create(home.path().join("host.stderr")).map_err(|e| e.to_string())?;
    let real = super::real_cli::real_cli().ok_or("no real CLI")?;
    let (cli, frames) = tee_wrapper(home.path(), &real).map_err(|e| e.to_string())?;
    let mut command = tokio::process::Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            test,
            "--nocapture",
            "--test-threads=1",
            "--include-ignored",
        ])
        .env(ROLE, "1")
        .env(CLI, &cli)
        .env(CWD, cwd.path())
        .env(SESSION, session)
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .envs(spec.env())
        .envs(server.env())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .kill_on_drop(true);
    let mut host = command.spawn().map_err(|e| e.to_string())?;
    let stdout = host.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let up = async {
        while let Some(line) = lines.next_line().await.ok().flatten() {
            // libtest prints "test <name> ... " on the same line first.
            if let Some(at) = line.find("HOST ") {
                return line[at + 5..].trim().parse::<u32>().ok();
            }
        }
        None
    };
    let cli_pid = match tokio::time::timeout(START, up).await {
        Ok(Some(pid)) => pid,
        other => {
            let _ = host.kill().await;
            let log = std::fs::read_to_string(home.path().join("host.stderr")).unwrap_or_default();
            return Err(format!(
                "the host did not start ({other:?}); its stderr:\n{log}"
            ));
        }
    };
    // Keep reading so the host never blocks on a full pipe.
    let drain = tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });

    let project = project_key_for(cwd.path());
    let file = home
        .path()
        .join(".claude/projects")
        .join(&project)
        .join(format!("{session}.jsonl"));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let watcher = tokio::spawn(watch(frames, seen.clone()));

    // The kill moment counts from the first turn's first model request.
    if !server.wait_for_main_requests(1, START).await {
        let _ = host.kill().await;
        return Err("the host's CLI never asked the model".into());
    }
    // The random moment: this wait is what is tested, not a synchronisation.
    tokio::time::sleep(after).await;
    let killed_at = SystemTime::now();
    host.start_kill().map_err(|e| e.to_string())?;
    let _ = host.wait().await;
    drain.abort();
    watcher.abort();
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let gone = tokio::task::spawn_blocking(move || {
        claude_agent_testkit::wait_until_exited(cli_pid, Duration::from_secs(10))
    })
    .await
    .unwrap_or(false);
    if !gone {
        return Err(format!(
            "the CLI {cli_pid} outlived its killed host by 10 s"
        ));
    }

    let local = mirrored_lines(&file)?;
    let key = SessionKey::new(project, session);
    let stored: Vec<Value> = store
        .load(&key)
        .await
        .map_err(|e| format!("load {key}: {e}"))?
        .unwrap_or_default()
        .iter()
        .map(|e| e.to_value().map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let cutoff = killed_at - (DEFAULT_PERSIST_WITHIN + MARGIN);
    let required = seen
        .iter()
        .take_while(|&&t| t < cutoff)
        .count()
        .min(local.len());
    let outcome = compare(&local, &stored, required)?;
    let crashed = Crashed {
        cwd,
        session: session.to_owned(),
        stored,
    };
    Ok((outcome, crashed))
}

/// The store holds a prefix of the file, each entry once, as written; and
/// that prefix holds the first `required` entries.
fn compare(local: &[Value], stored: &[Value], required: usize) -> Result<Outcome, String> {
    let brief = |e: &Value| format!("{} {}", e["type"], e["uuid"]);
    if stored.len() > local.len() || stored != &local[..stored.len()] {
        let at = stored
            .iter()
            .zip(local)
            .position(|(s, l)| s != l)
            .unwrap_or(local.len().min(stored.len()));
        return Err(format!(
            "the store is not a prefix of the CLI's file: {} stored, {} in the file, first \
             difference at {at}: stored {:?}, file {:?}",
            stored.len(),
            local.len(),
            stored.get(at).map(brief),
            local.get(at).map(brief)
        ));
    }
    if stored.len() < required {
        return Err(format!(
            "{} entries were sent by the CLI over {} ms before the kill, only {} stored; \
             first missing: {}",
            required,
            (DEFAULT_PERSIST_WITHIN + MARGIN).as_millis(),
            stored.len(),
            brief(&local[stored.len()])
        ));
    }
    // Entries after the last finished turn's answer belong to the turn the
    // kill cut short.
    let turn_done = local
        .iter()
        .rposition(|e| e["type"] == "assistant" && e["message"]["stop_reason"] == "end_turn")
        .map_or(0, |i| i + 1);
    Ok(Outcome {
        local: local.len(),
        stored: stored.len(),
        required,
        required_mid_turn: required.saturating_sub(turn_done),
    })
}
