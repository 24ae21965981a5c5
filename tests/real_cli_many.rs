//! Twenty real CLI sessions at once, each with its own scripted model;
//! every one completes and nothing is left running.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};

const SESSIONS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn twenty_concurrent_sessions_complete() {
    if real_cli::real_cli().is_none() {
        return;
    }
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..SESSIONS {
        tasks.spawn(async move {
            let answer = format!("answer {i}");
            let rig = Rig::start(ModelScript::new().reply(Reply::text(&answer)))
                .await
                .unwrap();
            let client = rig.connect(rig.options()).await;
            client.send(format!("question {i}")).await.unwrap();
            let (_, result) = turn(&client).await;
            assert_eq!(
                result.result.as_deref(),
                Some(answer.as_str()),
                "{result:?}"
            );
            shutdown(&client).await;
            i
        });
    }
    let mut done = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        done.push(joined.unwrap());
    }
    done.sort_unstable();
    assert_eq!(done, (0..SESSIONS).collect::<Vec<_>>());
}
