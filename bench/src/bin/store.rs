//! Benchmark: the session stores' append latency and throughput next to
//! their backends' baselines, and what the mirror's bound (an append at
//! each result and at least every second) costs a session of the real CLI
//! (issue 25 item 5).
//!
//! Part 1, appends: real transcript entries (the CLI 2.1.332 session file
//! in `testdata/`, about 4 KiB each) in batches of 1, 10, 100 and 500, each
//! batch appended by every side (see `claude_agent_bench::store_sides`:
//! the file store with fsync on and off, the PostgreSQL store next to its
//! own `INSERT` alone and to `COPY FROM STDIN`, the Redis store next to
//! plain pipelined `RPUSH`es). Reps are interleaved (every side appends
//! the same batch, in an order shuffled per rep), each side in its own
//! folder / schema / key prefix, all removed at the end.
//!
//! Part 2, sessions: the real CLI (offline, against the testkit's scripted
//! Messages API) runs `--turns` turns per session with the mirror off, on
//! the file store and on PostgreSQL (and on a store that keeps nothing:
//! the CLI's mirror frames and the mirror task without a backend), sides
//! interleaved per rep; wall time
//! per turn (send to result) and of the shutdown.
//!
//! ```text
//! cargo build --release -p claude-agent-bench --bin store
//! CLAUDE_AGENT_CLI=.cli/node_modules/.bin/claude target/release/store \
//!     [--sizes 1,10,100,500] [--appends 100] [--session-reps 10] [--turns 3]
//! ```
//!
//! Human lines on stderr, one JSON object on stdout.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use claude_agent::store::{FileStore, PostgresOptions, PostgresStore, SessionKey, SessionStore};
use claude_agent_bench::null_store::NullStore;
use claude_agent_bench::store_entries::{Entries, FIXTURE};
use claude_agent_bench::store_session::{self, SessionRun};
use claude_agent_bench::store_sides::{ALL, Places, Side};
use claude_agent_bench::{BenchError, Result, Summary, emit, ms, percentile, workspace_root};
use claude_agent_testkit::model::{ModelScript, ModelServer};
use serde_json::{Value, json};

/// The project key of every appended transcript.
const PROJECT: &str = "-bench-store";

/// Pairs whose ratio is printed: (side, its baseline).
const PAIRS: [(&str, &str); 5] = [
    ("file-sync", "file-nosync"),
    ("pg-store", "pg-copy"),
    ("pg-insert", "pg-copy"),
    ("pg-store", "pg-insert"),
    ("redis-store", "redis-rpush"),
];

#[derive(Parser, Debug)]
#[command(
    about = "Store append latency/throughput vs baselines; the mirror's cost on real-CLI turns"
)]
struct Args {
    /// Entries per append.
    #[arg(long, default_value = "1,10,100,500", value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Timed appends per side and size (fewer at large sizes, see
    /// `--max-entries`; 0: skip part 1).
    #[arg(long, default_value_t = 100)]
    appends: usize,
    /// Caps the timed entries per side and size: appends = min(appends,
    /// max(5, max-entries / size)).
    #[arg(long, default_value_t = 10_000)]
    max_entries: usize,
    /// Append sides to run, comma-separated.
    #[arg(
        long,
        default_value = "file-sync,file-nosync,pg-store,pg-insert,pg-copy,redis-store,redis-rpush",
        value_delimiter = ','
    )]
    sides: Vec<String>,
    /// Parent of the temporary folder of the file stores (default: the
    /// system's temporary folder; fsync figures depend on its disk).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The PostgreSQL server.
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/test")]
    postgres: String,
    /// The Redis server.
    #[arg(long, default_value = "redis://127.0.0.1:6379")]
    redis: String,
    /// Real-CLI sessions per side (0: skip part 2).
    #[arg(long, default_value_t = 10)]
    session_reps: usize,
    /// Turns per real-CLI session.
    #[arg(long, default_value_t = 3)]
    turns: usize,
    /// The real CLI (default: `CLAUDE_AGENT_CLI`, else
    /// `.cli/node_modules/.bin/claude`).
    #[arg(long)]
    cli: Option<PathBuf>,
}

fn err(e: impl std::fmt::Display) -> BenchError {
    BenchError::Session(e.to_string())
}

fn io(what: &str) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
    move |source| BenchError::Io {
        what: what.to_owned(),
        source,
    }
}

