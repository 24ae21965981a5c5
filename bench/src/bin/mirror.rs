//! Benchmark: what the session store mirror costs one flooding session.
//!
//! The fake CLI writes N `assistant` lines, then a `result`. With the mirror
//! `off` that is all; with it `on` (PostgreSQL, batched, the default) each
//! `assistant` line is followed by a `transcript_mirror` frame carrying that
//! line's transcript entry (unique uuid), as the CLI does with
//! `--session-mirror`. Same consumer both ways; the clock runs from the
//! first typed message to the result. Also: each store append's latency
//! (p50/p99, through a wrapper that times it) and how long the shutdown
//! waits for the last appends. A third side, `null`, mirrors the same
//! frames into a store that keeps nothing: the cost of the frames and the
//! mirror task apart from the database. A fourth, `floor`, writes the same
//! bytes with each mirror frame blanked to spaces (a line the reader drops
//! as not JSON, with no mirror): what the CLI's extra output costs the
//! session before any mirror work.
//!
//! ```text
//! cargo run --release -p claude-agent-bench --bin mirror -- \
//!     [--frames N] [--reps R] [--postgres URL]
//! ```
//!
//! Each rep runs `off`, `floor`, `null` then `on` (`on` in a schema of its
//! own, dropped at the end).
//! Human lines on stderr, one JSON object on stdout.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use claude_agent::protocol::Message;
use claude_agent::store::{
    PostgresOptions, PostgresStore, SessionKey, SessionListEntry, SessionStore, SessionSummary,
    StoreEntry, StoreResult,
};
use claude_agent::{client::Client, options::Options};
use claude_agent_bench::null_store::NullStore;
use claude_agent_bench::{emit, fake_cli, percentile};
use claude_agent_testkit::Script;
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

/// The project key every mirrored file maps to.
const PROJECT: &str = "-bench-mirror";

#[derive(Parser, Debug)]
#[command(about = "Typed messages/s of one flooding session, mirror off vs on (PostgreSQL)")]
struct Args {
    /// `assistant` frames per run (plus one `result`).
    #[arg(long, default_value_t = 100_000)]
    frames: u64,
    /// Repetitions per side; the best is reported.
    #[arg(long, default_value_t = 3)]
    reps: u32,
    /// Sides to run, comma-separated (`off`, `floor`, `null`, `on`): one
    /// side alone is what an instruction-counting profiler (callgrind)
    /// should see.
    #[arg(long, default_value = "off,floor,null,on", value_delimiter = ',')]
    sides: Vec<String>,
    /// The PostgreSQL server.
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/test")]
    postgres: String,
}

/// A real `assistant` line from the 2.1.332 fixtures, `uuid` to be set.
fn assistant(uuid: &str) -> Value {
    json!({"type":"assistant","message":{"id":"msg_mock_1795993051239177","type":"message",
        "role":"assistant","model":"claude-opus-5-5","content":[{"type":"text",
        "text":"Hello from the mock model."}],"stop_reason":null,"stop_sequence":null,
        "usage":{"input_tokens":10,"output_tokens":1},"context_management":null},
        "parent_tool_use_id":null,"session_id":"089c584c-f376-45d2-ad59-eaa9b7883e1e",
        "uuid":uuid,"timestamp":"2026-11-29T22:57:31.245Z"})
}

const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":86,"duration_api_ms":22,"num_turns":1,"result":"done","stop_reason":"end_turn","session_id":"089c584c-f376-45d2-ad59-eaa9b7883e1e","total_cost_usd":0.00014,"usage":{"input_tokens":10,"output_tokens":5},"permission_denials":[],"uuid":"87caa198-7e41-4a57-9b7c-9758d54ffbf0"}"#;

/// What follows each `assistant` line in the fake's output.
#[derive(Clone, Copy)]
enum Extra<'a> {
    /// Nothing (mirror off).
    None,
    /// Its mirror frame, for the session file at the path.
    Mirror(&'a Path),
    /// As many spaces as that frame has bytes: the same pipe traffic, a
    /// line the reader skips as not JSON.
    Blank(&'a Path),
}

/// Writes the fake's output for one run: `frames` assistant lines, each
/// followed by its `extra` line.
fn write_output(path: &Path, frames: u64, extra: Extra<'_>) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for i in 0..frames {
        let line = assistant(&format!("00000000-0000-4000-8000-{i:012}"));
        writeln!(out, "{}", type_first("assistant", &line))?;
        let (Extra::Mirror(file) | Extra::Blank(file)) = extra else {
            continue;
        };
        let mut entry = line;
        entry["sessionId"] = entry["session_id"].clone();
        let frame = json!({"filePath": file, "entries": [entry]});
        let frame = type_first("transcript_mirror", &frame);
        match extra {
            Extra::Blank(_) => writeln!(out, "{:1$}", "", frame.len())?,
            _ => writeln!(out, "{frame}")?,
        }
    }
    writeln!(out, "{RESULT}")?;
    out.flush()
}

