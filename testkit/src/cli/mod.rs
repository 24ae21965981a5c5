//! The fake CLI itself: argv and environment handling, then the script.
//! `fake-claude` is a thin `main` over [`run_fake_cli`].

mod base64;
mod exec;
mod frames;
mod input;
mod output;
mod rtt;
mod steps;
mod sys;

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

/// Exit status for a malformed script or an unknown `op`.
pub const EXIT_BAD_SCRIPT: i32 = 2;
/// Exit status when a step's file or process operation fails (not EPIPE).
pub const EXIT_IO: i32 = 3;
/// Exit status when an `expect` (or `expect_eof`) times out.
pub const EXIT_TIMEOUT: i32 = 4;

/// Env var: path of a JSON script file.
pub const ENV_SCRIPT: &str = "FAKE_CLAUDE_SCRIPT";
/// Env var: the script inline, as JSON.
pub const ENV_SCRIPT_JSON: &str = "FAKE_CLAUDE_SCRIPT_JSON";
/// Env var: file that receives every stdin line (plus `.argv`, `.env` and
/// `.ids`: `{"uid":..,"gid":..,"groups":[..]}` of the fake CLI process).
pub const ENV_RECORD: &str = "FAKE_CLAUDE_RECORD";
/// Env var: file that receives the fake CLI's pid at start.
pub const ENV_PID_FILE: &str = "FAKE_CLAUDE_PID_FILE";

/// Runs the fake Claude Code CLI in this process with its real argv and
/// environment, and returns the exit status for `main` to exit with.
///
/// Several steps end the process directly instead of returning (`exit`,
/// `crash`, EOF while expecting, a timeout, a host that hung up), exactly
/// as the real CLI would. Meant for the `fake-claude` binary only.
pub fn run_fake_cli() -> i32 {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if matches!(
        args.first().and_then(|a| a.to_str()),
        Some("-v" | "--version")
    ) {
        println!("{} (Claude Code)", frames::VERSION);
        return 0;
    }
    if args.first().and_then(|a| a.to_str()) == Some(crate::MCP_ECHO_ENV_ARG) {
        return crate::run_mcp_echo_env();
    }
    if let Some(path) = std::env::var_os(ENV_PID_FILE) {
        let path = Path::new(&path);
        if let Err(e) = write_atomic(path, std::process::id().to_string().as_bytes()) {
            output::note(&format!("writing pid file {} failed: {e}", path.display()));
        }
    }
    let record = std::env::var_os(ENV_RECORD).map(|p| record_start(Path::new(&p), &args));
    let script = match load_script() {
        Ok(s) => s,
        Err(msg) => {
            output::note(&format!("bad script: {msg}"));
            return EXIT_BAD_SCRIPT;
        }
    };
    let mut input = input::Input::new(record.flatten());
    exec::run(script, &mut input)
}

/// Parses a script as the fake CLI would; returns the number of steps.
#[cfg(test)]
pub(crate) fn parse_script(text: &str) -> Result<usize, String> {
    steps::parse(text).map(|s| s.steps.len())
}

/// Reads the script from the environment, or the default script.
fn load_script() -> Result<steps::Script, String> {
    if let Some(path) = std::env::var_os(ENV_SCRIPT) {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("reading {}: {e}", Path::new(&path).display()))?;
        return steps::parse(&text);
    }
    match std::env::var(ENV_SCRIPT_JSON) {
        Ok(text) => steps::parse(&text),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{ENV_SCRIPT_JSON} is not UTF-8")),
        Err(std::env::VarError::NotPresent) => Ok(steps::default_script()),
    }
}

/// Writes `<record>.argv` and `<record>.env`, and opens the stdin record
/// for appending.
fn record_start(record: &Path, args: &[OsString]) -> Option<std::fs::File> {
    let argv: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let env: serde_json::Map<String, serde_json::Value> = std::env::vars_os()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.to_string_lossy().into_owned().into(),
            )
        })
        .collect();
    let mut side = record.as_os_str().to_owned();
    side.push(".argv");
    let argv_res = write_atomic(
        Path::new(&side),
        serde_json::Value::from(argv).to_string().as_bytes(),
    );
    let mut side = record.as_os_str().to_owned();
    side.push(".env");
    let env_res = write_atomic(
        Path::new(&side),
        serde_json::Value::Object(env).to_string().as_bytes(),
    );
    let mut side = record.as_os_str().to_owned();
    side.push(".ids");
    let ids_res = write_atomic(Path::new(&side), ids_json().as_bytes());
    if let Err(e) = argv_res.and(env_res).and(ids_res) {
        output::note(&format!("writing argv/env/ids records failed: {e}"));
    }
    match OpenOptions::new().create(true).append(true).open(record) {
        Ok(f) => Some(f),
        Err(e) => {
            output::note(&format!("opening record {} failed: {e}", record.display()));
            None
        }
    }
}

/// The process's real uid, gid and supplementary groups, as JSON.
fn ids_json() -> String {
    use rustix::process::{getgid, getgroups, getuid};
    let groups: Vec<u32> = getgroups()
        .map(|g| g.into_iter().map(|g| g.as_raw()).collect())
        .unwrap_or_default();
    serde_json::json!({"uid": getuid().as_raw(), "gid": getgid().as_raw(), "groups": groups})
        .to_string()
}

/// Writes `bytes` to a temporary sibling and renames it over `path`, so a
/// test polling `path` never reads a half-written file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = Path::new(&tmp);
    let mut f = std::fs::File::create(tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(tmp, path)
}
