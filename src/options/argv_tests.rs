//! One test per option, pinning the exact argv it produces.

use super::*;
use serde_json::json;

const HEAD: [&str; 5] = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--system-prompt",
    "",
];
const TAIL: [&str; 2] = ["--input-format", "stream-json"];

pub(super) fn argv_ctx(o: &Options, ctx: &CommandContext) -> Vec<String> {
    let cmd = o.to_command("claude".into(), ctx).unwrap();
    cmd.args
        .iter()
        .map(|a| a.to_str().unwrap().to_owned())
        .collect()
}

pub(super) fn argv(o: Options) -> Vec<String> {
    argv_ctx(&o, &CommandContext::default())
}

/// The default argv with `middle` between the system prompt and the tail.
pub(super) fn with(middle: &[&str]) -> Vec<String> {
    HEAD.iter()
        .chain(middle)
        .chain(&TAIL)
        .map(|s| s.to_string())
        .collect()
}

/// The argv when the system prompt option replaces `--system-prompt ""`.
pub(super) fn prompt(middle: &[&str]) -> Vec<String> {
    HEAD[..3]
        .iter()
        .chain(middle)
        .chain(&TAIL)
        .map(|s| s.to_string())
        .collect()
}

#[test]
fn defaults() {
    assert_eq!(argv(Options::new()), with(&[]));
}

#[test]
fn tools_list_empty_and_preset() {
    assert_eq!(
        argv(Options::new().tools(["Read", "Bash"])),
        with(&["--tools", "Read,Bash"])
    );
    assert_eq!(
        argv(Options::new().tools(Vec::<String>::new())),
        with(&["--tools", ""])
    );
    assert_eq!(
        argv(Options::new().tools_preset()),
        with(&["--tools", "default"])
    );
}

#[test]
fn allowed_tools() {
    assert_eq!(
        argv(Options::new().allowed_tools(["Read", "Bash(git:*)"])),
        with(&["--allowedTools", "Read,Bash(git:*)"])
    );
}

#[test]
fn disallowed_tools() {
    assert_eq!(
        argv(Options::new().disallowed_tools(["Write"])),
        with(&["--disallowedTools", "Write"])
    );
}

#[test]
fn system_prompt_variants() {
    let o = |p| argv(Options::new().system_prompt(p));
    assert_eq!(
        o(SystemPrompt::Text("Be terse.".into())),
        prompt(&["--system-prompt", "Be terse."])
    );
    assert_eq!(
        o(SystemPrompt::Text("- a list".into())),
        prompt(&["--system-prompt=- a list"])
    );
    assert_eq!(o(SystemPrompt::preset()), prompt(&[]));
    assert_eq!(
        o(SystemPrompt::preset_append("More.")),
        prompt(&["--append-system-prompt", "More."])
    );
    assert_eq!(
        o(SystemPrompt::File("/p/s.md".into())),
        prompt(&["--system-prompt-file", "/p/s.md"])
    );
}

#[test]
fn mcp_servers_map_json_and_path() {
    let o = Options::new().mcp_server("calc", McpServerConfig::sdk("calc"));
    assert_eq!(
        argv(o),
        with(&[
            "--mcp-config",
            r#"{"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}}"#
        ])
    );
    let raw = r#"{"mcpServers":{}}"#;
    assert_eq!(
        argv(Options::new().mcp_servers(McpServers::Json(raw.into()))),
        with(&["--mcp-config", raw])
    );
    assert_eq!(
        argv(Options::new().mcp_servers(McpServers::Path("/etc/mcp.json".into()))),
        with(&["--mcp-config", "/etc/mcp.json"])
    );
    assert_eq!(
        argv(Options::new().mcp_servers(McpServers::Servers(vec![]))),
        with(&[])
    );
}

