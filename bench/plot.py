"""Draws bench/results/benchmarks.svg (and .png) from the JSON files that
scripts/bench.sh writes into bench/results/: one panel per benchmark,
this SDK next to its peers.

    .bench/venv/bin/python bench/plot.py [RESULTS_DIR]
"""

import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"rust": "#b7410e", "bare": "#7a7a7a", "python": "#3572a5"}


def load(results: str, name: str) -> list:
    path = os.path.join(results, f"{name}.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)


def rows(data: list, **fields) -> list:
    return [r for r in data if all(r.get(k) == v for k, v in fields.items())]


def missing(ax, title: str) -> None:
    ax.set_title(title)
    ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


def flood(ax, data: list) -> None:
    title = "(a) typed messages/s, one session"
    sides = [s for s in ("rust", "bare", "python") if rows(data, side=s)]
    if not sides:
        return missing(ax, title)
    vals = [rows(data, side=s)[0]["msgs_per_s"] / 1000.0 for s in sides]
    bars = ax.bar(sides, vals, color=[COLORS[s] for s in sides])
    ax.bar_label(bars, fmt="%.0f k")
    ax.set_ylabel("thousand messages / s (higher is better)")
    ax.set_title(title)


def concurrent(ax, data: list) -> None:
    title = "(b) 1,000 concurrent sessions"
    r_jobs = rows(data, side="rust", phase="jobs")
    p_jobs = rows(data, side="python", phase="jobs")
    r_idle = rows(data, side="rust", phase="idle")
    p_idle = rows(data, side="python", phase="idle")
    if not (r_jobs and r_idle and p_jobs and p_idle):
        return missing(ax, title)
    n = r_jobs[0]["sessions"]
    title = f"(b) {n:,} concurrent sessions: rust / python"
    figs = [
        ("jobs wall", "wall_ms", r_jobs, p_jobs, 1000.0, "s"),
        ("memory/session", "kib_per_session", r_idle, p_idle, 1.0, "KiB"),
        ("connect all", "connect_all_ms", r_idle, p_idle, 1000.0, "s"),
        ("drain all", "drain_ms", r_idle, p_idle, 1000.0, "s"),
    ]
    labels, ratios = [], []
    for name, key, r, p, scale, unit in figs:
        rv, pv = r[0][key] / scale, p[0][key] / scale
        labels.append(f"{name}\n{rv:.1f} vs {pv:.1f} {unit}")
        ratios.append(rv / pv if pv else math.nan)
    bars = ax.bar(labels, ratios, color=COLORS["rust"])
    ax.bar_label(bars, fmt="%.2f")
    ax.axhline(1.0, color="black", lw=0.8, label="parity")
    ax.axhline(0.5, color="black", lw=0.8, ls=":", label="target (wall, memory)")
    ax.set_ylabel("rust / python (lower is better)")
    ax.tick_params(axis="x", labelsize=8)
    ax.legend(fontsize=7)
    ax.set_title(title)


def roundtrip(ax, data: list) -> None:
    title = "(c) can_use_tool round trip (fake CLI's clock)"
    if not rows(data, side="rust"):
        return missing(ax, title)
    for side in ("bare", "rust", "python"):
        rs = sorted(rows(data, side=side), key=lambda r: r["sessions"])
        if not rs:
            continue
        xs = [r["sessions"] for r in rs]
        ax.plot(xs, [r["p50_us"] / 1000.0 for r in rs], "o-", color=COLORS[side], label=f"{side} p50")
        ax.plot(xs, [r["p99_us"] / 1000.0 for r in rs], "s--", color=COLORS[side], label=f"{side} p99")
    ax.axhline(2.0, color="black", lw=0.8, ls=":", label="target p99 at 100")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("concurrent sessions")
    ax.set_ylabel("ms (lower is better)")
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(title)


def shutdown(ax, data: list) -> None:
    title = "(d) shutdown of a CLI ignoring EOF + SIGTERM"
    rs = sorted(rows(data, side="rust", case="stubborn"), key=lambda r: r["configured_total_ms"])
    if not rs:
        return missing(ax, title)
    xs = [r["configured_total_ms"] / 1000.0 for r in rs]
    ax.plot(xs, [r["overshoot_ms"] for r in rs], "o-", color=COLORS["rust"], label="rust (median)")
    ax.plot(xs, [r["max_overshoot_ms"] for r in rs], "v:", color=COLORS["rust"], label="rust (max)")
    ps = rows(data, side="python", case="stubborn")
    if ps:
        ax.plot(
            [p["configured_total_ms"] / 1000.0 for p in ps],
            [p["overshoot_ms"] for p in ps],
            "s",
            color=COLORS["python"],
            label="python (fixed 5 s + 5 s)",
        )
    ax.axhline(100.0, color="black", lw=0.8, ls=":", label="target: 100 ms")
    ax.set_xscale("log")
    ax.set_xlabel("configured grace + term_grace (s)")
    ax.set_ylabel("measured - configured (ms)")
    ax.legend(fontsize=7)
    ax.set_title(title)


def main() -> None:
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results")
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    flood(axes[0][0], load(results, "flood"))
    concurrent(axes[0][1], load(results, "concurrent"))
    roundtrip(axes[1][0], load(results, "roundtrip"))
    shutdown(axes[1][1], load(results, "shutdown"))
    machine = load(results, "machine")
    if machine:
        m = machine[0]
        fig.suptitle(
            f"claude-agent vs claude-agent-sdk {m.get('python_sdk', '?')} (Python), "
            f"same fake CLI, {m.get('nproc', '?')} cores",
            fontsize=11,
        )
    fig.tight_layout()
    for ext in ("svg", "png"):
        out = os.path.join(results, f"benchmarks.{ext}")
        fig.savefig(out, dpi=90)
        print(out)


if __name__ == "__main__":
    main()
