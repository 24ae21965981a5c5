#!/usr/bin/env bash
# Sets up everything the test suite needs on a fresh machine, then runs it.
# Used as-is by CI (.ci/run) and by developers; see README.md.
#
# Real-CLI tests run against the pinned Claude Code CLI when it can be
# installed (npm); without it they are skipped with a visible message,
# unless CLAUDE_AGENT_REQUIRE_REAL_CLI=1 makes that a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 1; }

command -v cargo >/dev/null || die "cargo not found: install the Rust toolchain (https://rustup.rs)"

if [ -z "${CLAUDE_AGENT_CLI:-}" ]; then
  if cli=$(./scripts/install-cli.sh); then
    export CLAUDE_AGENT_CLI="$cli"
    echo "real-CLI tests use $cli"
  elif [ "${CLAUDE_AGENT_REQUIRE_REAL_CLI:-}" = "1" ]; then
    die "the real Claude Code CLI is required but could not be installed"
  else
    echo "warning: the real Claude Code CLI could not be installed; real-CLI tests will be skipped" >&2
  fi
fi

cargo build --workspace --all-targets --locked
cargo test --workspace --locked "$@"
