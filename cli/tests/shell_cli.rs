//! `completions SHELL` and `man [COMMAND]`: generated from the tool's own
//! argument definitions, hidden commands left out.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

fn tool(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn every_shell_gets_a_script_naming_the_commands_and_their_flags() {
    for shell in ["bash", "elvish", "fish", "powershell", "zsh"] {
        let script = stdout(&tool(&["completions", shell]));
        for word in ["claude-agent", "sessions", "permission-mode", "verbose"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
        assert!(!script.contains("__fake-cli"), "{shell}: a hidden command");
    }
}

#[test]
fn the_bash_script_loads_and_registers_the_completion() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("claude-agent.bash");
    std::fs::write(&path, stdout(&tool(&["completions", "bash"]))).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source '{}' && complete -p claude-agent",
            path.display()
        ))
        .output()
        .unwrap();
    let registered = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(registered.contains("claude-agent"), "{registered}");
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    assert_eq!(tool(&["completions", "tcsh"]).status.code(), Some(64));
}

#[test]
fn the_man_page_is_roff_listing_every_visible_command() {
    let page = stdout(&tool(&["man"]));
    assert!(page.contains(".TH claude-agent 1"), "{page}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(page.contains(section), "no {section}: {page}");
    }
    for command in ["replay", "run", "host", "worker", "submit", "sessions"] {
        assert!(
            page.contains(&format!("claude\\-agent\\-{command}(1)")),
            "no {command}: {page}"
        );
    }
    assert!(!page.contains("fake\\-cli"), "a hidden command: {page}");
}

#[test]
fn a_command_has_its_own_page_with_its_flags_and_the_global_ones() {
    let page = stdout(&tool(&["man", "run"]));
    assert!(page.contains(".TH claude-agent-run 1"), "{page}");
    for flag in ["\\-\\-store", "\\-\\-permission\\-mode", "\\-\\-verbose"] {
        assert!(page.contains(flag), "no {flag}: {page}");
    }
    let out = tool(&["man", "nope"]);
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"nope\"") && err.contains("sessions"),
        "{err}"
    );
}
