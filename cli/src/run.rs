//! `claude-agent run`: one session, streamed to the terminal or as NDJSON.
//!
//! Exit codes: 0 the run ended with a success result; 1 with an error
//! result; 2 the CLI, the transport or the session store failed (not found,
//! crashed, closed before a result, timed out, a store that cannot be opened);
//! 3 the run succeeded but transcript entries could not be persisted to the
//! session store (`--allow-store-loss` makes that 0; the loss is reported
//! either way); 64 usage error (also a malformed --store URL); 130 stopped by SIGINT, 143
//! by SIGTERM (after an ordered shutdown; a further signal during it cuts
//! its current wait short: SIGTERM to the CLI now, then SIGKILL).

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use claude_agent::callbacks::{AllowList, Decision};
use claude_agent::extensions::SessionReport;
use claude_agent::options::PermissionMode;
use claude_agent::protocol::{
    ApiStreamEvent, ContentBlock, Delta, Message, PermissionResult, ResultMessage, SystemMessage,
};
use claude_agent::transcript::SkippedLine;
use claude_agent::{Error, client::Client, options::Options};
use claude_agent_actors::Escalation;
use claude_agent_actors::framing::DEFAULT_MAX_LINE_BYTES;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::args::seconds;
use crate::render;
use crate::signals::{StopSignal, StopSignals};

/// Arguments of `claude-agent run`.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The prompt of the turn.
    prompt: String,
    /// Path to the `claude` executable (default: discovery).
    #[arg(long, value_name = "PATH")]
    cli: Option<PathBuf>,
    /// Working directory of the CLI.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Model to use.
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto.
    #[arg(long, value_name = "M", value_parser = parse_mode)]
    permission_mode: Option<PermissionMode>,
    /// Maximum agentic turns.
    #[arg(long, value_name = "N")]
    max_turns: Option<u32>,
    /// Allow this tool when the CLI asks (repeatable; `prefix*` matches).
    #[arg(long = "allow", value_name = "TOOL")]
    allow: Vec<String>,
    /// Deny this tool when the CLI asks (repeatable; wins over --allow).
    #[arg(long = "deny", value_name = "TOOL")]
    deny: Vec<String>,
    /// Stream partial messages (text as it is generated).
    #[arg(long)]
    include_partial: bool,
    /// Seconds the CLI gets to exit after EOF before SIGTERM.
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    grace: f64,
    /// Seconds the CLI gets after SIGTERM before SIGKILL.
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    term_grace: f64,
    /// Seconds to wait for `initialize` and for each control reply.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    /// Send an interrupt this many seconds after the prompt.
    #[arg(long, value_name = "SECS")]
    interrupt_after: Option<f64>,
    /// Write the session's transcript (JSON) to this file.
    #[arg(long, value_name = "FILE")]
    artifact: Option<PathBuf>,
    /// Stdout lines longer than this are skipped (and reported) without
    /// being held in memory.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LINE_BYTES)]
    max_line_bytes: usize,
    /// Mirror the transcript into this session store (memory:,
    /// file:///folder, postgres://..., redis://...).
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    #[command(flatten)]
    store_timeout: crate::store::StoreTimeout,
    #[command(flatten)]
    store_overflow: crate::store::StoreOverflowArg,
    /// Resume this session; with --store, restored from the store when the
    /// CLI's own files are missing.
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// Exit 0 even when transcript entries could not be persisted to the
    /// --store (they are still reported); without it such a run exits 3.
    #[arg(long)]
    allow_store_loss: bool,
    #[command(flatten)]
    faults: crate::fault::FaultArgs,
    /// One JSON object per line instead of a readable stream.
    #[arg(long)]
    json: bool,
}

