//! An MCP server's elicitation reaches the builder's `on_elicitation`
//! through the real CLI, and the callback's answer reaches the server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::{Arc, Mutex};

use claude_agent::callbacks::CallbackError;
use claude_agent::callbacks::elicitation::{
    ElicitationContext, ElicitationRequest, ElicitationResult,
};
use claude_agent::options::McpServerConfig;
use claude_agent::protocol::ResultSubtype;
use claude_agent_testkit::model::{ModelScript, Reply};
use claude_agent_testkit::{MCP_ECHO_ENV_ARG, fake_cli_path};
use real_cli::{Rig, shutdown, turn};
use serde_json::{Value, json};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_mcp_servers_elicitation_is_answered_by_the_callback() {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_ask",
            "mcp__people__ask_user",
            json!({}),
        ))
        .reply(Reply::text("done"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let server = McpServerConfig::stdio(
        fake_cli_path().unwrap().display().to_string(),
        [MCP_ECHO_ENV_ARG],
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let callback = move |req: ElicitationRequest, _ctx: ElicitationContext| {
        log.lock().unwrap().push(req);
        let mut values = serde_json::Map::new();
        values.insert("name".into(), "Ada".into());
        async move { Ok::<_, CallbackError>(ElicitationResult::accept(values)) }
    };
    let options = rig
        .options()
        .mcp_server("people", server)
        .allowed_tools(["mcp__people__ask_user"]);
    let client = tokio::time::timeout(
        real_cli::TURN,
        rig.builder(options).on_elicitation(callback).connect(),
    )
    .await
    .unwrap()
    .unwrap();
    client.send("ask me my name").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");

    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].server_name, "people");
        assert_eq!(seen[0].message, "Who are you?");
    }
    let main = rig.server.main_requests();
    let results = main[1].tool_results();
    assert_eq!(results[0].tool_use_id, "toolu_ask");
    assert!(!results[0].is_error, "{results:?}");
    let answer: Value = serde_json::from_str(&results[0].text()).unwrap();
    assert_eq!(
        answer,
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    shutdown(&client).await;
}
