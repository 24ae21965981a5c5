//! `Options::user`: the CLI runs with the user's uid, gid, groups and home,
//! and a user that cannot be used fails with a typed error before any spawn.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::Duration;

use claude_agent::options::OptionsError;
use claude_agent::runtime::process::UserError;
use claude_agent::{Error, client::ClientBuilder};
use claude_agent_testkit::Script;
use common::*;
use serde_json::Value;

/// A throwaway user with its own group plus one extra group, removed (with
/// the groups) on drop, even when the test fails.
struct Throwaway {
    name: String,
    extra_group: String,
}

impl Throwaway {
    fn create(home: &std::path::Path) -> Self {
        let tag = format!("{}{}", std::process::id(), rand_suffix());
        let this = Self {
            name: format!("cau{tag}"),
            extra_group: format!("cag{tag}"),
        };
        run("groupadd", &[&this.extra_group]);
        let home = home.to_str().unwrap();
        run(
            "useradd",
            &[
                "--no-create-home",
                "--home-dir",
                home,
                "--user-group",
                "--groups",
                &this.extra_group,
                "--shell",
                "/usr/sbin/nologin",
                &this.name,
            ],
        );
        this
    }

    fn id(&self, flag: &str) -> u32 {
        let out = Command::new("id")
            .args([flag, &self.name])
            .output()
            .unwrap();
        assert!(out.status.success(), "id {flag} {} failed", self.name);
        String::from_utf8(out.stdout)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    fn group_id(&self, group: &str) -> u32 {
        let out = Command::new("getent")
            .args(["group", group])
            .output()
            .unwrap();
        let line = String::from_utf8(out.stdout).unwrap();
        line.split(':').nth(2).unwrap().parse().unwrap()
    }
}

impl Drop for Throwaway {
    fn drop(&mut self) {
        // `userdel` also removes the user's own group (USERGROUPS_ENAB).
        let _ = Command::new("userdel").arg(&self.name).status();
        let _ = Command::new("groupdel").arg(&self.extra_group).status();
    }
}

fn run(program: &str, args: &[&str]) {
    let status = Command::new(program).args(args).status().unwrap();
    assert!(status.success(), "{program} {args:?} failed: {status}");
}

/// A few digits that differ between test processes started in the same
/// second on the same pid (pid reuse across runs).
fn rand_suffix() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos()
        % 10_000
}

/// The fake's builder with `Options::user` set.
fn as_user(fake: &Fake, user: &str) -> ClientBuilder {
    ClientBuilder::new(fake.options().user(user))
        .grace(Duration::from_millis(300))
        .term_grace(Duration::from_millis(300))
        .initialize_timeout(SOON)
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

fn read_json(path: std::path::PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn side_file(fake: &Fake, ext: &str) -> std::path::PathBuf {
    let mut p = fake.cli.record_path.as_os_str().to_owned();
    p.push(ext);
    p.into()
}

/// As root: the CLI's real uid, gid and groups are the throwaway user's,
/// and `HOME`, `USER`, `LOGNAME` name its account. Not root: the switch is
/// refused with `UserError::NotPermitted` before anything is spawned.
#[tokio::test]
async fn cli_runs_with_the_users_ids_groups_and_home() {
    let fake = fake(Script::new().expect_initialize().loop_turns("hi"));
    if !is_root() {
        let err = as_user(&fake, "root").connect().await;
        assert!(
            matches!(
                err,
                Err(Error::Options(OptionsError::User(
                    UserError::NotPermitted { uid: 0, .. }
                )))
            ),
            "{err:?}"
        );
        return;
    }
    // The fake, running as the new user, writes its records here.
    std::fs::set_permissions(fake.dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    // The build may sit below a folder only root can enter (CI's clone
    // lives in a `mktemp -d` folder, mode 0700): the user runs a copy.
    let program = fake.dir.path().join("fake-claude");
    std::fs::copy(&fake.cli.program, &program).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let home = fake.dir.path().join("home");
    let user = Throwaway::create(&home);

    let client = ClientBuilder::new(fake.options().cli_path(&program).user(&user.name))
        .grace(Duration::from_millis(300))
        .term_grace(Duration::from_millis(300))
        .initialize_timeout(SOON)
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();

    let ids = read_json(side_file(&fake, ".ids"));
    let (uid, gid) = (user.id("-u"), user.id("-g"));
    assert_ne!(uid, 0);
    assert_eq!(ids["uid"], uid, "{ids}");
    assert_eq!(ids["gid"], gid, "{ids}");
    let mut groups: Vec<u64> = ids["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_u64().unwrap())
        .collect();
    groups.sort_unstable();
    let mut want = vec![u64::from(gid), u64::from(user.group_id(&user.extra_group))];
    want.sort_unstable();
    assert_eq!(
        groups, want,
        "supplementary groups are the user's, not root's"
    );

    let env = read_json(side_file(&fake, ".env"));
    assert_eq!(env["HOME"], home.to_str().unwrap());
    assert_eq!(env["USER"], user.name.as_str());
    assert_eq!(env["LOGNAME"], user.name.as_str());

    client.shutdown().await;
    fake.assert_gone(pid).await;
}

/// An `env` entry for `HOME` wins over the account's home.
#[tokio::test]
async fn explicit_home_in_env_wins_over_the_accounts() {
    let fake = fake(Script::new().expect_initialize().loop_turns("hi"));
    // Switching to ourselves needs no privilege, so this runs everywhere.
    let me = rustix::process::getuid().as_raw().to_string();
    let options = fake
        .options()
        .user(me)
        .env("HOME", "/nonexistent-home-for-test");
    let client = ClientBuilder::new(options)
        .initialize_timeout(SOON)
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    let env = read_json(side_file(&fake, ".env"));
    assert_eq!(env["HOME"], "/nonexistent-home-for-test");
    let ids = read_json(side_file(&fake, ".ids"));
    assert_eq!(ids["uid"], rustix::process::getuid().as_raw());
    client.shutdown().await;
    fake.assert_gone(pid).await;
}

/// An unknown user fails with `NotFound` and nothing is spawned.
#[tokio::test]
async fn unknown_user_fails_before_spawning() {
    let fake = fake(Script::new().expect_initialize().loop_turns("hi"));
    let err = as_user(&fake, "no-such-user-claude-agent-test")
        .connect()
        .await;
    assert!(
        matches!(
            err,
            Err(Error::Options(OptionsError::User(
                UserError::NotFound { .. }
            )))
        ),
        "{err:?}"
    );
    assert!(!fake.cli.pid_file.exists(), "the fake CLI was started");
}
