//! The default build, as a user's program gets it: a crate outside this
//! workspace that depends on `claude-agent` with no features (no hooks, no
//! in-process MCP servers), built and run by cargo. The tests here are
//! always built with every feature, so only a separate crate shows what the
//! default build does when a CLI sends `hook_callback` or `mcp_message`:
//! the request decodes as an unknown subtype, kept whole, and is answered
//! with an error reply naming the feature, not a panic or silence.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

const MAIN: &str = r##"
use claude_agent::callbacks::Callbacks;
use claude_agent::protocol::{ControlRequestPayload, StdoutFrame, parse_line};
use claude_agent::runtime::{CancellationToken, InboundHandler, InboundRequest};

#[tokio::main(flavor = "current_thread")]
async fn main() {
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
fn the_default_build_refuses_hook_and_mcp_requests_naming_the_feature() {
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
        ],
        "{stdout}"
    );
}
