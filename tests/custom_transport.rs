//! A user's own `Transport` through `ClientBuilder::transport`: the factory
//! gets the computed CLI command and runs it over plain pipes, as a user
//! would run it over `ssh` or a container exec stream. Without signals the
//! ladder can only close stdin and then call the transport's kill.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use claude_agent::callbacks::{CallbackError, PermissionContext, allow};
use claude_agent::protocol::PermissionRequest;
use claude_agent::runtime::channel::{ChannelControl, Connection, Transport};
use claude_agent::{
    runtime::Escalation, runtime::StepReason, runtime::channel::ChannelError,
    runtime::process::ExitInfo, runtime::process::ProcessSpec,
};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::json;

/// The CLI command run over pipes by tokio, with no process group and no
/// signals: what the runtime sees of a remote process.
struct PipeTransport {
    command: ProcessSpec,
}

impl Transport for PipeTransport {
    fn kind(&self) -> &'static str {
        "pipe"
    }

    fn connect(self: Box<Self>) -> BoxFuture<'static, Result<Connection, ChannelError>> {
        Box::pin(async move {
            let spec = self.command;
            let mut cmd = tokio::process::Command::new(&spec.program);
            cmd.args(&spec.args);
            for key in &spec.env_remove {
                cmd.env_remove(key);
            }
            cmd.envs(spec.env.iter().map(|(k, v)| (k, v)));
            if let Some(cwd) = &spec.cwd {
                cmd.current_dir(cwd);
            }
            cmd.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .kill_on_drop(true);
            let mut child = cmd.spawn().map_err(|source| ChannelError::Spawn {
                program: spec.program.clone(),
                source,
            })?;
            let (Some(stdin), Some(stdout), Some(stderr)) =
                (child.stdin.take(), child.stdout.take(), child.stderr.take())
            else {
                return Err(ChannelError::Connect("no piped stdio".into()));
            };
            Ok(Connection {
                reader: Box::new(stdout),
                writer: Box::new(stdin),
                stderr: Some(Box::new(stderr)),
                control: Box::new(PipeControl { child }),
            })
        })
    }
}

struct PipeControl {
    child: tokio::process::Child,
}

impl ChannelControl for PipeControl {
    fn pid(&self) -> Option<u32> {
        self.child.id()
    }
    fn pgid(&self) -> Option<u32> {
        None
    }
    fn supports_signals(&self) -> bool {
        false
    }
    fn terminate(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn kill(&mut self) -> std::io::Result<()> {
        self.child.start_kill()
    }
    fn wait(&mut self) -> BoxFuture<'_, std::io::Result<ExitInfo>> {
        Box::pin(async move { self.child.wait().await.map(ExitInfo::from) })
    }
    fn try_wait(&mut self) -> std::io::Result<Option<ExitInfo>> {
        Ok(self.child.try_wait()?.map(ExitInfo::from))
    }
    fn cleanup(&mut self) -> std::io::Result<bool> {
        Ok(false)
    }
}

/// A factory that keeps every command it was given.
fn pipe_factory(
    seen: Arc<Mutex<Vec<ProcessSpec>>>,
) -> impl Fn(ProcessSpec) -> Box<dyn Transport> + Send + Sync + 'static {
    move |command: ProcessSpec| {
        seen.lock().unwrap().push(command.clone());
        Box::new(PipeTransport { command })
    }
}

#[tokio::test]
async fn a_users_transport_carries_typed_messages_and_callbacks() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(cli_request(
                "p1",
                json!({"subtype": "can_use_tool", "tool_name": "Bash",
                       "input": {"command": "ls"}, "tool_use_id": "toolu_p1"}),
            ))
            .step(expect_reply("p1"))
            .emit(assistant("over pipes"))
            .emit(result("success", "done")),
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let client = fake
        .builder()
        .transport(pipe_factory(seen.clone()))
        .can_use_tool(move |_req: PermissionRequest, _ctx: PermissionContext| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move { Ok::<_, CallbackError>(allow()) }
        })
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1, "one transport per connect");
        assert_eq!(seen[0].program, fake.cli.program);
        assert!(
            seen[0].args.iter().any(|a| a == "--permission-prompt-tool"),
            "the factory got the computed argv: {:?}",
            seen[0].args
        );
    }

    client.send("list files").await.unwrap();
    let mut kinds = Vec::new();
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next()).await.unwrap() {
        kinds.push(m.unwrap().kind());
    }
    drop(turn);
    assert_eq!(kinds, ["assistant", "result/success"]);
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(
        fake.reply_to("p1").unwrap()["response"]["response"]["behavior"],
        "allow"
    );

    let report = client.shutdown().await;
    assert_eq!(report.escalation, Escalation::None, "{report:?}");
    assert_eq!(report.exit.and_then(|e| e.code), Some(0));
    fake.assert_gone(pid).await;
}

#[tokio::test]
async fn without_signals_the_ladder_closes_stdin_then_calls_the_transports_kill() {
    let fake = fake(Script::new().expect_initialize().hang());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let client = fake
        .builder()
        .transport(pipe_factory(seen))
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    let report = client.shutdown().await;
    let steps: Vec<_> = report.steps.iter().map(|s| (s.to, s.why)).collect();
    assert_eq!(
        steps,
        [(Escalation::Kill, StepReason::GraceElapsed)],
        "no SIGTERM step over a channel without signals: {report:?}"
    );
    assert_eq!(report.escalation, Escalation::Kill);
    assert_eq!(report.exit.and_then(|e| e.signal), Some(9));
    fake.assert_gone(pid).await;
}
