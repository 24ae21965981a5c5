//! The real CLI's `transcript_mirror` frames (fixture `session_mirror`,
//! recorded with `--session-mirror`) through the store helpers and a
//! `FileStore`: keys from the frames' paths, entries stored as the CLI
//! wrote them, retries deduplicated, the summary folded from them.

#![allow(clippy::expect_used)] // fixture helpers outside the test functions

use std::path::Path;

use claude_agent::store::{
    FileStore, SessionKey, SessionStore, StoreEntry, key_for_mirror_path, sanitize_path,
};
use serde_json::Value;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/claude-code-2.1.332/session_mirror"
);
/// The recording's CLI config folder's `projects` (from the frames' paths).
const PROJECTS: &str = "/home/dev/.claude/projects";

fn lines<T: serde::de::DeserializeOwned>(file: &str) -> Vec<T> {
    std::fs::read_to_string(Path::new(FIXTURE).join(file))
        .expect("read the fixture")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// `(filePath, entries)` of every `transcript_mirror` frame.
fn mirror_frames() -> Vec<(String, Vec<StoreEntry>)> {
    lines::<Value>("stdout.ndjson")
        .into_iter()
        .filter(|frame| frame["type"] == "transcript_mirror")
        .map(|frame| {
            let path = frame["filePath"].as_str().expect("filePath").to_owned();
            let entries = frame["entries"].as_array().expect("entries");
            (path, entries.iter().map(StoreEntry::from).collect())
        })
        .collect()
}

#[tokio::test]
async fn mirrored_frames_store_the_cli_transcript_once_with_its_summary() {
    let frames = mirror_frames();
    assert!(
        !frames.is_empty(),
        "the fixture has transcript_mirror frames"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let store = FileStore::new(dir.path());
    let mut key: Option<SessionKey> = None;
    let mut mirrored = Vec::new();
    for (path, entries) in &frames {
        let frame_key =
            key_for_mirror_path(Path::new(path), Path::new(PROJECTS)).expect("a transcript path");
        assert_eq!(frame_key.project_key, sanitize_path("/home/dev/project"));
        assert!(frame_key.is_main());
        assert!(
            key.as_ref().is_none_or(|k| *k == frame_key),
            "one session in the fixture"
        );
        store.append(&frame_key, entries).await.expect("append");
        mirrored.extend(entries.iter().cloned());
        key = Some(frame_key);
    }
    let key = key.expect("a key");

    // A mirror retrying every batch with uuids changes nothing.
    let with_uuids: Vec<StoreEntry> = mirrored
        .iter()
        .filter(|e| e.uuid().is_some())
        .cloned()
        .collect();
    assert!(!with_uuids.is_empty());
    store.append(&key, &with_uuids).await.expect("append again");

    let loaded = store.load(&key).await.expect("load").expect("stored");
    assert_eq!(loaded, mirrored, "every mirrored entry, once, in order");
    // And each is a line the CLI wrote to its own session file.
    let local = lines::<StoreEntry>("local-session.jsonl");
    assert!(loaded.iter().all(|entry| local.contains(entry)));

    let summaries = store
        .list_session_summaries(&key.project_key)
        .await
        .expect("summaries");
    assert_eq!(summaries.len(), 1);
    let data = &summaries[0].data;
    assert_eq!(summaries[0].session_id, key.session_id);
    assert_eq!(data["first_prompt"], "please use bash");
    assert_eq!(data["is_sidechain"], false);
    assert!(
        data["created_at"]
            .as_i64()
            .is_some_and(|ms| ms > 1_700_000_000_000)
    );
}
