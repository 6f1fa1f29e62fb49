"""TTFT against a server that closes every connection: with and without spare connections.

A server that answers `Connection: close` makes every request after the first wave open a new
TCP connection, and that connect lands inside TTFT. `SpareConnector` (aiohttp, https://) and
`http1.Pool` (plain http://) open the slot's next connection while the current response streams. This script runs the calibrated
server (TTFT 60 ms, 12 ms per token, `--close`) at c=16, alternating rounds with spares on and
off (off = `open_spare` does nothing), and prints the median TTFT and the connects paid inside
TTFT per round, with the server's own TTFT record (first chunk written − request read) beside
them.

Run: .venv/bin/python perf/ttft_connections.py [--rounds 4] [--concurrency 16] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from bench_support.cpus import pin, two_cores  # noqa: E402
from bench_support.servers import calibrated_server  # noqa: E402
from stackaudit.bench import http1, stats  # noqa: E402
from stackaudit.bench.client import SpareConnector  # noqa: E402
from stackaudit.bench.runner import BenchConfig, run_bench  # noqa: E402


def _one(url: str, concurrency: int, requests: int, seed: int) -> dict[str, Any]:
    config = BenchConfig(url=url, concurrency=[concurrency], requests=requests, input_tokens=16, output_tokens=32,
                         warmup="0", seed=seed)
    outcome = asyncio.run(run_bench(config, progress=None))
    level = outcome.result["levels"][0]
    records = [r for _, r in outcome.records[f"c={concurrency}"]]
    return {"ttft_p50_ms": level["ttft_ms"]["p50"], "connects_in_ttft": level["connections"]["connects_in_ttft"],
            "connect_ms_mean": level["connections"]["connect_ms_mean"], "records": records}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cores = two_cores()  # the client on one core, the server on another
    pin(0, cores[0] if cores else None)
    original, original_http1 = SpareConnector.open_spare, http1.Pool.open_spare
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        log = os.path.join(scratch, "chunks.jsonl")
        with calibrated_server("--ttft-ms", "60", "--gap-ms", "12", "--close", "--chunk-log", log, cpu=cores[1] if cores else None) as url:
            seed = 0
            for i in range(args.rounds):
                for spares in ((True, False) if i % 2 == 0 else (False, True)):
                    SpareConnector.open_spare = original if spares else (lambda self, key: None)  # type: ignore[method-assign]
                    http1.Pool.open_spare = original_http1 if spares else (lambda self: None)  # type: ignore[method-assign]
                    seed += 1
                    entry = _one(url, args.concurrency, args.requests, seed)
                    entry["spares"] = spares
                    entry["round"] = i
                    rounds.append(entry)
        SpareConnector.open_spare = original  # type: ignore[method-assign]
        http1.Pool.open_spare = original_http1  # type: ignore[method-assign]
        with open(log, encoding="utf-8") as handle:
            served = {e["prompt"]: e for e in map(json.loads, handle)}
    for entry in rounds:
        server = [(served[json.loads(r.body)["prompt"]]["chunk_times"][0] - served[json.loads(r.body)["prompt"]]["received"])
                  * 1000.0 for r in entry.pop("records")]
        entry["server_ttft_p50_ms"] = stats.percentile(sorted(server), 50)
    if args.json:
        print(json.dumps(rounds, indent=2))
        return 0
    print(f"closing server, TTFT 60 ms / 12 ms per token, c={args.concurrency}, {args.requests} requests per run")
    for entry in rounds:
        mean = entry["connect_ms_mean"]
        print(
            f"round {entry['round'] + 1} spares {'on ' if entry['spares'] else 'off'}: TTFT p50 {entry['ttft_p50_ms']:.2f} ms "
            f"(server's own {entry['server_ttft_p50_ms']:.2f}); {entry['connects_in_ttft']} connects in TTFT"
            + (f", mean {mean:.2f} ms" if mean is not None else "")
        )
    on = [e["ttft_p50_ms"] for e in rounds if e["spares"]]
    off = [e["ttft_p50_ms"] for e in rounds if not e["spares"]]
    lower = sum(1 for a, b in zip(on, off, strict=True) if a < b)
    print(f"median of rounds: spares on {stats.percentile(sorted(on), 50):.2f} ms, off {stats.percentile(sorted(off), 50):.2f} ms; "
          f"on lower in {lower} of {len(on)} paired rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
