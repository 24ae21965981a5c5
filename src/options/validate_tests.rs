//! Every validation rule, through the public entry point `to_command`.

use super::*;

fn err(o: Options) -> OptionsError {
    err_ctx(o, &CommandContext::default())
}

fn err_ctx(o: Options, ctx: &CommandContext) -> OptionsError {
    o.to_command("claude".into(), ctx).unwrap_err()
}

fn assert_invalid_name(e: OptionsError, want_option: &str, want_name: &str) {
    match e {
        OptionsError::InvalidName { option, name, .. } => {
            assert_eq!((option, name.as_str()), (want_option, want_name));
        }
        other => panic!("expected InvalidName, got {other:?}"),
    }
}

#[test]
fn tool_names_that_inject_are_rejected_in_every_list() {
    for bad in ["-x", "--help", "a,b", "a\nb", "a\rb", "", "a\0b"] {
        assert_invalid_name(err(Options::new().tools([bad])), "tools", bad);
        assert_invalid_name(
            err(Options::new().allowed_tools(["Read", bad])),
            "allowed_tools",
            bad,
        );
        assert_invalid_name(
            err(Options::new().disallowed_tools([bad])),
            "disallowed_tools",
            bad,
        );
        assert_invalid_name(err(Options::new().skills([bad])), "skills", bad);
        assert_invalid_name(err(Options::new().betas([bad])), "betas", bad);
        assert_invalid_name(
            err(Options::new().permission_prompt_tool_name(bad)),
            "permission_prompt_tool_name",
            bad,
        );
    }
}

#[test]
fn invalid_name_display_is_lower_case_and_names_the_value() {
    let text = err(Options::new().allowed_tools(["-x"])).to_string();
    assert_eq!(
        text,
        r#"invalid name "-x" in allowed_tools: starts with '-' and would be read as a flag"#
    );
}

#[test]
fn permission_callback_conflicts_with_prompt_tool() {
    let ctx = CommandContext {
        permission_callback: true,
        ..Default::default()
    };
    let e = err_ctx(
        Options::new().permission_prompt_tool_name("mcp__p__ask"),
        &ctx,
    );
    assert!(
        matches!(e, OptionsError::PermissionPromptConflict { ref tool_name } if tool_name == "mcp__p__ask")
    );
}

#[test]
fn model_values_starting_with_dash_or_empty_are_rejected() {
    assert!(matches!(
        err(Options::new().model("--help")),
        OptionsError::DashValue {
            option: "model",
            ..
        }
    ));
    assert!(matches!(
        err(Options::new().fallback_model("-m")),
        OptionsError::DashValue {
            option: "fallback_model",
            ..
        }
    ));
    assert!(matches!(
        err(Options::new().model("")),
        OptionsError::EmptyValue { option: "model" }
    ));
}

#[test]
fn empty_session_references_are_rejected() {
    assert!(matches!(
        err(Options::new().resume("")),
        OptionsError::EmptyValue { option: "resume" }
    ));
    assert!(matches!(
        err(Options::new().session_id("")),
        OptionsError::EmptyValue {
            option: "session_id"
        }
    ));
    assert!(matches!(
        err(Options::new().resume_session_at("")),
        OptionsError::EmptyValue {
            option: "resume_session_at"
        }
    ));
}

#[test]
fn missing_cwd_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    match err(Options::new().cwd(&gone)) {
        OptionsError::CwdMissing { path, source } => {
            assert_eq!(path, gone);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected CwdMissing, got {other:?}"),
    }
}

#[test]
fn cwd_that_is_a_file_is_rejected() {
    let file = tempfile::NamedTempFile::new().unwrap();
    assert!(matches!(
        err(Options::new().cwd(file.path())),
        OptionsError::CwdNotDirectory { .. }
    ));
}

#[test]
fn zero_max_turns_is_rejected() {
    assert!(matches!(
        err(Options::new().max_turns(0)),
        OptionsError::ZeroMaxTurns
    ));
}

