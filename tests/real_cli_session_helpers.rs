//! The session helpers on transcripts the real CLI wrote, and the real CLI
//! resuming what they wrote: a renamed, forked session resumes with its
//! history; an archived one is unarchived by the prompt it resumes with.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent::sessions::{
    ForkOptions, LocalSessions, MessageKind, SessionSource, archive_session, fork_session,
    list_sessions, rename_session, session_info, session_messages,
};
use claude_agent::store::project_key_for;
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_forked_session_resumes_in_the_real_cli_with_its_history() {
    let script = ModelScript::new()
        .reply(Reply::text("Noted: pineapple."))
        .reply(Reply::text("It was pineapple."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let first = rig.connect(rig.options()).await;
    first.send("remember pineapple").await.unwrap();
    let (_, r1) = turn(&first).await;
    let original = r1.session_id.clone().unwrap();
    shutdown(&first).await;

    let source = SessionSource::Local(LocalSessions::new(
        rig.home.path().join(".claude").join("projects"),
    ));
    let project = project_key_for(rig.cwd.path());
    let listed = list_sessions(&source, &project).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].session_id, original);
    assert_eq!(
        listed[0].first_prompt.as_deref(),
        Some("remember pineapple")
    );
    let messages = session_messages(&source, &project, &original)
        .await
        .unwrap();
    let kinds: Vec<MessageKind> = messages.iter().map(|m| m.kind).collect();
    assert_eq!(kinds, [MessageKind::User, MessageKind::Assistant]);

    rename_session(&source, &project, &original, "Fruit")
        .await
        .unwrap();
    let fork = fork_session(&source, &project, &original, &ForkOptions::default())
        .await
        .unwrap();

    let second = rig.connect(rig.options().resume(&fork)).await;
    second.send("what was it?").await.unwrap();
    let (_, r2) = turn(&second).await;
    assert_eq!(r2.result.as_deref(), Some("It was pineapple."), "{r2:?}");
    shutdown(&second).await;

    // The CLI sent the forked history to the model.
    let main = rig.server.main_requests();
    assert_eq!(main.len(), 2);
    let history = main[1].body["messages"].to_string();
    for part in ["remember pineapple", "Noted: pineapple.", "what was it?"] {
        assert!(history.contains(part), "{part} missing: {history:.800}");
    }
    // The title the fork got is still what the session is listed by, and
    // the source session is untouched by the resumed turn.
    let info = session_info(&source, &project, &fork)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(info.custom_title.as_deref(), Some("Fruit (fork)"));
    assert_eq!(
        session_messages(&source, &project, &original)
            .await
            .unwrap()
            .len(),
        2
    );
}

/// The TS SDK's archive mark on a session the real CLI wrote: listed as
/// archived, and no longer once the CLI has taken a new prompt in it.
#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_archived_session_is_unarchived_by_a_prompt_sent_in_it_with_the_real_cli() {
    let script = ModelScript::new()
        .reply(Reply::text("Noted: pineapple."))
        .reply(Reply::text("It was pineapple."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let first = rig.connect(rig.options()).await;
    first.send("remember pineapple").await.unwrap();
    let (_, r1) = turn(&first).await;
    let id = r1.session_id.clone().unwrap();
    shutdown(&first).await;

    let source = SessionSource::Local(LocalSessions::new(
        rig.home.path().join(".claude").join("projects"),
    ));
    let project = project_key_for(rig.cwd.path());
    archive_session(&source, &project, &id).await.unwrap();
    let archived = |source: SessionSource, project: String, id: String| async move {
        session_info(&source, &project, &id)
            .await
            .unwrap()
            .unwrap()
            .archived
    };
    assert_eq!(
        archived(source.clone(), project.clone(), id.clone()).await,
        Some(true)
    );

    let second = rig.connect(rig.options().resume(&id)).await;
    second.send("what was it?").await.unwrap();
    let (_, r2) = turn(&second).await;
    assert_eq!(r2.result.as_deref(), Some("It was pineapple."), "{r2:?}");
    shutdown(&second).await;
    assert_eq!(archived(source, project, id).await, Some(false));
}
