#!/usr/bin/env bash
# Sets up everything the test suite needs on a fresh machine, then runs it.
# Used as-is by CI (.ci/run) and by developers; see README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 1; }

command -v cargo >/dev/null || die "cargo not found: install the Rust toolchain (https://rustup.rs)"

# The protocol tests read the real CLI transcripts in ../shared/fixtures; they
# fail loudly (not skip) when that folder is missing.
[ -d ../shared/fixtures ] || echo "warning: ../shared/fixtures not found; fixture tests will fail" >&2

cargo build --workspace --all-targets --locked
cargo test --workspace --locked "$@"
