//! Resources of an in-process MCP server through the real CLI: the model
//! reads one with the CLI's resource tool. (CLI 2.1.332 never sends
//! `prompts/list` to an in-process server, so its prompts are not offered
//! as commands there; `callbacks_mcp_resources` covers them.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent::callbacks::mcp::{Resource, SdkMcpServer};
use claude_agent::protocol::ResultSubtype;
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};
use serde_json::json;

fn docs() -> SdkMcpServer {
    SdkMcpServer::new("docs", "1.0.0").resource(
        Resource::text("docs://readme", "readme", "The secret word is teapot.")
            .mime_type("text/plain"),
    )
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_model_reads_an_in_process_resource() {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_read",
            "ReadMcpResourceTool",
            json!({"server": "docs", "uri": "docs://readme"}),
        ))
        .reply(Reply::text("done"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = tokio::time::timeout(
        real_cli::TURN,
        rig.builder(rig.options().allowed_tools(["ReadMcpResourceTool"]))
            .mcp_server(docs())
            .connect(),
    )
    .await
    .unwrap()
    .unwrap();
    client.send("read the readme").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    let main = rig.server.main_requests();
    let results = main[1].tool_results();
    assert_eq!(results[0].tool_use_id, "toolu_read");
    assert!(!results[0].is_error, "{results:?}");
    assert!(results[0].text().contains("teapot"), "{results:?}");
    shutdown(&client).await;
}
