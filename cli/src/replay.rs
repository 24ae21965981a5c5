//! `claude-agent replay`: recorded stdout NDJSON through the typed parser.
//!
//! Every non-blank input line becomes one output line; bad input (a missing
//! file, binary noise, malformed JSON, a line over the limit) is reported and
//! counted, and the replay goes on with the next line. Lines over the limit
//! are skipped while streaming, so memory never grows with a bad line.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use claude_agent::protocol::{
    ControlRequestPayload, ControlResponseBody, Message, StdoutFrame, SystemMessage, parse_line,
};
use claude_agent_actors::framing::{DEFAULT_MAX_LINE_BYTES, Line, SyncLineReader};
use serde::Serialize;

use crate::render::Renderer;

/// A recorded session shipped with the tool, replayed when no FILE is given.
const SAMPLE_SESSION: &[u8] = include_bytes!("../../testdata/sample-session.ndjson");

/// Arguments of `claude-agent replay`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReplayArgs {
    /// One JSON object per frame, then a summary object.
    #[arg(long)]
    json: bool,
    /// Exit 1 when any frame was unknown or any line was an error.
    #[arg(long)]
    strict: bool,
    /// Lines longer than this many bytes are skipped and counted as errors.
    #[arg(long, default_value_t = DEFAULT_MAX_LINE_BYTES, value_name = "BYTES")]
    max_line_bytes: usize,
    /// Recorded stdout NDJSON files (`-` for standard input); with none, a
    /// built-in sample session.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Running totals, printed as the summary.
#[derive(Debug, Default)]
struct Totals {
    frames: u64,
    unknown: u64,
    errors: u64,
    /// Inputs that could not be opened or read to their end.
    unreadable: Vec<String>,
}

pub(crate) fn run(args: &ReplayArgs) -> ExitCode {
    let stdout = io::stdout().lock();
    let mut out = Output::new(BufWriter::new(stdout), args.json, args.files.len() > 1);
    let mut totals = Totals::default();
    let result = replay_all(args, &mut out, &mut totals).and_then(|()| {
        out.summary(&totals)?;
        out.flush()
    });
    match result {
        // A closed stdout (e.g. piped into `head`) ends the replay quietly.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("claude-agent replay: cannot write output: {e}");
            ExitCode::from(2)
        }
        // An input that could not be read is a failure whatever the mode:
        // the replay of the others still ran and was printed.
        Ok(()) if !totals.unreadable.is_empty() => {
            eprintln!(
                "claude-agent replay: could not read {}",
                totals.unreadable.join(", ")
            );
            ExitCode::from(2)
        }
        Ok(()) if args.strict && totals.unknown + totals.errors > 0 => ExitCode::from(1),
        Ok(()) => ExitCode::SUCCESS,
    }
}

fn replay_all<W: Write>(
    args: &ReplayArgs,
    out: &mut Output<W>,
    totals: &mut Totals,
) -> io::Result<()> {
    if args.files.is_empty() {
        return replay_one("<built-in sample>", SAMPLE_SESSION, args, out, totals);
    }
    for path in &args.files {
        let name = path.display().to_string();
        if path.as_os_str() == "-" {
            replay_one("<stdin>", io::stdin().lock(), args, out, totals)?;
            continue;
        }
        match File::open(path) {
            Ok(file) => replay_one(&name, file, args, out, totals)?,
            Err(e) => {
                totals.errors += 1;
                totals.unreadable.push(name.clone());
                eprintln!("claude-agent replay: cannot open {name}: {e}");
                out.file_error(&name, &format!("cannot open: {e}"))?;
            }
        }
    }
    Ok(())
}

