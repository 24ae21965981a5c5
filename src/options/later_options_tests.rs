//! The options the TypeScript SDK added later (issue 24): each reaches the
//! CLI the way that SDK sends it, as argv, environment or an `initialize`
//! field, and adds nothing when unset.

use super::argv_tests::{argv, with};
use super::*;
use serde_json::{Map, json};

fn init(o: &Options) -> serde_json::Value {
    o.initialize_request(None)
}

#[test]
fn system_prompt_blocks_travel_in_initialize_over_an_empty_flag() {
    let o = Options::new().system_prompt(
        SystemPrompt::blocks(["static rules", SYSTEM_PROMPT_DYNAMIC_BOUNDARY, "today"])
            .snapshot(false),
    );
    assert_eq!(
        argv(o.clone()),
        with(&[]),
        "argv keeps --system-prompt \"\""
    );
    assert_eq!(
        init(&o),
        json!({"subtype": "initialize", "hooks": null,
               "systemPrompt": ["static rules", "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__", "today"],
               "systemPromptSnapshot": false})
    );
}

#[test]
fn later_initialize_fields_are_sent_when_set_and_only_then() {
    let o = Options::new()
        .plan_mode_instructions("Write the plan as a list.")
        .tool_alias("Bash", "mcp__box__bash")
        .tool_alias("Read", "mcp__box__read")
        .tool_alias("Bash", "mcp__box__sh")
        .title("Nightly triage")
        .prompt_suggestions(true)
        .agent_progress_summaries(false)
        .per_task_stop_affordance(true);
    assert_eq!(
        init(&o),
        json!({"subtype": "initialize", "hooks": null,
               "planModeInstructions": "Write the plan as a list.",
               "toolAliases": {"Read": "mcp__box__read", "Bash": "mcp__box__sh"},
               "title": "Nightly triage",
               "promptSuggestions": true,
               "agentProgressSummaries": false,
               "perTaskStopAffordance": true})
    );
    assert_eq!(argv(o), with(&[]), "none of them touches argv");
    let off = Options::new().per_task_stop_affordance(false);
    assert_eq!(init(&off), json!({"subtype": "initialize", "hooks": null}));
}

#[test]
fn later_initialize_fields_never_yield_to_initialize_extra() {
    let o = Options::new()
        .title("mine")
        .initialize_field("title", json!("other"));
    assert_eq!(init(&o)["title"], json!("mine"));
}

#[test]
fn permission_flags_follow_their_neighbours() {
    let o = Options::new()
        .permission_mode(PermissionMode::BypassPermissions)
        .allow_dangerously_skip_permissions(true)
        .permission_prompts(PermissionPrompts::None);
    assert_eq!(
        argv(o),
        with(&[
            "--permission-prompts",
            "none",
            "--permission-mode",
            "bypassPermissions",
            "--allow-dangerously-skip-permissions"
        ])
    );
    assert_eq!(
        argv(Options::new().permission_prompts(PermissionPrompts::Host)),
        with(&["--permission-prompts", "host"])
    );
}

#[test]
fn project_config_root_goes_before_add_dirs() {
    let o = Options::new()
        .add_dir("/extra")
        .project_config_root("/repo/main");
    assert_eq!(
        argv(o),
        with(&["--project-config-root", "/repo/main", "--add-dir", "/extra"])
    );
    // A path that starts with '-' cannot be read as a flag.
    assert_eq!(
        argv(Options::new().project_config_root("-odd")),
        with(&["--project-config-root=-odd"])
    );
}

#[test]
fn debug_file_wins_over_debug() {
    assert_eq!(argv(Options::new().debug(true)), with(&["--debug"]));
    assert_eq!(
        argv(Options::new().debug(true).debug_file("/tmp/cli.log")),
        with(&["--debug-file", "/tmp/cli.log"])
    );
    assert_eq!(argv(Options::new().debug(false)), with(&[]));
}

#[test]
fn managed_settings_go_on_argv_as_one_json_object() {
    let mut managed = Map::new();
    managed.insert("permissions".into(), json!({"deny": ["WebFetch"]}));
    assert_eq!(
        argv(Options::new().managed_settings(managed)),
        with(&[
            "--managed-settings",
            r#"{"permissions": {"deny": ["WebFetch"]}}"#
        ])
    );
}

#[test]
fn plugins_in_initialize_leave_argv_and_make_the_cli_await_it() {
    let o = Options::new()
        .plugin("/p/one")
        .plugin("/p/two")
        .plugin_delivery(PluginDelivery::Initialize);
    assert_eq!(argv(o.clone()), with(&["--await-initialize"]));
    assert_eq!(
        init(&o)["plugins"],
        json!([{"type": "local", "path": "/p/one"}, {"type": "local", "path": "/p/two"}])
    );
    let on_argv = Options::new().plugin("/p/one");
    assert_eq!(argv(on_argv.clone()), with(&["--plugin-dir", "/p/one"]));
    assert_eq!(init(&on_argv).get("plugins"), None);
    // Delivery alone, with no plugins, changes nothing.
    let none = Options::new().plugin_delivery(PluginDelivery::Initialize);
    assert_eq!(argv(none), with(&[]));
}

#[cfg(unix)]
#[test]
fn a_plugin_path_that_is_not_utf8_keeps_the_list_on_argv() {
    use std::os::unix::ffi::OsStrExt;
    let odd = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(b"/p/\xff"));
    let o = Options::new()
        .plugin(odd)
        .plugin_delivery(PluginDelivery::Initialize);
    let cmd = o
        .to_command("claude".into(), &CommandContext::default())
        .unwrap();
    assert!(cmd.args.iter().any(|a| a == "--plugin-dir"));
    assert!(!cmd.args.iter().any(|a| a == "--await-initialize"));
    assert_eq!(init(&o).get("plugins"), None);
}

#[test]
fn tool_config_sets_the_question_preview_format_variable() {
    let o = Options::new()
        .env("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT", "markdown")
        .tool_config(ToolConfig::new().question_preview_format(PreviewFormat::Html));
    let cmd = o
        .to_command("claude".into(), &CommandContext::default())
        .unwrap();
    let set: Vec<_> = cmd
        .env
        .iter()
        .filter(|(k, _)| k == "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT")
        .collect();
    assert_eq!(set.len(), 1);
    assert_eq!(set[0].1, "html", "the option wins over env, as in TS");
    let plain = Options::new()
        .to_command("claude".into(), &CommandContext::default())
        .unwrap();
    assert!(
        !plain
            .env
            .iter()
            .any(|(k, _)| k == "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT")
    );
}

#[test]
fn agent_definition_sends_the_later_fields_in_camel_case() {
    let mut def = AgentDefinition::new("watches", "You watch.");
    def.auto_compact_window = Some(40_000);
    def.omit_claude_md = Some(true);
    def.observer = Some("auditor".into());
    def.observer_message = Some("Flag any write.".into());
    let o = Options::new().agent("w", def);
    assert_eq!(
        init(&o)["agents"]["w"],
        json!({"description": "watches", "prompt": "You watch.",
               "autoCompactWindow": 40_000, "omitClaudeMd": true,
               "observer": "auditor", "observerMessage": "Flag any write."})
    );
}
