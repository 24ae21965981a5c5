"""Helpers shared by the Python peers of the benchmark programs in
`bench/src/bin/`: figures as JSON lines on stdout, human text on stderr,
the fake CLI's scripts (the same JSON the Rust side builds), percentiles,
RSS from /proc.

Every peer is started by its Rust program with
`CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK=1` set.
"""

import json
import math
import os
import resource
import sys

from claude_agent_sdk import __version__ as SDK_VERSION  # noqa: F401  (re-exported)


def emit(obj: dict) -> None:
    """One figure, as a JSON line on stdout."""
    print(json.dumps(obj), flush=True)


def note(text: str) -> None:
    """Human text, on stderr."""
    print(text, file=sys.stderr, flush=True)


def percentile(sorted_values: list, p: float) -> float:
    """Nearest-rank percentile of an ascending list (same as the Rust side)."""
    if not sorted_values:
        return float("nan")
    rank = math.ceil(p / 100.0 * len(sorted_values))
    rank = min(max(rank, 1), len(sorted_values))
    return sorted_values[rank - 1]


def summary(values: list) -> dict:
    v = sorted(values)
    return {
        "n": len(v),
        "p50": percentile(v, 50),
        "p99": percentile(v, 99),
        "max": v[-1] if v else float("nan"),
        "mean": sum(v) / len(v) if v else float("nan"),
    }


def open_fds() -> int:
    """File descriptors this process has open (entries of /proc/self/fd)."""
    return len(os.listdir("/proc/self/fd"))


def rss_kib() -> int:
    """Resident set size of this process, KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def raise_nofile(want: int) -> int:
    """Raises the soft open-files limit to at least `want` (up to the hard
    limit); returns the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        soft = new
    return soft


def rtt_script(count: int, out: str, interval_ms: int) -> str:
    """The fake CLI's script for (c); `roundtrip.rs` builds the same."""
    return json.dumps(
        {
            "steps": [
                {"op": "expect", "type": "control_request", "subtype": "initialize"},
                {"op": "expect", "type": "user"},
                {
                    "op": "permission_rtt",
                    "count": count,
                    "tool": "Bash",
                    "out": out,
                    "interval_ms": interval_ms,
                    "timeout_ms": 60000,
                },
                {
                    "op": "emit",
                    "frame": {
                        "type": "result",
                        "subtype": "success",
                        "is_error": False,
                        "duration_ms": 0,
                        "duration_api_ms": 0,
                        "num_turns": 1,
                        "result": "done",
                        "session_id": "rtt",
                        "total_cost_usd": 0.0,
                        "usage": {"input_tokens": 0, "output_tokens": 0},
                    },
                },
            ]
        }
    )


def stubborn_script() -> str:
    """For (d): answers initialize, then ignores SIGTERM and stdin EOF."""
    return json.dumps(
        [
            {"op": "expect", "type": "control_request", "subtype": "initialize"},
            {"op": "ignore_signal", "signal": "TERM"},
            {"op": "hang"},
        ]
    )


def polite_script() -> str:
    """For (d): answers initialize and turns, exits on stdin EOF."""
    return json.dumps(
        [
            {"op": "expect", "type": "control_request", "subtype": "initialize"},
            {"op": "loop_turns", "text": "x"},
        ]
    )


def read_rtt_file(path: str) -> list:
    """A permission_rtt output file (ns per line) in microseconds."""
    with open(path) as f:
        return [int(line) / 1000.0 for line in f if line.strip()]


def per_session(n: int) -> int:
    """Round trips per session at n sessions (same table as roundtrip.rs)."""
    if n <= 1:
        return 500
    if n <= 10:
        return 100
    if n <= 100:
        return 50
    return 10