/// `value` (an object) as a line whose first member is `"type": kind`, as
/// the CLI prints its frames (`serde_json` would sort the keys).
fn type_first(kind: &str, value: &Value) -> String {
    let mut rest = value.clone();
    if let Some(map) = rest.as_object_mut() {
        map.remove("type");
    }
    let rest = rest.to_string();
    match rest.strip_prefix('{').filter(|r| *r != "}") {
        Some(members) => format!(r#"{{"type":"{kind}",{members}"#),
        None => format!(r#"{{"type":"{kind}"}}"#),
    }
}

/// A store that times every append of the store it wraps.
struct Timed {
    inner: PostgresStore,
    appends: Mutex<Vec<Duration>>,
}

impl SessionStore for Timed {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            let t0 = Instant::now();
            let r = self.inner.append(key, entries).await;
            if let Ok(mut a) = self.appends.lock() {
                a.push(t0.elapsed());
            }
            r
        })
    }
    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        self.inner.load(key)
    }
    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        self.inner.list_sessions(project_key)
    }
    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionSummary>>> {
        self.inner.list_session_summaries(project_key)
    }
}

/// One run's figures.
struct Run {
    msgs_per_sec: f64,
    /// From the result to the end of the shutdown (the last appends).
    shutdown: Duration,
    persisted: Option<u64>,
    unpersisted: Option<u64>,
}

async fn run(
    fake: &Path,
    output: &Path,
    config: &Path,
    frames: u64,
    store: Option<Arc<dyn SessionStore>>,
) -> Result<Run, String> {
    let script = Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit_file(output)
        .to_json();
    let options = Options::new()
        .cli_path(fake)
        .env("FAKE_CLAUDE_SCRIPT_JSON", script)
        .env("CLAUDE_CONFIG_DIR", config);
    let mut builder = Client::builder(options).mirror_flush_deadline(Duration::from_secs(120));
    if let Some(store) = store {
        builder = builder.session_store(store);
    }
    let client = builder.connect().await.map_err(|e| e.to_string())?;
    client.send("flood").await.map_err(|e| e.to_string())?;
    let (mut first, mut assistants) = (None, 0u64);
    let mut stream = client.receive_response();
    while let Some(m) = stream.next().await {
        first.get_or_insert_with(Instant::now);
        match m.map_err(|e| e.to_string())? {
            Message::Assistant(a) => assistants += u64::from(!a.message.blocks().is_empty()),
            Message::Result(_) => break,
            _ => {}
        }
    }
    let end = Instant::now();
    drop(stream);
    let report = client.shutdown().await;
    if assistants != frames {
        return Err(format!(
            "expected {frames} assistant messages, got {assistants}"
        ));
    }
    let secs = (end - first.unwrap_or(end)).as_secs_f64();
    Ok(Run {
        msgs_per_sec: frames as f64 / secs,
        shutdown: end.elapsed(),
        persisted: report.mirror_persisted,
        unpersisted: report.mirror_unpersisted,
    })
}

