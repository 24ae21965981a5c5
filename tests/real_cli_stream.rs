//! Streaming through the real CLI: partial messages, and an interrupt while
//! the model's stream is stalled.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::time::Duration;

use claude_agent::protocol::{Message, ResultSubtype};
use claude_agent_testkit::model::{Block, ModelScript, Reply};
use real_cli::{Rig, assistant_text, kinds, shutdown, turn};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn partial_messages_stream_events_then_the_whole_text() {
    let text = "one two three four five six";
    let script = ModelScript::new().reply(Reply::Message {
        blocks: vec![Block::Text {
            text: text.into(),
            chunks: 6,
        }],
        stop_reason: "end_turn".into(),
        chunk_delay: Duration::from_millis(20),
    });
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig
        .connect(rig.options().include_partial_messages(true))
        .await;
    client.send("count").await.unwrap();
    let (messages, result) = turn(&client).await;
    let events = messages
        .iter()
        .filter(|m| matches!(m, Message::StreamEvent(_)))
        .count();
    // message_start, block start, 6 deltas, block stop, message_delta, stop.
    assert!(events >= 6, "{:?}", kinds(&messages));
    let first_event = messages
        .iter()
        .position(|m| matches!(m, Message::StreamEvent(_)))
        .unwrap();
    let first_assistant = messages
        .iter()
        .position(|m| matches!(m, Message::Assistant(_)))
        .unwrap();
    assert!(first_event < first_assistant, "{:?}", kinds(&messages));
    assert_eq!(assistant_text(&messages), text);
    assert_eq!(result.result.as_deref(), Some(text));
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_interrupt_during_a_stalled_stream_ends_the_turn() {
    let script = ModelScript::new().reply(Reply::Hang {
        blocks_before: vec![Block::text("partial ")],
    });
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("talk slowly").await.unwrap();
    assert!(
        rig.server
            .wait_for_main_requests(1, Duration::from_secs(30))
            .await
    );
    client.interrupt().await.unwrap();
    let (messages, result) = turn(&client).await;
    assert_eq!(
        result.subtype,
        ResultSubtype::ErrorDuringExecution,
        "{result:?} {:?}",
        kinds(&messages)
    );
    assert_eq!(result.is_error, Some(true));
    // The session stays usable: a next turn gets the fallback text.
    client.send("again").await.unwrap();
    let (_, next) = turn(&client).await;
    assert_eq!(next.result.as_deref(), Some("done"), "{next:?}");
    shutdown(&client).await;
}
