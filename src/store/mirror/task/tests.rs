//! The mirror task's timing, on tokio's paused clock.

use super::*;
use crate::store::MemoryStore;
use crate::store::mirror::inbox::{Full, Wake};
use bytes::Bytes;

fn frame(uuid: &str) -> Bytes {
    let line = serde_json::json!({"type": "transcript_mirror",
        "filePath": "/c/projects/p/s.jsonl",
        "entries": [{"type": "user", "uuid": uuid}]});
    Bytes::from(line.to_string())
}

async fn persisted(store: &MemoryStore) -> usize {
    let key = SessionKey::new("p", "s");
    store.load(&key).await.ok().flatten().map_or(0, |e| e.len())
}

/// A batched mirror task with `settings` over a memory store.
fn started(
    settings: MirrorSettings,
) -> (Arc<MemoryStore>, Arc<Inbox>, tokio::task::JoinHandle<()>) {
    let store = Arc::new(MemoryStore::new());
    let wake = Wake {
        frames: MAX_PENDING_ENTRIES,
        bytes: MAX_PENDING_BYTES,
    };
    let inbox = Arc::new(Inbox::new(1 << 20, wake, Full::DropOldest));
    let (errors, _rx) = mpsc::channel(8);
    let counts = Arc::new(Counts::default());
    let worker = Worker::new(
        store.clone(),
        &settings,
        "/c/projects".into(),
        counts,
        errors,
    );
    let task = tokio::spawn(worker.run(inbox.clone()));
    (store, inbox, task)
}

/// The clock is tokio's paused one: each sleep below moves time on
/// once every task is idle, so what the worker did by then is settled.
#[tokio::test(start_paused = true)]
async fn entries_are_persisted_within_the_bound_with_no_turn_end() {
    let (store, inbox, task) = started(MirrorSettings::default());

    inbox.push(Item::Mirror(frame("u1")));
    tokio::time::sleep(Duration::from_millis(400)).await;
    inbox.push(Item::Mirror(frame("u2")));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        persisted(&store).await,
        0,
        "nothing is due before the bound"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        persisted(&store).await,
        2,
        "both are due 1 s after the first"
    );

    // Idle again: the next frame starts a new bound.
    tokio::time::sleep(Duration::from_secs(30)).await;
    inbox.push(Item::Mirror(frame("u3")));
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(persisted(&store).await, 3);

    inbox.close();
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn without_a_bound_entries_wait_for_the_turns_end() {
    let (store, inbox, task) = started(MirrorSettings {
        persist_within: None,
        ..MirrorSettings::default()
    });

    inbox.push(Item::Mirror(frame("u1")));
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(persisted(&store).await, 0);
    inbox.push(Item::TurnEnd);
    tokio::time::sleep(Duration::from_millis(1)).await;
    assert_eq!(persisted(&store).await, 1);

    inbox.close();
    task.await.unwrap();
}
