//! An external stdio MCP server's `env` secret reaches the server through
//! the real CLI, and never appears in the CLI's `/proc/<pid>/cmdline`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent::options::McpServerConfig;
use claude_agent::protocol::ResultSubtype;
use claude_agent_testkit::model::{ModelScript, Reply};
use claude_agent_testkit::{MCP_ECHO_ENV_ARG, fake_cli_path};
use real_cli::{Rig, shutdown, turn};
use serde_json::json;

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_mcp_servers_env_secret_reaches_it_but_not_the_clis_cmdline() {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_env",
            "mcp__echo__echo_env",
            json!({"name": "ECHO_SECRET"}),
        ))
        .reply(Reply::text("done"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    // Unique per run, so a match can only come from this test.
    let secret = format!(
        "secret-{}-{}",
        std::process::id(),
        rig.home.path().display()
    );
    let server = McpServerConfig::stdio(
        fake_cli_path().unwrap().display().to_string(),
        [MCP_ECHO_ENV_ARG],
    )
    .env("ECHO_SECRET", secret.clone());
    let options = rig
        .options()
        .mcp_server("echo", server)
        .allowed_tools(["mcp__echo__echo_env"]);
    let client = rig.connect(options).await;
    assert_eq!(client.server_info_raw()["mcp_servers_applied"], json!(true));

    let pid = client.pid().unwrap();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    assert!(cmdline.contains("--await-initialize"), "{cmdline}");
    assert!(
        !cmdline.contains(&secret),
        "secret on the CLI's argv: {cmdline}"
    );

    client.send("what is ECHO_SECRET?").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    let main = rig.server.main_requests();
    let results = main[1].tool_results();
    assert_eq!(results[0].tool_use_id, "toolu_env");
    assert!(!results[0].is_error, "{results:?}");
    assert_eq!(results[0].text(), secret);
    shutdown(&client).await;
}
