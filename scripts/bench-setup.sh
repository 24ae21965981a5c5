#!/usr/bin/env bash
# Sets up the benchmarks' peer: a Python venv in .bench/venv with the
# official Python Agent SDK (pinned: the version BENCHMARKS.md reports) and
# matplotlib for the plot. Idempotent; needs python3 (>= 3.10) with venv.
#
#   scripts/bench-setup.sh            # then scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SDK_VERSION="${CLAUDE_AGENT_SDK_VERSION:-0.2.189}"
MATPLOTLIB_VERSION="3.11.2"
PYTHON="${PYTHON:-python3}"
VENV=.bench/venv

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet \
    "claude-agent-sdk==$SDK_VERSION" "matplotlib==$MATPLOTLIB_VERSION"
"$VENV/bin/python" -c 'import claude_agent_sdk, matplotlib; print("claude-agent-sdk", claude_agent_sdk.__version__, "/ matplotlib", matplotlib.__version__)'
