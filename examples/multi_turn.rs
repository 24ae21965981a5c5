//! A [`Client`] holds one connection open across turns: send a prompt, read
//! its messages up to the `result` with `receive_response`, send a follow-up
//! that relies on the first turn's context, then shut down in order and
//! print the [`SessionReport`](claude_agent::extensions::SessionReport).
//!
//! ```text
//! cargo run --example multi_turn
//! ```

use std::process::ExitCode;

use claude_agent::protocol::{ContentBlock, Message};
use claude_agent::{Error, client::Client, options::Options};
use futures::StreamExt;

#[tokio::main]
async fn main() -> ExitCode {
    let client = match Client::connect(Options::new().max_turns(1)).await {
        Ok(client) => client,
        Err(e) => return fail(&e),
    };
    println!("connected: pid {:?}", client.pid());

    let turns = [
        "Pick a number between 1 and 10 and tell me only the number.",
        "Now double the number you picked. Answer with the result only.",
    ];
    let mut outcome = ExitCode::SUCCESS;
    for prompt in turns {
        println!("> {prompt}");
        if let Err(e) = turn(&client, prompt).await {
            outcome = fail(&e);
            break;
        }
    }

    // EOF, grace, SIGTERM, grace, SIGKILL, reap: every step is reported.
    let report = client.shutdown().await;
    println!("shutdown: cause {:?}", report.cause);
    println!("  escalation: {:?}", report.escalation);
    match report.exit {
        Some(exit) => println!("  exit: {exit}"),
        None => println!("  exit: unknown"),
    }
    println!("  took {:?}", report.timings.total);
    outcome
}

/// One turn: send, then read until (and including) its `result`. The
/// connection stays open for the next turn.
async fn turn(client: &Client, prompt: &str) -> Result<(), Error> {
    client.send(prompt).await?;
    let mut messages = client.receive_response();
    while let Some(message) = messages.next().await {
        match message? {
            Message::Assistant(reply) => {
                for block in reply.message.blocks() {
                    if let ContentBlock::Text(text) = block {
                        println!("{}", text.text.as_deref().unwrap_or_default());
                    }
                }
            }
            Message::Result(result) => println!("-- turn ended: {}", result.subtype),
            _ => {}
        }
    }
    Ok(())
}

fn fail(e: &Error) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::FAILURE
}
