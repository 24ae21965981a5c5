//! A CLI that dies while a grandchild still holds its stdout (so no EOF
//! comes) is noticed anyway: a session waits on its pidfd only after
//! stdout closed, and before that each `SIGCHLD` makes it check.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_actors::SessionError;
use claude_agent_testkit::Script;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_killed_while_grandchild_holds_stdout_ends_the_session() {
    let fx = install(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(serde_json::json!({"type": "assistant", "n": 1}))
            .crash("KILL"),
    );
    // A shell starts a `sleep` that inherits the three pipes, then becomes
    // the fake CLI (same pid, same group, the sleep its child).
    let mut spec = fx.spec();
    let fake = std::mem::replace(&mut spec.program, "/bin/sh".into());
    let mut args = vec![
        "-c".into(),
        "sleep 600 & exec \"$0\" \"$@\"".into(),
        fake.into_os_string(),
    ];
    args.append(&mut spec.args);
    spec.args = args;
    let cfg = claude_agent_actors::SessionConfig::subprocess(spec)
        .grace(GRACE)
        .term_grace(TERM_GRACE)
        .initialize_timeout(SOON)
        .control_timeout(SOON);
    let (session, mut stream) = fx.start_with(cfg).await.unwrap();
    let pid = session.pid().unwrap();
    session.send(&user("go")).await.unwrap();
    let f = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(f.to_value().unwrap()["n"], 1);
    // The stdout pipe stays open in the sleep; only the exit can end this.
    assert!(matches!(
        next_frame(&mut stream).await,
        Some(Err(SessionError::ClosedBeforeResult { exit: Some(e), .. })) if e.signal == Some(9)
    ));
    // The leftover sleep died with the group.
    assert_gone(pid);
}
