//! What the mirror's bound costs a session of the real CLI: a few turns of
//! the real Claude Code CLI (offline, against the testkit's scripted
//! Messages API on 127.0.0.1) with the mirror off, on a [`FileStore`]
//! (fsync on, the default) and on a [`PostgresStore`], each with the
//! mirror's defaults (appends at each result and at least every second).
//!
//! [`FileStore`]: claude_agent::store::FileStore
//! [`PostgresStore`]: claude_agent::store::PostgresStore
//!
//! One run: connect, `turns` turns (clock from `send` to the turn's
//! result), shutdown (clock from the call to its report: the mirror's last
//! appends are in it).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_agent::protocol::Message;
use claude_agent::store::SessionStore;
use claude_agent::{client::ClientBuilder, options::Options};
use futures::StreamExt;

use crate::{BenchError, Result, ms};

/// Bound on one turn, and on the connect and the shutdown.
const BOUND: Duration = Duration::from_secs(60);

/// One session's figures, in ms.
#[derive(Debug)]
pub struct SessionRun {
    /// `send` to the result, per turn.
    pub turns: Vec<f64>,
    /// `shutdown()` to its report.
    pub shutdown: f64,
    /// Entries the mirror persisted (`None` with the mirror off).
    pub persisted: Option<u64>,
}

fn fail(what: impl std::fmt::Display) -> BenchError {
    BenchError::Session(what.to_string())
}

/// Options for the real CLI at `cli`, talking to the model at `env`, with
/// its own `home` and `cwd`.
pub fn options(cli: &Path, env: &[(String, String)], home: &Path, cwd: &Path) -> Options {
    let mut options = Options::new().cli_path(cli).cwd(cwd).env("HOME", home);
    for (k, v) in env {
        options = options.env(k, v);
    }
    options
}

/// One session of `turns` turns, mirrored into `store` when given.
pub async fn run(
    options: Options,
    store: Option<Arc<dyn SessionStore>>,
    turns: usize,
) -> Result<SessionRun> {
    let mut builder = ClientBuilder::new(options)
        .initialize_timeout(BOUND)
        .mirror_flush_deadline(Duration::from_secs(10));
    let mirrored = store.is_some();
    if let Some(store) = store {
        builder = builder.session_store(store);
    }
    let client = tokio::time::timeout(BOUND, builder.connect())
        .await
        .map_err(|_| fail("connect took over 60 s"))?
        .map_err(fail)?;
    let mut times = Vec::with_capacity(turns);
    for n in 0..turns {
        let t0 = Instant::now();
        client.send(format!("question {n}")).await.map_err(fail)?;
        let mut stream = client.receive_response();
        let mut result = None;
        while let Some(m) = tokio::time::timeout(BOUND, stream.next())
            .await
            .map_err(|_| fail("no frame within 60 s"))?
        {
            if let Message::Result(r) = m.map_err(fail)? {
                result = Some(r);
            }
        }
        let elapsed = t0.elapsed();
        let r = result.ok_or_else(|| fail("the turn ended without a result"))?;
        if r.is_error == Some(true) {
            return Err(fail(format!("turn {n} ended in error")));
        }
        times.push(ms(elapsed));
    }
    let t0 = Instant::now();
    let report = tokio::time::timeout(BOUND, client.shutdown())
        .await
        .map_err(|_| fail("shutdown took over 60 s"))?;
    let shutdown = ms(t0.elapsed());
    if mirrored {
        match (report.mirror_persisted, report.mirror_unpersisted) {
            (Some(p), Some(0)) if p > 0 => {}
            (p, u) => {
                return Err(fail(format!(
                    "the mirror persisted {p:?} entries and left {u:?} unpersisted"
                )));
            }
        }
    }
    Ok(SessionRun {
        turns: times,
        shutdown,
        persisted: report.mirror_persisted,
    })
}
