//! The options added for parity with the official SDKs: exact argv, env and
//! `initialize` fields, and their validation.

use super::argv_tests::{argv, prompt, with};
use super::*;
use serde_json::json;

fn env_of(o: &Options) -> CliCommand {
    o.to_command("claude".into(), &CommandContext::default())
        .unwrap()
}

#[test]
fn task_budget_goes_between_disallowed_tools_and_model() {
    let o = Options::new()
        .disallowed_tools(["Write"])
        .task_budget(50_000)
        .model("m");
    assert_eq!(
        argv(o),
        with(&[
            "--disallowedTools",
            "Write",
            "--task-budget",
            "50000",
            "--model",
            "m"
        ])
    );
}

#[test]
fn main_agent_follows_the_model_and_refuses_a_dash() {
    let o = Options::new().model("m").main_agent("reviewer");
    assert_eq!(argv(o), with(&["--model", "m", "--agent", "reviewer"]));
    let err = Options::new()
        .main_agent("--evil")
        .to_command("claude".into(), &CommandContext::default())
        .unwrap_err();
    assert!(
        matches!(
            err,
            OptionsError::DashValue {
                option: "agent",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn persist_session_false_disables_persistence_and_true_adds_nothing() {
    assert_eq!(
        argv(Options::new().persist_session(false)),
        with(&["--no-session-persistence"])
    );
    assert_eq!(argv(Options::new().persist_session(true)), with(&[]));
}

#[test]
fn resume_drops_turn_uses_the_equals_form_even_when_empty() {
    let o = Options::new()
        .resume("s")
        .resume_session_at("a")
        .resume_drops_turn("-u");
    assert_eq!(
        argv(o),
        with(&[
            "--resume=s",
            "--resume-session-at=a",
            "--resume-drops-turn=-u"
        ])
    );
    assert_eq!(
        argv(Options::new().resume_drops_turn("")),
        with(&["--resume-drops-turn="])
    );
}

#[test]
fn thinking_display_follows_thinking() {
    let o = Options::new()
        .thinking(Thinking::Adaptive)
        .thinking_display(ThinkingDisplay::Summarized);
    assert_eq!(
        argv(o),
        with(&["--thinking", "adaptive", "--thinking-display", "summarized"])
    );
    let o = Options::new()
        .thinking(Thinking::Enabled {
            budget_tokens: 1024,
        })
        .thinking_display(ThinkingDisplay::Omitted);
    assert_eq!(
        argv(o),
        with(&[
            "--max-thinking-tokens",
            "1024",
            "--thinking-display",
            "omitted"
        ])
    );
}

#[test]
fn thinking_display_without_thinking_is_refused() {
    for o in [
        Options::new().thinking_display(ThinkingDisplay::Summarized),
        Options::new()
            .thinking(Thinking::Disabled)
            .thinking_display(ThinkingDisplay::Summarized),
    ] {
        let err = o
            .to_command("claude".into(), &CommandContext::default())
            .unwrap_err();
        assert!(
            matches!(err, OptionsError::ThinkingDisplayWithoutThinking),
            "{err}"
        );
    }
}

#[test]
fn skills_all_allows_the_skill_tool_and_defaults_setting_sources() {
    let o = Options::new().allowed_tools(["Read"]).skills_all();
    assert_eq!(
        argv(o.clone()),
        with(&[
            "--allowedTools",
            "Read,Skill",
            "--setting-sources=user,project"
        ])
    );
    assert_eq!(
        o.initialize_request(None),
        json!({"subtype": "initialize", "hooks": null}),
        "all is no filter on the wire"
    );
}

#[test]
fn skills_list_adds_one_rule_each_once_and_keeps_explicit_sources() {
    let o = Options::new()
        .allowed_tools(["Skill(pdf)"])
        .skills(["pdf", "docs:xlsx"])
        .setting_sources([SettingSource::Project]);
    assert_eq!(
        argv(o.clone()),
        with(&[
            "--allowedTools",
            "Skill(pdf),Skill(docs:xlsx)",
            "--setting-sources=project"
        ])
    );
    assert_eq!(
        o.initialize_request(None)["skills"],
        json!(["pdf", "docs:xlsx"])
    );
}

#[test]
fn skill_names_that_cannot_be_a_rule_are_refused() {
    for bad in [
        "a)", "a b ", " a", "*", "x:*", "/pdf", "a\\\\b", "a\\", "a\tb",
    ] {
        let err = Options::new()
            .skills([bad])
            .to_command("claude".into(), &CommandContext::default())
            .unwrap_err();
        assert!(
            matches!(&err, OptionsError::InvalidName { option: "skills", name, .. } if name == bad),
            "{bad:?}: {err}"
        );
    }
}

#[test]
fn custom_system_prompt_sends_text_and_snapshot() {
    let o = Options::new().system_prompt(SystemPrompt::Custom {
        prompt: "Be brief.".into(),
        snapshot: Some(false),
    });
    assert_eq!(argv(o.clone()), prompt(&["--system-prompt", "Be brief."]));
    assert_eq!(
        o.initialize_request(None),
        json!({"subtype": "initialize", "hooks": null, "systemPromptSnapshot": false})
    );
}

#[test]
fn preset_snapshot_is_sent_beside_the_appended_text() {
    let o = Options::new().system_prompt(SystemPrompt::preset_append("Explain.").snapshot(true));
    assert_eq!(
        argv(o.clone()),
        prompt(&["--append-system-prompt", "Explain."])
    );
    assert_eq!(
        o.initialize_request(None),
        json!({"subtype": "initialize", "hooks": null, "systemPromptSnapshot": true})
    );
    let text = SystemPrompt::Text("Be brief.".into()).snapshot(false);
    assert_eq!(
        text,
        SystemPrompt::Custom {
            prompt: "Be brief.".into(),
            snapshot: Some(false)
        }
    );
}

#[test]
fn initialize_extra_fields_fill_in_but_never_replace() {
    let o = Options::new()
        .forward_subagent_text(true)
        .initialize_field("planModeInstructions", json!("plan carefully"))
        .initialize_field("forwardSubagentText", json!(false))
        .initialize_field("subtype", json!("other"))
        .initialize_field("hooks", json!({}));
    assert_eq!(
        o.initialize_request(None),
        json!({"subtype": "initialize", "hooks": null, "forwardSubagentText": true,
               "planModeInstructions": "plan carefully"})
    );
}

#[test]
fn client_app_is_exported_and_a_derived_label_is_dropped() {
    let cmd = env_of(
        &Options::new()
            .env("CLAUDE_AGENT_SDK_CLIENT_APP", "from-env")
            .env("CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP", "outer")
            .client_app("my-app/1.0"),
    );
    let get = |k: &str| cmd.env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(
        get("CLAUDE_AGENT_SDK_CLIENT_APP"),
        Some("my-app/1.0".into())
    );
    assert_eq!(get("CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP"), None);
    assert!(
        cmd.env_remove
            .iter()
            .any(|k| k == "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP")
    );
}

#[test]
fn typed_sandbox_serializes_with_the_cli_spelling() {
    let sandbox = SandboxSettings {
        enabled: Some(true),
        excluded_commands: vec!["docker".into()],
        network: Some(SandboxNetwork {
            allow_unix_sockets: vec!["/run/docker.sock".into()],
            http_proxy_port: Some(8080),
            ..SandboxNetwork::default()
        }),
        ..SandboxSettings::default()
    };
    assert_eq!(
        argv(Options::new().sandbox(sandbox)),
        with(&[
            "--settings",
            r#"{"sandbox": {"enabled": true, "excludedCommands": ["docker"], "network": {"allowUnixSockets": ["/run/docker.sock"], "httpProxyPort": 8080}}}"#
        ])
    );
    let parsed = SandboxSettings::from_json(json!({"enabled": true, "futureKey": 1})).unwrap();
    assert_eq!(parsed.extra["futureKey"], 1, "unknown keys are kept");
}

#[test]
fn relative_settings_path_is_read_against_the_cwd() {
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(cwd.path().join("s.json"), "\u{feff}{\"model\": \"m\"}").unwrap();
    let o = Options::new()
        .cwd(cwd.path())
        .settings(Settings::Path("s.json".into()))
        .sandbox(SandboxSettings {
            enabled: Some(false),
            ..SandboxSettings::default()
        });
    let args = argv(o);
    let at = args.iter().position(|a| a == "--settings").unwrap();
    assert_eq!(
        args[at + 1],
        r#"{"model": "m", "sandbox": {"enabled": false}}"#,
        "read from the cwd, byte-order mark and all"
    );
}
