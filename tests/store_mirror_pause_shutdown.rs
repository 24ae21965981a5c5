//! The `Pause` overflow policy while the session shuts down: the store
//! stalls (a file store whose session lock the test holds), the CLI floods
//! mirror frames until the read loop pauses and the CLI blocks writing its
//! stdout, and then the session is shut down. The shutdown must not hang
//! on the paused read loop: it completes within its ladder (grace, term
//! grace) plus the mirror's flush deadline, and the entries the store did
//! not take are counted and reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_agent::protocol::{Message, SystemMessage};
use claude_agent::store::{FileStore, SessionStore, StoreOverflow};
use common::mirror_flood::flooding_turn;
use common::*;
use futures::StreamExt;

const PROJECT: &str = "-mirror-pause-shutdown";
const SESSION: &str = "00000000-0000-4000-8000-0000000000a5";
/// Frames the CLI tries to mirror in its turn, about 1 KiB each.
const FRAMES: u32 = 3_000;
/// The mirror's queue: a few dozen frames.
const QUEUE: usize = 32 * 1024;
const GRACE: Duration = Duration::from_millis(500);
const FLUSH_DEADLINE: Duration = Duration::from_secs(2);
/// What the shutdown may take beyond its ladder and the flush deadline.
const MARGIN: Duration = Duration::from_secs(3);

#[tokio::test]
async fn a_session_paused_on_a_stalled_store_shuts_down_within_its_ladder_and_counts_the_loss() {
    let (config, store_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let lock = hold_session_lock(store_dir.path(), PROJECT, SESSION);
    let store: Arc<dyn SessionStore> =
        Arc::new(FileStore::new(store_dir.path()).lock_timeout(Duration::from_secs(120)));
    let fake = fake(flooding_turn(config.path(), PROJECT, SESSION, FRAMES));
    let options = fake.options().env("CLAUDE_CONFIG_DIR", config.path());
    let client = claude_agent::client::ClientBuilder::new(options)
        .initialize_timeout(SOON)
        .grace(GRACE)
        .term_grace(GRACE)
        .session_store(store)
        .store_overflow(StoreOverflow::Pause)
        .mirror_queue_bytes(QUEUE)
        // The first append (the one that stalls) starts at 500 entries.
        .mirror_persist_within(None)
        .mirror_flush_deadline(FLUSH_DEADLINE)
        .connect()
        .await
        .unwrap();
    client.send("go").await.unwrap();

    // Paused: the read loop passed the first batch and then stopped
    // reading well short of the whole turn.
    let start = Instant::now();
    while client.stats().bytes_in <= 500 * 1_000 {
        assert!(
            start.elapsed() < SOON,
            "the read loop never reached the first batch"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut turn = client.receive_response();
    let ended = tokio::time::timeout(Duration::from_secs(1), async {
        while let Some(m) = turn.next().await {
            if matches!(m, Ok(Message::Result(_))) {
                return true;
            }
        }
        false
    })
    .await;
    drop(turn);
    assert!(
        ended.is_err(),
        "the turn ended though the read loop was paused"
    );
    let total = u64::from(FRAMES) * 1_000;
    assert!(client.stats().bytes_in < total / 2, "not paused");

    // The shutdown, with the store stalled throughout.
    let began = Instant::now();
    let closing = {
        let c = client.clone();
        tokio::spawn(async move { c.shutdown().await })
    };
    let bound = GRACE * 2 + FLUSH_DEADLINE + MARGIN;
    let mut seen = Vec::new();
    let drained = tokio::time::timeout(bound, async {
        // The cut turn ends a stream with its error; the next stream reads
        // on (the mirror's report comes after the CLI's output ended),
        // until one has nothing left.
        loop {
            let mut rest = client.receive_messages();
            let mut any = false;
            while let Some(m) = rest.next().await {
                any = true;
                seen.extend(m.ok());
            }
            if !any {
                break;
            }
        }
    })
    .await;
    let report = tokio::time::timeout(bound.saturating_sub(began.elapsed()), closing)
        .await
        .expect("the shutdown hung on the paused read loop")
        .unwrap();
    let took = began.elapsed();
    lock.release();
    assert!(
        drained.is_ok(),
        "the message stream did not end within {bound:?}"
    );
    eprintln!("shut down in {took:?}: {report:?}");
    assert!(took < bound, "took {took:?}, bound {bound:?}");

    // Counted and reported: the stalled store took nothing.
    assert_eq!(report.mirror_persisted, Some(0), "{report:?}");
    let lost = report.mirror_unpersisted.unwrap();
    assert!(lost >= 500, "the stalled batch is counted: {lost}");
    let errors: Vec<String> = seen
        .iter()
        .filter_map(|m| match m {
            Message::System(SystemMessage::MirrorError(e)) => e.error.clone(),
            _ => None,
        })
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains(&format!("did not take {lost} entries"))),
        "{errors:?}"
    );
}
