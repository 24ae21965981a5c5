//! `claude-agent sessions`: every subcommand through the real binary, over
//! a temporary CLI config folder holding a real CLI session, and every
//! failure as one line on stderr with a non-zero exit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use claude_agent::store::project_key_for;
use serde_json::Value;

const SESSION: &str = "c35ea3a3-e4ff-420a-95ba-a841e501f32f";

/// A config folder and a project folder whose sessions hold the recorded
/// session.
struct Fixture {
    config: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let config = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let dir = config
            .path()
            .join("projects")
            .join(project_key_for(project.path()));
        std::fs::create_dir_all(&dir).unwrap();
        let source = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/claude-code-2.1.332/session_mirror/local-session.jsonl"
        ));
        std::fs::copy(source, dir.join(format!("{SESSION}.jsonl"))).unwrap();
        Self { config, project }
    }

    fn sessions(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_claude-agent"))
            .arg("sessions")
            .args(args)
            .arg("--cwd")
            .arg(self.project.path())
            .env("CLAUDE_CONFIG_DIR", self.config.path())
            .output()
            .unwrap()
    }

    /// Run, expect success, and parse the JSON lines.
    fn json(&self, args: &[&str]) -> Vec<Value> {
        let mut all = args.to_vec();
        all.push("--json");
        let out = self.sessions(&all);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Run, expect failure, and return the single stderr line.
    fn fails(&self, args: &[&str]) -> String {
        let out = self.sessions(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "not one line: {err}");
        assert!(err.starts_with("claude-agent sessions: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        err
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A local port nothing listens on: bound, then released.
fn refusing_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn list_and_show_read_a_real_cli_session() {
    let f = Fixture::new();
    let listed = f.json(&["list"]);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["kind"], "session");
    assert_eq!(listed[0]["session_id"], SESSION);
    assert_eq!(listed[0]["summary"], "please use bash");
    let shown = f.json(&["show", SESSION]);
    let kinds: Vec<&str> = shown.iter().map(|v| v["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["session", "message", "message", "message", "message"]
    );
    assert_eq!(shown[1]["type"], "user");
    assert_eq!(
        shown[4]["message"]["content"][0]["text"],
        "Tool finished; all done."
    );
    // The readable form names each message's writer.
    let out = f.sessions(&["show", SESSION]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("user: please use bash"), "{text}");
    assert!(text.contains("assistant: [tool call Bash]"), "{text}");
}

#[test]
fn rename_tag_fork_and_delete_change_what_list_shows() {
    let f = Fixture::new();
    f.json(&["rename", SESSION, "Bash check"]);
    f.json(&["tag", SESSION, "exp"]);
    let listed = f.json(&["list"]);
    assert_eq!(listed[0]["custom_title"], "Bash check");
    assert_eq!(listed[0]["tag"], "exp");
    f.json(&["tag", SESSION, "--clear"]);
    assert_eq!(f.json(&["list"])[0].get("tag"), None);

    let forked = f.json(&["fork", SESSION, "--title", "branch"]);
    let fork = forked[0]["session_id"].as_str().unwrap().to_owned();
    assert_ne!(fork, SESSION);
    let listed = f.json(&["list"]);
    assert_eq!(listed.len(), 2);
    assert!(
        listed
            .iter()
            .any(|s| s["session_id"] == fork.as_str() && s["summary"] == "branch")
    );

    f.json(&["delete", SESSION]);
    let listed = f.json(&["list"]);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["session_id"], fork.as_str());
    let err = f.fails(&["delete", SESSION]);
    assert!(err.contains("not found"), "{err}");
}

#[test]
fn import_copies_a_local_session_into_a_file_store() {
    let f = Fixture::new();
    let store = tempfile::tempdir().unwrap();
    let url = file_url(store.path());
    f.json(&["import", SESSION, "--store", &url]);
    let listed = f.json(&["list", "--store", &url]);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["session_id"], SESSION);
    let shown = f.json(&["show", SESSION, "--store", &url]);
    assert_eq!(shown.iter().filter(|v| v["kind"] == "message").count(), 4);
    let err = f.fails(&["import", SESSION]);
    assert!(err.contains("--store"), "{err}");
}

#[test]
fn a_bad_store_url_is_one_line_and_exit_1() {
    let f = Fixture::new();
    let err = f.fails(&["list", "--store", "ftp://somewhere"]);
    assert!(err.contains("unknown scheme"), "{err}");
    let err = f.fails(&["list", "--store", "file://relative"]);
    assert!(err.contains("absolute"), "{err}");
}

#[test]
fn an_unreachable_server_is_one_line_and_exit_1() {
    let f = Fixture::new();
    let port = refusing_port();
    let err = f.fails(&[
        "list",
        "--store",
        &format!("postgres://postgres:secret@127.0.0.1:{port}/test"),
    ]);
    assert!(err.contains("PostgreSQL"), "{err}");
    assert!(!err.contains("secret"), "the password leaked: {err}");
    let err = f.fails(&["list", "--store", &format!("redis://127.0.0.1:{port}")]);
    assert!(err.contains("Redis"), "{err}");
}

#[test]
fn a_corrupt_store_row_is_one_line_and_exit_1() {
    let f = Fixture::new();
    let store = tempfile::tempdir().unwrap();
    let url = file_url(store.path());
    f.json(&["import", SESSION, "--store", &url]);
    let file = store
        .path()
        .join(project_key_for(f.project.path()))
        .join(format!("{SESSION}.jsonl"));
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("{not json\n");
    std::fs::write(&file, text).unwrap();
    let err = f.fails(&["show", SESSION, "--store", &url]);
    assert!(err.contains("corrupt"), "{err}");
}

#[test]
fn bad_and_unknown_session_ids_are_one_line_and_exit_1() {
    let f = Fixture::new();
    let err = f.fails(&["show", "../../etc/passwd"]);
    assert!(err.contains("not a session id"), "{err}");
    let err = f.fails(&["show", "00000000-0000-4000-8000-000000000000"]);
    assert!(err.contains("not found"), "{err}");
    let err = f.fails(&["rename", SESSION, "   "]);
    assert!(err.contains("title is empty"), "{err}");
}

#[test]
fn list_has_a_header_row_and_limit_keeps_the_newest() {
    let f = Fixture::new();
    let first = f.json(&["fork", SESSION, "--title", "first fork"])[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let newest = f.json(&["fork", &first, "--title", "second fork"])[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = f.sessions(&["list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 4, "a header and three sessions: {text}");
    assert!(
        rows[0].starts_with("SESSION") && rows[0].contains("LAST MODIFIED"),
        "{text}"
    );
    // Columns line up: every title starts where the header's does.
    let title_at = rows[0].find("TITLE").unwrap();
    assert!(rows[1][title_at..].starts_with("second fork"), "{text}");

    let out = f.sessions(&["list", "--limit", "1"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[1].starts_with(&newest), "{text}");
    let listed = f.json(&["list", "--limit", "2"]);
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(listed[0]["session_id"], newest.as_str());

    let out = f.sessions(&["list", "--limit", "0"]);
    assert_eq!(out.status.code(), Some(64), "{}", stderr(&out));
}

#[test]
fn a_file_store_whose_folder_is_missing_is_an_error_naming_it() {
    let f = Fixture::new();
    let parent = tempfile::tempdir().unwrap();
    let missing = parent.path().join("no such store");
    let url = format!("file://{}", missing.display()).replace(' ', "%20");
    for args in [
        vec!["list"],
        vec!["show", SESSION],
        vec!["tag", SESSION, "x"],
    ] {
        let mut all = args.clone();
        all.extend(["--store", url.as_str()]);
        let err = f.fails(&all);
        assert!(
            err.contains(&missing.display().to_string()) && err.contains("does not exist"),
            "{args:?}: {err}"
        );
    }
    // `import` creates it.
    f.json(&["import", SESSION, "--store", &url]);
    assert_eq!(f.json(&["list", "--store", &url]).len(), 1);
}

/// Set `path`'s mtime to `age` seconds ago.
fn set_age(path: &Path, age: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(age);
    std::fs::File::options()
        .append(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

#[test]
fn list_pages_across_every_project_and_archive_marks_a_session() {
    let f = Fixture::new();
    let own = f
        .config
        .path()
        .join("projects")
        .join(project_key_for(f.project.path()))
        .join(format!("{SESSION}.jsonl"));
    let other_id = "c35ea3a3-e4ff-420a-95ba-a841e501f330";
    let other_dir = f.config.path().join("projects").join("-somewhere-else");
    std::fs::create_dir_all(&other_dir).unwrap();
    let other = other_dir.join(format!("{other_id}.jsonl"));
    std::fs::copy(&own, &other).unwrap();
    set_age(&own, 100);
    set_age(&other, 10);

    let here = f.json(&["list"]);
    assert_eq!(here.len(), 1, "{here:?}");
    let all = f.json(&["list", "--all-projects"]);
    let ids: Vec<&str> = all
        .iter()
        .map(|v| v["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [other_id, SESSION]);
    assert_eq!(all[0]["project_key"], "-somewhere-else");
    let second = f.json(&["list", "--all-projects", "--offset", "1", "--limit", "1"]);
    assert_eq!(second.len(), 1);
    assert_eq!(second[0]["session_id"], SESSION);
    assert!(f.json(&["list", "--offset", "1"]).is_empty());

    f.json(&["archive", SESSION]);
    assert_eq!(f.json(&["list"])[0]["archived"], true);
    let text = String::from_utf8(f.sessions(&["list"]).stdout).unwrap();
    assert!(text.contains("  archived"), "{text}");
    f.json(&["unarchive", SESSION]);
    assert_eq!(f.json(&["list"])[0]["archived"], false);

    let dir = tempfile::tempdir().unwrap();
    let err = f.fails(&["list", "--all-projects", "--store", &file_url(dir.path())]);
    assert!(err.contains("local transcripts only"), "{err}");
}
