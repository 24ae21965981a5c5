//! Shared helpers for SDK tests: the fake CLI behind a `ClientBuilder` with
//! short grace periods, and "nothing left running" checks.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

pub mod mirror_flood;

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use claude_agent::{client::ClientBuilder, options::Options};
use claude_agent_testkit::{FakeCli, Script, fake_cli_path, wait_until_gone};
use serde_json::{Value, json};

/// Bound for anything that should be quick, generous for a loaded CI box.
pub const SOON: Duration = Duration::from_secs(10);

/// A fake CLI installed in its own temp dir.
pub struct Fake {
    pub dir: tempfile::TempDir,
    pub cli: FakeCli,
}

pub fn fake(script: Script) -> Fake {
    let dir = tempfile::tempdir().unwrap();
    let cli = script.install(dir.path()).unwrap();
    Fake { dir, cli }
}

impl Fake {
    /// Options that run this fake CLI.
    pub fn options(&self) -> Options {
        let mut options = Options::new().cli_path(&self.cli.program);
        for (k, v) in &self.cli.env {
            options = options.env(k, v);
        }
        options
    }

    /// A builder with short grace periods and timeouts.
    pub fn builder(&self) -> ClientBuilder {
        quick_builder(self.options()).control_timeout(SOON)
    }

    /// The stdin lines the fake received, parsed.
    pub fn received(&self) -> Vec<Value> {
        self.cli.recorded_lines()
    }

    /// The `request` objects of the control requests the client sent,
    /// after `initialize`.
    pub fn control_requests(&self) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|l| l["type"] == "control_request")
            .map(|l| l["request"].clone())
            .filter(|r| r["subtype"] != "initialize")
            .collect()
    }

    /// The control_response the SDK sent for the CLI's `request_id`.
    pub fn reply_to(&self, request_id: &str) -> Option<Value> {
        self.received()
            .into_iter()
            .find(|l| l["type"] == "control_response" && l["response"]["request_id"] == request_id)
    }

    /// Asserts the fake CLI's process is gone (reaped, not a zombie). Polls
    /// off the runtime's threads so a background shutdown can proceed.
    pub async fn assert_gone(&self, pid: u32) {
        let gone = tokio::task::spawn_blocking(move || wait_until_gone(pid, SOON))
            .await
            .unwrap();
        assert!(gone, "fake CLI {pid} still running");
    }
}

/// An `assistant` frame with one text block.
pub fn assistant(text: &str) -> Value {
    json!({"type": "assistant", "message": {"id": "msg_1", "type": "message", "role": "assistant",
        "model": "fake", "content": [{"type": "text", "text": text}], "stop_reason": null,
        "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}},
        "parent_tool_use_id": null, "session_id": "s-1", "uuid": "u-a"})
}

/// An `assistant` frame calling a tool.
pub fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "assistant", "message": {"id": "msg_2", "type": "message", "role": "assistant",
        "model": "fake", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}],
        "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}},
        "parent_tool_use_id": null, "session_id": "s-1", "uuid": "u-t"})
}

/// A `user` frame carrying a tool result.
pub fn tool_result(id: &str, text: &str) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": [
        {"tool_use_id": id, "type": "tool_result", "content": text, "is_error": false}]},
        "parent_tool_use_id": null, "session_id": "s-1", "uuid": "u-r"})
}

/// A `result` frame.
pub fn result(subtype: &str, text: &str) -> Value {
    json!({"type": "result", "subtype": subtype, "is_error": subtype != "success",
        "duration_ms": 5, "duration_api_ms": 1, "num_turns": 1, "session_id": "s-1",
        "result": text, "total_cost_usd": 0.001, "usage": {"input_tokens": 1, "output_tokens": 1},
        "uuid": "u-res"})
}

/// A `system/session_state_changed` frame.
pub fn state(state: &str) -> Value {
    json!({"type": "system", "subtype": "session_state_changed", "state": state,
        "session_id": "s-1", "uuid": "u-s"})
}

