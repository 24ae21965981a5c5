//! The real CLI killed from outside mid-turn: the turn's stream ends with
//! the typed `ClosedBeforeResult` error naming the signal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::time::Duration;

use claude_agent::Error;
use claude_agent_actors::SessionError;
use claude_agent_testkit::model::{Block, ModelScript, Reply};
use futures::StreamExt;
use real_cli::{Rig, TURN, assert_gone};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn sigkill_mid_turn_is_closed_before_result_with_the_signal() {
    let script = ModelScript::new().reply(Reply::Hang {
        blocks_before: vec![Block::text("halfway ")],
    });
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("take your time").await.unwrap();
    assert!(
        rig.server
            .wait_for_main_requests(1, Duration::from_secs(30))
            .await
    );
    let pid = client.pid().unwrap();
    // SAFETY: kill(2) takes no pointers; the pid is our unreaped child.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);

    let mut stream = client.receive_response();
    let last = tokio::time::timeout(TURN, async {
        let mut last = None;
        while let Some(item) = stream.next().await {
            last = Some(item);
        }
        last
    })
    .await
    .unwrap();
    match last {
        Some(Err(Error::Session(SessionError::ClosedBeforeResult { exit, .. }))) => {
            let exit = exit.expect("exit info");
            assert_eq!(exit.signal, Some(libc::SIGKILL), "{exit:?}");
        }
        other => panic!("expected ClosedBeforeResult, got {other:?}"),
    }
    drop(stream);
    let report = tokio::time::timeout(TURN, client.shutdown()).await.unwrap();
    assert_eq!(report.exit.and_then(|e| e.signal), Some(libc::SIGKILL));
    assert_gone(pid).await;
}
