//! `FileStore`: the conformance suite, two OS processes appending to one
//! session at once, a line torn by a crash, a corrupt line, unsafe keys.

use std::collections::HashMap;
use std::io::Write;
use std::time::Duration;

use claude_agent::store::{
    FileStore, SessionKey, SessionStore, StoreEntry, StoreError, open_store,
};
use claude_agent_testkit::store_conformance::{ConformanceOptions, run_store_conformance};
use serde_json::{Value, json};

/// Set in the environment of the child processes this file spawns: the
/// store's root, the writer's id.
const ENV_ROOT: &str = "CLAUDE_AGENT_TEST_FILE_STORE_ROOT";
const ENV_WRITER: &str = "CLAUDE_AGENT_TEST_FILE_STORE_WRITER";
const BATCHES: usize = 100;

fn shared_key() -> SessionKey {
    SessionKey::new("proj", "shared")
}

/// A test entry.
fn ent(value: Value) -> StoreEntry {
    StoreEntry::from(value)
}

#[tokio::test]
async fn file_store_passes_every_contract() {
    let dirs = std::sync::Mutex::new(Vec::new());
    let report = run_store_conformance(
        || {
            let dir = tempfile::tempdir().expect("temp dir");
            let store = FileStore::new(dir.path());
            dirs.lock().unwrap().push(dir);
            async move { Ok::<_, StoreError>(store) }
        },
        ConformanceOptions::default(),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: {:?}", e.source));
    assert_eq!(report.passed.len(), 16, "{report:?}");
}

#[tokio::test]
async fn file_url_opens_a_file_store_that_passes_every_contract() {
    let dirs = std::sync::Mutex::new(Vec::new());
    let report = run_store_conformance(
        || {
            let dir = tempfile::tempdir().expect("temp dir");
            let url = format!("file://{}", dir.path().display()).replace(' ', "%20");
            dirs.lock().unwrap().push(dir);
            async move { open_store(&url).await }
        },
        ConformanceOptions::default(),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: {:?}", e.source));
    assert_eq!(report.passed.len(), 16, "{report:?}");
}

/// The body of the writer processes that
/// `two_processes_appending_to_one_session_store_each_entry_once_in_order`
/// starts: that test re-runs itself with `ENV_ROOT` and `ENV_WRITER` set and
/// takes this path instead of its own, so no test passes by doing nothing.
#[allow(clippy::expect_used)] // a failed append exits non-zero, failing the parent test
async fn writer_process(root: String, writer: String) {
    let store = FileStore::new(root);
    let key = shared_key();
    let mut previous: Option<StoreEntry> = None;
    for i in 0..BATCHES {
        let own =
            ent(json!({"type": "x", "uuid": format!("{writer}-{i}"), "writer": writer, "i": i}));
        // Both writers append the same shared entry: it must land once.
        let shared =
            ent(json!({"type": "x", "uuid": format!("shared-{i}"), "writer": "shared", "i": i}));
        let mut batch = vec![own.clone(), shared];
        // And each retries its previous batch's entry, as a mirror would.
        batch.extend(previous.take());
        store.append(&key, &batch).await.expect("append");
        previous = Some(own);
    }
}

#[tokio::test]
async fn two_processes_appending_to_one_session_store_each_entry_once_in_order() {
    if let (Ok(root), Ok(writer)) = (std::env::var(ENV_ROOT), std::env::var(ENV_WRITER)) {
        return writer_process(root, writer).await;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = std::env::current_exe().expect("test executable");
    let mut children = Vec::new();
    for writer in ["a", "b"] {
        let child = tokio::process::Command::new(&exe)
            .args([
                "--exact",
                "two_processes_appending_to_one_session_store_each_entry_once_in_order",
                "--include-ignored",
                "--quiet",
            ])
            .env(ENV_ROOT, dir.path())
            .env(ENV_WRITER, writer)
            .kill_on_drop(true)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn a writer process");
        children.push(child);
    }
    for mut child in children {
        let status = tokio::time::timeout(Duration::from_secs(120), child.wait())
            .await
            .expect("a writer process did not finish in 120 s")
            .expect("wait for a writer");
        assert!(status.success(), "a writer process failed: {status}");
    }

    let store = FileStore::new(dir.path());
    let entries = store
        .load(&shared_key())
        .await
        .expect("load")
        .expect("the session exists");
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut last_i: HashMap<String, i64> = HashMap::new();
    for entry in &entries {
        let entry = entry.to_value().expect("a tree");
        *seen
            .entry(entry["uuid"].as_str().expect("uuid").to_owned())
            .or_default() += 1;
        let writer = entry["writer"].as_str().expect("writer").to_owned();
        let i = entry["i"].as_i64().expect("i");
        if writer != "shared" {
            let last = last_i.insert(writer.clone(), i);
            assert!(
                last.is_none_or(|last| last < i),
                "writer {writer}'s entry {i} came after {last:?}"
            );
        }
    }
    assert_eq!(entries.len(), 3 * BATCHES, "every entry exactly once");
    assert!(seen.values().all(|&n| n == 1), "duplicates: {seen:?}");
    for i in 0..BATCHES {
        for uuid in [format!("a-{i}"), format!("b-{i}"), format!("shared-{i}")] {
            assert!(seen.contains_key(&uuid), "{uuid} missing");
        }
    }
    // One summary for the session, whichever process wrote last.
    let summaries = store
        .list_session_summaries("proj")
        .await
        .expect("summaries");
    assert_eq!(summaries.len(), 1);
}

#[tokio::test]
async fn a_torn_last_line_is_ignored_on_load_and_removed_by_the_next_append() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = FileStore::new(dir.path());
    let key = SessionKey::new("proj", "sess");
    let first = ent(json!({"type": "x", "uuid": "1"}));
    store
        .append(&key, std::slice::from_ref(&first))
        .await
        .expect("append");

    // A writer that died in the middle of its line.
    let path = dir.path().join("proj/sess.jsonl");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    file.write_all(br#"{"type":"x","uuid":"2","tex"#)
        .expect("write a torn line");
    drop(file);

    assert_eq!(
        store.load(&key).await.expect("load"),
        Some(vec![first.clone()])
    );

    let third = ent(json!({"type": "x", "uuid": "3"}));
    store
        .append(&key, std::slice::from_ref(&third))
        .await
        .expect("append after the tear");
    assert_eq!(
        store.load(&key).await.expect("load"),
        Some(vec![first, third])
    );
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(
        text.ends_with('\n') && !text.contains("tex"),
        "the torn line is gone: {text:?}"
    );
}

#[tokio::test]
async fn a_corrupt_line_in_the_middle_is_reported_with_its_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("proj")).expect("mkdir");
    std::fs::write(
        dir.path().join("proj/sess.jsonl"),
        "{\"type\":\"x\"}\nnot json\n{\"type\":\"x\"}\n",
    )
    .expect("write");
    let err = FileStore::new(dir.path())
        .load(&SessionKey::new("proj", "sess"))
        .await
        .expect_err("a corrupt line must fail the load");
    match err {
        StoreError::Corrupt { location, .. } => {
            assert!(location.ends_with("sess.jsonl line 2"), "{location}")
        }
        other => panic!("expected Corrupt, got {other}"),
    }
}

#[tokio::test]
async fn keys_that_would_escape_the_root_are_rejected() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = FileStore::new(dir.path().join("root"));
    let entry = [ent(json!({"type": "x"}))];
    for key in [
        SessionKey::new("..", "s"),
        SessionKey::new("p", "../s"),
        SessionKey::new("p", "s").with_subpath("../../escape"),
        SessionKey::new("p", "s").with_subpath(""),
    ] {
        let err = store
            .append(&key, &entry)
            .await
            .expect_err("an unsafe key must be rejected");
        assert!(matches!(err, StoreError::InvalidKey { .. }), "{key}: {err}");
    }
    assert!(!dir.path().join("root").exists(), "nothing was written");
}

