//! Runs the steps of a parsed script, one after the other.

use serde_json::Value;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::input::{Input, Wait};
use super::output;
use super::steps::{OnEnd, Script, Step, StreamName};
use super::{EXIT_IO, EXIT_TIMEOUT, base64, frames, rtt, sys};

/// Runs `script` to its end; returns the exit status (steps such as `exit`,
/// `crash` or an EOF while expecting end the process directly).
pub(crate) fn run(script: Script, input: &mut Input) -> i32 {
    for step in script.steps {
        run_step(step, input);
    }
    match script.on_end {
        OnEnd::Exit => 0,
        OnEnd::WaitEof => {
            input.wait_for(None, true, &|_| false);
            0
        }
    }
}

fn deadline(timeout_ms: Option<u64>) -> Option<Instant> {
    timeout_ms.map(|ms| Instant::now() + Duration::from_millis(ms))
}

fn field<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

fn run_step(step: Step, input: &mut Input) {
    match step {
        Step::Expect {
            type_,
            subtype,
            request_id,
            reply,
            reply_error,
            no_reply,
            timeout_ms,
        } => {
            let want = |v: &Value| {
                if field(v, "/type") != Some(type_.as_str()) {
                    return false;
                }
                let (sub_at, id_at) = match type_.as_str() {
                    "control_request" => ("/request/subtype", "/request_id"),
                    "control_response" => ("/response/subtype", "/response/request_id"),
                    _ => ("/subtype", "/request_id"),
                };
                subtype
                    .as_deref()
                    .is_none_or(|s| field(v, sub_at) == Some(s))
                    && request_id
                        .as_deref()
                        .is_none_or(|id| field(v, id_at) == Some(id))
            };
            let matched = match input.wait_for(deadline(timeout_ms), false, &want) {
                Wait::Matched(v) => v,
                Wait::Eof => std::process::exit(0),
                Wait::Timeout => {
                    output::note(&format!(
                        "timed out after {} ms expecting {type_} {}",
                        timeout_ms.unwrap_or(0),
                        subtype.as_deref().unwrap_or("")
                    ));
                    std::process::exit(EXIT_TIMEOUT)
                }
            };
            if type_ != "control_request" || no_reply {
                return;
            }
            let id = matched.get("request_id").cloned().unwrap_or(Value::Null);
            let is_init = field(&matched, "/request/subtype") == Some("initialize");
            match (reply_error, reply) {
                (Some(msg), _) => output::frame(&frames::error(&id, &msg)),
                (None, Some(reply)) => output::frame(&frames::success(&id, reply)),
                (None, None) if is_init => {
                    output::frame(&frames::success(&id, frames::server_info()));
                }
                (None, None) => {}
            }
        }
        Step::ExpectEof { timeout_ms } => {
            if let Wait::Timeout = input.wait_for(deadline(timeout_ms), true, &|_| false) {
                output::note("timed out expecting stdin EOF");
                std::process::exit(EXIT_TIMEOUT);
            }
        }
        Step::Emit { frame, frames } => {
            for f in frame.into_iter().chain(frames.into_iter().flatten()) {
                output::frame(&f);
            }
        }
        Step::EmitRaw { data, base64: b64 } => {
            let bytes = match (data, b64) {
                (Some(d), _) => d.into_bytes(),
                // Validated before the run started.
                (None, Some(b)) => base64::decode(&b).unwrap_or_default(),
                (None, None) => Vec::new(),
            };
            output::stdout_bytes(&bytes);
        }
        Step::EmitFile { path, repeat } => emit_file(&path, repeat),
        Step::EmitBigLine { bytes, request_id } => emit_big_line(bytes, request_id.as_deref()),
        Step::Flood {
            stream,
            line,
            frame,
            count,
        } => {
            let mut line = match (line, frame) {
                (Some(l), _) => l.into_bytes(),
                (None, f) => f.unwrap_or_default().to_string().into_bytes(),
            };
            line.push(b'\n');
            flood(stream, &line, count);
        }
        Step::Sleep { ms } => std::thread::sleep(Duration::from_millis(ms)),
        Step::Stderr { text } => output::stderr_bytes(format!("{text}\n").as_bytes()),
        Step::WriteFile { path, content } => {
            let res = std::fs::File::create(&path).and_then(|mut f| {
                f.write_all(content.as_bytes())?;
                f.sync_all()
            });
            if let Err(e) = res {
                output::note(&format!("write_file {} failed: {e}", path.display()));
                std::process::exit(EXIT_IO);
            }
        }
        Step::Exit { code } => std::process::exit(code),
        Step::Crash { signal } => {
            sys::die_by_signal(sys::signal_number(&signal).unwrap_or(libc::SIGKILL))
        }
        Step::IgnoreSignal { signal } => {
            if let Some(Err(e)) = sys::signal_number(&signal).map(sys::ignore_signal) {
                output::note(&format!("ignoring {signal} failed: {e}"));
            }
        }
        Step::WaitFile { path, timeout_ms } => {
            let until = deadline(timeout_ms);
            while !path.exists() {
                if until.is_some_and(|d| Instant::now() >= d) {
                    output::note(&format!("wait_file: {} never appeared", path.display()));
                    std::process::exit(EXIT_TIMEOUT);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Step::Hang => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
        Step::SpawnGrandchild {
            pid_file,
            detach_stdio,
        } => spawn_grandchild(&pid_file, detach_stdio),
        Step::CloseStdout => {
            if let Err(e) = sys::close_stdout() {
                output::note(&format!("close_stdout failed: {e}"));
            }
        }
        Step::Auto { rules } => input.add_rules(rules),
        Step::Turn { text, session_id } => turn(input, &text, session_id.as_deref()),
        Step::LoopTurns { text, session_id } => loop {
            turn(input, &text, session_id.as_deref());
        },
        Step::PermissionRtt {
            count,
            tool,
            out,
            interval_ms,
            timeout_ms,
        } => rtt::run(
            input,
            &rtt::Params {
                count,
                tool: &tool,
                out: &out,
                interval: Duration::from_millis(interval_ms),
                timeout_ms,
            },
        ),
    }
}

/// Waits for the next `user` line and answers it with one turn's frames.
fn turn(input: &mut Input, text: &str, session_id: Option<&str>) {
    let is_user = |v: &Value| field(v, "/type") == Some("user");
    match input.wait_for(None, false, &is_user) {
        Wait::Matched(_) => {}
        Wait::Eof | Wait::Timeout => std::process::exit(0),
    }
    let started = Instant::now();
    let sid = session_id.unwrap_or(frames::DEFAULT_SESSION_ID);
    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    for f in frames::turn(text, sid, ms) {
        output::frame(&f);
    }
}

fn emit_file(path: &Path, repeat: u64) {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            output::note(&format!("emit_file {} failed: {e}", path.display()));
            std::process::exit(EXIT_IO);
        }
    };
    let mut data = data;
    if !data.is_empty() && !data.ends_with(b"\n") {
        data.push(b'\n');
    }
    for _ in 0..repeat {
        output::stdout_bytes(&data);
    }
}

/// Writes exactly `total` bytes (newline included) in fixed-size chunks,
/// so a multi-gigabyte line never exists in memory.
fn emit_big_line(total: u64, request_id: Option<&str>) {
    let (prefix, suffix) = match request_id {
        Some(id) => (
            format!(
                r#"{{"type":"control_request","request_id":{},"request":{{"subtype":"can_use_tool","input":{{"blob":""#,
                Value::from(id)
            ),
            "\"}}}\n",
        ),
        None => (
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":""#.to_owned(),
            "\"}]}}\n",
        ),
    };
    let fixed = (prefix.len() + suffix.len()) as u64;
    let mut pad = total.saturating_sub(fixed);
    let chunk = [b'x'; 64 * 1024];
    let mut out = std::io::stdout().lock();
    let res = (|| {
        out.write_all(prefix.as_bytes())?;
        while pad > 0 {
            let n = pad.min(chunk.len() as u64) as usize;
            out.write_all(&chunk[..n])?;
            pad -= n as u64;
        }
        out.write_all(suffix.as_bytes())?;
        out.flush()
    })();
    if let Err(e) = res {
        output::fail_write("stdout", &e);
    }
}

fn flood(stream: StreamName, line: &[u8], count: u64) {
    fn go(w: impl Write, line: &[u8], count: u64) -> std::io::Result<()> {
        let mut w = BufWriter::with_capacity(64 * 1024, w);
        for _ in 0..count {
            w.write_all(line)?;
        }
        w.flush()
    }
    let (name, res) = match stream {
        StreamName::Stdout => ("stdout", go(std::io::stdout().lock(), line, count)),
        StreamName::Stderr => ("stderr", go(std::io::stderr().lock(), line, count)),
    };
    if let Err(e) = res {
        output::fail_write(name, &e);
    }
}

/// Starts a copy of ourselves running a `hang` script in our own process
/// group (no setsid/setpgid), and does not wait for it.
fn spawn_grandchild(pid_file: &Path, detach_stdio: bool) {
    let exe = std::env::current_exe().unwrap_or_else(|_| "/proc/self/exe".into());
    let mut cmd = Command::new(exe);
    cmd.env_remove("FAKE_CLAUDE_SCRIPT")
        .env_remove("FAKE_CLAUDE_RECORD")
        .env_remove("FAKE_CLAUDE_PID_FILE")
        .env("FAKE_CLAUDE_SCRIPT_JSON", r#"[{"op":"hang"}]"#);
    if detach_stdio {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
    }
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            output::note(&format!("spawn_grandchild failed: {e}"));
            std::process::exit(EXIT_IO);
        }
    };
    if let Err(e) = super::write_atomic(pid_file, child.id().to_string().as_bytes()) {
        output::note(&format!("writing {} failed: {e}", pid_file.display()));
        std::process::exit(EXIT_IO);
    }
    // Dropping a std Child neither kills nor waits: exactly what we want.
    drop(child);
}
