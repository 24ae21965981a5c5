"""Typed messages per second through the Python Agent SDK from a flooding
fake CLI: the peer of `bench/src/bin/flood.rs`, which runs it.

    python flood.py --cli PATH --frames N [--reps R]

The fake CLI's script comes from the environment (`FAKE_CLAUDE_SCRIPT_JSON`,
set by flood.rs): answer `initialize`, wait for the user turn, write N
`assistant` lines as fast as possible, then one `result`. Each repetition
runs `query()` and counts typed messages until the result; the clock runs
from the first message to the result (spawn and `initialize` are excluded,
as on the Rust side); CPU time is this process's, over the same span.
Prints one JSON object on stdout (best repetition).

Set `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK=1` (flood.rs does) so the SDK does
not spawn `<cli> -v` before each session.
"""

import argparse
import json
import os
import sys
import time

import anyio
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ResultMessage,
    TextBlock,
    query,
)
from claude_agent_sdk import __version__ as sdk_version


async def one_run(cli: str, frames: int) -> dict:
    options = ClaudeAgentOptions(cli_path=cli)
    assistant = 0
    other = 0
    text_bytes = 0
    first = None
    end = None
    t_start = time.perf_counter()
    async for message in query(prompt="flood", options=options):
        now = time.perf_counter()
        if first is None:
            first = now
            cpu_first = time.process_time()
        if isinstance(message, AssistantMessage):
            assistant += 1
            for block in message.content:
                if isinstance(block, TextBlock):
                    text_bytes += len(block.text)
        elif isinstance(message, ResultMessage):
            end = now
            cpu_end = time.process_time()
            other += 1
        else:
            other += 1
    # The stream is drained to its end (stdin EOF, the fake exits), so the
    # process is reaped before the next repetition.
    if end is None:
        raise SystemExit("the stream ended without a result")
    if assistant != frames:
        raise SystemExit(f"expected {frames} assistant messages, got {assistant}")
    if text_bytes == 0:
        raise SystemExit("no text seen")
    total = assistant + other
    # The first message starts the clock, so it is not counted.
    return {
        "secs": end - first,
        "cpu_secs": cpu_end - cpu_first,
        "msgs": total - 1,
        "wall_s": end - t_start,
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--frames", type=int, required=True)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    if "FAKE_CLAUDE_SCRIPT_JSON" not in os.environ:
        raise SystemExit("FAKE_CLAUDE_SCRIPT_JSON is not set (run via flood.rs)")
    skip = os.environ.get("CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK", "")
    runs = []
    for _ in range(args.reps):
        runs.append(await one_run(args.cli, args.frames))
    best = min(runs, key=lambda r: r["secs"] / r["msgs"])
    out = {
        "bench": "flood",
        "side": "python",
        "msgs_per_s": best["msgs"] / best["secs"],
        "msgs_per_cpu_s": max(r["msgs"] / r["cpu_secs"] for r in runs),
        "msgs": best["msgs"],
        "secs": best["secs"],
        "cpu_secs": best["cpu_secs"],
        "frames": args.frames,
        "reps": args.reps,
        "all_msgs_per_s": [r["msgs"] / r["secs"] for r in runs],
        "wall_s": best["wall_s"],
        "sdk": f"claude-agent-sdk {sdk_version}",
        "python": sys.version.split()[0],
        "skip_version_check": bool(skip),
    }
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    anyio.run(main)