#[test]
fn external_server_secrets_go_to_initialize_not_argv_unless_asked() {
    let server = McpServerConfig::stdio("srv", Vec::<String>::new()).env("API_TOKEN", "s3cret");
    let o = Options::new()
        .mcp_server("calc", McpServerConfig::sdk("calc"))
        .mcp_server("ext", server);
    assert_eq!(
        argv(o.clone()),
        with(&[
            "--mcp-config",
            r#"{"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}}"#,
            "--await-initialize"
        ])
    );
    assert_eq!(
        o.initialize_request(None)["mcpServers"],
        serde_json::json!({"ext": {"type": "stdio", "command": "srv", "env": {"API_TOKEN": "s3cret"}}})
    );
    let on_argv = o.mcp_delivery(crate::options::McpDelivery::Argv);
    assert!(argv(on_argv.clone()).iter().any(|a| a.contains("s3cret")));
    assert!(
        !argv(on_argv.clone())
            .iter()
            .any(|a| a == "--await-initialize")
    );
    assert!(on_argv.initialize_request(None).get("mcpServers").is_none());
}

#[test]
fn strict_mcp_config() {
    assert_eq!(
        argv(Options::new().strict_mcp_config(true)),
        with(&["--strict-mcp-config"])
    );
}

#[test]
fn permission_mode_each_value() {
    for (mode, text) in [
        (PermissionMode::Default, "default"),
        (PermissionMode::AcceptEdits, "acceptEdits"),
        (PermissionMode::Plan, "plan"),
        (PermissionMode::BypassPermissions, "bypassPermissions"),
        (PermissionMode::DontAsk, "dontAsk"),
        (PermissionMode::Auto, "auto"),
    ] {
        assert_eq!(
            argv(Options::new().permission_mode(mode)),
            with(&["--permission-mode", text])
        );
    }
}

#[test]
fn permission_prompt_tool_name() {
    assert_eq!(
        argv(Options::new().permission_prompt_tool_name("mcp__perm__ask")),
        with(&["--permission-prompt-tool", "mcp__perm__ask"])
    );
}

#[test]
fn permission_callback_uses_stdio() {
    let ctx = CommandContext {
        permission_callback: true,
        ..Default::default()
    };
    assert_eq!(
        argv_ctx(&Options::new(), &ctx),
        with(&["--permission-prompt-tool", "stdio"])
    );
}

#[test]
fn a_session_store_adds_session_mirror() {
    let ctx = CommandContext::default().with_session_mirror(true);
    assert_eq!(argv_ctx(&Options::new(), &ctx), with(&["--session-mirror"]));
    assert!(!argv(Options::new()).iter().any(|a| a == "--session-mirror"));
}

#[test]
fn continue_conversation() {
    assert_eq!(
        argv(Options::new().continue_conversation(true)),
        with(&["--continue"])
    );
}

#[test]
fn resume_uses_equals_form() {
    assert_eq!(argv(Options::new().resume("abc")), with(&["--resume=abc"]));
    assert_eq!(
        argv(Options::new().resume("--help")),
        with(&["--resume=--help"])
    );
}

#[test]
fn session_id_uses_equals_form() {
    const ID: &str = "c35ea3a3-e4ff-420a-95ba-a841e501f32f";
    assert_eq!(
        argv(Options::new().session_id(ID)),
        with(&[&format!("--session-id={ID}")])
    );
    // A value that would read as a flag never gets that far: not a UUID.
    let e = Options::new()
        .session_id("-x")
        .to_command("claude".into(), &CommandContext::default())
        .unwrap_err();
    assert!(matches!(e, OptionsError::NotASessionId { .. }), "{e:?}");
}

#[test]
fn resume_session_at_uses_equals_form() {
    assert_eq!(
        argv(Options::new().resume_session_at("u-1")),
        with(&["--resume-session-at=u-1"])
    );
}

#[test]
fn fork_session() {
    assert_eq!(
        argv(Options::new().fork_session(true)),
        with(&["--fork-session"])
    );
}