/// A control request from the CLI.
pub fn cli_request(id: &str, request: Value) -> Value {
    json!({"type": "control_request", "request_id": id, "request": request})
}

/// The script step that waits for our reply to the CLI's `id`.
pub fn expect_reply(id: &str) -> Value {
    json!({"op": "expect", "type": "control_response", "request_id": id, "timeout_ms": 10000})
}

/// A CLI path that runs `first` normally and `resumed` when given `--resume`.
pub fn resuming_cli(
    dir: &std::path::Path,
    first: &Script,
    resumed: &Script,
) -> (Options, FakeCli, FakeCli) {
    let a = first.install(dir).unwrap();
    let b = resumed.install(dir).unwrap();
    let env = |cli: &FakeCli, key: &str| cli.env.iter().find(|(k, _)| k == key).unwrap().1.clone();
    let wrapper = dir.join("claude-wrapper.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --resume*) \
             export FAKE_CLAUDE_SCRIPT='{}' FAKE_CLAUDE_RECORD='{}' FAKE_CLAUDE_PID_FILE='{}';; esac; done\n\
             exec '{}' \"$@\"\n",
            env(&b, "FAKE_CLAUDE_SCRIPT"),
            env(&b, "FAKE_CLAUDE_RECORD"),
            env(&b, "FAKE_CLAUDE_PID_FILE"),
            fake_cli_path().unwrap().display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut options = Options::new().cli_path(&wrapper);
    for (k, v) in &a.env {
        options = options.env(k, v);
    }
    (options, a, b)
}

/// A transcript entry of `session` that is also a frame the SDK can read
/// back (what a store-backed test mirrors, then restores).
pub fn mirrored_entry(session: &str, n: u32, text: &str) -> Value {
    json!({"type": "assistant", "uuid": format!("u-{n}"), "sessionId": session,
        "session_id": session, "parent_tool_use_id": null,
        "message": {"id": format!("msg_{n}"), "type": "message", "role": "assistant",
            "model": "fake", "content": [{"type": "text", "text": text}],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}}})
}

/// The `system/init` frame of `session`.
pub fn init(session: &str) -> Value {
    json!({"type": "system", "subtype": "init", "session_id": session,
        "cwd": "/", "tools": [], "model": "fake", "permissionMode": "default",
        "apiKeySource": "none", "uuid": "u-init"})
}

/// A resumed CLI that replays its session file (failing if it is missing,
/// as the real CLI's `--resume` would), then answers.
pub fn resume_reading(session_file: &std::path::Path) -> Script {
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit_file(session_file)
        .emit(result("success", "resumed from the store"))
}

/// A builder for `options` with short grace periods and start-up timeout.
pub fn quick_builder(options: Options) -> ClientBuilder {
    ClientBuilder::new(options)
        .grace(Duration::from_millis(300))
        .term_grace(Duration::from_millis(300))
        .initialize_timeout(SOON)
}

/// A file store's lock on one session, held as another writer would hold
/// it: the store's appends to that session wait until it is released.
pub struct HeldSessionLock(std::fs::File);

impl HeldSessionLock {
    /// Lets the store's waiting appends go on.
    pub fn release(&self) {
        rustix::fs::flock(&self.0, rustix::fs::FlockOperation::Unlock).unwrap();
    }
}

/// Takes the lock a [`claude_agent::store::FileStore`] under `store` uses
/// for `session` of `project` (`<store>/<project>/.meta/<session>.lock`).
pub fn hold_session_lock(store: &std::path::Path, project: &str, session: &str) -> HeldSessionLock {
    let meta = store.join(project).join(".meta");
    std::fs::create_dir_all(&meta).unwrap();
    let lock = std::fs::File::create(meta.join(format!("{session}.lock"))).unwrap();
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).unwrap();
    HeldSessionLock(lock)
}