#[tokio::test]
async fn a_summary_that_missed_an_append_is_rebuilt_from_the_transcript() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = FileStore::new(dir.path());
    let key = SessionKey::new("proj", "sess");
    store
        .append(&key, &[ent(json!({"type": "x", "customTitle": "one"}))])
        .await
        .expect("append");
    // A writer that died after its append and before its summary update.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("proj/sess.jsonl"))
        .expect("open");
    file.write_all(b"{\"type\":\"x\",\"gitBranch\":\"lost\"}\n")
        .expect("write");
    drop(file);
    store
        .append(&key, &[ent(json!({"type": "x", "aiTitle": "two"}))])
        .await
        .expect("append");
    let summaries = store
        .list_session_summaries("proj")
        .await
        .expect("summaries");
    let data = &summaries[0].data;
    assert_eq!(data["custom_title"], json!("one"));
    assert_eq!(data["git_branch"], json!("lost"));
    assert_eq!(data["ai_title"], json!("two"));
}

#[tokio::test]
async fn a_session_deleted_and_rewritten_by_another_writer_is_read_again_for_dedup() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Two stores on one folder keep separate caches, as two processes do.
    let (ours, theirs) = (FileStore::new(dir.path()), FileStore::new(dir.path()));
    let key = SessionKey::new("proj", "sess");
    ours.append(
        &key,
        &[ent(
            json!({"type": "x", "uuid": "old", "pad": "a".repeat(300)}),
        )],
    )
    .await
    .expect("append");
    theirs.delete(&key).await.expect("delete");
    // Longer than what `ours` has seen, so only its start tells them apart.
    let rewritten = [
        ent(json!({"type": "x", "uuid": "new-1", "pad": "b".repeat(300)})),
        ent(json!({"type": "x", "uuid": "new-2"})),
    ];
    theirs.append(&key, &rewritten).await.expect("append");
    ours.append(
        &key,
        &[
            ent(json!({"type": "x", "uuid": "new-2"})),
            ent(json!({"type": "x", "uuid": "new-3"})),
        ],
    )
    .await
    .expect("append");
    let uuids: Vec<String> = ours
        .load(&key)
        .await
        .expect("load")
        .expect("exists")
        .iter()
        .map(|e| e.uuid().expect("uuid").into_owned())
        .collect();
    assert_eq!(uuids, ["new-1", "new-2", "new-3"]);
}
