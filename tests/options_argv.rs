//! The argv and environment built from `Options`, checked against the real
//! CLI transcripts in `testdata/` (their `args` and the
//! `initialize` request in `stdin.ndjson`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::options::{CommandContext, McpServerConfig, Options};
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;

fn fixture_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/claude-code-2.1.332")
        .join(name)
}

/// One argv element per line, as the fixtures record them.
fn fixture_args(name: &str) -> Vec<String> {
    let path = fixture_dir(name).join("args");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut args: Vec<String> = text.split('\n').map(str::to_owned).collect();
    assert_eq!(
        args.pop().as_deref(),
        Some(""),
        "args file ends with a newline"
    );
    args
}

/// The `request` of the first control request the SDK wrote.
fn fixture_initialize(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_dir(name).join("stdin.ndjson")).unwrap();
    let frame: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["type"] == "control_request")
        .unwrap();
    frame["request"].clone()
}

/// Every fixture, with the options and context that reproduce it.
fn cases() -> Vec<(&'static str, Options, CommandContext)> {
    let plain = CommandContext::default;
    vec![
        ("basic", Options::new(), plain()),
        ("compact", Options::new(), plain()),
        ("hook_allow", Options::new(), plain()),
        (
            "hook_events",
            Options::new().include_hook_events(true),
            plain(),
        ),
        ("max_turns", Options::new().max_turns(1), plain()),
        (
            "mcp",
            Options::new()
                .allowed_tools(["mcp__calc__add"])
                .mcp_server("calc", McpServerConfig::sdk("calc")),
            plain(),
        ),
        (
            "partial",
            Options::new().include_partial_messages(true),
            plain(),
        ),
        (
            "perm_allow",
            Options::new(),
            plain().with_permission_callback(true),
        ),
        ("resume", Options::new(), plain()),
        (
            "resume2",
            Options::new().resume("7043bea8-a03d-4d54-8e50-6b86c4872d17"),
            plain(),
        ),
    ]
}

#[test]
fn builder_reproduces_every_fixture_argv_exactly() {
    let cases = cases();
    assert_eq!(cases.len(), 10);
    for (name, opts, ctx) in cases {
        let cmd = opts.to_command(PathBuf::from("claude"), &ctx).unwrap();
        let got: Vec<String> = cmd
            .args
            .iter()
            .map(|a| a.to_str().unwrap().to_owned())
            .collect();
        assert_eq!(got, fixture_args(name), "fixture {name}");
    }
}

#[test]
fn initialize_request_matches_every_fixture() {
    for (name, opts, _) in cases() {
        let recorded = fixture_initialize(name);
        // Hooks come from the SDK layer; hand over what the fixture sent.
        let hooks = Some(recorded["hooks"].clone()).filter(|h| !h.is_null());
        assert_eq!(opts.initialize_request(hooks), recorded, "fixture {name}");
    }
}

fn env_of(cmd: &claude_agent::options::CliCommand, key: &str) -> Option<OsString> {
    let hits: Vec<_> = cmd.env.iter().filter(|(k, _)| k == key).collect();
    assert!(hits.len() <= 1, "{key} set more than once");
    hits.first().map(|(_, v)| v.clone())
}

#[test]
fn default_environment() {
    let cmd = Options::new()
        .to_command("claude".into(), &CommandContext::default())
        .unwrap();
    assert_eq!(
        env_of(&cmd, "CLAUDE_CODE_ENTRYPOINT"),
        Some("sdk-rust".into())
    );
    assert_eq!(
        env_of(&cmd, "CLAUDE_AGENT_SDK_VERSION"),
        Some(env!("CARGO_PKG_VERSION").into())
    );
    assert_eq!(env_of(&cmd, "PWD"), None);
    assert_eq!(
        env_of(&cmd, "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"),
        None
    );
    assert_eq!(env_of(&cmd, "TRACEPARENT"), None);
    assert_eq!(
        cmd.env_remove,
        vec![
            OsString::from("CLAUDECODE"),
            OsString::from("CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP")
        ]
    );
    assert_eq!(cmd.cwd, None);
    assert_eq!(cmd.program, PathBuf::from("claude"));
}

