//! CLI discovery: each source, the order between them, and the errors.
//! Every search runs against temp dirs through `Discovery`, never the real
//! environment.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::discovery::{Discovery, DiscoveryError, Unusable, find_cli};
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Create `root/rel` as a file with `mode`, returning its path.
fn file(root: &Path, rel: &str, mode: u32) -> PathBuf {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

fn exe(root: &Path, rel: &str) -> PathBuf {
    file(root, rel, 0o755)
}

/// A search that can only see inside `root`.
fn sandboxed(root: &Path) -> Discovery {
    Discovery {
        explicit: None,
        env_cli: None,
        path_var: None,
        cwd: None,
        home: Some(root.join("home")),
        system_locations: vec![root.join("usr/local/bin/claude")],
    }
}

fn path_var(dirs: &[PathBuf]) -> Option<OsString> {
    Some(std::env::join_paths(dirs).unwrap())
}

#[test]
fn explicit_path_wins_over_everything() {
    let t = TempDir::new().unwrap();
    let explicit = exe(t.path(), "custom/claude");
    let mut d = sandboxed(t.path());
    d.explicit = Some(explicit.clone());
    d.env_cli = Some(exe(t.path(), "env/claude").into());
    d.path_var = path_var(&[exe(t.path(), "bin/claude").parent().unwrap().to_path_buf()]);
    assert_eq!(d.find().unwrap(), explicit);
}

#[test]
fn unusable_explicit_path_is_an_error_not_a_fall_through() {
    let t = TempDir::new().unwrap();
    let bin = exe(t.path(), "bin/claude");
    let cases = [
        (t.path().join("missing/claude"), Unusable::Missing),
        (t.path().join("bin"), Unusable::NotAFile),
        (
            file(t.path(), "noexec/claude", 0o644),
            Unusable::NotExecutable,
        ),
    ];
    for (path, want) in cases {
        let mut d = sandboxed(t.path());
        d.explicit = Some(path.clone());
        d.path_var = path_var(&[bin.parent().unwrap().to_path_buf()]);
        match d.find() {
            Err(DiscoveryError::Explicit { path: p, reason }) => {
                assert_eq!((p, reason), (path.clone(), want));
            }
            other => panic!(
                "expected Explicit error for {}, got {other:?}",
                path.display()
            ),
        }
    }
}

#[test]
fn explicit_error_names_the_path() {
    let d = Discovery {
        explicit: Some("/nowhere/claude".into()),
        ..Discovery::default()
    };
    let text = d.find().unwrap_err().to_string();
    assert_eq!(
        text,
        "claude cli at explicit path /nowhere/claude does not exist"
    );
}

#[test]
fn env_var_wins_over_path_and_its_errors_do_not_fall_through() {
    let t = TempDir::new().unwrap();
    let from_env = exe(t.path(), "env/claude");
    let bin = exe(t.path(), "bin/claude");
    let mut d = sandboxed(t.path());
    d.env_cli = Some(from_env.clone().into());
    d.path_var = path_var(&[bin.parent().unwrap().to_path_buf()]);
    assert_eq!(d.find().unwrap(), from_env);

    d.env_cli = Some(t.path().join("env/missing").into());
    assert!(matches!(
        d.find(),
        Err(DiscoveryError::EnvVar {
            reason: Unusable::Missing,
            ..
        })
    ));
}

#[test]
fn path_is_searched_in_order_skipping_unusable_and_relative_entries() {
    let t = TempDir::new().unwrap();
    file(t.path(), "a/claude", 0o644); // not executable
    std::fs::create_dir_all(t.path().join("b/claude")).unwrap(); // a directory
    let c = exe(t.path(), "c/claude");
    exe(t.path(), "d/claude");
    let mut d = sandboxed(t.path());
    let dirs: Vec<PathBuf> = ["a", "b", "c", "d"]
        .iter()
        .map(|s| t.path().join(s))
        .collect();
    let mut with_relative = vec![PathBuf::from("rel")];
    with_relative.extend(dirs);
    d.path_var = path_var(&with_relative);
    assert_eq!(d.find().unwrap(), c);
    assert!(!d.candidates().contains(&PathBuf::from("rel/claude")));
}

#[test]
fn path_wins_over_node_modules() {
    let t = TempDir::new().unwrap();
    let bin = exe(t.path(), "bin/claude");
    exe(t.path(), "proj/node_modules/.bin/claude");
    let mut d = sandboxed(t.path());
    d.path_var = path_var(&[t.path().join("bin")]);
    d.cwd = Some(t.path().join("proj"));
    assert_eq!(d.find().unwrap(), bin);
}

#[test]
fn node_modules_is_found_in_cwd_then_nearest_parent() {
    let t = TempDir::new().unwrap();
    let deep = t.path().join("proj/sub/deeper");
    std::fs::create_dir_all(&deep).unwrap();
    let outer = exe(t.path(), "proj/node_modules/.bin/claude");
    let mut d = sandboxed(t.path());
    d.cwd = Some(deep.clone());
    assert_eq!(d.find().unwrap(), outer);

    let inner = exe(t.path(), "proj/sub/node_modules/.bin/claude");
    assert_eq!(d.find().unwrap(), inner);

    let here = exe(&deep, "node_modules/.bin/claude");
    assert_eq!(d.find().unwrap(), here);
}

#[test]
fn node_modules_wins_over_install_locations() {
    let t = TempDir::new().unwrap();
    let local = exe(t.path(), "proj/node_modules/.bin/claude");
    exe(t.path(), "home/.npm-global/bin/claude");
    let mut d = sandboxed(t.path());
    d.cwd = Some(t.path().join("proj"));
    assert_eq!(d.find().unwrap(), local);
}

#[test]
fn install_locations_in_official_order() {
    let t = TempDir::new().unwrap();
    let order = [
        "home/.npm-global/bin/claude",
        "usr/local/bin/claude",
        "home/.local/bin/claude",
        "home/node_modules/.bin/claude",
        "home/.yarn/bin/claude",
        "home/.claude/local/claude",
    ];
    let paths: Vec<PathBuf> = order.iter().map(|rel| exe(t.path(), rel)).collect();
    let d = sandboxed(t.path());
    // Remove the winner each round: the next one in order must be found.
    for (i, expected) in paths.iter().enumerate() {
        assert_eq!(&d.find().unwrap(), expected, "round {i}");
        std::fs::remove_file(expected).unwrap();
    }
    assert!(matches!(d.find(), Err(DiscoveryError::NotFound { .. })));
}

#[test]
fn symlinked_executable_is_accepted() {
    let t = TempDir::new().unwrap();
    let target = exe(t.path(), "pkg/cli.js");
    std::fs::create_dir_all(t.path().join("home/.local/bin")).unwrap();
    let link = t.path().join("home/.local/bin/claude");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(sandboxed(t.path()).find().unwrap(), link);
}

#[test]
fn not_found_lists_every_candidate_and_the_install_command() {
    let t = TempDir::new().unwrap();
    let mut d = sandboxed(t.path());
    d.path_var = path_var(&[t.path().join("bin")]);
    d.cwd = Some(t.path().join("proj"));
    let err = d.find().unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("npm install -g @anthropic-ai/claude-code"),
        "{text}"
    );
    let DiscoveryError::NotFound { searched } = err else {
        panic!("{err:?}")
    };
    assert_eq!(searched, d.candidates());
    assert_eq!(searched[0], t.path().join("bin/claude"));
    assert_eq!(searched[1], t.path().join("proj/node_modules/.bin/claude"));
    assert!(searched.contains(&t.path().join("home/.claude/local/claude")));
    for p in &searched {
        assert!(
            text.contains(&p.display().to_string()),
            "{} missing from {text}",
            p.display()
        );
    }
}

#[test]
fn find_cli_honours_an_explicit_path() {
    let t = TempDir::new().unwrap();
    let cli = exe(t.path(), "claude");
    assert_eq!(find_cli(Some(&cli), None).unwrap(), cli);
    let missing = t.path().join("nope");
    assert!(matches!(
        find_cli(Some(&missing), Some(t.path())),
        Err(DiscoveryError::Explicit {
            reason: Unusable::Missing,
            ..
        })
    ));
}

#[test]
fn a_place_named_twice_is_searched_and_reported_once() {
    let root = TempDir::new().unwrap();
    let bin = root.path().join("bin");
    let home = root.path().join("home");
    let mut d = sandboxed(root.path());
    // PATH names one folder twice, and the cwd's ancestors include home.
    d.path_var = path_var(&[bin.clone(), bin.clone()]);
    d.cwd = Some(home.clone());
    let err = d.find().unwrap_err();
    let DiscoveryError::NotFound { searched } = err else {
        panic!("not found expected, got {err}");
    };
    let mut unique = searched.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), searched.len(), "searched twice: {searched:?}");
    assert_eq!(searched[0], bin.join("claude"));
    assert!(searched.contains(&home.join("node_modules/.bin/claude")));
}
