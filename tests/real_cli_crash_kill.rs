//! The durability bound under SIGKILL: a host mirroring a real CLI's
//! session into a file, PostgreSQL or Redis store is SIGKILLed at random
//! moments during turns, dozens of times per store; then every entry whose
//! mirror frame the CLI sent more than the bound (plus a margin for the
//! append itself) before the kill is in the store, in order, exactly once,
//! and the store holds nothing but a prefix of the CLI's own session file.
//! (The CLI sends a frame some time after it wrote the entries to its
//! file; that lag is the CLI's, so the bound counts from the frame.)
//! Then the session cut deepest into a turn is resumed from the store by
//! the real CLI on a fresh HOME (no local files), and the model gets every
//! prompt and finished tool call the store kept.
//!
//! The host is this test binary re-executed (see [`crash_host`]): with
//! [`ROLE`] set, the test function runs one session against the scripted
//! model server the outer run started, turn after turn, until it is
//! killed. Each host has its own HOME (so its own CLI session file), its
//! own cwd and its own model server; many run at once so the test stays
//! short. The seed of the kill moments is printed; set
//! `CLAUDE_AGENT_CRASH_SEED` to replay one, `CLAUDE_AGENT_CRASH_KILLS` to
//! change how many kills each store gets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "real_cli_crash/host.rs"]
mod crash_host;
#[path = "real_cli_crash/resume.rs"]
mod crash_resume;
#[path = "real_cli_crash/local_file.rs"]
mod local_file;
mod real_cli;
#[path = "real_cli_crash/rounds.rs"]
mod rounds;
mod store_services;

use std::sync::Arc;

use claude_agent::store::{
    FileStore, PostgresOptions, PostgresStore, RedisOptions, RedisStore, SessionStore,
};
use crash_host::ROLE;
use rounds::{Kills, StoreSpec};
use store_services::{io_in_chain, skip_unreachable, unique, url, with_cleanup};

const POSTGRES: &str = "postgres://postgres@127.0.0.1:5432/test";
const REDIS: &str = "redis://127.0.0.1:6379";

#[tokio::test]
#[ignore = "needs the real Claude Code CLI"]
async fn sigkilled_hosts_leave_every_entry_older_than_the_bound_in_a_file_store() {
    if std::env::var_os(ROLE).is_some() {
        return crash_host::run().await;
    }
    if real_cli::real_cli().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn SessionStore> = Arc::new(FileStore::new(dir.path()));
    let spec = StoreSpec::File(dir.path().to_path_buf());
    Kills::new("sigkilled_hosts_leave_every_entry_older_than_the_bound_in_a_file_store")
        .run(store, spec)
        .await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI and PostgreSQL"]
async fn sigkilled_hosts_leave_every_entry_older_than_the_bound_in_postgres() {
    if std::env::var_os(ROLE).is_some() {
        return crash_host::run().await;
    }
    if real_cli::real_cli().is_none() {
        return;
    }
    let server = url("CLAUDE_AGENT_TEST_POSTGRES_URL", POSTGRES);
    let schema = unique("claude_agent_crash");
    let options = PostgresOptions::default().schema(schema.clone());
    let store = match PostgresStore::connect(&server, options).await {
        Ok(store) => store,
        Err(e) if io_in_chain(&e) => return skip_unreachable("PostgreSQL", &server, &e),
        Err(e) => panic!("{e}"),
    };
    let spec = StoreSpec::Postgres {
        url: server,
        schema,
    };
    let kills = Kills::new("sigkilled_hosts_leave_every_entry_older_than_the_bound_in_postgres");
    let body = kills.run(Arc::new(store.clone()), spec);
    with_cleanup(body, async move {
        store.drop_schema().await.expect("drop the test schema");
    })
    .await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI and Redis"]
async fn sigkilled_hosts_leave_every_entry_older_than_the_bound_in_redis() {
    if std::env::var_os(ROLE).is_some() {
        return crash_host::run().await;
    }
    if real_cli::real_cli().is_none() {
        return;
    }
    let server = url("CLAUDE_AGENT_TEST_REDIS_URL", REDIS);
    let prefix = unique("claude-agent-crash");
    let options = RedisOptions::default().prefix(prefix.clone());
    let store = match RedisStore::connect(&server, options).await {
        Ok(store) => store,
        Err(e) if io_in_chain(&e) => return skip_unreachable("Redis", &server, &e),
        Err(e) => panic!("{e}"),
    };
    let spec = StoreSpec::Redis {
        url: server,
        prefix,
    };
    let kills = Kills::new("sigkilled_hosts_leave_every_entry_older_than_the_bound_in_redis");
    let body = kills.run(Arc::new(store.clone()), spec);
    with_cleanup(body, async move {
        store.clear().await.expect("delete the test keys");
    })
    .await;
}