/// A permutation of `0..n` for rep `rep` (xorshift, fixed seed): the order
/// the sides run in. Shuffled, not rotated, so that no side always follows
/// the same neighbour (an fsync pays for the writes left before it).
fn order(n: usize, rep: usize) -> Vec<usize> {
    let mut state =
        0x9E37_79B9_7F4A_7C15_u64 ^ (rep as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    order
}

fn temp_dir(parent: Option<&PathBuf>) -> Result<tempfile::TempDir> {
    match parent {
        Some(p) => tempfile::tempdir_in(p),
        None => tempfile::tempdir(),
    }
    .map_err(io("create a temporary folder"))
}

/// Part 1: every side appends the same batches, interleaved.
async fn appends(args: &Args, tag: &str) -> Result<Value> {
    let mut entries = Entries::load(&workspace_root())?;
    let dir = temp_dir(args.dir.as_ref())?;
    let places = Places {
        dir: dir.path(),
        postgres: &args.postgres,
        redis: &args.redis,
        tag,
    };
    let mut sides = Vec::new();
    let mut opened = Ok(());
    for name in ALL
        .into_iter()
        .filter(|n| args.sides.iter().any(|s| s == n))
    {
        match Side::open(name, &places).await {
            Ok(side) => sides.push(side),
            Err(e) => {
                opened = Err(e);
                break;
            }
        }
    }
    let measured = match opened {
        Ok(()) => measure(args, &mut sides, &mut entries).await,
        Err(e) => Err(e),
    };
    for side in sides {
        let name = side.name;
        if let Err(e) = side.teardown().await {
            eprintln!("store: cleaning up {name}: {e}");
        }
    }
    let (rows, ratios) = measured?;
    Ok(json!({
        "fixture": FIXTURE, "fixture_entries": entries.len(),
        "entry_bytes_mean": entries.mean_bytes(),
        "appends": rows, "ratios": ratios,
    }))
}

/// The timed appends of every size; rows per side and size, and ratios.
async fn measure(
    args: &Args,
    sides: &mut [Side],
    entries: &mut Entries,
) -> Result<(Vec<Value>, Vec<Value>)> {
    let (mut rows, mut ratios) = (Vec::new(), Vec::new());
    let pid = std::process::id();
    eprintln!(
        "appends: {} entries of {:.0} bytes on average from {FIXTURE}",
        entries.len(),
        entries.mean_bytes()
    );
    for &size in &args.sizes {
        let size = size.max(1);
        let reps = args.appends.min((args.max_entries / size).max(5));
        let keys: Vec<SessionKey> = (0..sides.len())
            .map(|i| SessionKey::new(PROJECT, format!("{pid:08x}-{size:04x}-4000-8000-{i:012x}")))
            .collect();
        // Untimed first append: connections, prepared statements, files.
        let batch = entries.batch(size);
        for (side, key) in sides.iter_mut().zip(&keys) {
            side.append(key, &batch).await?;
        }
        let mut times = vec![Vec::with_capacity(reps); sides.len()];
        for rep in 0..reps {
            let batch = entries.batch(size);
            for i in order(sides.len(), rep) {
                let t0 = Instant::now();
                sides[i].append(&keys[i], &batch).await?;
                times[i].push(ms(t0.elapsed()));
            }
        }
        eprintln!("batch {size:>3}, {reps} appends per side:");
        eprintln!("  side          p50 ms    p99 ms    entries/s");
        let mut by_side = Vec::new();
        for (side, t) in sides.iter().zip(&times) {
            let s = Summary::of(t);
            let eps = (size * reps) as f64 / (t.iter().sum::<f64>() / 1e3);
            eprintln!(
                "  {:<12} {:>7.3}   {:>7.3}   {:>10.0}",
                side.name, s.p50, s.p99, eps
            );
            rows.push(json!({"side": side.name, "batch": size, "appends": reps,
                "p50_ms": s.p50, "p99_ms": s.p99, "mean_ms": s.mean, "entries_per_s": eps}));
            by_side.push((side.name, s.p50, eps));
        }
        for (a, b) in PAIRS {
            let find = |n: &str| by_side.iter().find(|(name, ..)| *name == n);
            let (Some(&(_, ap50, aeps)), Some(&(_, bp50, beps))) = (find(a), find(b)) else {
                continue;
            };
            eprintln!(
                "  {a} / {b}: p50 {:.2}x, entries/s {:.2}x",
                ap50 / bp50,
                aeps / beps
            );
            ratios.push(json!({"batch": size, "side": a, "baseline": b,
                "p50_ratio": ap50 / bp50, "entries_per_s_ratio": aeps / beps}));
        }
    }
    Ok((rows, ratios))
}

/// The real CLI to run: `--cli`, `CLAUDE_AGENT_CLI`, or the pinned install.
fn real_cli(args: &Args) -> Result<PathBuf> {
    let cli = args
        .cli
        .clone()
        .or_else(|| std::env::var_os("CLAUDE_AGENT_CLI").map(PathBuf::from))
        .unwrap_or_else(|| workspace_root().join(".cli/node_modules/.bin/claude"));
    match cli.is_file() {
        true => Ok(cli),
        false => Err(err(format!(
            "no real CLI at {} (scripts/install-cli.sh, or --session-reps 0)",
            cli.display()
        ))),
    }
}

/// Part 2: real-CLI sessions with the mirror off, on files, on PostgreSQL.
async fn sessions(args: &Args, tag: &str) -> Result<Value> {
    let cli = real_cli(args)?;
    let server = ModelServer::start(ModelScript::new()).await.map_err(err)?;
    let env = server.env();
    let (home, cwd) = (temp_dir(None)?, temp_dir(None)?);
    let files = temp_dir(args.dir.as_ref())?;
    let options = store_session::options(&cli, &env, home.path(), cwd.path());
    let schema = format!("claude_agent_bench_{tag}_session");
    let pg = PostgresStore::connect(&args.postgres, PostgresOptions::default().schema(schema))
        .await
        .map_err(err)?;
    let measured = run_sessions(args, options, files.path(), &pg).await;
    if let Err(e) = pg.drop_schema().await {
        eprintln!("store: cleaning up the session schema: {e}");
    }
    measured
}

async fn run_sessions(
    args: &Args,
    options: claude_agent::options::Options,
    files: &std::path::Path,
    pg: &PostgresStore,
) -> Result<Value> {
    let file: Arc<dyn SessionStore> = Arc::new(FileStore::new(files));
    let pg: Arc<dyn SessionStore> = Arc::new(pg.clone());
    let sides: [(&str, Option<Arc<dyn SessionStore>>); 4] = [
        ("off", None),
        ("null", Some(Arc::new(NullStore))),
        ("file", Some(file)),
        ("postgres", Some(pg)),
    ];
    // Untimed: the CLI's first start reads its files from a cold cache.
    store_session::run(options.clone(), None, 1).await?;
    let mut runs: Vec<Vec<SessionRun>> = sides.iter().map(|_| Vec::new()).collect();
    for rep in 0..args.session_reps {
        for i in order(sides.len(), rep) {
            let (_, store) = &sides[i];
            runs[i].push(store_session::run(options.clone(), store.clone(), args.turns).await?);
        }
        eprintln!("session rep {rep} done");
    }
    let quartiles = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        (
            percentile(&v, 25.0),
            percentile(&v, 50.0),
            percentile(&v, 75.0),
        )
    };
    let mut out = Vec::new();
    let mut p50s = Vec::new();
    eprintln!(
        "real CLI, {} sessions per side of {} turns:",
        args.session_reps, args.turns
    );
    eprintln!(
        "  side       turn p25 / p50 / p75 ms   p50 of turn 1 / 2 / ..   shutdown p50 ms   entries persisted per session"
    );
    for ((name, _), runs) in sides.iter().zip(&runs) {
        let turns: Vec<f64> = runs.iter().flat_map(|r| r.turns.iter().copied()).collect();
        let shutdowns: Vec<f64> = runs.iter().map(|r| r.shutdown).collect();
        let (q1, p50, q3) = quartiles(&turns);
        let (_, s50, _) = quartiles(&shutdowns);
        let by_turn: Vec<f64> = (0..args.turns)
            .map(|n| {
                let nth: Vec<f64> = runs
                    .iter()
                    .filter_map(|r| r.turns.get(n).copied())
                    .collect();
                quartiles(&nth).1
            })
            .collect();
        let persisted: Vec<u64> = runs.iter().filter_map(|r| r.persisted).collect();
        let persisted = persisted.iter().sum::<u64>() as f64 / persisted.len().max(1) as f64;
        let nth: Vec<String> = by_turn.iter().map(|t| format!("{t:.0}")).collect();
        eprintln!(
            "  {name:<9} {q1:>7.0} / {p50:>5.0} / {q3:>5.0}      {:<24} {s50:>7.0}          {persisted:>5.1}",
            nth.join(" / ")
        );
        out.push(
            json!({"side": name, "turns": turns.len(), "turn_p25_ms": q1,
            "turn_p50_ms": p50, "turn_p75_ms": q3, "turn": Summary::of(&turns),
            "turn_p50_ms_by_turn": by_turn,
            "shutdown_p50_ms": s50, "shutdown": Summary::of(&shutdowns),
            "persisted_per_session": persisted}),
        );
        p50s.push((p50, s50, by_turn));
    }
    let mut ratios = Vec::new();
    for (i, (name, _)) in sides.iter().enumerate().skip(1) {
        let (turn, shut) = (p50s[i].0 / p50s[0].0, p50s[i].1 / p50s[0].1);
        let by_turn: Vec<f64> = p50s[i]
            .2
            .iter()
            .zip(&p50s[0].2)
            .map(|(a, b)| a / b)
            .collect();
        let nth: Vec<String> = by_turn.iter().map(|r| format!("{r:.3}x")).collect();
        eprintln!(
            "  {name} / off: turn p50 {turn:.3}x (turn by turn {}), shutdown p50 {shut:.3}x",
            nth.join(" / ")
        );
        ratios.push(json!({"side": name, "turn_p50_over_off": turn,
            "turn_p50_over_off_by_turn": by_turn, "shutdown_p50_over_off": shut}));
    }
    Ok(
        json!({"reps": args.session_reps, "turns_per_session": args.turns,
        "sides": out, "ratios": ratios}),
    )
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("store: cannot start the runtime: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let tag = std::process::id().to_string();
    let run = async {
        let appends = match args.appends {
            0 => Value::Null,
            _ => appends(&args, &tag).await?,
        };
        let sessions = match args.session_reps {
            0 => Value::Null,
            _ => sessions(&args, &tag).await?,
        };
        Ok::<_, BenchError>(json!({"bench": "store", "appends": appends, "sessions": sessions}))
    };
    match runtime.block_on(run) {
        Ok(figures) => {
            emit(&figures);
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("store: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
