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

/// A store whose appends never finish.
struct Stalled;

impl SessionStore for Stalled {
    fn append<'a>(
        &'a self,
        _key: &'a SessionKey,
        _entries: &'a [StoreEntry],
    ) -> futures::future::BoxFuture<'a, crate::store::StoreResult<()>> {
        Box::pin(futures::future::pending())
    }

    fn load<'a>(
        &'a self,
        _key: &'a SessionKey,
    ) -> futures::future::BoxFuture<'a, crate::store::StoreResult<Option<Vec<StoreEntry>>>> {
        Box::pin(async { Ok(None) })
    }
}

/// The text of the next `mirror_error` the task reported.
async fn mirror_error(rx: &mut mpsc::Receiver<Message>) -> String {
    let message = rx.recv().await.expect("a mirror_error");
    serde_json::to_string(&message).unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_configured_append_timeout_ends_a_stalled_append() {
    let settings = MirrorSettings {
        append_timeout: Duration::from_secs(2),
        overflow: crate::store::StoreOverflow::DropOldest,
        ..MirrorSettings::default()
    };
    let wake = Wake {
        frames: MAX_PENDING_ENTRIES,
        bytes: MAX_PENDING_BYTES,
    };
    let inbox = Arc::new(Inbox::new(1 << 20, wake, Full::DropOldest));
    let (errors, mut rx) = mpsc::channel(8);
    let counts = Arc::new(Counts::default());
    let worker = Worker::new(
        Arc::new(Stalled),
        &settings,
        "/c/projects".into(),
        counts.clone(),
        errors,
    );
    let task = tokio::spawn(worker.run(inbox.clone()));
    let t0 = tokio::time::Instant::now();
    inbox.push(Item::Mirror(frame("u1")));
    inbox.push(Item::TurnEnd);
    let error = mirror_error(&mut rx).await;
    let took = t0.elapsed();
    assert!(error.contains("did not finish within 2 s"), "{error}");
    assert!(took >= Duration::from_secs(2), "{took:?}");
    assert!(took < APPEND_TIMEOUT, "not the default's 60 s: {took:?}");
    assert_eq!(counts.get(), (0, 1));
    inbox.close();
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_hurried_finish_gives_a_stalled_store_the_configured_hurried_flush() {
    let settings = MirrorSettings {
        hurried_flush: Duration::from_secs(3),
        overflow: crate::store::StoreOverflow::DropOldest,
        ..MirrorSettings::default()
    };
    let (hooks, handle, _errors) =
        crate::store::mirror::start(Arc::new(Stalled), &settings, "/c/projects".into());
    let mut divert = hooks.divert;
    let line = frame("u1");
    let kind = "transcript_mirror".to_owned();
    assert!(divert(&claude_agent_actors::Frame { kind, line }));
    let t0 = tokio::time::Instant::now();
    let (persisted, unpersisted) = handle.finish(async {}).await;
    let took = t0.elapsed();
    assert_eq!((persisted, unpersisted), (0, 1));
    assert!(took >= Duration::from_secs(3), "{took:?}");
    assert!(
        took < settings.flush_deadline,
        "not the flush deadline: {took:?}"
    );
    drop(divert);
}
