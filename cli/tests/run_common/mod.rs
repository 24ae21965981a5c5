//! `claude-agent run --cli FAKE ARGS...`, for the tests of `run`.

use std::process::{Command, Output};

use crate::common::Fake;

/// Runs the tool's `run` against `fake` with `args`, to its end.
pub(crate) fn run(fake: &Fake, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.arg("run")
        .arg("--cli")
        .arg(&fake.cli.program)
        .args(args);
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}
