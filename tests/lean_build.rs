//! The default build, as a user's program gets it: a crate outside this
//! workspace that depends on `claude-agent` with no features (no hooks, no
//! in-process MCP servers), built and run by cargo. The tests here are
//! always built with every feature, so only a separate crate shows what the
//! default build does:
//! - when a CLI sends `hook_callback` or `mcp_message`, the request decodes
//!   as an unknown subtype, kept whole, and is answered with an error reply
//!   naming the feature, not a panic or silence;
//! - a live session's external MCP servers change without the feature
//!   `mcp` (`add_external_mcp_server`, `mcp_set_servers`,
//!   `remove_mcp_server`), against the fake CLI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use claude_agent_testkit::Script;
use serde_json::json;

const MAIN: &str = r##"
use claude_agent::callbacks::Callbacks;
use claude_agent::client::{ClientBuilder, LiveMcpServer};
use claude_agent::options::{McpServerConfig, Options};
use claude_agent::protocol::{ControlRequestPayload, StdoutFrame, parse_line};
use claude_agent::runtime::{CancellationToken, InboundHandler, InboundRequest};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    refusals().await;
    live_external_servers().await;
}

/// Changes a live session's external MCP servers on the fake CLI named by
/// `LEAN_CLI`, whose script and record come in `FAKE_CLAUDE_*`.
async fn live_external_servers() {
    let mut options = Options::new().cli_path(std::env::var("LEAN_CLI").unwrap());
    for (key, value) in std::env::vars().filter(|(k, _)| k.starts_with("FAKE_CLAUDE_")) {
        options = options.env(key, value);
    }
    let client = ClientBuilder::new(options).connect().await.unwrap();
    let web = McpServerConfig::http("http://127.0.0.1:9/mcp");
    let added = client.add_external_mcp_server("web", web).await.unwrap();
    println!("added {:?}", added.added.unwrap_or_default());
    let docs = McpServerConfig::stdio("docs-server", ["--stdio"]);
    let set = client
        .mcp_set_servers([("docs", LiveMcpServer::from(docs))])
        .await
        .unwrap();
    println!(
        "set added {:?} removed {:?}",
        set.added.unwrap_or_default(),
        set.removed.unwrap_or_default()
    );
    let removed = client.remove_mcp_server("docs").await.unwrap();
    println!("removed {:?}", removed.removed.unwrap_or_default());
    client.shutdown().await;
}

async fn refusals() {
    let line = br#"{"type":"control_request","request_id":"r0","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{}}}"#;
    match parse_line(line) {
        Ok(StdoutFrame::ControlRequest(r)) => match r.request {
            ControlRequestPayload::Other { subtype, raw } => {
                println!("{subtype} decodes as an unknown subtype with {} members", raw.len())
            }
            other => println!("{} decodes as a known subtype", other.tag()),
        },
        other => println!("not a control request: {other:?}"),
    }
    let requests = [
        ("hook_callback", serde_json::json!({"subtype": "hook_callback",
            "callback_id": "hook_0", "input": {"hook_event_name": "Stop"}})),
        ("mcp_message", serde_json::json!({"subtype": "mcp_message",
            "server_name": "calc", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}})),
    ];
    for (subtype, body) in requests {
        let request = InboundRequest::new("r1", subtype, body);
        match Callbacks::new().handle(request, CancellationToken::new()).await {
            Ok(reply) => println!("{subtype} answered {reply}"),
            Err(e) => println!("{subtype} refused: {e}"),
        }
    }
}
"##;

#[test]
fn the_default_build_refuses_hook_and_mcp_requests_and_changes_external_mcp_servers() {
    let reply = |added: &[&str], removed: &[&str]| json!({"added": added, "removed": removed, "errors": {}});
    let script_dir = tempfile::tempdir().unwrap();
    let cli = Script::new()
        .expect_initialize()
        .expect_control("mcp_set_servers", reply(&["web"], &[]))
        .expect_control("mcp_set_servers", reply(&["docs"], &["web"]))
        .expect_control("mcp_set_servers", reply(&[], &["docs"]))
        .expect_eof()
        .install(script_dir.path())
        .unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let krate = tempfile::tempdir_in(tmp).unwrap();
    std::fs::create_dir(krate.path().join("src")).unwrap();
    std::fs::write(
        krate.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"lean-user\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nclaude-agent = {{ path = {repo:?} }}\n\
             tokio = {{ version = \"1\", features = [\"rt\", \"macros\"] }}\n\
             serde_json = \"1\"\n\n[workspace]\n"
        ),
    )
    .unwrap();
    std::fs::write(krate.path().join("src/main.rs"), MAIN).unwrap();
    // The workspace's lock file: the same versions, all already fetched.
    std::fs::copy(repo.join("Cargo.lock"), krate.path().join("Cargo.lock")).unwrap();

    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let out = Command::new(cargo)
        .args(["run", "--quiet", "--offline"])
        .current_dir(krate.path())
        // Kept between runs: only the first builds the dependencies.
        .env("CARGO_TARGET_DIR", tmp.join("lean-build"))
        .env_remove("RUSTFLAGS")
        .env("LEAN_CLI", &cli.program)
        .envs(cli.env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the default build did not build or run: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "hook_callback decodes as an unknown subtype with 3 members",
            "hook_callback refused: hook_callback needs claude-agent's `hooks` feature, which this build does not have",
            "mcp_message refused: mcp_message needs claude-agent's `mcp` feature, which this build does not have",
            r#"added ["web"]"#,
            r#"set added ["docs"] removed ["web"]"#,
            r#"removed ["docs"]"#,
        ],
        "{stdout}"
    );
    // Each change sent the whole set of external servers.
    let sets: Vec<_> = cli
        .recorded_lines()
        .into_iter()
        .filter(|l| l["request"]["subtype"] == "mcp_set_servers")
        .map(|l| l["request"]["servers"].clone())
        .collect();
    assert_eq!(
        sets,
        [
            json!({"web": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}),
            json!({"docs": {"type": "stdio", "command": "docs-server", "args": ["--stdio"]}}),
            json!({}),
        ]
    );
}
