//! User extensions: their hooks run in the documented order around the
//! built-in ones, a `pre_start` change reaches the CLI's command, a
//! `post_start` error refuses the session and ends its CLI, and a
//! `post_stop` part lands in the SDK's report next to the mirror's counts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};

use claude_agent::extensions::{Extension, PreStart, Started, Stopped};
use claude_agent::store::MemoryStore;
use claude_agent::{Error, Result};
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

/// What the extensions saw, in order.
type Log = Arc<Mutex<Vec<String>>>;

/// Logs every hook as `<name>.<hook>`.
struct Recording {
    name: &'static str,
    log: Log,
    /// Refuse the session in `post_start`.
    refuse: bool,
}

impl Recording {
    fn note(&self, what: impl std::fmt::Display) {
        self.log
            .lock()
            .unwrap()
            .push(format!("{}.{what}", self.name));
    }
}

impl Extension for Recording {
    fn name(&self) -> &str {
        self.name
    }

    async fn pre_start(&self, start: &mut PreStart<'_>) -> Result<()> {
        self.note("pre_start");
        if self.name == "outer" {
            start.update_options(|options| options.model("model-set-by-an-extension"));
        }
        Ok(())
    }

    async fn post_start(&self, started: &Started<'_>) -> Result<()> {
        self.note(format!(
            "post_start pid={}",
            started.session().pid().unwrap()
        ));
        if self.refuse {
            let version = started.server_info()?.claude_code_version;
            return Err(Error::extension(
                self.name,
                format!("refusing CLI {}", version.unwrap_or_default()),
            ));
        }
        Ok(())
    }

    fn connect_failed(&self, error: &Error) {
        self.note(format!("connect_failed: {error}"));
    }

    async fn post_stop(&self, stopped: &mut Stopped<'_>) {
        self.note("post_stop");
        let mirrored = stopped.sdk_report().mirror_persisted;
        let exit = stopped.runtime().exit.as_ref().map(|e| e.to_string());
        stopped.report(json!({"mirrored_before_me": mirrored, "exit": exit}));
    }
}

fn recording(name: &'static str, log: &Log, refuse: bool) -> Recording {
    Recording {
        name,
        log: log.clone(),
        refuse,
    }
}

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

#[tokio::test]
async fn hooks_run_outside_in_before_the_start_and_inside_out_after_it() {
    let fake = fake(Script::new().expect_initialize().loop_turns("hi"));
    let log = Log::default();
    let client = fake
        .builder()
        .session_store(Arc::new(MemoryStore::new()))
        .extension(recording("outer", &log, false))
        .extension(recording("inner", &log, false))
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    let report = client.shutdown().await;

    let argv = fake.cli.recorded_argv().unwrap();
    let at = argv.iter().position(|a| a == "--model").expect("--model");
    assert_eq!(argv[at + 1], "model-set-by-an-extension", "{argv:?}");
    assert_eq!(
        entries(&log),
        [
            "outer.pre_start".to_owned(),
            "inner.pre_start".to_owned(),
            format!("inner.post_start pid={pid}"),
            format!("outer.post_start pid={pid}"),
            "inner.post_stop".to_owned(),
            "outer.post_stop".to_owned(),
        ]
    );
    // The built-in mirror is inside both: its counts were there for them.
    assert_eq!(report.mirror_persisted, Some(0));
    assert_eq!(report.extensions["outer"]["mirrored_before_me"], 0);
    assert_eq!(report.extensions["inner"]["mirrored_before_me"], 0);
    assert!(report.extensions["outer"]["exit"].is_string(), "{report:?}");
    // Shutdown is idempotent, and so is the report: post_stop ran once.
    assert_eq!(client.shutdown().await, report);
    assert_eq!(entries(&log).len(), 6);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["mirror_persisted"], 0, "{json}");
    let runtime = serde_json::to_value(&report.runtime).unwrap();
    assert_eq!(json["escalation"], runtime["escalation"], "{json}");
    assert_eq!(json["exit"], runtime["exit"], "{json}");
    assert!(json["extensions"]["outer"].is_object(), "{json}");
}

#[tokio::test]
async fn an_extension_refusing_the_cli_fails_the_connect_and_ends_its_session() {
    let fake = fake(Script::new().expect_initialize().loop_turns("hi"));
    let log = Log::default();
    let err = fake
        .builder()
        .extension(recording("watcher", &log, false))
        .extension(recording("min_version", &log, true))
        .connect()
        .await
        .unwrap_err();

    let Error::Extension { extension, source } = &err else {
        panic!("not an extension error: {err}");
    };
    assert_eq!(extension, "min_version");
    assert!(source.to_string().starts_with("refusing CLI "), "{source}");
    let seen = entries(&log);
    let pid: u32 = seen[2]
        .rsplit('=')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("the refusing extension saw the pid");
    fake.assert_gone(pid).await;
    let failed = format!("connect_failed: {err}");
    assert_eq!(
        seen[3..],
        [
            format!("watcher.{failed}"),
            format!("min_version.{failed}"),
            "min_version.post_stop".to_owned(),
            "watcher.post_stop".to_owned(),
        ],
        "{seen:?}"
    );
    // The outer extension's post_start never ran: the connect had failed.
    assert!(
        seen.iter().all(|e| !e.starts_with("watcher.post_start")),
        "{seen:?}"
    );
    // Refused before any prompt: only the initialize request was written.
    assert!(fake.received().iter().all(|l| l["type"] != "user"));
}

#[tokio::test]
async fn a_pre_start_error_fails_the_connect_before_anything_is_spawned() {
    struct Refuse;
    impl Extension for Refuse {
        fn name(&self) -> &str {
            "refuse"
        }
        async fn pre_start(&self, _start: &mut PreStart<'_>) -> Result<()> {
            Err(Error::extension("refuse", "not today"))
        }
    }
    let fake = fake(Script::new().expect_initialize().loop_turns("hi"));
    let err = fake
        .builder()
        .extension(Refuse)
        .connect()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Extension { extension, .. } if extension == "refuse"),
        "{err}"
    );
    assert!(fake.cli.recorded_argv().is_none(), "the CLI was started");
}