async fn bench(args: &Args) -> Result<Value, String> {
    let fake = fake_cli().map_err(|e| e.to_string())?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = dir.path().join("config");
    let session = "1b7c3f0e-5a51-4d1c-9d55-1f4f5e2f6a01";
    let file: PathBuf = config.join(format!("projects/{PROJECT}/{session}.jsonl"));
    let (off_out, on_out) = (dir.path().join("off.ndjson"), dir.path().join("on.ndjson"));
    let floor_out = dir.path().join("floor.ndjson");
    write_output(&off_out, args.frames, Extra::None).map_err(|e| e.to_string())?;
    write_output(&on_out, args.frames, Extra::Mirror(&file)).map_err(|e| e.to_string())?;
    write_output(&floor_out, args.frames, Extra::Blank(&file)).map_err(|e| e.to_string())?;
    let (mut off, mut on, mut null, mut floor) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut appends = Vec::new();
    let side = |name: &str| args.sides.iter().any(|s| s == name);
    for rep in 0..args.reps.max(1) {
        if side("off") {
            off.push(run(&fake, &off_out, &config, args.frames, None).await?);
        }
        if side("floor") {
            floor.push(run(&fake, &floor_out, &config, args.frames, None).await?);
        }
        if side("null") {
            null.push(
                run(
                    &fake,
                    &on_out,
                    &config,
                    args.frames,
                    Some(Arc::new(NullStore)),
                )
                .await?,
            );
        }
        if !side("on") {
            eprintln!(
                "rep {rep}: off {:.0} msgs/s; floor {:.0}; null store {:.0} msgs/s",
                off.last().map_or(0.0, |r| r.msgs_per_sec),
                floor.last().map_or(0.0, |r| r.msgs_per_sec),
                null.last().map_or(0.0, |r| r.msgs_per_sec),
            );
            continue;
        }
        let schema = format!("claude_agent_bench_{}_{rep}", std::process::id());
        let pg = PostgresOptions::default().schema(schema);
        let inner = PostgresStore::connect(&args.postgres, pg)
            .await
            .map_err(|e| format!("PostgreSQL: {e}"))?;
        let store = Arc::new(Timed {
            inner: inner.clone(),
            appends: Mutex::new(Vec::new()),
        });
        let r = run(&fake, &on_out, &config, args.frames, Some(store.clone())).await;
        let stored = inner.load(&SessionKey::new(PROJECT, session)).await;
        inner.drop_schema().await.map_err(|e| e.to_string())?;
        let r = r?;
        let stored = stored.map_err(|e| e.to_string())?.map_or(0, |s| s.len());
        eprintln!(
            "rep {rep}: off {:.0} msgs/s; floor {:.0}; null store {:.0}; on {:.0} msgs/s, {stored} entries stored, shutdown {:.0} ms",
            off.last().map_or(0.0, |r| r.msgs_per_sec),
            floor.last().map_or(0.0, |r| r.msgs_per_sec),
            null.last().map_or(0.0, |r| r.msgs_per_sec),
            r.msgs_per_sec,
            r.shutdown.as_secs_f64() * 1e3
        );
        if let Ok(a) = store.appends.lock() {
            appends.extend(a.iter().map(|d| d.as_secs_f64() * 1e3));
        }
        on.push(r);
    }
    let best = |runs: &[Run]| {
        runs.iter()
            .max_by(|a, b| a.msgs_per_sec.total_cmp(&b.msgs_per_sec))
            .map(|r| (r.msgs_per_sec, r.shutdown, r.persisted, r.unpersisted))
    };
    let none = (0.0, Duration::ZERO, None, None);
    let (off_best, on_best, null_best, floor_best) = (
        best(&off).unwrap_or(none),
        best(&on).unwrap_or(none),
        best(&null).unwrap_or(none),
        best(&floor).unwrap_or(none),
    );
    appends.sort_by(f64::total_cmp);
    let ratio = on_best.0 / off_best.0;
    eprintln!(
        "mirror off: {:.0} msgs/s; floor: {:.0}; null store: {:.0}; on: {:.0} msgs/s \
         (on/off {ratio:.3}, cost {:.1}%; floor/off {:.3}, null/off {:.3}, on/floor {:.3}); \
         {} appends, p50 {:.2} ms, p99 {:.2} ms; shutdown with mirror {:.0} ms",
        off_best.0,
        floor_best.0,
        null_best.0,
        on_best.0,
        (1.0 - ratio) * 100.0,
        floor_best.0 / off_best.0,
        null_best.0 / off_best.0,
        on_best.0 / floor_best.0,
        appends.len(),
        percentile(&appends, 50.0),
        percentile(&appends, 99.0),
        on_best.1.as_secs_f64() * 1e3
    );
    Ok(json!({
        "bench": "mirror", "frames": args.frames, "reps": args.reps,
        "off_msgs_per_sec": off_best.0, "on_msgs_per_sec": on_best.0, "on_over_off": ratio,
        "null_store_msgs_per_sec": null_best.0, "null_over_off": null_best.0 / off_best.0,
        "floor_msgs_per_sec": floor_best.0, "floor_over_off": floor_best.0 / off_best.0,
        "on_over_floor": on_best.0 / floor_best.0,
        "appends": appends.len(), "append_p50_ms": percentile(&appends, 50.0),
        "append_p99_ms": percentile(&appends, 99.0),
        "on_shutdown_ms": on_best.1.as_secs_f64() * 1e3,
        "on_persisted": on_best.2, "on_unpersisted": on_best.3,
    }))
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mirror: cannot start the runtime: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    match runtime.block_on(bench(&args)) {
        Ok(figures) => {
            emit(&figures);
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mirror: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
