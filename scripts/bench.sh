#!/usr/bin/env bash
# Runs every benchmark program (release build) against the fake CLI, each
# next to the Python Agent SDK from .bench/venv (scripts/bench-setup.sh),
# and writes bench/results/*.json (one array of figures per program, plus
# machine.json), bench/results/*.txt (the human tables) and the plot
# bench/results/benchmarks.{svg,png}.
#
#   scripts/bench.sh            # the issue's sizes (about 6-8 minutes on 2 cores)
#   scripts/bench.sh --quick    # small sizes, a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=()
FLOOD_ARGS=()
if [ "${1:-}" = "--quick" ]; then
    QUICK=(--quick)
    FLOOD_ARGS=(--frames 20000 --reps 1)
fi
PY=.bench/venv/bin/python
if [ ! -x "$PY" ]; then
    echo "no $PY: run scripts/bench-setup.sh first" >&2
    exit 1
fi
OUT=bench/results
mkdir -p "$OUT"

cargo build --release -p claude-agent-testkit --bin fake-claude
cargo build --release -p claude-agent-bench --bins
export CLAUDE_AGENT_FAKE_CLI="$PWD/target/release/fake-claude"
# The Python SDK would otherwise check the CLI's version; each program also
# sets this for its Python peer.
export CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK=1

to_json() { "$PY" -c 'import json,sys; print(json.dumps([json.loads(l) for l in sys.stdin if l.strip().startswith("{")], indent=1))'; }

NPROC=$(nproc) KERNEL=$(uname -r) RUSTC=$(rustc --version) \
PYV=$("$PY" -c 'import platform; print(platform.python_version())') \
SDK=$("$PY" -c 'import claude_agent_sdk; print(claude_agent_sdk.__version__)') \
MEM=$(free -g | awk '/^Mem:/ {print $2}') LOAD=$(cut -d' ' -f1-3 /proc/loadavg) \
CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') \
"$PY" -c 'import json,os; e=os.environ; print(json.dumps([{"nproc": int(e["NPROC"]), "mem_gib": int(e["MEM"]), "cpu": e["CPU"], "kernel": e["KERNEL"], "rustc": e["RUSTC"], "python": e["PYV"], "python_sdk": e["SDK"], "loadavg_at_start": e["LOAD"]}], indent=1))' > "$OUT/machine.json"
cat "$OUT/machine.json"

run() {
    local name=$1
    shift
    echo "== $name: $*" >&2
    local start=$SECONDS
    "$@" 2> >(tee "$OUT/$name.txt" >&2) | to_json > "$OUT/$name.json"
    echo "== $name took $((SECONDS - start)) s" >&2
}

run flood target/release/flood --python "$PY" "${FLOOD_ARGS[@]}"
run concurrent target/release/concurrent --python "$PY" "${QUICK[@]}"
run roundtrip target/release/roundtrip --python "$PY" "${QUICK[@]}"
run shutdown target/release/shutdown --python "$PY" "${QUICK[@]}"
if [ ${#QUICK[@]} -eq 0 ]; then
    run spawn_cost target/release/spawn_cost --sessions 1000
else
    run spawn_cost target/release/spawn_cost --sessions 100
fi

"$PY" bench/plot.py "$OUT"
