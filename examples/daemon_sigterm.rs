//! A long-running service around one [`Client`] that stops cleanly on
//! SIGTERM or SIGINT (Ctrl-C): it stops taking work, interrupts the turn in
//! flight, runs the ordered shutdown and logs the report (how far the
//! escalation went, how the CLI exited) before exiting 0.
//!
//! The "work" is a job every few seconds; a real service would take it
//! from a queue.
//!
//! ```text
//! cargo run --example daemon_sigterm &
//! kill -TERM $!
//! ```

use std::process::ExitCode;
use std::time::Duration;

use claude_agent::protocol::Message;
use claude_agent::runtime::CancellationToken;
use claude_agent::{Error, client::Client, options::Options};
use futures::StreamExt;
use tokio::signal::unix::{SignalKind, signal};

/// How long a job may take to wind down after its interrupt.
const DRAIN: Duration = Duration::from_secs(10);

#[tokio::main]
async fn main() -> ExitCode {
    let stop = CancellationToken::new();
    if let Err(e) = watch_signals(stop.clone()) {
        eprintln!("error: cannot install signal handlers: {e}");
        return ExitCode::FAILURE;
    }

    // Generous grace periods: the CLI gets time to flush its session file.
    let connected = Client::builder(Options::new().max_turns(2))
        .grace(Duration::from_secs(5))
        .term_grace(Duration::from_secs(5))
        .connect()
        .await;
    let client = match connected {
        Ok(client) => client,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    log(&format!("ready, CLI pid {:?}", client.pid()));

    let mut ticks = tokio::time::interval(Duration::from_secs(5));
    let mut job = 0u64;
    loop {
        // Stop taking work as soon as a signal arrived.
        tokio::select! {
            biased;
            () = stop.cancelled() => break,
            _ = ticks.tick() => {}
        }
        job += 1;
        let prompt = format!("Job {job}: reply with one short sentence about the number {job}.");
        if let Err(e) = run_job(&client, &prompt, &stop).await {
            // The CLI died or the session broke: log it and shut down.
            log(&format!("job {job} failed: {e}"));
            break;
        }
    }

    log("shutting down");
    let report = client.shutdown().await;
    log(&format!(
        "cause {:?}, escalation {:?}, exit {}, {:?} total, {} handlers cancelled",
        report.cause,
        report.escalation,
        report.exit.map_or("unknown".to_owned(), |e| e.to_string()),
        report.timings.total,
        report.handlers_cancelled,
    ));
    ExitCode::SUCCESS
}

/// Cancels `stop` on the first SIGTERM or SIGINT.
fn watch_signals(stop: CancellationToken) -> std::io::Result<()> {
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    tokio::spawn(async move {
        let name = tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        };
        log(&format!("{name}: no new work"));
        stop.cancel();
    });
    Ok(())
}

/// Runs one turn. On `stop`, interrupts it and keeps reading (bounded by
/// [`DRAIN`]) so the turn's last messages and result are not lost.
async fn run_job(client: &Client, prompt: &str, stop: &CancellationToken) -> Result<(), Error> {
    log(&format!("> {prompt}"));
    client.send(prompt).await?;
    let mut messages = client.receive_response();
    let mut deadline = None;
    loop {
        let drained = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            () = stop.cancelled(), if deadline.is_none() => {
                deadline = Some(tokio::time::Instant::now() + DRAIN);
                match tokio::time::timeout(DRAIN, client.interrupt()).await {
                    Ok(Ok(_)) => log("interrupted the running turn"),
                    Ok(Err(e)) => log(&format!("interrupt failed: {e}")),
                    Err(_) => log("interrupt got no reply"),
                }
            }
            () = drained => {
                log("the turn did not end after its interrupt; shutting down anyway");
                return Ok(());
            }
            item = messages.next() => match item {
                None => return Ok(()),
                Some(Ok(Message::Result(r))) => log(&format!("-- {}", r.subtype)),
                Some(Ok(m)) => log(&m.kind()),
                Some(Err(Error::Parse(e))) => log(&format!("skipped a malformed line: {e}")),
                Some(Err(e)) => return Err(e),
            },
        }
    }
}

fn log(line: &str) {
    eprintln!("[daemon] {line}");
}
