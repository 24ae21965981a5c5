//! `Options::load_timeout` (TS `loadTimeoutMs`) bounds each session-store
//! call made while restoring a session before the spawn: a store that never
//! answers fails the connect with a typed timeout naming the bound, long
//! before the 60 s default, and the CLI is never started.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use claude_agent::client::ClientBuilder;
use claude_agent::store::{ResumeError, SessionKey, SessionStore, StoreEntry, StoreResult};
use claude_agent_testkit::Script;
use common::*;
use futures::future::BoxFuture;

const SESSION: &str = "0b7c3f0e-5a51-4d1c-9d55-1f4f5e2f6a02";

/// A store whose every call waits forever.
struct Silent;

impl SessionStore for Silent {
    fn append<'a>(
        &'a self,
        _key: &'a SessionKey,
        _entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(futures::future::pending())
    }

    fn load<'a>(
        &'a self,
        _key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        Box::pin(futures::future::pending())
    }
}

#[tokio::test]
async fn a_store_that_never_answers_fails_the_resume_at_the_configured_bound() {
    let fake = fake(Script::new().expect_initialize().expect_eof());
    let config = tempfile::tempdir().unwrap();
    let bound = Duration::from_millis(200);
    let options = fake
        .options()
        .env("CLAUDE_CONFIG_DIR", config.path())
        .resume(SESSION)
        .load_timeout(bound);
    // Far below the 60 s default: only the configured bound ends it in time.
    let connect = ClientBuilder::new(options)
        .session_store(Arc::new(Silent))
        .connect();
    let err = tokio::time::timeout(Duration::from_secs(30), connect)
        .await
        .expect("the configured bound, not the default, ended the load")
        .unwrap_err();
    match &err {
        claude_agent::Error::Resume(e @ ResumeError::Timeout { key, after }) => {
            assert_eq!(*after, bound);
            assert!(key.contains(SESSION), "{key}");
            assert!(e.to_string().contains("took over 200 ms"), "{e}");
        }
        other => panic!("expected a resume timeout, got {other}"),
    }
    assert!(fake.received().is_empty(), "the CLI was never started");
}
