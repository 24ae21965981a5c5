#!/usr/bin/env bash
# Installs the pinned Claude Code CLI into .cli/ (ignored by git) and prints
# the path of its executable. Exits non-zero, saying why, when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="2.1.332"
DIR=".cli"
BIN="$DIR/node_modules/.bin/claude"

command -v npm >/dev/null || { echo "install-cli: npm not found (install Node.js and npm)" >&2; exit 1; }

if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q "^$VERSION "; then
  echo "$PWD/$BIN"
  exit 0
fi

mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{"private": true}' > "$DIR/package.json"
# The package ships its native binary in a platform package; no postinstall
# step is needed for node_modules/.bin/claude to run.
npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error \
  "@anthropic-ai/claude-code@$VERSION" >&2
if ! "$BIN" --version 2>/dev/null | grep -q "^$VERSION "; then
  echo "install-cli: $BIN does not report version $VERSION" >&2
  exit 1
fi
echo "$PWD/$BIN"
