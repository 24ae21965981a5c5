//! Session lifecycle hook events from the real CLI: `/clear` ends the
//! session (`SessionEnd`, reason `clear`) and starts a new one
//! (`SessionStart`, source `clear`), each reaching its callback typed.
//!
//! CLI 2.1.332 runs the `startup` SessionStart hooks before it reads
//! `initialize`, so callbacks registered there never see `source:
//! "startup"`; the test pins that down too, so a CLI that changes it is
//! noticed (and the docs updated).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::{Arc, Mutex};

use claude_agent::callbacks::{CallbackError, HookContext, HookEventKind, HookMatcher};
use claude_agent::protocol::{
    HookEvent, HookInput, HookOutput, SessionEndReason, SessionStartSource,
};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn clear_fires_session_end_then_session_start_typed() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("Hello."))).await else {
        return;
    };
    let seen: Arc<Mutex<Vec<(HookEventKind, HookInput)>>> = Arc::default();
    let log = Arc::clone(&seen);
    let hook = move |input: HookInput, _id: Option<String>, ctx: HookContext| {
        log.lock().unwrap().push((ctx.event, input));
        async { Ok::<_, CallbackError>(HookOutput::default()) }
    };
    let client = rig
        .builder(rig.options())
        .hook(
            HookEventKind::SessionStart,
            HookMatcher::any().hook(hook.clone()),
        )
        .hook(HookEventKind::SessionEnd, HookMatcher::any().hook(hook))
        .connect()
        .await
        .unwrap();
    client.send("hi").await.unwrap();
    let (_, first) = turn(&client).await;
    assert_eq!(first.result.as_deref(), Some("Hello."), "{first:?}");
    assert!(seen.lock().unwrap().is_empty(), "no startup SessionStart");
    client.send("/clear").await.unwrap();
    let (_, cleared) = turn(&client).await;
    shutdown(&client).await;

    let seen = seen.lock().unwrap();
    let kinds: Vec<&HookEventKind> = seen.iter().map(|(k, _)| k).collect();
    assert_eq!(
        kinds,
        [&HookEventKind::SessionEnd, &HookEventKind::SessionStart],
        "{seen:?}"
    );
    let (end, start) = (&seen[0].1, &seen[1].1);
    let HookEvent::SessionEnd(ended) = &end.event else {
        panic!("not a SessionEnd input: {end:?}");
    };
    assert_eq!(ended.reason, Some(SessionEndReason::Clear), "{end:?}");
    assert_eq!(end.common.session_id, first.session_id, "{end:?}");
    let HookEvent::SessionStart(started) = &start.event else {
        panic!("not a SessionStart input: {start:?}");
    };
    assert_eq!(started.source, Some(SessionStartSource::Clear), "{start:?}");
    assert_eq!(start.common.session_id, cleared.session_id, "{start:?}");
    assert_ne!(start.common.session_id, end.common.session_id);
    let cwd = std::fs::canonicalize(rig.cwd.path()).unwrap();
    let hook_cwd = start.common.cwd.as_deref().map(std::fs::canonicalize);
    assert_eq!(hook_cwd.map(Result::unwrap), Some(cwd), "{start:?}");
}
