#!/usr/bin/env bash
# Checks that every version requirement in the Cargo.toml files is a true
# lower bound: in a temporary copy of the tracked files, resolves each
# direct dependency to the lowest version its requirement allows (cargo's
# unstable -Z direct-minimal-versions, enabled on stable with
# RUSTC_BOOTSTRAP=1) and type-checks the whole workspace, every target and
# feature. A failure names a requirement to raise. Cargo.lock is untouched.
#
# Slow when cold (it builds a second, older set of dependencies); set
# CARGO_TARGET_DIR to keep that build between runs.
set -euo pipefail
cd "$(dirname "$0")/.."

copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
git ls-files -z | xargs -0 cp --parents -t "$copy"
cd "$copy"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$copy/target}"

RUSTC_BOOTSTRAP=1 cargo update -Z direct-minimal-versions
cargo check --workspace --all-targets --all-features
echo "minimal versions: every declared lower bound builds"
