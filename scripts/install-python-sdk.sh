#!/usr/bin/env bash
# Installs the pinned official Python SDK (claude-agent-sdk) into a venv
# under .cli/python-sdk/ (ignored by git) and prints the path of the venv's
# python. The interop tests drive it to read and write session files the
# way the official SDK does. Exits non-zero, saying why, when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="0.2.189"
VENV=".cli/python-sdk"
PY="$VENV/bin/python"

installed() {
  [ -x "$PY" ] && [ "$("$PY" -c 'import claude_agent_sdk; print(claude_agent_sdk.__version__)' 2>/dev/null)" = "$VERSION" ]
}

if installed; then
  echo "$PWD/$PY"
  exit 0
fi

python=$(command -v python3 || true)
[ -n "$python" ] || { echo "install-python-sdk: python3 not found (install Python 3.10 or newer)" >&2; exit 1; }
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || { echo "install-python-sdk: $python is older than Python 3.10, which claude-agent-sdk needs" >&2; exit 1; }

mkdir -p "$(dirname "$VENV")"
[ -x "$PY" ] || "$python" -m venv "$VENV" >&2 \
  || { echo "install-python-sdk: cannot create a venv at $VENV (python3 -m venv failed)" >&2; exit 1; }
"$PY" -m pip install --disable-pip-version-check --quiet "claude-agent-sdk==$VERSION" >&2 \
  || { echo "install-python-sdk: pip could not install claude-agent-sdk==$VERSION" >&2; exit 1; }
if ! installed; then
  echo "install-python-sdk: $PY does not import claude_agent_sdk $VERSION" >&2
  exit 1
fi
echo "$PWD/$PY"
