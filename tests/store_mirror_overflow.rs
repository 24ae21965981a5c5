//! The store-overflow policies with a really stalled store (a file store
//! whose session lock the test holds) and a fake CLI that mirrors far more
//! than the mirror's queue (made small here) while the store is stalled:
//! `Pause` holds the CLI back and loses nothing, `Spill` lets the turn
//! finish, keeps the overflow in a file and replays it once the store
//! returns, `DropOldest` drops and says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_agent::client::Client;
use claude_agent::protocol::{Message, SystemMessage};
use claude_agent::store::{FileStore, SessionKey, SessionStore, StoreOverflow};
use common::mirror_flood::{finish, flooding_turn};
use common::*;
use futures::StreamExt;

const PROJECT: &str = "-mirror-overflow";
const SESSION: &str = "00000000-0000-4000-8000-0000000000f1";
/// Frames the CLI mirrors in its one turn, about 1 KiB each.
const FRAMES: u32 = 3_000;
/// The mirror's queue: a few dozen frames.
const QUEUE: usize = 32 * 1024;

/// A file store in `dir` whose session lock the returned guard holds:
/// every append waits until the test releases it.
fn stalled_store(dir: &Path) -> (Arc<dyn SessionStore>, HeldSessionLock) {
    let lock = hold_session_lock(dir, PROJECT, SESSION);
    let store = FileStore::new(dir).lock_timeout(Duration::from_secs(120));
    (Arc::new(store), lock)
}

async fn connect(
    fake: &Fake,
    config: &Path,
    store: Arc<dyn SessionStore>,
    policy: StoreOverflow,
) -> Client {
    let options = fake.options().env("CLAUDE_CONFIG_DIR", config);
    claude_agent::client::ClientBuilder::new(options)
        .initialize_timeout(SOON)
        .session_store(store)
        .store_overflow(policy)
        .mirror_queue_bytes(QUEUE)
        // Appends at 500 entries or a turn's end only: the first append
        // (the one that stalls) starts at a known point of the flood.
        .mirror_persist_within(None)
        .mirror_flush_deadline(SOON)
        .connect()
        .await
        .unwrap()
}

/// Waits (bounded) until `ready` holds.
async fn until(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < SOON, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The turn's messages (to its `result`).
async fn read_turn(client: &Client, seen: &mut Vec<Message>) {
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next()).await.unwrap() {
        seen.push(m.unwrap());
    }
}

fn mirror_errors(seen: &[Message]) -> Vec<String> {
    seen.iter()
        .filter_map(|m| match m {
            Message::System(SystemMessage::MirrorError(e)) => e.error.clone(),
            _ => None,
        })
        .collect()
}

/// The `n` of every stored entry, in store order.
async fn stored(dir: &Path) -> Vec<u64> {
    let store = FileStore::new(dir);
    let entries = store
        .load(&SessionKey::new(PROJECT, SESSION))
        .await
        .unwrap()
        .unwrap_or_default();
    entries
        .iter()
        .map(|e| {
            let v = e.to_value().unwrap();
            v["n"].as_u64().unwrap()
        })
        .collect()
}

fn all_in_order() -> Vec<u64> {
    (0..u64::from(FRAMES)).collect()
}

#[tokio::test]
async fn pause_holds_the_cli_back_while_the_store_stalls_and_loses_nothing() {
    let (config, store_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (store, lock) = stalled_store(store_dir.path());
    let fake = fake(flooding_turn(config.path(), PROJECT, SESSION, FRAMES));
    let client = connect(&fake, config.path(), store, StoreOverflow::Pause).await;
    client.send("go").await.unwrap();

    // The mirror task appends once it holds 500 entries; that append waits
    // for the lock, the queue fills, and the read loop stops reading.
    let total = u64::from(FRAMES) * 1_000; // a little less than written
    until("the read loop to pass the first batch", || {
        client.stats().bytes_in > 500 * 1_000
    })
    .await;
    let at_stall = client.stats().bytes_in;
    let mut turn = client.receive_response();
    let early = tokio::time::timeout(Duration::from_secs(1), async {
        while let Some(m) = turn.next().await {
            if matches!(m, Ok(Message::Result(_))) {
                return true;
            }
        }
        false
    })
    .await;
    drop(turn);
    let held = client.stats().bytes_in;
    assert!(early.is_err(), "the turn ended while the store was stalled");
    assert!(
        held < total / 2,
        "stdout was read past the cap while paused: {held} of {total} bytes (at the stall {at_stall})"
    );

    lock.release();
    let mut seen = Vec::new();
    read_turn(&client, &mut seen).await;
    let (seen, report) = finish(client, seen).await;
    assert_eq!(mirror_errors(&seen), Vec::<String>::new());
    assert_eq!(report.mirror_persisted, Some(u64::from(FRAMES)));
    assert_eq!(report.mirror_unpersisted, Some(0));
    assert_eq!(stored(store_dir.path()).await, all_in_order());
}

#[tokio::test]
async fn spill_finishes_the_turn_keeps_the_overflow_on_disk_and_replays_it_in_order() {
    let (config, store_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let spill_dir = tempfile::tempdir().unwrap();
    let spill = spill_dir.path().join("spill");
    let (store, lock) = stalled_store(store_dir.path());
    let fake = fake(flooding_turn(config.path(), PROJECT, SESSION, FRAMES));
    let policy = StoreOverflow::Spill {
        dir: Some(spill.clone()),
    };
    let client = connect(&fake, config.path(), store, policy).await;
    client.send("go").await.unwrap();

    // The CLI is not held back: the whole turn arrives with the store
    // still stalled, the overflow in a spill file.
    let mut seen = Vec::new();
    read_turn(&client, &mut seen).await;
    assert!(matches!(seen.last(), Some(Message::Result(_))), "{seen:?}");
    let files = || std::fs::read_dir(&spill).map_or(0, Iterator::count);
    until("the spill file", || files() == 1).await;

    lock.release();
    let (seen, report) = finish(client, seen).await;
    assert_eq!(mirror_errors(&seen), Vec::<String>::new());
    assert_eq!(report.mirror_persisted, Some(u64::from(FRAMES)));
    assert_eq!(report.mirror_unpersisted, Some(0));
    assert_eq!(stored(store_dir.path()).await, all_in_order());
    assert_eq!(files(), 0, "the replayed spill file is removed");
}

#[tokio::test]
async fn drop_oldest_finishes_the_turn_and_reports_what_it_dropped() {
    let (config, store_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (store, lock) = stalled_store(store_dir.path());
    let fake = fake(flooding_turn(config.path(), PROJECT, SESSION, FRAMES));
    let client = connect(&fake, config.path(), store, StoreOverflow::DropOldest).await;
    client.send("go").await.unwrap();
    let mut seen = Vec::new();
    read_turn(&client, &mut seen).await;
    assert!(matches!(seen.last(), Some(Message::Result(_))), "{seen:?}");

    lock.release();
    let (seen, report) = finish(client, seen).await;
    let errors = mirror_errors(&seen);
    assert!(
        errors.iter().any(|e| e.contains("dropped, oldest first")),
        "{errors:?}"
    );
    let (persisted, lost) = (
        report.mirror_persisted.unwrap(),
        report.mirror_unpersisted.unwrap(),
    );
    assert!(lost > 0, "nothing dropped");
    assert_eq!(persisted + lost, u64::from(FRAMES));
    let kept = stored(store_dir.path()).await;
    assert_eq!(kept.len() as u64, persisted);
    assert!(
        kept.windows(2).all(|w| w[0] < w[1]),
        "kept in order, once each"
    );
}
