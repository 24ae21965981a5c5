#!/usr/bin/env bash
# Build weight, side by side: a hello-world crate (the library beside
# tokio) built cold in release, against the same crate on the Rust peers
# claude-agent-sdk-rs 0.6.4 and cc-sdk 0.8.1; plus this library with no
# default features, and the tool's default install (`cargo install --path
# cli`); and the floor: the same crate on the library's own dependencies
# (those of its default build, with its features) and none of its code,
# what any design on that runtime (ractor, tokio, serde_json) starts from.
# For each: the packages compiled, wall seconds and CPU seconds
# (user + sys of cargo and everything it ran), and the load average when
# the build started. Runs interleave the builds, so a busy patch of the
# machine does not land on one side only.
#
#   scripts/build-weight.sh              # 3 rounds
#   scripts/build-weight.sh --reps 1     # one round
#   scripts/build-weight.sh --only ours,sdkrs
#   scripts/build-weight.sh --before ../old --only ours,before,sdkrs
#                                        # and this library at another
#                                        # checkout (e.g. a git worktree of
#                                        # the commit before a change)
#
# Everything goes to a temporary directory (removed at the end; --keep to
# keep it). CARGO_HOME is the usual one, so nothing is downloaded inside the
# clock (every crate is fetched before the first build); CARGO_TARGET_DIR is
# fresh for every build. Prints one JSON line per build on stdout and the
# table on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

REPS=3
ONLY="ours,minimal,floor,sdkrs,ccsdk,tool"
KEEP=0
BEFORE=""
while [ $# -gt 0 ]; do
    case "$1" in
        --reps) REPS=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --before) BEFORE=$(cd "$2" && pwd); shift 2 ;;
        *) echo "usage: $0 [--reps N] [--only ours,before,minimal,floor,sdkrs,ccsdk,tool] [--before DIR] [--keep]" >&2; exit 2 ;;
    esac
done
case ",$ONLY," in
    *,before,*) [ -n "$BEFORE" ] || { echo "--only before needs --before DIR" >&2; exit 2; } ;;
esac

WORK=$(mktemp -d "${TMPDIR:-/tmp}/build-weight.XXXXXX")
cleanup() { if [ "$KEEP" = 0 ]; then rm -rf "$WORK"; else echo "kept $WORK" >&2; fi; }
trap cleanup EXIT
# A wrapper (sccache and the like) would make the builds warm.
unset RUSTC_WRAPPER CARGO_BUILD_RUSTC_WRAPPER CARGO_TARGET_DIR

# hello <name> <dependency line> <main body> [tokio features]
hello() {
    local dir=$WORK/$1 tokio_features=${4:-'"rt-multi-thread", "macros"'}
    mkdir -p "$dir/src"
    cat > "$dir/Cargo.toml" <<EOF
[package]
name = "hello-$1"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
tokio = { version = "1", features = [$tokio_features] }
$2

[workspace]
EOF
    cat > "$dir/src/main.rs" <<EOF
#[tokio::main]
async fn main() {
    $3
    println!("hello");
}
EOF
}

hello ours "claude-agent = { path = \"$REPO\" }" \
    'std::hint::black_box(claude_agent::client::ClientBuilder::new(claude_agent::options::Options::new()));'
if [ -n "$BEFORE" ]; then
    hello before "claude-agent = { path = \"$BEFORE\" }" \
        'std::hint::black_box(claude_agent::client::ClientBuilder::new(claude_agent::options::Options::new()));'
fi
hello minimal "claude-agent = { path = \"$REPO\", default-features = false }" \
    'std::hint::black_box(claude_agent::client::ClientBuilder::new(claude_agent::options::Options::new()));'
# The floor: the normal dependencies of the library's default build, with
# the features it asks of them (Cargo.toml, [workspace.dependencies]).
hello floor 'ractor = { version = "0.16", default-features = false, features = ["tokio_runtime"] }
tokio-util = { version = "0.7.16", features = ["rt"] }
futures = { version = "0.3", default-features = false, features = ["std", "async-await"] }
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["raw_value"] }
thiserror = "2"
tracing = "0.1"
rustix = { version = "1", features = ["process", "event"] }
memchr = "2.4"
bytes = "1.7.1"
libc = "0.2.183"' \
    'std::hint::black_box((serde_json::from_str::<serde_json::Value>("{}").is_ok(), ractor::ActorId::Local(1), tokio_util::sync::CancellationToken::new()));' \
    '"rt", "rt-multi-thread", "macros", "sync", "time", "io-util", "process", "signal"'