#[test]
fn max_turns() {
    assert_eq!(
        argv(Options::new().max_turns(3)),
        with(&["--max-turns", "3"])
    );
}

#[test]
fn max_budget_usd_prints_like_python() {
    assert_eq!(
        argv(Options::new().max_budget_usd(1.0)),
        with(&["--max-budget-usd", "1.0"])
    );
    assert_eq!(
        argv(Options::new().max_budget_usd(0.25)),
        with(&["--max-budget-usd", "0.25"])
    );
}

#[test]
fn model_and_fallback_model() {
    assert_eq!(
        argv(Options::new().model("claude-opus-4")),
        with(&["--model", "claude-opus-4"])
    );
    assert_eq!(
        argv(Options::new().fallback_model("haiku")),
        with(&["--fallback-model", "haiku"])
    );
}

#[test]
fn betas() {
    assert_eq!(
        argv(Options::new().betas(["a-1", "b-2"])),
        with(&["--betas", "a-1,b-2"])
    );
}

#[test]
fn settings_pass_through_or_json() {
    let path = Options::new().settings(Settings::Path("/s.json".into()));
    assert_eq!(argv(path), with(&["--settings", "/s.json"]));
    let text = Options::new().settings(Settings::JsonText(r#"{"a":1}"#.into()));
    assert_eq!(argv(text), with(&["--settings", r#"{"a":1}"#]));
    let value = Options::new().settings(Settings::Json(json!({"a": 1})));
    assert_eq!(argv(value), with(&["--settings", r#"{"a": 1}"#]));
}

#[test]
fn sandbox_is_merged_into_settings() {
    let sandbox = SandboxSettings {
        enabled: Some(true),
        ..SandboxSettings::default()
    };
    assert_eq!(
        argv(Options::new().sandbox(sandbox.clone())),
        with(&["--settings", r#"{"sandbox": {"enabled": true}}"#])
    );
    let o = Options::new()
        .settings(Settings::JsonText(r#"{"a":1}"#.into()))
        .sandbox(sandbox.clone());
    assert_eq!(
        argv(o),
        with(&["--settings", r#"{"a": 1, "sandbox": {"enabled": true}}"#])
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    std::fs::write(&file, r#"{"model": "m"}"#).unwrap();
    let o = Options::new()
        .settings(Settings::Path(file))
        .sandbox(sandbox);
    assert_eq!(
        argv(o),
        with(&[
            "--settings",
            r#"{"model": "m", "sandbox": {"enabled": true}}"#
        ])
    );
}

#[test]
fn add_dirs_repeat() {
    let o = Options::new().add_dir("/a").add_dir("/b");
    assert_eq!(argv(o), with(&["--add-dir", "/a", "--add-dir", "/b"]));
}

#[test]
fn include_partial_messages() {
    assert_eq!(
        argv(Options::new().include_partial_messages(true)),
        with(&["--include-partial-messages"])
    );
}

#[test]
fn include_hook_events() {
    assert_eq!(
        argv(Options::new().include_hook_events(true)),
        with(&["--include-hook-events"])
    );
}

#[test]
fn setting_sources_list_and_empty() {
    let o = Options::new().setting_sources([
        SettingSource::User,
        SettingSource::Project,
        SettingSource::Local,
    ]);
    assert_eq!(argv(o), with(&["--setting-sources=user,project,local"]));
    assert_eq!(
        argv(Options::new().setting_sources([])),
        with(&["--setting-sources="])
    );
}

#[test]
fn plugins_repeat() {
    let o = Options::new().plugin("/p1").plugin("/p2");
    assert_eq!(
        argv(o),
        with(&["--plugin-dir", "/p1", "--plugin-dir", "/p2"])
    );
}

#[test]
fn thinking_variants() {
    assert_eq!(
        argv(Options::new().thinking(Thinking::Adaptive)),
        with(&["--thinking", "adaptive"])
    );
    assert_eq!(
        argv(Options::new().thinking(Thinking::Enabled {
            budget_tokens: 4096
        })),
        with(&["--max-thinking-tokens", "4096"])
    );
    assert_eq!(
        argv(Options::new().thinking(Thinking::Disabled)),
        with(&["--thinking", "disabled"])
    );
}

#[test]
fn effort_each_value() {
    for (e, text) in [
        (Effort::Low, "low"),
        (Effort::Medium, "medium"),
        (Effort::High, "high"),
        (Effort::Xhigh, "xhigh"),
        (Effort::Max, "max"),
    ] {
        assert_eq!(argv(Options::new().effort(e)), with(&["--effort", text]));
    }
}

#[test]
fn output_format_json_schema() {
    let schema = json!({"type": "object", "required": ["x"]});
    assert_eq!(
        argv(Options::new().output_format(OutputFormat::JsonSchema(schema))),
        with(&["--json-schema", r#"{"required": ["x"], "type": "object"}"#])
    );
}

#[test]
fn extra_args_forms() {
    let o = Options::new()
        .extra_arg("debug", None)
        .extra_arg("name", Some("v".into()))
        .extra_arg("offset", Some("-3".into()));
    assert_eq!(argv(o), with(&["--debug", "--name", "v", "--offset=-3"]));
}

#[test]
fn dash_paths_use_equals_form() {
    let o = Options::new().add_dir("-d").plugin("-p");
    assert_eq!(argv(o), with(&["--add-dir=-d", "--plugin-dir=-p"]));
}

#[test]
fn options_that_do_not_touch_argv() {
    let o = Options::new()
        .env("K", "V")
        .cli_path("/x/claude")
        .user("nobody")
        .enable_file_checkpointing(true)
        .agent("a", AgentDefinition::new("d", "p"))
        .forward_subagent_text(true)
        .verbatim_prompts(true)
        .client_app("app/1")
        .initialize_field("k", json!(1));
    assert_eq!(argv(o), with(&[]));
}

#[test]
fn everything_in_official_order() {
    let o = Options::new()
        .effort(Effort::High)
        .thinking(Thinking::Adaptive)
        .plugin("/p")
        .setting_sources([SettingSource::User])
        .fork_session(true)
        .strict_mcp_config(true)
        .include_hook_events(true)
        .include_partial_messages(true)
        .mcp_servers(McpServers::Path("/m.json".into()))
        .add_dir("/d")
        .settings(Settings::Path("/s.json".into()))
        .resume_session_at("u")
        .session_id("00000000-0000-4000-8000-000000000001")
        .resume("r")
        .continue_conversation(true)
        .permission_mode(PermissionMode::Plan)
        .permission_prompt_tool_name("t")
        .betas(["b"])
        .fallback_model("f")
        .model("m")
        .disallowed_tools(["D"])
        .max_budget_usd(2.5)
        .max_turns(4)
        .allowed_tools(["A"])
        .tools(["T"]);
    assert_eq!(
        argv(o),
        with(&[
            "--tools",
            "T",
            "--allowedTools",
            "A",
            "--max-turns",
            "4",
            "--max-budget-usd",
            "2.5",
            "--disallowedTools",
            "D",
            "--model",
            "m",
            "--fallback-model",
            "f",
            "--betas",
            "b",
            "--permission-prompt-tool",
            "t",
            "--permission-mode",
            "plan",
            "--continue",
            "--resume=r",
            "--session-id=00000000-0000-4000-8000-000000000001",
            "--resume-session-at=u",
            "--settings",
            "/s.json",
            "--add-dir",
            "/d",
            "--mcp-config",
            "/m.json",
            "--include-partial-messages",
            "--include-hook-events",
            "--strict-mcp-config",
            "--fork-session",
            "--setting-sources=user",
            "--plugin-dir",
            "/p",
            "--thinking",
            "adaptive",
            "--effort",
            "high",
        ])
    );
}
