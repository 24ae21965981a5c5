#!/usr/bin/env bash
# Sets up everything the test suite needs on a fresh machine, then runs it.
# Used as-is by CI (.ci/run) and by developers; see README.md.
#
# Real-CLI tests are #[ignore]d, so without the CLI cargo lists them as
# ignored. When the pinned Claude Code CLI is named by CLAUDE_AGENT_CLI or
# can be installed (npm), they run (--include-ignored) against it;
# CLAUDE_AGENT_REQUIRE_REAL_CLI=1 makes a missing CLI a failure.
#
# The library is built with its session-store features (postgres, redis).
# Their tests are #[ignore]d too and run with the real-CLI tests; each
# prints `skipped:` when its server (CLAUDE_AGENT_TEST_POSTGRES_URL,
# CLAUDE_AGENT_TEST_REDIS_URL) is unreachable, and fails instead under
# CLAUDE_AGENT_REQUIRE_SERVICES=1. The fleet tests (feature nats) need NATS
# JetStream (CLAUDE_AGENT_TEST_NATS_URL, default nats://127.0.0.1:4222) and
# /usr/sbin/nats-server for the ones that restart their own server.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 1; }

command -v cargo >/dev/null || die "cargo not found: install the Rust toolchain (https://rustup.rs)"

if [ -z "${CLAUDE_AGENT_CLI:-}" ]; then
  if cli=$(./scripts/install-cli.sh); then
    export CLAUDE_AGENT_CLI="$cli"
  elif [ "${CLAUDE_AGENT_REQUIRE_REAL_CLI:-}" = "1" ]; then
    die "the real Claude Code CLI is required but could not be installed"
  else
    echo "warning: the real Claude Code CLI could not be installed; real-CLI tests are ignored" >&2
  fi
fi

# The interop tests read and write session files with the official Python
# SDK; CLAUDE_AGENT_REQUIRE_PYTHON_SDK=1 makes a missing SDK a failure.
if [ -z "${CLAUDE_AGENT_PYTHON_SDK:-}" ]; then
  if py=$(./scripts/install-python-sdk.sh); then
    export CLAUDE_AGENT_PYTHON_SDK="$py"
  elif [ "${CLAUDE_AGENT_REQUIRE_PYTHON_SDK:-}" = "1" ]; then
    die "the official Python SDK is required but could not be installed"
  else
    echo "warning: the official Python SDK could not be installed; the interop tests skip" >&2
  fi
fi

# Arguments for the test harness: the caller's (after their `--`, if any),
# plus --include-ignored when there is a CLI to run the real-CLI tests on.
cargo_args=()
harness_args=()
seen_separator=0
for arg in "$@"; do
  if [ "$seen_separator" = 0 ] && [ "$arg" = "--" ]; then
    seen_separator=1
  elif [ "$seen_separator" = 0 ]; then
    cargo_args+=("$arg")
  else
    harness_args+=("$arg")
  fi
done
if [ -n "${CLAUDE_AGENT_CLI:-}" ]; then
  echo "real-CLI tests use $CLAUDE_AGENT_CLI"
  harness_args+=(--include-ignored)
fi

# Every optional feature whose code has tests: the stores, the fleet,
# telemetry, typed MCP tools, and the tool's full build.
features=(--features claude-agent/postgres,claude-agent/redis,claude-agent/nats,claude-agent/telemetry,claude-agent/schemars,claude-agent-cli/full)
cargo build --workspace --all-targets --locked "${features[@]}"
cargo test --workspace --locked "${features[@]}" "${cargo_args[@]}" -- "${harness_args[@]}"
