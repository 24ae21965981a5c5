//! The session functions the official SDKs have beyond one project:
//! listing every project, a directory with its git worktrees, paging,
//! programmatic sessions, archiving, finding a session without a project
//! key, paged messages with system entries, subagents' parent ids, and
//! import options. Each over transcripts built in a temporary config
//! folder.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use claude_agent::sessions::{
    ImportOptions, ListSessions, LocalSessions, MessageKind, MessageOptions, SessionInfo,
    SessionSource, SessionsError, archive_session, find_session, import_session_with,
    list_sessions_with, list_subagents, session_info, session_info_by_id, session_messages_with,
    subagent_messages, subagent_messages_with, unarchive_session,
};
use claude_agent::store::{
    MemoryStore, SessionKey, SessionListEntry, SessionStore, StoreEntry, StoreResult, sanitize_path,
};
use futures::future::BoxFuture;
use serde_json::{Value, json};

/// The `n`th test session id.
fn id(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

/// A config folder's `projects` folder, with helpers to write sessions.
struct Config {
    _root: tempfile::TempDir,
    projects: PathBuf,
}

impl Config {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let projects = root.path().join("projects");
        std::fs::create_dir_all(&projects).unwrap();
        Self {
            _root: root,
            projects,
        }
    }

    fn source(&self) -> SessionSource {
        SessionSource::Local(LocalSessions::new(&self.projects))
    }

    fn file(&self, project: &str, session: &str) -> PathBuf {
        self.projects.join(project).join(format!("{session}.jsonl"))
    }

    /// Write `entries` as session `session` of `project`, last modified
    /// `age` seconds ago.
    fn write(&self, project: &str, session: &str, entries: &[Value], age: u64) {
        let path = self.file(project, session);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = entries.iter().map(|e| format!("{e}\n")).collect();
        std::fs::write(&path, text).unwrap();
        set_age(&path, age);
    }

    /// A session whose one prompt is `prompt`, written by `entrypoint`.
    fn session(&self, project: &str, session: &str, prompt: &str, entrypoint: &str, age: u64) {
        let entries = [user(session, "u1", None, prompt, entrypoint)];
        self.write(project, session, &entries, age);
    }
}

fn set_age(path: &Path, age: u64) {
    let when = SystemTime::now() - Duration::from_secs(age);
    std::fs::File::options()
        .append(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

fn user(session: &str, uuid: &str, parent: Option<&str>, text: &str, entrypoint: &str) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": session,
           "entrypoint": entrypoint, "timestamp": "2026-01-01T00:00:00.000Z",
           "message": {"role": "user", "content": text}})
}

fn assistant(session: &str, uuid: &str, parent: &str, text: &str) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": session,
           "timestamp": "2026-01-01T00:00:01.000Z",
           "message": {"id": format!("msg_{uuid}"), "type": "message", "role": "assistant",
                       "content": [{"type": "text", "text": text}]}})
}

fn ids(infos: &[SessionInfo]) -> Vec<String> {
    infos.iter().map(|i| i.session_id.clone()).collect()
}

#[tokio::test]
async fn every_project_is_listed_newest_first_paged_and_each_session_once() {
    let config = Config::new();
    config.session("-a", &id(1), "one", "cli", 50);
    config.session("-b", &id(2), "two", "cli", 40);
    config.session("-c", &id(3), "three", "cli", 30);
    config.session("-a", &id(4), "four", "cli", 20);
    // The same session under a second folder, older: listed once, from
    // the newer folder.
    config.session("-c", &id(4), "four, moved", "cli", 60);
    let source = config.source();

    let all = list_sessions_with(&source, &ListSessions::all_projects())
        .await
        .unwrap();
    assert_eq!(ids(&all), [id(4), id(3), id(2), id(1)]);
    assert_eq!(all[0].project_key.as_deref(), Some("-a"));
    assert_eq!(all[0].summary, "four");
    assert_eq!(all[1].project_key.as_deref(), Some("-c"));

    let page = ListSessions::all_projects().offset(1).limit(2);
    let second = list_sessions_with(&source, &page).await.unwrap();
    assert_eq!(ids(&second), [id(3), id(2)]);
    let past_the_end = ListSessions::all_projects().offset(4);
    assert!(
        list_sessions_with(&source, &past_the_end)
            .await
            .unwrap()
            .is_empty()
    );
    // One project, paged the same way.
    let one = ListSessions::project("-a").limit(1);
    assert_eq!(
        ids(&list_sessions_with(&source, &one).await.unwrap()),
        [id(4)]
    );
}

