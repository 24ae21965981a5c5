"""(d) Shutdown accuracy of the Python Agent SDK: the peer of
`bench/src/bin/shutdown.rs`, which runs it.

    python shutdown.py --cli PATH [--stubborn 3] [--polite 10]

The SDK's ladder is fixed in `SubprocessCLITransport.close()`: close stdin,
wait 5 s for exit, SIGTERM (the process only), wait 5 s, SIGKILL, wait up
to 5 s. No option changes it, so the configured total it is compared with
is 5 s + 5 s = 10 s. Times run from the `disconnect()` call to its return.

- stubborn: a fake that ignores stdin EOF and SIGTERM (`ignore_signal TERM`
  + `hang`); N sessions shut down concurrently, each timed.
- polite: a fake that exits on EOF; N sessions one after another.
"""

import argparse
import asyncio
import statistics
import time

from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient

from common import emit, polite_script, stubborn_script

GRACE_MS = 5000.0
TERM_GRACE_MS = 5000.0


async def connected(cli: str, script: str) -> ClaudeSDKClient:
    client = ClaudeSDKClient(
        ClaudeAgentOptions(cli_path=cli, env={"FAKE_CLAUDE_SCRIPT_JSON": script})
    )
    await client.connect()
    return client


async def timed_disconnect(client: ClaudeSDKClient) -> float:
    t0 = time.perf_counter()
    await client.disconnect()
    return (time.perf_counter() - t0) * 1000.0


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--stubborn", type=int, default=3)
    ap.add_argument("--polite", type=int, default=10)
    args = ap.parse_args()

    polite = []
    for _ in range(args.polite):
        c = await connected(args.cli, polite_script())
        polite.append(await timed_disconnect(c))
    emit(
        {
            "bench": "shutdown",
            "side": "python",
            "case": "polite",
            "grace_ms": GRACE_MS,
            "term_grace_ms": TERM_GRACE_MS,
            "configured_total_ms": GRACE_MS + TERM_GRACE_MS,
            "runs": len(polite),
            "median_ms": statistics.median(polite),
            "max_ms": max(polite),
        }
    )

    clients = await asyncio.gather(
        *(connected(args.cli, stubborn_script()) for _ in range(args.stubborn))
    )
    times = await asyncio.gather(*(timed_disconnect(c) for c in clients))
    total = GRACE_MS + TERM_GRACE_MS
    med = statistics.median(times)
    emit(
        {
            "bench": "shutdown",
            "side": "python",
            "case": "stubborn",
            "grace_ms": GRACE_MS,
            "term_grace_ms": TERM_GRACE_MS,
            "configured_total_ms": total,
            "runs": len(times),
            "median_ms": med,
            "max_ms": max(times),
            "overshoot_ms": med - total,
            "max_overshoot_ms": max(times) - total,
        }
    )


if __name__ == "__main__":
    asyncio.run(main())