fn parse_mode(s: &str) -> Result<PermissionMode, String> {
    PermissionMode::from_name(s).ok_or_else(|| {
        let names: Vec<_> = PermissionMode::ALL.iter().map(|m| m.as_str()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

/// The run succeeded but the session store lost transcript entries.
const EXIT_STORE_LOSS: u8 = 3;

/// A shutdown still running after this says what it waits for.
const SAY_WAITING_AFTER: Duration = Duration::from_secs(1);

/// How the run ended, for the exit code.
enum Outcome {
    Success,
    ErrorResult,
    Failed,
    /// A bad argument found only when used (a store URL).
    Usage,
    /// The run succeeded, but the store lost transcript entries.
    StoreLoss,
    /// SIGINT or SIGTERM: the session was shut down in order.
    Stopped(StopSignal),
}

pub(crate) fn run(args: RunArgs) -> ExitCode {
    let durations = seconds("grace", args.grace).and_then(|g| {
        let t = seconds("term-grace", args.term_grace)?;
        let i = args
            .interrupt_after
            .map(|s| seconds("interrupt-after", s))
            .transpose()?;
        let w = seconds("timeout", args.timeout)?;
        Ok(Timing {
            grace: g,
            term_grace: t,
            interrupt_after: i,
            timeout: w,
            store_timeout: args.store_timeout.get()?,
        })
    });
    let timing = match durations {
        Ok(d) => d,
        Err(e) => {
            eprintln!("claude-agent run: {e}");
            return ExitCode::from(crate::EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("claude-agent run: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    // Read before the runtime starts: it is file I/O.
    let interpreter = args
        .cli
        .as_deref()
        .and_then(crate::shebang::missing_interpreter)
        .map(|i| (args.cli.clone().unwrap_or_default(), i));
    let out = Printer::new(args.json, interpreter);
    let outcome = runtime.block_on(session(&args, timing, &out));
    ExitCode::from(match outcome {
        Outcome::Success => 0,
        Outcome::ErrorResult => 1,
        Outcome::Failed => 2,
        Outcome::Usage => crate::EXIT_USAGE,
        Outcome::StoreLoss => EXIT_STORE_LOSS,
        Outcome::Stopped(signal) => signal.exit_code(),
    })
}

/// The run's time settings, validated.
#[derive(Debug, Clone, Copy)]
struct Timing {
    grace: Duration,
    term_grace: Duration,
    interrupt_after: Option<Duration>,
    timeout: Duration,
    store_timeout: Duration,
}

/// The session's options from the command line: each flag given sets its
/// option, the rest keep the CLI's defaults.
fn run_options(args: &RunArgs) -> Options {
    let mut options = Options::new().include_partial_messages(args.include_partial);
    if let Some(cli) = &args.cli {
        options = options.cli_path(cli);
    }
    if let Some(cwd) = &args.cwd {
        options = options.cwd(cwd);
    }
    if let Some(model) = &args.model {
        options = options.model(model);
    }
    if let Some(mode) = args.permission_mode {
        options = options.permission_mode(mode);
    }
    if let Some(turns) = args.max_turns {
        options = options.max_turns(turns);
    }
    if let Some(session) = &args.resume {
        options = options.resume(session);
    }
    options
}

async fn session(args: &RunArgs, timing: Timing, out: &Printer) -> Outcome {
    let Timing {
        grace,
        term_grace,
        interrupt_after,
        timeout,
        store_timeout,
    } = timing;
    let options = run_options(args);
    let store = match &args.store {
        Some(url) => match crate::store::open(url, store_timeout, "run").await {
            Ok(store) => Some(store),
            Err(e) => {
                out.store_failure(&e.message);
                return if e.bad_url {
                    Outcome::Usage
                } else {
                    Outcome::Failed
                };
            }
        },
        None => None,
    };
    let mut stop = StopSignals::register();
    let printer = out.clone();
    let reporter = out.clone();
    let skipped = Arc::new(AtomicU64::new(0));
    let counted = skipped.clone();
    let mut builder = Client::builder(options);
    if let Some(store) = store {
        builder = builder
            .session_store(store)
            .store_overflow(args.store_overflow.get());
    }
    let client = args
        .faults
        .apply(builder)
        .max_line_bytes(args.max_line_bytes)
        .on_diagnostic(move |d| {
            if let Some(line) = SkippedLine::from_diagnostic(d) {
                counted.fetch_add(1, Ordering::Relaxed);
                reporter.skipped(&line);
            }
        })
        .can_use_tool(AllowList::new(args.allow.clone(), args.deny.clone()))
        .on_decision(Arc::new(move |d: &Decision| printer.decision(d)))
        .grace(grace)
        .term_grace(term_grace)
        .initialize_timeout(timeout)
        .control_timeout(timeout)
        .transcript(args.artifact.is_some())
        .connect()
        .await;
    let client = match client {
        Ok(c) => c,
        Err(e) => {
            out.failure(&e);
            return Outcome::Failed;
        }
    };
    if let Err(e) = client.send(args.prompt.as_str()).await {
        out.failure(&e);
        out.shutdown(&client.shutdown().await, skipped.load(Ordering::Relaxed));
        return Outcome::Failed;
    }
    let _interrupter = interrupt_after.map(|after| {
        let c = client.clone();
        tokio_util::task::AbortOnDropHandle::new(tokio::spawn(async move {
            tokio::time::sleep(after).await;
            let _ = c.interrupt().await;
        }))
    });
    let mut outcome = Outcome::Failed;
    let mut saw_result = false;
    let mut turn = client.receive_response();
    let mut streamed = HashSet::new();
    loop {
        let item = tokio::select! {
            item = turn.next() => item,
            signal = stop.recv() => {
                out.note(&format!(
                    "{}: shutting the session down (again to cut the wait short)",
                    signal.name()
                ));
                outcome = Outcome::Stopped(signal);
                break;
            }
        };
        let Some(item) = item else { break };
        match item {
            Ok(message) => {
                if let Message::Result(r) = &message {
                    saw_result = true;
                    outcome = if r.is_error() {
                        Outcome::ErrorResult
                    } else {
                        Outcome::Success
                    };
                }
                out.message(&message, &mut streamed);
            }
            // A line that fails to parse is reported; the run goes on.
            Err(Error::Parse(e)) => {
                skipped.fetch_add(1, Ordering::Relaxed);
                out.skipped_message(&e.to_string());
            }
            Err(e) => {
                out.failure(&e);
                break;
            }
        }
    }
    drop(turn);
    if !saw_result && !matches!(outcome, Outcome::Stopped(_)) {
        outcome = Outcome::Failed;
    }
    // EOF now, and print what trails the result (the runtime keeps reading
    // stdout until it ends, so nothing printed after the result is lost).
    // Signals stay honoured: each one during the shutdown cuts its current
    // wait short (SIGTERM to the CLI now, then SIGKILL).
    let closing = {
        let c = client.clone();
        tokio::spawn(async move { c.shutdown().await })
    };
    let trailing = async {
        if saw_result {
            let mut rest = client.receive_messages();
            while let Some(Ok(message)) = rest.next().await {
                out.message(&message, &mut streamed);
            }
        }
        client.shutdown().await
    };
    tokio::pin!(trailing);
    let slow = tokio::time::sleep(SAY_WAITING_AFTER);
    tokio::pin!(slow);
    let mut said_waiting = false;
    let report = loop {
        tokio::select! {
            report = &mut trailing => break report,
            () = &mut slow, if !said_waiting => {
                said_waiting = true;
                // Say what the wait is for: the CLI, or (once it ended) the
                // session store still saving what the CLI wrote.
                let cli_ended = client.session().report().is_some();
                out.note(&if cli_ended && args.store.is_some() {
                    format!(
                        "the CLI exited; waiting for the session store to save the rest of \
                         the transcript (up to {:.1} s)",
                        claude_agent::store::mirror::DEFAULT_FLUSH_DEADLINE.as_secs_f64()
                    )
                } else {
                    format!(
                        "waiting for the CLI to exit (up to {:.1} s); Ctrl-C to stop it now",
                        (grace + term_grace).as_secs_f64()
                    )
                });
            }
            signal = stop.recv() => {
                if !matches!(outcome, Outcome::Stopped(_)) {
                    outcome = Outcome::Stopped(signal);
                }
                client.hurry();
                out.note(&format!(
                    "{}: cutting the shutdown short (SIGTERM to the CLI, then SIGKILL)",
                    signal.name()
                ));
            }
        }
    };
    drop(closing);
    if let Some(path) = &args.artifact {
        if let Err(e) = write_artifact(path, &client) {
            out.note(&format!(
                "cannot write the artifact {}: {e}",
                path.display()
            ));
        }
    }
    out.shutdown(&report, skipped.load(Ordering::Relaxed));
    // No silent loss: a run whose transcript the store did not fully keep
    // does not exit 0, unless the user said that is fine.
    let lost = report.mirror_unpersisted.unwrap_or(0);
    if lost > 0 && matches!(outcome, Outcome::Success) && !args.allow_store_loss {
        out.note(&format!(
            "{lost} transcript entries were not persisted to the session store; \
             exiting {EXIT_STORE_LOSS} (--allow-store-loss to exit 0)"
        ));
        return Outcome::StoreLoss;
    }
    outcome
}

fn write_artifact(path: &PathBuf, client: &Client) -> std::io::Result<()> {
    let Some(transcript) = client.transcript() else {
        return Ok(());
    };
    std::fs::write(path, transcript.to_json_pretty())
}

/// Writes to stdout (and failures to stderr), one line at a time, from the
/// main loop and from callback tasks alike.
#[derive(Clone)]
struct Printer {
    json: bool,
    /// `--cli` and the missing interpreter its `#!` line names, if so.
    interpreter: Option<(PathBuf, PathBuf)>,
}

impl Printer {
    fn new(json: bool, interpreter: Option<(PathBuf, PathBuf)>) -> Self {
        Self { json, interpreter }
    }

    fn line(&self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        // A closed stdout must not stop the session's shutdown.
        let _ = writeln!(stdout, "{text}");
        let _ = stdout.flush();
    }

    fn message(&self, m: &Message, streamed: &mut HashSet<String>) {
        if self.json {
            let mut v = json!({"kind": m.kind()});
            if let (Ok(text), Some(obj)) = (m.to_json(), v.as_object_mut()) {
                let raw: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                obj.insert("message".into(), raw);
            }
            return self.line(&v.to_string());
        }
        match m {
            Message::StreamEvent(e) => {
                if let ApiStreamEvent::ContentBlockDelta(d) = &e.event {
                    if let Some(Delta::Text(t)) = &d.delta {
                        if let Some(id) = &e.api_message_id {
                            streamed.insert(id.clone());
                        }
                        let mut stdout = std::io::stdout().lock();
                        let _ = write!(stdout, "{}", t.text.as_deref().unwrap_or(""));
                        let _ = stdout.flush();
                    }
                }
            }
            Message::Assistant(a) => {
                let id = a.message.id.clone().unwrap_or_default();
                for block in a.message.blocks() {
                    match block {
                        // Already printed delta by delta: end its line only.
                        ContentBlock::Text(_) if streamed.contains(&id) => self.line(""),
                        ContentBlock::Text(t) => self.line(t.text.as_deref().unwrap_or("")),
                        ContentBlock::ToolUse(t) => self.line(&format!(
                            "[tool] {} ({}) {}",
                            t.name.as_deref().unwrap_or("?"),
                            t.id.as_deref().unwrap_or("?"),
                            t.input.as_ref().map(Value::to_string).unwrap_or_default()
                        )),
                        _ => {}
                    }
                }
            }
            Message::User(_) => {
                let mut buf = Vec::new();
                let frame = claude_agent::protocol::StdoutFrame::Message(m.clone());
                if render::Renderer.frame(&mut buf, &frame).is_ok() {
                    let text = String::from_utf8_lossy(&buf);
                    self.line(text.trim_end().trim_start_matches("[user] "));
                }
            }
            Message::Result(r) => self.line(&result_line(r)),
            Message::System(SystemMessage::MirrorError(m)) => {
                self.note(&crate::store::mirror_error_line(m));
            }
            // Otherwise a failing API looks like a hang.
            Message::System(SystemMessage::ApiRetry(r)) => self.note(&render::retry_line(r)),
            _ => {}
        }
    }

    fn decision(&self, d: &Decision) {
        let Decision::Permission {
            tool_use_id,
            tool_name,
            result,
        } = d
        else {
            return;
        };
        let (behavior, message) = match result {
            PermissionResult::Allow { .. } => ("allow", None),
            PermissionResult::Deny { message, .. } => ("deny", Some(message.clone())),
            _ => ("other", None),
        };
        if self.json {
            return self.line(
                &json!({"kind": "permission", "tool_name": tool_name, "tool_use_id": tool_use_id,
                    "behavior": behavior, "message": message})
                .to_string(),
            );
        }
        let tool = tool_name.as_deref().unwrap_or("?");
        match message {
            Some(m) => self.line(&format!("[permission] deny {tool}: {m}")),
            None => self.line(&format!("[permission] allow {tool}")),
        }
    }

    fn note(&self, text: &str) {
        eprintln!("claude-agent run: {text}");
    }

    /// Human mode: one line on stderr. JSON mode: that line too, and one
    /// object on stdout saying what failed, so a consumer of the stream is
    /// never left with nothing.
    fn failure(&self, e: &Error) {
        // The OS says a script whose interpreter is missing is not found.
        if let (true, Some((cli, interpreter))) = (e.is_cli_not_found(), &self.interpreter) {
            let message = format!(
                "the CLI {} cannot start: its #! line names the interpreter {}, which does not exist",
                cli.display(),
                interpreter.display()
            );
            self.note(&message);
            if self.json {
                self.line(
                    &json!({"kind": "error", "error": "interpreter_not_found", "message": message,
                        "interpreter": interpreter.display().to_string(), "causes": [], "exit": null})
                    .to_string(),
                );
            }
            return;
        }
        // With its causes: "could not load X" alone hides the corrupt row.
        eprintln!("claude-agent run: {}", crate::store::with_causes(e));
        if self.json {
            let mut causes = Vec::new();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                causes.push(s.to_string());
                source = s.source();
            }
            let what = if e.is_cli_not_found() {
                "cli_not_found"
            } else if e.is_timeout() {
                "timeout"
            } else if e.is_closed() {
                "cli_exited"
            } else if e.is_invalid_options() {
                "invalid_options"
            } else {
                "failed"
            };
            self.line(
                &json!({"kind": "error", "error": what, "message": e.to_string(), "causes": causes,
                    "exit": e.exit()})
                .to_string(),
            );
        }
    }

    /// The session store could not be opened: one line on stderr, and in
    /// JSON mode an `error` object too.
    fn store_failure(&self, message: &str) {
        self.note(message);
        if self.json {
            self.line(&json!({"kind": "error", "error": "store", "message": message}).to_string());
        }
    }

    /// A stdout line the runtime skipped: one line on stderr, or a
    /// `diagnostic` object in the JSON stream.
    fn skipped(&self, line: &SkippedLine) {
        let prefix: String = line.prefix.chars().take(80).collect();
        if self.json {
            return self.line(
                &json!({"kind": "diagnostic", "diagnostic": "line_skipped", "reason": line.reason, "len": line.len, "prefix": prefix})
                    .to_string(),
            );
        }
        let len = line
            .len
            .map_or_else(String::new, |n| format!(", {n} bytes"));
        self.note(&format!(
            "skipped a stdout line ({}{len}): {prefix}",
            line.reason.replace('_', " ")
        ));
    }

    /// A JSON line that did not fit its message type.
    fn skipped_message(&self, why: &str) {
        if self.json {
            return self.line(
                &json!({"kind": "diagnostic", "diagnostic": "message_skipped", "reason": "invalid", "message": why})
                    .to_string(),
            );
        }
        self.note(&format!("skipped a malformed message: {why}"));
    }

    fn shutdown(&self, report: &SessionReport, skipped_lines: u64) {
        let escalation = match report.escalation {
            Escalation::None => "none",
            Escalation::Term => "term",
            Escalation::Kill => "kill",
        };
        if self.json {
            let mut v = serde_json::to_value(report).unwrap_or_else(|_| json!({}));
            if let Some(obj) = v.as_object_mut() {
                obj.insert("kind".into(), json!("shutdown"));
                obj.insert("skipped_lines".into(), json!(skipped_lines));
            }
            return self.line(&v.to_string());
        }
        if skipped_lines > 0 {
            self.note(&format!("{skipped_lines} stdout line(s) skipped"));
        }
        if let Some(counts) = crate::store::mirror_counts(report) {
            self.note(&counts);
        }
        if report.escalation != Escalation::None {
            self.note(&format!("the CLI had to be stopped with {escalation}"));
        }
    }
}

fn result_line(r: &ResultMessage) -> String {
    let cost = r
        .total_cost_usd
        .as_ref()
        .and_then(|n| n.as_f64())
        .map_or_else(|| "?".to_owned(), |c| format!("${c:.4}"));
    format!(
        "[result] {} after {} turn(s), cost {cost}",
        r.subtype,
        r.num_turns
            .map_or_else(|| "?".to_owned(), |n| n.to_string()),
    )
}