fn replay_one<R: Read, W: Write>(
    name: &str,
    input: R,
    args: &ReplayArgs,
    out: &mut Output<W>,
    totals: &mut Totals,
) -> io::Result<()> {
    out.begin_file(name)?;
    let mut reader = SyncLineReader::new(input, args.max_line_bytes);
    loop {
        let line = match reader.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => return Ok(()),
            Err(e) => {
                // A read error (e.g. a directory, a device gone) ends this
                // file but not the replay.
                totals.errors += 1;
                totals.unreadable.push(name.to_owned());
                eprintln!("claude-agent replay: cannot read {name}: {e}");
                return out.file_error(name, &format!("cannot read: {e}"));
            }
        };
        let number = reader.line_number();
        let bytes = match &line {
            // A file whose last line lacks a newline is still a whole line.
            Line::Complete(b) | Line::TruncatedAtEof(b) => b,
            Line::Oversized { len, .. } => {
                totals.errors += 1;
                let why = format!(
                    "line of {len} bytes exceeds the limit of {} bytes; skipped",
                    args.max_line_bytes
                );
                out.error(name, number, &why)?;
                continue;
            }
        };
        if bytes.trim_ascii().is_empty() {
            continue;
        }
        match parse_line(bytes) {
            Ok(frame) => {
                totals.frames += 1;
                if is_unknown(&frame) {
                    totals.unknown += 1;
                }
                out.frame(name, number, &frame)?;
            }
            Err(e) => {
                totals.errors += 1;
                out.error(name, number, &e.to_string())?;
            }
        }
    }
}

/// Whether the frame's kind is one this version does not model.
fn is_unknown(frame: &StdoutFrame) -> bool {
    match frame {
        StdoutFrame::Message(Message::Unknown { .. })
        | StdoutFrame::Message(Message::System(SystemMessage::Other { .. })) => true,
        StdoutFrame::ControlRequest(r) => matches!(r.request, ControlRequestPayload::Other { .. }),
        StdoutFrame::ControlResponse(r) => matches!(r.response, ControlResponseBody::Other { .. }),
        _ => false,
    }
}

/// One `--json` output line: a frame, or an error (`kind` = `error`).
#[derive(Serialize)]
struct Record<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    /// Set on a frame whose kind this version does not model, so a reader
    /// finds each one without re-parsing.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    unknown: bool,
}

/// The last `--json` output line.
#[derive(Serialize)]
struct Summary<'a> {
    frames: u64,
    unknown: u64,
    errors: u64,
    unreadable: &'a [String],
}

/// Where replayed frames go: JSON objects or a readable transcript.
struct Output<W: Write> {
    w: W,
    json: bool,
    /// Name files in the output when more than one is replayed.
    name_files: bool,
    render: Renderer,
}

impl<W: Write> Output<W> {
    fn new(w: W, json: bool, name_files: bool) -> Self {
        Self {
            w,
            json,
            name_files,
            render: Renderer,
        }
    }

    fn begin_file(&mut self, name: &str) -> io::Result<()> {
        if self.name_files && !self.json {
            writeln!(self.w, "==> {name} <==")?;
        }
        Ok(())
    }

    fn frame(&mut self, file: &str, line: u64, frame: &StdoutFrame) -> io::Result<()> {
        if self.json {
            let kind = frame.kind();
            return self.json_line(&Record {
                line: Some(line),
                kind: &kind,
                error: None,
                file: self.name_files.then_some(file),
                unknown: is_unknown(frame),
            });
        }
        self.render.frame(&mut self.w, frame)
    }

    fn error(&mut self, file: &str, line: u64, why: &str) -> io::Result<()> {
        if self.json {
            return self.json_line(&Record {
                line: Some(line),
                kind: "error",
                error: Some(why),
                file: self.name_files.then_some(file),
                unknown: false,
            });
        }
        writeln!(self.w, "!! line {line}: {why}")
    }

    fn file_error(&mut self, file: &str, why: &str) -> io::Result<()> {
        if self.json {
            return self.json_line(&Record {
                line: None,
                kind: "error",
                error: Some(why),
                file: Some(file),
                unknown: false,
            });
        }
        writeln!(self.w, "!! {file}: {why}")
    }

    fn summary(&mut self, t: &Totals) -> io::Result<()> {
        if self.json {
            return self.json_line(&Summary {
                frames: t.frames,
                unknown: t.unknown,
                errors: t.errors,
                unreadable: &t.unreadable,
            });
        }
        writeln!(
            self.w,
            "-- {} frames, {} unknown, {} errors",
            t.frames, t.unknown, t.errors
        )
    }

    fn json_line<T: Serialize>(&mut self, v: &T) -> io::Result<()> {
        serde_json::to_writer(&mut self.w, v)?;
        self.w.write_all(b"\n")
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}
