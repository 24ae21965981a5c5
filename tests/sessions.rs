//! The session helpers over the CLI's local transcripts, a file store and a
//! memory store, from a real CLI session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sessions_common;

use std::sync::Arc;

use claude_agent::sessions::{
    LocalSessions, SessionSource, SessionsError, import_session, list_sessions, session_messages,
};
use claude_agent::store::{
    FileStore, MemoryStore, SessionKey, SessionListEntry, SessionStore, StoreEntry, StoreError,
    StoreResult,
};
use futures::future::BoxFuture;
use sessions_common::{PROJECT, SESSION, projects_dir, scenario};

#[tokio::test]
async fn local_transcripts_list_read_and_mutate_like_the_sdk() {
    let root = tempfile::tempdir().unwrap();
    let source = SessionSource::Local(LocalSessions::new(projects_dir(root.path())));
    scenario(&source, true).await;
}

/// The Python SDK finds a session's tag by scanning for lines that begin
/// `{"type":"tag"` (and the CLI writes its metadata entries that way), so a
/// tag written here must have that shape on disk to be seen there.
#[tokio::test]
async fn a_tag_and_a_title_on_disk_begin_with_their_type_as_the_python_sdk_scans_for() {
    let root = tempfile::tempdir().unwrap();
    let projects = projects_dir(root.path());
    let source = SessionSource::Local(LocalSessions::new(projects.clone()));
    claude_agent::sessions::rename_session(&source, PROJECT, SESSION, "Title")
        .await
        .unwrap();
    claude_agent::sessions::tag_session(&source, PROJECT, SESSION, Some("exp"))
        .await
        .unwrap();
    let file = projects.join(PROJECT).join(format!("{SESSION}.jsonl"));
    let text = std::fs::read_to_string(file).unwrap();
    let last: Vec<&str> = text.lines().rev().take(2).collect();
    assert!(last[0].starts_with(r#"{"type":"tag","#), "{}", last[0]);
    assert!(last[0].contains(r#""tag":"exp""#), "{}", last[0]);
    assert!(
        last[1].starts_with(r#"{"type":"custom-title","#),
        "{}",
        last[1]
    );
}

#[tokio::test]
async fn a_session_imported_into_a_memory_store_reads_the_same() {
    let root = tempfile::tempdir().unwrap();
    let local = LocalSessions::new(projects_dir(root.path()));
    let store: Arc<dyn SessionStore> = Arc::new(MemoryStore::new());
    assert_eq!(
        import_session(&local, &store, PROJECT, SESSION)
            .await
            .unwrap(),
        2
    );
    // Importing again adds nothing: appends are idempotent by uuid.
    import_session(&local, &store, PROJECT, SESSION)
        .await
        .unwrap();
    let local_messages = session_messages(&SessionSource::Local(local), PROJECT, SESSION)
        .await
        .unwrap();
    let source = SessionSource::Store(store);
    assert_eq!(
        session_messages(&source, PROJECT, SESSION).await.unwrap(),
        local_messages
    );
    scenario(&source, false).await;
}

#[tokio::test]
async fn a_session_imported_into_a_file_store_reads_the_same() {
    let root = tempfile::tempdir().unwrap();
    let local = LocalSessions::new(projects_dir(root.path()));
    let folder = tempfile::tempdir().unwrap();
    let store: Arc<dyn SessionStore> = Arc::new(FileStore::new(folder.path()));
    import_session(&local, &store, PROJECT, SESSION)
        .await
        .unwrap();
    scenario(&SessionSource::Store(store), false).await;
}

#[tokio::test]
async fn a_torn_last_line_is_skipped_locally() {
    let root = tempfile::tempdir().unwrap();
    let projects = projects_dir(root.path());
    let file = projects.join(PROJECT).join(format!("{SESSION}.jsonl"));
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("{\"type\":\"user\",\"mess");
    std::fs::write(&file, text).unwrap();
    let source = SessionSource::Local(LocalSessions::new(projects));
    assert_eq!(list_sessions(&source, PROJECT).await.unwrap().len(), 1);
    assert_eq!(
        session_messages(&source, PROJECT, SESSION)
            .await
            .unwrap()
            .len(),
        4
    );
}

#[tokio::test]
async fn a_corrupt_store_row_is_a_corrupt_error_not_a_panic() {
    let root = tempfile::tempdir().unwrap();
    let local = LocalSessions::new(projects_dir(root.path()));
    let folder = tempfile::tempdir().unwrap();
    let store: Arc<dyn SessionStore> = Arc::new(FileStore::new(folder.path()));
    import_session(&local, &store, PROJECT, SESSION)
        .await
        .unwrap();
    let file = folder.path().join(PROJECT).join(format!("{SESSION}.jsonl"));
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("not json\n");
    std::fs::write(&file, text).unwrap();
    let err = session_messages(&SessionSource::Store(store), PROJECT, SESSION)
        .await
        .unwrap_err();
    assert!(
        matches!(err, SessionsError::Store(StoreError::Corrupt { .. })),
        "{err}"
    );
}

#[tokio::test]
async fn an_unknown_project_lists_nothing() {
    let root = tempfile::tempdir().unwrap();
    let source = SessionSource::Local(LocalSessions::new(projects_dir(root.path())));
    assert!(list_sessions(&source, "-nowhere").await.unwrap().is_empty());
    let store = SessionSource::Store(Arc::new(MemoryStore::new()));
    assert!(list_sessions(&store, "-nowhere").await.unwrap().is_empty());
}

/// A store without summaries: listing must fold each session's entries.
struct NoSummaries(MemoryStore);

impl SessionStore for NoSummaries {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        self.0.append(key, entries)
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        self.0.load(key)
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        self.0.list_sessions(project_key)
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, StoreResult<()>> {
        self.0.delete(key)
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<String>>> {
        self.0.list_subkeys(project_key, session_id)
    }
}

#[tokio::test]
async fn a_store_without_summaries_lists_by_folding_entries() {
    let root = tempfile::tempdir().unwrap();
    let local = LocalSessions::new(projects_dir(root.path()));
    let store: Arc<dyn SessionStore> = Arc::new(NoSummaries(MemoryStore::new()));
    assert!(
        store
            .list_session_summaries(PROJECT)
            .await
            .unwrap_err()
            .is_unsupported()
    );
    import_session(&local, &store, PROJECT, SESSION)
        .await
        .unwrap();
    scenario(&SessionSource::Store(store), false).await;
}

/// The CLI mirrors a subagent's `.meta.json` sidecar into the subagent's
/// transcript as an `agent_metadata` entry (restored as the sidecar on
/// resume): the subagent's message listing must not show it, wherever it
/// sits and whatever it carries.
#[tokio::test]
async fn a_subagents_mirrored_agent_metadata_is_not_listed_as_a_message() {
    let store: Arc<dyn SessionStore> = Arc::new(MemoryStore::new());
    let key = SessionKey::new(PROJECT, SESSION);
    let sub = key.clone().with_subpath("subagents/agent-m1");
    let meta = |agent_type: &str| {
        StoreEntry::from(serde_json::json!({
            "type": "agent_metadata", "agentType": agent_type,
            "uuid": format!("meta-{agent_type}"), "isSidechain": true,
            "message": {"role": "user", "content": "not a message"}}))
    };
    let user = serde_json::json!({"type": "user", "isSidechain": true, "parentUuid": null,
        "uuid": "5b0c6a8e-0000-4000-8000-0000000000a1", "sessionId": SESSION,
        "message": {"role": "user", "content": "look around"}});
    let assistant = serde_json::json!({"type": "assistant", "isSidechain": true,
        "parentUuid": "5b0c6a8e-0000-4000-8000-0000000000a1",
        "uuid": "5b0c6a8e-0000-4000-8000-0000000000a2", "sessionId": SESSION,
        "message": {"role": "assistant", "content": [{"type": "text", "text": "found it"}]}});
    store
        .append(
            &key,
            &[StoreEntry::from(serde_json::json!({"type": "user",
            "uuid": "5b0c6a8e-0000-4000-8000-0000000000b1", "sessionId": SESSION,
            "message": {"role": "user", "content": "main"}}))],
        )
        .await
        .unwrap();
    store
        .append(
            &sub,
            &[meta("first"), user.into(), assistant.into(), meta("last")],
        )
        .await
        .unwrap();
    let source = SessionSource::Store(store);
    let listed = claude_agent::sessions::subagent_messages(&source, PROJECT, SESSION, "m1")
        .await
        .unwrap();
    let uuids: Vec<&str> = listed.iter().map(|m| m.uuid.as_str()).collect();
    assert_eq!(
        uuids,
        [
            "5b0c6a8e-0000-4000-8000-0000000000a1",
            "5b0c6a8e-0000-4000-8000-0000000000a2"
        ],
        "only the subagent's own messages"
    );
}
