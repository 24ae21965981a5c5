"""(c) Control round-trip latency through the Python Agent SDK: the peer of
`bench/src/bin/roundtrip.rs`, which runs it.

    python roundtrip.py --cli PATH --sessions 1,100,1000 [--interval-ms 10] [--count N]

For each level N: N `ClaudeSDKClient`s connected (each with a `can_use_tool`
callback that allows at once), then all sent one prompt together; each fake
CLI asks `can_use_tool` one request at a time and times each round trip on
its own clock (the same code that times the Rust side). p50/p99 in
microseconds over all round trips, one JSON line per level.
"""

import argparse
import asyncio
import os
import tempfile
import time

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    PermissionResultAllow,
    ResultMessage,
)

from common import emit, per_session, raise_nofile, read_rtt_file, rtt_script, summary


async def allow_now(tool_name, tool_input, context):
    return PermissionResultAllow()


async def connect(cli: str, script: str, gate: asyncio.Semaphore) -> ClaudeSDKClient:
    async with gate:
        client = ClaudeSDKClient(
            ClaudeAgentOptions(
                cli_path=cli,
                can_use_tool=allow_now,
                env={"FAKE_CLAUDE_SCRIPT_JSON": script},
            )
        )
        await client.connect()
        return client


async def one_turn(client: ClaudeSDKClient) -> None:
    await client.query("go")
    async for message in client.receive_response():
        if isinstance(message, ResultMessage):
            break


async def level(cli: str, n: int, interval_ms: int, count: int) -> dict:
    count = count or per_session(n)
    with tempfile.TemporaryDirectory() as d:
        outs = [os.path.join(d, f"rtt-{i}.txt") for i in range(n)]
        gate = asyncio.Semaphore(64)
        clients = await asyncio.gather(
            *(connect(cli, rtt_script(count, o, interval_ms), gate) for o in outs)
        )
        t0 = time.perf_counter()
        await asyncio.gather(*(one_turn(c) for c in clients))
        wall = time.perf_counter() - t0
        await asyncio.gather(*(c.disconnect() for c in clients))
        rtts = []
        for o in outs:
            rtts.extend(read_rtt_file(o))
    s = summary(rtts)
    return {
        "bench": "roundtrip",
        "side": "python",
        "sessions": n,
        "round_trips": s["n"],
        "p50_us": s["p50"],
        "p99_us": s["p99"],
        "max_us": s["max"],
        "mean_us": s["mean"],
        "wall_ms": wall * 1000.0,
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--sessions", default="1,100,1000")
    ap.add_argument("--interval-ms", type=int, default=10)
    ap.add_argument("--count", type=int, default=0, help="round trips per session (0: default table)")
    args = ap.parse_args()
    levels = [int(x) for x in args.sessions.split(",") if x]
    raise_nofile(max(levels) * 8 + 256)
    for n in levels:
        emit(await level(args.cli, n, args.interval_ms, args.count))


if __name__ == "__main__":
    asyncio.run(main())
