//! Session files interoperate with the official Python SDK 0.2.189, both
//! ways, on sessions the real CLI wrote through our `Client`:
//! - renamed, tagged and forked here, they list, describe and read the
//!   same there (subagents included);
//! - tagged, renamed and forked there, they read the same here.
//!
//! Needs the real CLI and the Python SDK (`scripts/install-python-sdk.sh`);
//! `#[ignore]`d like the other real-CLI tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod interop;
mod real_cli;

use claude_agent::sessions::{
    ForkOptions, ListSessions, LocalSessions, MessageOptions, SessionSource, fork_session,
    list_sessions_with, list_subagents, rename_session, session_info, session_messages,
    session_messages_with, subagent_messages, tag_session,
};
use claude_agent::store::project_key_for;
use claude_agent_testkit::model::{ModelScript, Reply};
use interop::{assert_same_info, python, python_sdk};
use real_cli::{Rig, shutdown, turn};
use serde_json::{Value, json};

fn local(rig: &Rig) -> SessionSource {
    SessionSource::Local(LocalSessions::new(
        rig.home.path().join(".claude").join("projects"),
    ))
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI and the official Python SDK"]
async fn sessions_renamed_tagged_and_forked_here_read_the_same_in_the_python_sdk() {
    let Some(sdk) = python_sdk() else { return };
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_agent",
            "Agent",
            json!({"description": "say hello", "subagent_type": "general-purpose",
                   "prompt": "SUBAGENT-7: say hello"}),
        ))
        .reply(Reply::text("The agent said hello."))
        .reply_for_prompt("SUBAGENT-7", Reply::text("Hello from the subagent."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("start an agent").await.unwrap();
    let (_, result) = turn(&client).await;
    let id = result.session_id.clone().unwrap();
    shutdown(&client).await;

    let source = local(&rig);
    let project = project_key_for(rig.cwd.path());
    let home = rig.home.path();
    let dir = rig.cwd.path().to_str().unwrap();
    rename_session(&source, &project, &id, "Interop title")
        .await
        .unwrap();
    tag_session(&source, &project, &id, Some("interop"))
        .await
        .unwrap();
    let fork = fork_session(&source, &project, &id, &ForkOptions::default())
        .await
        .unwrap();
    // Both SDKs order by mtime; a minute between the two keeps a tie (and
    // the tie-breaks, which differ) out of the comparison.
    let transcript = rig
        .home
        .path()
        .join(".claude/projects")
        .join(&project)
        .join(format!("{id}.jsonl"));
    std::fs::File::options()
        .append(true)
        .open(&transcript)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
        .unwrap();

    // Listing: the same sessions in the same order, field by field, with
    // and without the directory.
    let ours = list_sessions_with(&source, &ListSessions::directory(rig.cwd.path()))
        .await
        .unwrap();
    let theirs = python(&sdk, home, json!({"op": "list", "dir": dir})).await;
    let theirs = theirs.as_array().unwrap();
    assert_eq!(ours.len(), 2, "{ours:?}");
    assert_eq!(theirs.len(), ours.len(), "{theirs:?}");
    for (ours, theirs) in ours.iter().zip(theirs) {
        assert_same_info(&to_json(ours), theirs);
    }
    let everywhere = python(&sdk, home, json!({"op": "list"})).await;
    assert_eq!(everywhere.as_array().unwrap(), theirs);
    let page = python(&sdk, home, json!({"op": "list", "offset": 1, "limit": 1})).await;
    let our_page = list_sessions_with(&source, &ListSessions::all_projects().offset(1).limit(1))
        .await
        .unwrap();
    assert_eq!(page.as_array().unwrap().len(), 1);
    assert_same_info(&to_json(&our_page[0]), &page[0]);

    // Info: the tag and the title written here are what the Python SDK
    // reads (its tag scan needs lines that begin `{"type":"tag"`).
    let info = session_info(&source, &project, &id).await.unwrap().unwrap();
    let their_info = python(
        &sdk,
        home,
        json!({"op": "info", "session_id": id, "dir": dir}),
    )
    .await;
    assert_eq!(their_info["tag"], "interop");
    assert_eq!(their_info["custom_title"], "Interop title");
    assert_same_info(&to_json(&info), &their_info);
    let anywhere = python(&sdk, home, json!({"op": "info", "session_id": id})).await;
    assert_eq!(anywhere, their_info);
    let fork_info = session_info(&source, &project, &fork)
        .await
        .unwrap()
        .unwrap();
    let their_fork = python(
        &sdk,
        home,
        json!({"op": "info", "session_id": fork, "dir": dir}),
    )
    .await;
    assert_eq!(their_fork["custom_title"], "Interop title (fork)");
    assert_same_info(&to_json(&fork_info), &their_fork);

    // Messages, whole and paged, of the session and of its fork.
    for session in [&id, &fork] {
        let ours = session_messages(&source, &project, session).await.unwrap();
        assert!(ours.len() >= 4, "{ours:?}");
        let theirs = python(
            &sdk,
            home,
            json!({"op": "messages", "session_id": session, "dir": dir}),
        )
        .await;
        assert_eq!(to_json(&ours), theirs);
        let paged = MessageOptions {
            limit: Some(2),
            offset: 1,
            ..MessageOptions::default()
        };
        let ours = session_messages_with(&source, &project, session, &paged)
            .await
            .unwrap();
        let theirs = python(
            &sdk,
            home,
            json!({"op": "messages", "session_id": session, "dir": dir,
                   "limit": 2, "offset": 1}),
        )
        .await;
        assert_eq!(to_json(&ours), theirs);
    }

    // Subagents, with the id of the tool call that started them.
    let agents = list_subagents(&source, &project, &id).await.unwrap();
    let their_agents = python(
        &sdk,
        home,
        json!({"op": "subagents", "session_id": id, "dir": dir}),
    )
    .await;
    assert_eq!(to_json(&agents), their_agents);
    assert!(!agents.is_empty(), "the CLI wrote a subagent transcript");
    for agent in &agents {
        let ours = subagent_messages(&source, &project, &id, agent)
            .await
            .unwrap();
        assert!(
            ours.iter()
                .all(|m| m.parent_tool_use_id.as_deref() == Some("toolu_agent")),
            "{ours:?}"
        );
        let theirs = python(
            &sdk,
            home,
            json!({"op": "subagent_messages", "session_id": id, "agent": agent, "dir": dir}),
        )
        .await;
        assert_eq!(to_json(&ours), theirs);
    }
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI and the official Python SDK"]
async fn sessions_tagged_renamed_and_forked_by_the_python_sdk_read_the_same_here() {
    let Some(sdk) = python_sdk() else { return };
    let script = ModelScript::new().reply(Reply::text("Noted: pineapple."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("remember pineapple").await.unwrap();
    let (_, result) = turn(&client).await;
    let id = result.session_id.clone().unwrap();
    shutdown(&client).await;

    let source = local(&rig);
    let project = project_key_for(rig.cwd.path());
    let home = rig.home.path();
    let dir = rig.cwd.path().to_str().unwrap();
    let original = session_messages(&source, &project, &id).await.unwrap();

    python(
        &sdk,
        home,
        json!({"op": "tag", "session_id": id, "tag": "from-python", "dir": dir}),
    )
    .await;
    python(
        &sdk,
        home,
        json!({"op": "rename", "session_id": id, "title": "Python title", "dir": dir}),
    )
    .await;
    let info = session_info(&source, &project, &id).await.unwrap().unwrap();
    assert_eq!(info.tag.as_deref(), Some("from-python"));
    assert_eq!(info.custom_title.as_deref(), Some("Python title"));
    assert_eq!(info.summary, "Python title");
    let their_info = python(
        &sdk,
        home,
        json!({"op": "info", "session_id": id, "dir": dir}),
    )
    .await;
    assert_same_info(&to_json(&info), &their_info);

    let fork = python(
        &sdk,
        home,
        json!({"op": "fork", "session_id": id, "title": "py fork", "dir": dir}),
    )
    .await;
    let fork = fork.as_str().unwrap().to_owned();
    let listed = list_sessions_with(&source, &ListSessions::project(&project))
        .await
        .unwrap();
    let ids: Vec<&str> = listed.iter().map(|i| i.session_id.as_str()).collect();
    assert!(
        ids.contains(&fork.as_str()) && ids.contains(&id.as_str()),
        "{ids:?}"
    );
    let fork_info = session_info(&source, &project, &fork)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(fork_info.custom_title.as_deref(), Some("py fork"));
    let forked = session_messages(&source, &project, &fork).await.unwrap();
    assert_eq!(forked.len(), original.len());
    for (copy, first) in forked.iter().zip(&original) {
        assert_eq!(copy.message, first.message);
        assert_eq!(copy.kind, first.kind);
        assert_ne!(copy.uuid, first.uuid);
        assert_eq!(copy.session_id, fork);
    }
    let theirs = python(
        &sdk,
        home,
        json!({"op": "messages", "session_id": fork, "dir": dir}),
    )
    .await;
    assert_eq!(to_json(&forked), theirs);

    // Clearing the tag there clears it here.
    python(
        &sdk,
        home,
        json!({"op": "tag", "session_id": id, "tag": null, "dir": dir}),
    )
    .await;
    let info = session_info(&source, &project, &id).await.unwrap().unwrap();
    assert_eq!(info.tag, None);
}
