//! The real CLI's resume from a PostgreSQL and a Redis session store after
//! its whole config dir is gone (servers from `CLAUDE_AGENT_TEST_POSTGRES_URL`
//! / `CLAUDE_AGENT_TEST_REDIS_URL`; each test in its own schema or key
//! prefix, removed afterwards).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;
#[path = "real_cli_mirror/resume.rs"]
mod resume;
mod store_services;

use std::sync::Arc;

use claude_agent::store::{PostgresOptions, PostgresStore, RedisOptions, RedisStore};
use store_services::{io_in_chain, skip_unreachable, unique, url, with_cleanup};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI and PostgreSQL"]
async fn resume_from_postgres_after_the_config_dir_is_gone_sends_the_first_turns() {
    let server = url(
        "CLAUDE_AGENT_TEST_POSTGRES_URL",
        "postgres://postgres@127.0.0.1:5432/test",
    );
    let options = PostgresOptions::default().schema(unique("claude_agent_test"));
    let store = match PostgresStore::connect(&server, options).await {
        Ok(store) => store,
        Err(e) if io_in_chain(&e) => return skip_unreachable("PostgreSQL", &server, &e),
        Err(e) => panic!("{e}"),
    };
    let body = resume::resume_after_config_loss(Arc::new(store.clone()));
    with_cleanup(body, async move {
        store.drop_schema().await.expect("drop the test schema");
    })
    .await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI and Redis"]
async fn resume_from_redis_after_the_config_dir_is_gone_sends_the_first_turns() {
    let server = url("CLAUDE_AGENT_TEST_REDIS_URL", "redis://127.0.0.1:6379");
    let options = RedisOptions::default().prefix(unique("claude-agent-test"));
    let store = match RedisStore::connect(&server, options).await {
        Ok(store) => store,
        Err(e) if io_in_chain(&e) => return skip_unreachable("Redis", &server, &e),
        Err(e) => panic!("{e}"),
    };
    let body = resume::resume_after_config_loss(Arc::new(store.clone()));
    with_cleanup(body, async move {
        store.clear().await.expect("delete the test keys");
    })
    .await;
}
