//! One-shot run with [`query`]: ask one question, print the answer's text as
//! it arrives, then what the run cost.
//!
//! ```text
//! cargo run --example quick_query -- "What is the capital of France?"
//! ```
//!
//! The CLI is found by discovery (`CLAUDE_AGENT_CLI`, `PATH`, the usual
//! install locations); without one the program prints why and exits 1.

use std::process::ExitCode;

use claude_agent::protocol::{ContentBlock, Message};
use claude_agent::{Error, client::query, options::Options};
use futures::StreamExt;

#[tokio::main]
async fn main() -> ExitCode {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "In one sentence: what does a borrow checker do?".to_owned());

    // `query` connects, sends the prompt, streams every typed message until
    // the run ends, and shuts the CLI down in order on its own.
    let mut messages = query(prompt, Options::new().max_turns(1));
    while let Some(item) = messages.next().await {
        match item {
            Ok(Message::Assistant(reply)) => {
                for block in reply.message.blocks() {
                    if let ContentBlock::Text(text) = block {
                        println!("{}", text.text.as_deref().unwrap_or_default());
                    }
                }
            }
            Ok(Message::Result(result)) => {
                // A `Number`, so an integer `0` round-trips; read it as f64.
                let cost = result.total_cost_usd.as_ref().and_then(|n| n.as_f64());
                println!(
                    "-- {} in {} ms, cost ${:.4}",
                    result.subtype,
                    result.duration_ms.unwrap_or_default(),
                    cost.unwrap_or_default()
                );
            }
            Ok(_) => {} // system, user (tool results), rate limits, ...
            // One malformed line is not fatal; the stream goes on.
            Err(Error::Parse(e)) => eprintln!("skipped a malformed line: {e}"),
            // The CLI is missing, crashed, timed out, ...: the error says
            // which, with the exit status and stderr tail when there is one.
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