#[tokio::test]
async fn a_sidechain_or_metadata_only_session_does_not_take_a_place_on_the_page() {
    let config = Config::new();
    config.session("-p", &id(1), "kept", "cli", 30);
    let mut side = user(&id(2), "s1", None, "side", "cli");
    side["isSidechain"] = json!(true);
    config.write("-p", &id(2), &[side], 20);
    config.write("-p", &id(3), &[json!({"type": "atis-latch"})], 10);
    let page = ListSessions::project("-p").limit(1);
    let listed = list_sessions_with(&config.source(), &page).await.unwrap();
    assert_eq!(ids(&listed), [id(1)]);
}

#[tokio::test]
async fn programmatic_sessions_are_listed_unless_left_out() {
    let config = Config::new();
    config.session("-p", &id(1), "typed at a terminal", "cli", 30);
    config.session("-p", &id(2), "from the python sdk", "sdk-py", 20);
    let mut daemon = user(&id(3), "d1", None, "daemon work", "cli");
    daemon["sessionKind"] = json!("daemon");
    config.write("-p", &id(3), &[daemon], 10);
    let source = config.source();
    let everything = list_sessions_with(&source, &ListSessions::project("-p"))
        .await
        .unwrap();
    assert_eq!(ids(&everything), [id(3), id(2), id(1)]);
    let interactive = ListSessions::project("-p").include_programmatic(false);
    assert_eq!(
        ids(&list_sessions_with(&source, &interactive).await.unwrap()),
        [id(1)]
    );
}

/// Reads and lists a store's sessions, counting the reads.
struct CountingStore {
    inner: MemoryStore,
    loads: AtomicUsize,
    appends: AtomicUsize,
}

impl SessionStore for CountingStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        self.appends.fetch_add(1, Ordering::SeqCst);
        self.inner.append(key, entries)
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        self.loads.fetch_add(1, Ordering::SeqCst);
        self.inner.load(key)
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        self.inner.list_sessions(project_key)
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<String>>> {
        self.inner.list_subkeys(project_key, session_id)
    }
}

fn counting() -> Arc<CountingStore> {
    Arc::new(CountingStore {
        inner: MemoryStore::new(),
        loads: AtomicUsize::new(0),
        appends: AtomicUsize::new(0),
    })
}

#[tokio::test]
async fn a_page_of_a_store_without_summaries_reads_only_around_the_page() {
    let store = counting();
    for n in 1..=40 {
        let session = id(n);
        let entry = StoreEntry::from(user(&session, &format!("u{n}"), None, "hi", "cli"));
        store
            .append(&SessionKey::new("-p", &session), &[entry])
            .await
            .unwrap();
    }
    let source = SessionSource::Store(store.clone());
    let all = list_sessions_with(&source, &ListSessions::project("-p"))
        .await
        .unwrap();
    assert_eq!(all.len(), 40);
    assert_eq!(store.loads.swap(0, Ordering::SeqCst), 40);
    let page = list_sessions_with(&source, &ListSessions::project("-p").offset(3).limit(2))
        .await
        .unwrap();
    assert_eq!(ids(&page), ids(&all[3..5]));
    let loads = store.loads.load(Ordering::SeqCst);
    assert!(
        (5..40).contains(&loads),
        "a page of 2 after 3 read {loads} of 40 sessions"
    );
}