#[test]
fn user_env_overrides_entrypoint_but_not_sdk_version() {
    let opts = Options::new()
        .env("CLAUDE_CODE_ENTRYPOINT", "mine")
        .env("CLAUDE_AGENT_SDK_VERSION", "0")
        .env("FOO", "1")
        .env("FOO", "2");
    let cmd = opts
        .to_command("claude".into(), &CommandContext::default())
        .unwrap();
    assert_eq!(env_of(&cmd, "CLAUDE_CODE_ENTRYPOINT"), Some("mine".into()));
    assert_eq!(
        env_of(&cmd, "CLAUDE_AGENT_SDK_VERSION"),
        Some(env!("CARGO_PKG_VERSION").into())
    );
    assert_eq!(env_of(&cmd, "FOO"), Some("2".into()));
}

#[test]
fn user_may_keep_claudecode() {
    let cmd = Options::new()
        .env("CLAUDECODE", "1")
        .to_command("claude".into(), &CommandContext::default())
        .unwrap();
    assert!(!cmd.env_remove.contains(&OsString::from("CLAUDECODE")));
    assert_eq!(env_of(&cmd, "CLAUDECODE"), Some("1".into()));
}

#[test]
fn cwd_sets_pwd_and_command_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = Options::new()
        .cwd(dir.path())
        .to_command("claude".into(), &CommandContext::default())
        .unwrap();
    assert_eq!(cmd.cwd.as_deref(), Some(dir.path()));
    assert_eq!(env_of(&cmd, "PWD"), Some(dir.path().as_os_str().to_owned()));
}

#[test]
fn file_checkpointing_sets_its_variable() {
    let cmd = Options::new()
        .enable_file_checkpointing(true)
        .to_command("claude".into(), &CommandContext::default())
        .unwrap();
    assert_eq!(
        env_of(&cmd, "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"),
        Some("true".into())
    );
}

#[test]
fn trace_context_is_exported() {
    let ctx = CommandContext::default().with_trace("00-abc-def-01", Some("k=v".into()));
    let cmd = Options::new().to_command("claude".into(), &ctx).unwrap();
    assert_eq!(env_of(&cmd, "TRACEPARENT"), Some("00-abc-def-01".into()));
    assert_eq!(env_of(&cmd, "TRACESTATE"), Some("k=v".into()));
}

#[test]
fn trace_parent_without_state_drops_inherited_state() {
    let ctx = CommandContext::default().with_trace("00-abc-def-01", None);
    let cmd = Options::new().to_command("claude".into(), &ctx).unwrap();
    assert_eq!(env_of(&cmd, "TRACESTATE"), None);
    assert!(cmd.env_remove.contains(&OsString::from("TRACESTATE")));
}

#[test]
fn user_env_wins_over_trace_context() {
    let ctx = CommandContext::default().with_trace("00-ctx", None);
    let cmd = Options::new()
        .env("TRACEPARENT", "00-user")
        .env("TRACESTATE", "u=1")
        .to_command("claude".into(), &ctx)
        .unwrap();
    assert_eq!(env_of(&cmd, "TRACEPARENT"), Some("00-user".into()));
    assert_eq!(env_of(&cmd, "TRACESTATE"), Some("u=1".into()));
    assert!(!cmd.env_remove.contains(&OsString::from("TRACESTATE")));
}

#[test]
#[cfg(unix)]
fn built_command_really_starts_a_process_with_that_argv_and_env() {
    // Run the built command through /bin/sh to prove the argv survives exec
    // unchanged (empty elements, JSON, `=` forms) and the env plan applies.
    let opts = Options::new()
        .mcp_server("calc", McpServerConfig::sdk("calc"))
        .resume("-r")
        .env("EXTRA_VAR", "x y");
    let cmd = opts
        .to_command("/bin/sh".into(), &CommandContext::default())
        .unwrap();
    let script = r#"for a in "$@"; do printf '%s\n' "$a"; done; printf '%s|%s|%s\n' "$EXTRA_VAR" "$CLAUDE_CODE_ENTRYPOINT" "${CLAUDECODE-unset}""#;
    let out = std::process::Command::new(&cmd.program)
        .arg("-c")
        .arg(script)
        .arg("sh")
        .args(&cmd.args)
        .envs(cmd.env.iter().map(|(k, v)| (k, v)))
        .env("CLAUDECODE", "1")
        .env_remove(&cmd.env_remove[0])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.pop(), Some("x y|sdk-rust|unset"));
    let expected: Vec<String> = cmd
        .args
        .iter()
        .map(|a| a.to_str().unwrap().to_owned())
        .collect();
    assert_eq!(lines, expected);
    assert!(lines.contains(&"--resume=-r"));
}