#[test]
fn bad_budgets_are_rejected_and_zero_is_not() {
    for bad in [-0.01, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(
            err(Options::new().max_budget_usd(bad)),
            OptionsError::InvalidBudget { .. }
        ));
    }
    assert!(
        Options::new()
            .max_budget_usd(0.0)
            .to_command("c".into(), &CommandContext::default())
            .is_ok()
    );
}

#[test]
fn bad_extra_arg_names_are_rejected() {
    for bad in ["", "a=b", "a b", "a\tb", "-x", "--x"] {
        match err(Options::new().extra_arg(bad, None)) {
            OptionsError::InvalidExtraArg { flag, .. } => assert_eq!(flag, bad),
            other => panic!("expected InvalidExtraArg for {bad:?}, got {other:?}"),
        }
    }
}

#[test]
fn empty_mcp_server_name_is_rejected() {
    let o = Options::new().mcp_server("", McpServerConfig::sdk("x"));
    assert!(matches!(err(o), OptionsError::EmptyMcpServerName));
}

#[test]
fn bad_env_entries_are_rejected() {
    for (k, v) in [("", "v"), ("A=B", "v"), ("A\0", "v"), ("A", "v\0")] {
        assert!(
            matches!(
                err(Options::new().env(k, v)),
                OptionsError::InvalidEnv { .. }
            ),
            "{k:?}={v:?}"
        );
    }
}

#[test]
fn nul_bytes_in_argv_values_are_rejected() {
    let o = Options::new().system_prompt(SystemPrompt::Text("a\0b".into()));
    assert!(matches!(
        err(o),
        OptionsError::NulByte {
            option: "system_prompt"
        }
    ));
    assert!(matches!(
        err(Options::new().add_dir("a\0b")),
        OptionsError::NulByte { option: "add_dirs" }
    ));
    assert!(matches!(
        err(Options::new().resume("a\0b")),
        OptionsError::NulByte { option: "resume" }
    ));
}

#[test]
fn sandbox_needs_readable_object_settings() {
    let sandbox = SandboxSettings {
        enabled: Some(true),
        ..SandboxSettings::default()
    };
    let missing = Options::new()
        .settings(Settings::Path("/nonexistent/s.json".into()))
        .sandbox(sandbox.clone());
    assert!(matches!(err(missing), OptionsError::SettingsFile { .. }));
    let array = Options::new()
        .settings(Settings::JsonText("[1]".into()))
        .sandbox(sandbox.clone());
    assert!(matches!(err(array), OptionsError::SettingsNotObject));
    let broken = Options::new()
        .settings(Settings::JsonText("{".into()))
        .sandbox(sandbox);
    assert!(matches!(
        err(broken),
        OptionsError::Json {
            what: "settings",
            ..
        }
    ));
}

#[test]
fn a_session_id_must_be_a_uuid_and_so_must_a_resume_restored_from_a_store() {
    const ID: &str = "c35ea3a3-e4ff-420a-95ba-a841e501f32f";
    let e = err(Options::new().session_id("../../x"));
    assert!(
        matches!(&e, OptionsError::NotASessionId { option: "session_id", value, .. } if value == "../../x"),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        r#"session_id must be a session UUID, got "../../x""#
    );
    let store = CommandContext::default().with_session_mirror(true);
    let e = err_ctx(Options::new().resume("../../../x"), &store);
    assert_eq!(
        e.to_string(),
        r#"resume must be a session UUID when a session store restores it, got "../../../x""#
    );
    // Without a store the CLI also resumes by title, so a title passes.
    let ctx = CommandContext::default();
    assert!(
        Options::new()
            .resume("My refactor")
            .to_command("claude".into(), &ctx)
            .is_ok()
    );
    assert!(
        Options::new()
            .session_id(ID)
            .to_command("claude".into(), &ctx)
            .is_ok()
    );
    assert!(
        Options::new()
            .resume(ID)
            .to_command("claude".into(), &store)
            .is_ok()
    );
}
