//! Shared by the session helper tests: a CLI config folder holding a real
//! CLI session (with a subagent transcript added), and one scenario every
//! source must pass.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use claude_agent::protocol::Message;
use claude_agent::sessions::{
    ForkOptions, MessageKind, SessionSource, SessionsError, delete_session, fork_session,
    list_sessions, list_subagents, rename_session, session_info, session_messages,
    subagent_messages, tag_session,
};
use serde_json::json;

/// The recorded session's id and project key (its cwd, sanitized).
pub const SESSION: &str = "c35ea3a3-e4ff-420a-95ba-a841e501f32f";
pub const PROJECT: &str = "-home-dev-project";

fn fixture() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/claude-code-2.1.332/session_mirror/local-session.jsonl"
    ))
}

/// `<config>/projects` under `root` with the recorded session and one
/// subagent transcript (`agent-a1`) beside it.
pub fn projects_dir(root: &Path) -> PathBuf {
    let project = root.join("projects").join(PROJECT);
    std::fs::create_dir_all(project.join(SESSION).join("subagents")).unwrap();
    std::fs::copy(fixture(), project.join(format!("{SESSION}.jsonl"))).unwrap();
    let subagent = [
        json!({"type": "user", "isSidechain": true, "agentId": "a1", "parentUuid": null,
               "uuid": "5b0c6a8e-0000-4000-8000-000000000001", "sessionId": SESSION,
               "timestamp": "2026-11-30T10:37:07.000Z",
               "message": {"role": "user", "content": "look around"}}),
        json!({"type": "assistant", "isSidechain": true, "agentId": "a1",
               "parentUuid": "5b0c6a8e-0000-4000-8000-000000000001",
               "uuid": "5b0c6a8e-0000-4000-8000-000000000002", "sessionId": SESSION,
               "timestamp": "2026-11-30T10:37:07.100Z",
               "message": {"id": "msg_sub", "type": "message", "role": "assistant",
                           "content": [{"type": "text", "text": "found it"}]}}),
    ];
    let text: String = subagent.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(
        project
            .join(SESSION)
            .join("subagents")
            .join("agent-a1.jsonl"),
        text,
    )
    .unwrap();
    root.join("projects")
}

/// What the recorded session reads as, then every mutation, through
/// `source`. `sized` says whether the source knows file sizes.
pub async fn scenario(source: &SessionSource, sized: bool) {
    // Listing: the real CLI's entries give prompt, cwd and start time.
    let listed = list_sessions(source, PROJECT).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let info = &listed[0];
    assert_eq!(info.session_id, SESSION);
    assert_eq!(info.summary, "please use bash");
    assert_eq!(info.first_prompt.as_deref(), Some("please use bash"));
    assert_eq!(info.cwd.as_deref(), Some("/home/dev/project"));
    assert_eq!(info.custom_title, None);
    assert_eq!(info.tag, None);
    // 2026-11-30T10:37:06.794Z, the first entry's timestamp.
    assert_eq!(info.created_at, Some(1_796_035_026_794));
    assert_eq!(info.file_size.is_some(), sized);

    // Messages: prompt, tool call, tool result, answer; typed views parse.
    let messages = session_messages(source, PROJECT, SESSION).await.unwrap();
    let kinds: Vec<MessageKind> = messages.iter().map(|m| m.kind).collect();
    use MessageKind::{Assistant, User};
    assert_eq!(kinds, [User, Assistant, User, Assistant]);
    assert_eq!(messages[0].message["content"], "please use bash");
    assert_eq!(messages[1].message["content"][0]["type"], "tool_use");
    assert_eq!(messages[2].message["content"][0]["type"], "tool_result");
    assert!(messages.iter().all(|m| m.session_id == SESSION));
    match messages[3].to_message().unwrap() {
        Message::Assistant(a) => assert_eq!(a.message.blocks().len(), 1),
        other => panic!("not an assistant message: {other:?}"),
    }

    // Subagents.
    assert_eq!(
        list_subagents(source, PROJECT, SESSION).await.unwrap(),
        ["a1"]
    );
    let sub = subagent_messages(source, PROJECT, SESSION, "a1")
        .await
        .unwrap();
    assert_eq!(sub.len(), 2);
    assert_eq!(sub[1].message["content"][0]["text"], "found it");

    // Rename and tag: the last entry wins, an empty tag clears.
    rename_session(source, PROJECT, SESSION, "  Bash check ")
        .await
        .unwrap();
    tag_session(source, PROJECT, SESSION, Some(" exp\u{200B} "))
        .await
        .unwrap();
    let info = session_info(source, PROJECT, SESSION)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(info.custom_title.as_deref(), Some("Bash check"));
    assert_eq!(info.summary, "Bash check");
    assert_eq!(info.tag.as_deref(), Some("exp"));
    tag_session(source, PROJECT, SESSION, None).await.unwrap();
    let info = session_info(source, PROJECT, SESSION)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(info.tag, None);
    assert!(matches!(
        rename_session(source, PROJECT, SESSION, "  ").await,
        Err(SessionsError::Empty { what: "title" })
    ));

    // Fork: same conversation under new uuids, titled after the source.
    let fork = fork_session(source, PROJECT, SESSION, &ForkOptions::default())
        .await
        .unwrap();
    assert_ne!(fork, SESSION);
    let forked = session_messages(source, PROJECT, &fork).await.unwrap();
    assert_eq!(forked.len(), messages.len());
    for (copy, original) in forked.iter().zip(&messages) {
        assert_eq!(copy.message, original.message);
        assert_ne!(copy.uuid, original.uuid);
        assert_eq!(copy.session_id, fork);
    }
    let info = session_info(source, PROJECT, &fork).await.unwrap().unwrap();
    assert_eq!(info.custom_title.as_deref(), Some("Bash check (fork)"));
    let partial = fork_session(
        source,
        PROJECT,
        SESSION,
        &ForkOptions {
            up_to_message: Some(messages[0].uuid.clone()),
            title: Some("first only".into()),
        },
    )
    .await
    .unwrap();
    let first_only = session_messages(source, PROJECT, &partial).await.unwrap();
    assert_eq!(first_only.len(), 1);
    assert_eq!(list_sessions(source, PROJECT).await.unwrap().len(), 3);

    // Delete cascades to the subagents; deleting again is NotFound.
    delete_session(source, PROJECT, SESSION).await.unwrap();
    let left: Vec<String> = list_sessions(source, PROJECT)
        .await
        .unwrap()
        .into_iter()
        .map(|i| i.session_id)
        .collect();
    assert!(!left.contains(&SESSION.to_owned()), "{left:?}");
    assert_eq!(left.len(), 2);
    assert!(
        list_subagents(source, PROJECT, SESSION)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        delete_session(source, PROJECT, SESSION).await,
        Err(SessionsError::NotFound { .. })
    ));
    assert!(matches!(
        session_messages(source, PROJECT, SESSION).await,
        Err(SessionsError::NotFound { .. })
    ));
    assert!(matches!(
        session_messages(source, PROJECT, "not-a-uuid").await,
        Err(SessionsError::InvalidSessionId { .. })
    ));
}
