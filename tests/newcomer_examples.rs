//! The three programs a newcomer writes first (README, examples/) run
//! unchanged against the test kit's fake CLI, which answers every turn with
//! a fixed text: a one-shot that prints the answer, a `Client` with a
//! permission callback and an in-process tool over two turns, and twenty
//! sessions through a `Host`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Output;

const FAKE_ANSWER: &str = "Hello from the fake CLI.";

/// `target/<profile>/examples/<name>`, built by `cargo test` (and by
/// `cargo build --all-targets`, which the README's test command runs).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>");
    let path = profile.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is not built: run `cargo build --examples` first",
        path.display()
    );
    path
}

async fn run(name: &str) -> Output {
    let fake = claude_agent_testkit::fake_cli_path().expect("fake-claude");
    let run = tokio::process::Command::new(example(name))
        .env("CLAUDE_AGENT_CLI", fake)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), run)
        .await
        .unwrap_or_else(|_| panic!("{name} did not finish in 120 s"))
        .expect("run the example");
    assert!(
        out.status.success(),
        "{name} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn the_one_shot_prints_the_answer_and_nothing_else() {
    assert_eq!(lines(&run("hello").await), [FAKE_ANSWER]);
}

#[tokio::test]
async fn the_client_with_a_callback_prints_one_answer_per_turn() {
    assert_eq!(
        lines(&run("client_with_callback").await),
        [FAKE_ANSWER, FAKE_ANSWER]
    );
}

#[tokio::test]
async fn twenty_hosted_sessions_each_print_their_answer() {
    let out = lines(&run("host_twenty").await);
    assert_eq!(out.len(), 20, "{out:?}");
    for (i, line) in out.iter().enumerate() {
        let tenant = if i % 2 == 0 { "acme" } else { "globex" };
        assert!(line.starts_with(&format!("{tenant} ")), "{line}");
        assert!(line.ends_with(&format!(": {FAKE_ANSWER}")), "{line}");
    }
}
