//! Many sessions at once, some crashing: the others are unaffected and
//! every process is reaped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_actors::{Escalation, SessionError};
use claude_agent_testkit::Script;
use common::*;

const SESSIONS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_sessions_some_crashing_all_reaped() {
    let runs = (0..SESSIONS).map(|i| async move {
        let crashing = i % 4 == 0;
        let script = if crashing {
            Script::new()
                .expect_initialize()
                .expect("user", None)
                .emit(serde_json::json!({"type":"assistant","n":i}))
                .crash("KILL")
        } else {
            Script::new().expect_initialize().loop_turns(&format!("session {i}"))
        };
        let fx = install(script);
        let (session, mut stream) = fx.start().await;
        let pid = session.pid().unwrap();
        session.send(&user("go")).await.unwrap();
        if crashing {
            let f = next_frame(&mut stream).await.unwrap().unwrap();
            assert_eq!(f.to_value().unwrap()["n"], i);
            assert!(matches!(
                next_frame(&mut stream).await,
                Some(Err(SessionError::ClosedBeforeResult { exit: Some(e), .. })) if e.signal == Some(9)
            ));
        } else {
            for _ in 0..3 {
                let turn = read_turn(&mut stream).await;
                assert_eq!(turn.last().unwrap().to_value().unwrap()["result"], format!("session {i}"));
                session.send(&user("again")).await.unwrap();
            }
            read_turn(&mut stream).await;
            let report = session.shutdown().await;
            assert_eq!(report.escalation, Escalation::None);
        }
        (pid, fx)
    });
    let done = futures::future::join_all(runs).await;
    for (pid, _fx) in &done {
        assert_gone(*pid);
    }
}