hello sdkrs 'claude-agent-sdk-rs = "=0.6.4"' \
    'std::hint::black_box(claude_agent_sdk_rs::ClaudeAgentOptions::builder().build());'
hello ccsdk 'cc-sdk = "=0.8.1"' \
    'std::hint::black_box(cc_sdk::ClaudeCodeOptions::default());'

label() {
    case "$1" in
        ours) echo "this library (default features)" ;;
        before) echo "this library at $BEFORE (default features)" ;;
        minimal) echo "this library (no default features)" ;;
        floor) echo "floor: its dependencies, none of its code" ;;
        sdkrs) echo "claude-agent-sdk-rs 0.6.4" ;;
        ccsdk) echo "cc-sdk 0.8.1" ;;
        tool) echo "the tool: cargo install --path cli" ;;
    esac
}

# Resolve and download everything first, outside the clock.
for b in ${ONLY//,/ }; do
    case "$b" in
        tool) cargo fetch --locked --manifest-path "$REPO/Cargo.toml" >/dev/null 2>&1 ;;
        *) cargo fetch --manifest-path "$WORK/$b/Cargo.toml" >/dev/null ;;
    esac
done

# build <name> <round>: one cold release build; prints its JSON line.
build() {
    local b=$1 round=$2 target=$WORK/target-$1-$2 log=$WORK/log-$1-$2
    local load
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    local cmd
    case "$b" in
        tool) cmd=(cargo install --locked --force --path "$REPO/cli" --root "$WORK/root-$round") ;;
        *) cmd=(cargo build --release --manifest-path "$WORK/$b/Cargo.toml") ;;
    esac
    if ! CARGO_TARGET_DIR=$target /usr/bin/time -f '%e %U %S' -o "$WORK/time-$b-$round" \
        "${cmd[@]}" >"$log" 2>&1; then
        echo "build of $b failed; see its log:" >&2
        tail -20 "$log" >&2
        exit 1
    fi
    local wall user sys crates
    read -r wall user sys < "$WORK/time-$b-$round"
    # Packages compiled, the hello crate (or the tool itself) excluded.
    crates=$(grep -c '^ *Compiling ' "$log" || true)
    crates=$((crates - 1))
    rm -rf "$target"
    printf '{"bench":"build_weight","build":"%s","round":%d,"crates":%d,"wall_s":%s,"cpu_s":%.2f,"load":"%s"}\n' \
        "$b" "$round" "$crates" "$wall" "$(echo "$user + $sys" | bc)" "$load"
}

RESULTS=$WORK/results.jsonl
: > "$RESULTS"
for round in $(seq 1 "$REPS"); do
    for b in ${ONLY//,/ }; do
        echo "round $round: $(label "$b") ..." >&2
        build "$b" "$round" | tee -a "$RESULTS"
    done
done

python3 - "$RESULTS" <<'EOF' >&2
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
names = {"ours": "this library (default features)", "before": "the same at --before DIR", "minimal": "this library (no default features)",
         "floor": "floor: its dependencies, none of its code",
         "sdkrs": "claude-agent-sdk-rs 0.6.4", "ccsdk": "cc-sdk 0.8.1", "tool": "the tool (cargo install --path cli)"}
order = [b for b in names if any(r["build"] == b for r in rows)]
med = {}
print()
print(f"{'build':<38} {'crates':>6} {'wall s (median)':>16} {'CPU s (median)':>15}  runs (wall/CPU s, load at start)")
for b in order:
    rs = [r for r in rows if r["build"] == b]
    wall = statistics.median(r["wall_s"] for r in rs)
    cpu = statistics.median(r["cpu_s"] for r in rs)
    med[b] = (rs[0]["crates"], wall, cpu)
    runs = "; ".join(f"{r['wall_s']:.0f}/{r['cpu_s']:.0f} ({r['load'].split()[0]})" for r in rs)
    print(f"{names[b]:<38} {rs[0]['crates']:>6} {wall:>16.1f} {cpu:>15.1f}  {runs}")
if "sdkrs" in med:
    c0, w0, p0 = med["sdkrs"]
    print("\nagainst claude-agent-sdk-rs 0.6.4 (targets: crates <= 1.1x, wall <= 2x):")
    for b in order:
        if b == "sdkrs":
            continue
        c, w, p = med[b]
        print(f"  {names[b]:<38} crates {c / c0:.2f}x  wall {w / w0:.2f}x  CPU {p / p0:.2f}x")
if "before" in med and "ours" in med:
    _, wb, pb = med["before"]
    _, wo, po = med["ours"]
    print(f"\nthis library against --before: wall {wo / wb:.3f}x  CPU {po / pb:.3f}x")
EOF