#[tokio::test]
async fn a_store_lists_one_project_and_refuses_every_project() {
    let source = SessionSource::Store(Arc::new(MemoryStore::new()));
    let err = list_sessions_with(&source, &ListSessions::all_projects())
        .await
        .unwrap_err();
    assert!(matches!(err, SessionsError::LocalOnly { .. }), "{err}");
    let err = find_session(&source, &id(1)).await.unwrap_err();
    assert!(matches!(err, SessionsError::LocalOnly { .. }), "{err}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn a_directory_lists_its_git_worktrees_sessions_unless_told_not_to() {
    let config = Config::new();
    let repos = tempfile::tempdir().unwrap();
    let main = repos.path().join("main");
    let linked = repos.path().join("linked");
    std::fs::create_dir_all(&main).unwrap();
    git(&main, &["init", "--quiet"]);
    git(
        &main,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "--quiet",
            "--allow-empty",
            "-m",
            "init",
        ],
    );
    git(
        &main,
        &["worktree", "add", "--quiet", linked.to_str().unwrap()],
    );
    let key = |dir: &Path| sanitize_path(&dir.canonicalize().unwrap().to_string_lossy());
    config.session(&key(&main), &id(1), "in main", "cli", 20);
    config.session(&key(&linked), &id(2), "in the worktree", "cli", 10);
    config.session("-elsewhere", &id(3), "unrelated", "cli", 5);
    let source = config.source();

    let both = list_sessions_with(&source, &ListSessions::directory(&main))
        .await
        .unwrap();
    assert_eq!(ids(&both), [id(2), id(1)]);
    let from_linked = list_sessions_with(&source, &ListSessions::directory(&linked))
        .await
        .unwrap();
    assert_eq!(ids(&from_linked), [id(2), id(1)]);
    let own = ListSessions::directory(&main).include_worktrees(false);
    assert_eq!(
        ids(&list_sessions_with(&source, &own).await.unwrap()),
        [id(1)]
    );
}

