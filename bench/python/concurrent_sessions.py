"""(b) 1,000 concurrent sessions through the Python Agent SDK: the peer of
`bench/src/bin/concurrent.rs`, which runs it (one phase per process).

    python concurrent_sessions.py --cli PATH --sessions 1000 --phase jobs|idle

The fake CLI runs its default script (answer `initialize`, answer each
turn with three frames, exit on stdin EOF).

- jobs: `asyncio.gather` of N `query()`s of one prompt each, every message
  read to the end; wall time from the start to the last one done.
- idle: N `ClaudeSDKClient`s connected at once (`asyncio.gather`), RSS
  delta, open file descriptors and CPU of this process / N; then
  `disconnect()` of all (gathered), timed.
"""

import argparse
import asyncio
import time

from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage, query

from common import emit, open_fds, raise_nofile, rss_kib, summary


async def one_job(cli: str) -> tuple:
    t0 = time.perf_counter()
    latency = None
    ok = False
    async for message in query(prompt="hi", options=ClaudeAgentOptions(cli_path=cli)):
        if isinstance(message, ResultMessage):
            latency = (time.perf_counter() - t0) * 1000.0
            ok = not message.is_error
    return ok, latency


async def jobs(cli: str, n: int) -> dict:
    await one_job(cli)  # warm up outside the clock
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    results = await asyncio.gather(*(one_job(cli) for _ in range(n)))
    wall = (time.perf_counter() - t0) * 1000.0
    cpu = (time.process_time() - cpu0) * 1000.0
    lat = summary([r[1] for r in results if r[1] is not None])
    return {
        "bench": "concurrent",
        "side": "python",
        "phase": "jobs",
        "sessions": n,
        "completed": sum(1 for r in results if r[0]),
        "wall_ms": wall,
        "cpu_ms": cpu,
        "cpu_ms_per_session": cpu / n,
        # Python's figure runs from query() to the result (spawn and
        # initialize included), unlike the Rust side's prompt -> result.
        "turn_p50_ms": lat["p50"],
        "turn_p99_ms": lat["p99"],
    }


async def connected(cli: str) -> ClaudeSDKClient:
    client = ClaudeSDKClient(ClaudeAgentOptions(cli_path=cli))
    await client.connect()
    return client


async def idle(cli: str, n: int) -> dict:
    warm = await connected(cli)
    await warm.disconnect()
    before = rss_kib()
    fds_before = open_fds()
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    clients = await asyncio.gather(*(connected(cli) for _ in range(n)))
    connect = (time.perf_counter() - t0) * 1000.0
    connect_cpu = (time.process_time() - cpu0) * 1000.0
    after = rss_kib()
    fds_after = open_fds()
    t1 = time.perf_counter()
    await asyncio.gather(*(c.disconnect() for c in clients))
    drain = (time.perf_counter() - t1) * 1000.0
    return {
        "bench": "concurrent",
        "side": "python",
        "phase": "idle",
        "sessions": n,
        "connect_all_ms": connect,
        "rss_before_kib": before,
        "rss_after_kib": after,
        "kib_per_session": max(after - before, 0) / n,
        "fds_per_session": max(fds_after - fds_before, 0) / n,
        "connect_cpu_ms_per_session": connect_cpu / n,
        "drain_ms": drain,
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--phase", choices=["jobs", "idle"], required=True)
    args = ap.parse_args()
    raise_nofile(args.sessions * 8 + 256)
    if args.phase == "jobs":
        emit(await jobs(args.cli, args.sessions))
    else:
        emit(await idle(args.cli, args.sessions))


if __name__ == "__main__":
    asyncio.run(main())
