//! Run a prompt and write the session's transcript, the evaluable artifact,
//! as JSON: every message, turns with their results, tool calls correlated
//! with the permission decisions made for them, and how the session closed.
//!
//! ```text
//! cargo run --example transcript_for_evals -- "What is 17 * 23?" transcript.json
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use claude_agent::callbacks::{AllowList, Decision};
use claude_agent::protocol::UserMessage;
use claude_agent::transcript::{EntryPoint, RunInfo, TranscriptRecorder};
use claude_agent::{Error, client::Client, options::Options};
use futures::StreamExt;

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let prompt = args
        .next()
        .unwrap_or_else(|| "What is 17 * 23? Check it with a Bash command.".to_owned());
    let out = PathBuf::from(args.next().unwrap_or_else(|| "transcript.json".to_owned()));

    let options = Options::new().max_turns(3);
    // What the eval will want to know about the setup, next to the outcome.
    let recorder = TranscriptRecorder::new(RunInfo {
        model: options.get_model().map(str::to_owned),
        permission_mode: options.get_permission_mode().map(|m| m.as_str().to_owned()),
        allowed_tools: options.get_allowed_tools().to_vec(),
        cwd: options.get_cwd().map(|p| p.display().to_string()),
        include_partial_messages: options.get_include_partial_messages(),
        ..RunInfo::new(EntryPoint::Client, "subprocess")
    });

    // Every callback decision goes into the transcript too.
    let on_decision = {
        let recorder = recorder.clone();
        Arc::new(move |d: &Decision| recorder.record_decision(d))
    };
    let connected = Client::builder(options)
        .can_use_tool(AllowList::new(["Bash", "Read"], Vec::<String>::new()))
        .on_decision(on_decision)
        .connect()
        .await;
    let client = match connected {
        Ok(client) => client,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(version) = client.server_info_raw()["claude_code_version"].as_str() {
        recorder.set_cli_version(version);
    }

    if let Err(e) = run(&client, &recorder, prompt).await {
        eprintln!("error: {e}");
        recorder.record_transport_error(&e.to_string());
    }
    recorder.record_close(&client.shutdown().await.runtime);

    let transcript = recorder.snapshot();
    if let Err(e) = std::fs::write(&out, transcript.to_json_pretty()) {
        eprintln!("error: cannot write {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    println!(
        "wrote {}: {} messages, {} turns, {} tool calls, incomplete: {}",
        out.display(),
        transcript.messages.len(),
        transcript.turns.len(),
        transcript.tool_calls.len(),
        transcript.incomplete
    );
    // An eval harness would treat an incomplete run as a failed sample.
    if transcript.incomplete {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

async fn run(client: &Client, recorder: &TranscriptRecorder, prompt: String) -> Result<(), Error> {
    // Record exactly the message that is sent: it opens the turn.
    let message = UserMessage::prompt(prompt);
    recorder.record_sent_prompt(&message);
    client.send(message).await?;
    let mut messages = client.receive_response();
    while let Some(item) = messages.next().await {
        match item {
            Ok(message) => recorder.record_message(&message),
            Err(Error::Parse(e)) => eprintln!("skipped a malformed line: {e}"),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