#[tokio::test]
async fn archiving_marks_a_session_until_unarchived_or_prompted_again() {
    let config = Config::new();
    config.session("-p", &id(1), "keep me", "cli", 10);
    config.session("-p", &id(2), "never archived", "cli", 20);
    let source = config.source();
    let info = |n| {
        let source = source.clone();
        async move {
            session_info(&source, "-p", &id(n))
                .await
                .unwrap()
                .unwrap()
                .archived
        }
    };
    assert_eq!(info(1).await, None);

    archive_session(&source, "-p", &id(1)).await.unwrap();
    let mark: Value = serde_json::from_str(
        &std::fs::read_to_string(config.projects.join("-p").join(id(1)).join("archived.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(mark["archived"], true);
    assert_eq!(mark["by"], "sdk");
    assert!(mark["at"].as_str().unwrap().ends_with('Z'), "{mark}");
    assert_eq!(info(1).await, Some(true));
    let listed = list_sessions_with(&source, &ListSessions::project("-p"))
        .await
        .unwrap();
    let archived: Vec<Option<bool>> = listed.iter().map(|i| i.archived).collect();
    assert_eq!(archived, [Some(true), None], "still listed, marked");

    unarchive_session(&source, "-p", &id(1)).await.unwrap();
    assert_eq!(info(1).await, Some(false));

    // A prompt sent after the mark unarchives without touching the mark.
    archive_session(&source, "-p", &id(1)).await.unwrap();
    let mut later = user(&id(1), "u2", Some("u1"), "back again", "cli");
    later["timestamp"] = json!("2999-01-01T00:00:00.000Z");
    let mut text = std::fs::read_to_string(config.file("-p", &id(1))).unwrap();
    text.push_str(&format!("{later}\n"));
    std::fs::write(config.file("-p", &id(1)), text).unwrap();
    assert_eq!(info(1).await, Some(false));

    let missing = archive_session(&source, "-p", &id(9)).await.unwrap_err();
    assert!(
        matches!(missing, SessionsError::NotFound { .. }),
        "{missing}"
    );
    let store = SessionSource::Store(Arc::new(MemoryStore::new()));
    let refused = archive_session(&store, "-p", &id(1)).await.unwrap_err();
    assert!(
        matches!(refused, SessionsError::LocalOnly { .. }),
        "{refused}"
    );
}

#[tokio::test]
async fn a_session_is_found_and_described_without_its_project_key() {
    let config = Config::new();
    config.session("-a", &id(1), "in a", "cli", 10);
    config.session("-b", &id(2), "in b", "cli", 10);
    let source = config.source();
    assert_eq!(find_session(&source, &id(2)).await.unwrap(), "-b");
    let info = session_info_by_id(&source, &id(2)).await.unwrap().unwrap();
    assert_eq!(info.summary, "in b");
    assert_eq!(info.project_key.as_deref(), Some("-b"));
    let err = session_info_by_id(&source, &id(3)).await.unwrap_err();
    assert!(matches!(err, SessionsError::NotFound { .. }), "{err}");
    let err = find_session(&source, "nope").await.unwrap_err();
    assert!(
        matches!(err, SessionsError::InvalidSessionId { .. }),
        "{err}"
    );
}

#[tokio::test]
async fn messages_come_in_pages_and_with_system_entries_when_asked() {
    let config = Config::new();
    let s = id(1);
    let boundary = json!({"type": "system", "subtype": "compact_boundary", "uuid": "c1",
        "parentUuid": "a2", "sessionId": s, "content": "Conversation compacted",
        "level": "info", "timestamp": "2026-01-01T00:00:05.000Z"});
    config.write(
        "-p",
        &s,
        &[
            user(&s, "u1", None, "first", "cli"),
            assistant(&s, "a1", "u1", "one"),
            user(&s, "u2", Some("a1"), "second", "cli"),
            assistant(&s, "a2", "u2", "two"),
            boundary,
            user(&s, "u3", Some("c1"), "third", "cli"),
            assistant(&s, "a3", "u3", "three"),
        ],
        10,
    );
    let source = config.source();
    let read = |options: MessageOptions| {
        let source = source.clone();
        let s = s.clone();
        async move {
            session_messages_with(&source, "-p", &s, &options)
                .await
                .unwrap()
                .into_iter()
                .map(|m| m.uuid)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        read(MessageOptions::default()).await,
        ["u1", "a1", "u2", "a2", "u3", "a3"]
    );
    let page = MessageOptions {
        limit: Some(2),
        offset: 1,
        ..MessageOptions::default()
    };
    assert_eq!(read(page).await, ["a1", "u2"]);
    let rest = MessageOptions {
        offset: 4,
        ..MessageOptions::default()
    };
    assert_eq!(read(rest).await, ["u3", "a3"]);
    let with_system = MessageOptions {
        include_system: true,
        ..MessageOptions::default()
    };
    assert_eq!(
        read(with_system.clone()).await,
        ["u1", "a1", "u2", "a2", "c1", "u3", "a3"]
    );
    let all = session_messages_with(&source, "-p", &s, &with_system)
        .await
        .unwrap();
    assert_eq!(all[4].kind, MessageKind::System);
    assert_eq!(all[4].message["subtype"], "compact_boundary");
    assert_eq!(all[4].message["content"], "Conversation compacted");
    assert!(all[4].to_message().is_ok(), "a system message parses");
}

/// A session with a nested subagent: `agent-outer` started by the main
/// session's tool call `toolu_1`, `agent-inner` by `outer`.
fn with_subagents(config: &Config) -> String {
    let s = id(1);
    config.session("-p", &s, "start agents", "cli", 10);
    let dir = config.projects.join("-p").join(&s).join("subagents");
    std::fs::create_dir_all(dir.join("workflows").join("r1")).unwrap();
    let transcript = |agent: &str| {
        let mut first = user(&s, &format!("{agent}-1"), None, "task", "cli");
        first["isSidechain"] = json!(true);
        let mut second = assistant(&s, &format!("{agent}-2"), &format!("{agent}-1"), "done");
        second["isSidechain"] = json!(true);
        format!("{first}\n{second}\n")
    };
    std::fs::write(dir.join("agent-outer.jsonl"), transcript("outer")).unwrap();
    std::fs::write(
        dir.join("agent-outer.meta.json"),
        json!({"agentType": "general-purpose", "toolUseId": "toolu_1"}).to_string(),
    )
    .unwrap();
    let nested = dir.join("workflows").join("r1");
    std::fs::write(nested.join("agent-inner.jsonl"), transcript("inner")).unwrap();
    std::fs::write(
        nested.join("agent-inner.meta.json"),
        json!({"agentType": "explore", "toolUseId": "toolu_2", "parentAgentId": "outer"})
            .to_string(),
    )
    .unwrap();
    s
}

fn parents(
    messages: &[claude_agent::sessions::SessionMessage],
) -> Vec<(Option<&str>, Option<&str>)> {
    messages
        .iter()
        .map(|m| {
            (
                m.parent_tool_use_id.as_deref(),
                m.parent_agent_id.as_deref(),
            )
        })
        .collect()
}

#[tokio::test]
async fn subagent_messages_carry_their_parent_ids_locally_and_after_import() {
    let config = Config::new();
    let s = with_subagents(&config);
    let local = config.source();
    assert_eq!(
        list_subagents(&local, "-p", &s).await.unwrap(),
        ["outer", "inner"]
    );
    let outer = subagent_messages(&local, "-p", &s, "outer").await.unwrap();
    assert_eq!(parents(&outer), [(Some("toolu_1"), None); 2]);
    let inner = subagent_messages(&local, "-p", &s, "inner").await.unwrap();
    assert_eq!(parents(&inner), [(Some("toolu_2"), Some("outer")); 2]);
    match inner[1].to_message().unwrap() {
        claude_agent::protocol::Message::Assistant(a) => {
            assert_eq!(a.parent_tool_use_id.as_deref(), Some("toolu_2"));
        }
        other => panic!("not an assistant message: {other:?}"),
    }
    let page = MessageOptions {
        limit: Some(1),
        offset: 1,
        ..MessageOptions::default()
    };
    let second = subagent_messages_with(&local, "-p", &s, "outer", &page)
        .await
        .unwrap();
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].uuid, "outer-2");

    // Imported, the sidecars travel as agent_metadata entries, and the
    // store's reading gives the same ids; importing again adds no second
    // metadata entry.
    let store = counting();
    let dyn_store: Arc<dyn SessionStore> = store.clone();
    let local_sessions = match &local {
        SessionSource::Local(l) => l.clone(),
        SessionSource::Store(_) => unreachable!(),
    };
    for _ in 0..2 {
        import_session_with(
            &local_sessions,
            &dyn_store,
            "-p",
            &s,
            &ImportOptions::default(),
        )
        .await
        .unwrap();
    }
    let stored = SessionSource::Store(dyn_store.clone());
    let inner_stored = subagent_messages(&stored, "-p", &s, "inner").await.unwrap();
    assert_eq!(inner_stored, inner);
    let key = SessionKey::new("-p", &s).with_subpath("subagents/workflows/r1/agent-inner");
    let metas = store
        .inner
        .load(&key)
        .await
        .unwrap()
        .unwrap()
        .iter()
        .filter(|e| e.str_field("type").as_deref() == Some("agent_metadata"))
        .count();
    assert_eq!(metas, 1);
}

#[tokio::test]
async fn import_can_leave_subagents_out_and_appends_in_batches_of_the_size_asked() {
    let config = Config::new();
    let s = with_subagents(&config);
    let SessionSource::Local(local) = config.source() else {
        unreachable!()
    };
    // Five entries in the main transcript.
    let extra: String = (2..=5)
        .map(|n| format!("{}\n", user(&s, &format!("m{n}"), None, "more", "cli")))
        .collect();
    let mut text = std::fs::read_to_string(config.file("-p", &s)).unwrap();
    text.push_str(&extra);
    std::fs::write(config.file("-p", &s), text).unwrap();

    let store = counting();
    let dyn_store: Arc<dyn SessionStore> = store.clone();
    let options = ImportOptions {
        include_subagents: false,
        batch_size: 2,
    };
    let copied = import_session_with(&local, &dyn_store, "-p", &s, &options)
        .await
        .unwrap();
    assert_eq!(copied, 1);
    assert_eq!(store.appends.load(Ordering::SeqCst), 3, "5 entries by 2");
    let stored = SessionSource::Store(dyn_store);
    assert!(list_subagents(&stored, "-p", &s).await.unwrap().is_empty());
    let main = store
        .inner
        .load(&SessionKey::new("-p", &s))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(main.len(), 5);
}
