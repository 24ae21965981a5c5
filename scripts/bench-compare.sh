#!/usr/bin/env bash
# Before and after, side by side: the figures that must not get slower
# when the runtime changes, from two release builds of the benchmark
# programs, runs interleaved (before, after, before, after, ...) on the
# same fake CLI (the `after` build's):
#
# - (b) 1,000 one-turn jobs: wall time and host CPU per job; 1,000 idle
#   sessions: memory, file descriptors and host CPU per connect;
# - (c) control round trip at 1 session, beside cc-sdk 0.8.1 in the same run;
# - (a) flood: typed messages per second and per CPU-second, one session.
#
#   scripts/bench-compare.sh BEFORE_DIR AFTER_DIR [ROUNDS]
#
# Each DIR holds the release binaries `concurrent`, `roundtrip`, `flood`
# and `fake-claude` (copy them out of target/release after building each
# commit). Prints every figure as a JSON line tagged with its side and
# round on stdout, and the medians on stderr, with the load average at the
# start of each round.
set -euo pipefail

BEFORE=${1:?usage: $0 BEFORE_DIR AFTER_DIR [ROUNDS]}
AFTER=${2:?usage: $0 BEFORE_DIR AFTER_DIR [ROUNDS]}
ROUNDS=${3:-3}
export CLAUDE_AGENT_FAKE_CLI=$AFTER/fake-claude
OUT=$(mktemp "${TMPDIR:-/tmp}/bench-compare.XXXXXX")
trap 'rm -f "$OUT"' EXIT

tag() { # side round: prefix each JSON line with the side and the round
    python3 -c '
import json, sys
side, rnd, load = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for line in sys.stdin:
    try:
        v = json.loads(line)
    except ValueError:
        continue
    if isinstance(v, dict):
        v.update({"compare_side": side, "round": rnd, "load": load})
        print(json.dumps(v), flush=True)
' "$@"
}

for round in $(seq 1 "$ROUNDS"); do
    for side in before after; do
        dir=$BEFORE
        [ "$side" = after ] && dir=$AFTER
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        echo "round $round, $side (load $load)" >&2
        "$dir/concurrent" --no-peers --no-python --reps 1 2>/dev/null | tag "$side" "$round" "$load" | tee -a "$OUT"
        "$dir/roundtrip" --sessions 1 --no-python --no-bare 2>/dev/null | tag "$side" "$round" "$load" | tee -a "$OUT"
        "$dir/flood" --only rust --reps 1 2>/dev/null | tag "$side" "$round" "$load" | tee -a "$OUT"
    done
done

python3 - "$OUT" <<'EOF' >&2
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def pick(side, pred, key):
    return [r[key] for r in rows if r["compare_side"] == side and pred(r) and isinstance(r.get(key), (int, float))]
figures = [
    ("jobs: wall ms (1,000)", lambda r: r.get("bench") == "concurrent" and r.get("phase") == "jobs", "wall_ms"),
    ("jobs: host CPU ms per job", lambda r: r.get("bench") == "concurrent" and r.get("phase") == "jobs", "cpu_ms_per_session"),
    ("idle: KiB per session", lambda r: r.get("bench") == "concurrent" and r.get("phase") == "idle", "kib_per_session"),
    ("idle: fds per session", lambda r: r.get("bench") == "concurrent" and r.get("phase") == "idle", "fds_per_session"),
    ("idle: connect CPU ms per session", lambda r: r.get("bench") == "concurrent" and r.get("phase") == "idle", "connect_cpu_ms_per_session"),
    ("idle: connect all ms", lambda r: r.get("bench") == "concurrent" and r.get("phase") == "idle", "connect_all_ms"),
]
print(f"\n{'figure (median of rounds)':<40} {'before':>12} {'after':>12} {'after/before':>13}")
def line(name, b, a):
    if b and a:
        mb, ma = statistics.median(b), statistics.median(a)
        print(f"{name:<40} {mb:>12.3f} {ma:>12.3f} {ma / mb if mb else float('nan'):>13.3f}   ({len(b)}+{len(a)} runs)")
for name, pred, key in figures:
    line(name, pick("before", pred, key), pick("after", pred, key))
# Round trip and flood: every numeric figure of their rows, per side label.
for bench in sorted({r.get("bench") for r in rows} - {"concurrent", None}):
    labels = sorted({r.get("side") for r in rows if r.get("bench") == bench and r.get("side")})
    for label in labels:
        keys = sorted({k for r in rows if r.get("bench") == bench and r.get("side") == label
                       for k, v in r.items() if isinstance(v, (int, float)) and k not in ("round", "sessions", "frames", "line_bytes", "round_trips")})
        for k in keys:
            pred = lambda r, bench=bench, label=label: r.get("bench") == bench and r.get("side") == label
            line(f"{bench} {label} {k}"[:40], pick("before", pred, k), pick("after", pred, k))
EOF
