"""What the progress bar costs the client: CPU time of a level with the bar drawn and without.

The bar (rich, redrawn 4 times a second from its own thread) is on only when stderr is a
terminal; here it draws into a stream that says it is one and discards the text. Rounds
alternate bar on and off against the calibrated server (TTFT 20 ms, 2 ms per token, 64-token
outputs, c=16); per round: the client process's CPU seconds over the run, the output tok/s and
the TPOT p50 the level reported.

Run: .venv/bin/python perf/progress_cost.py [--rounds 4] [--requests 256] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from bench_support.cpus import pin, two_cores  # noqa: E402
from bench_support.servers import calibrated_server  # noqa: E402
from stackaudit.bench import stats  # noqa: E402
from stackaudit.bench.progress import TerminalProgress  # noqa: E402
from stackaudit.bench.runner import BenchConfig, run_bench  # noqa: E402


class _NullTerminal:
    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None


def _one(url: str, requests: int, bar: bool) -> dict[str, Any]:
    config = BenchConfig(url=url, concurrency=[16], requests=requests, input_tokens=16, output_tokens=64, warmup="0")
    cpu = time.process_time()
    outcome = asyncio.run(run_bench(config, progress=None, bar=TerminalProgress(_NullTerminal()) if bar else None))
    level = outcome.result["levels"][0]
    return {"bar": bar, "cpu_s": time.process_time() - cpu, "tok_s": level["output_tokens_per_s"],
            "tpot_p50_ms": level["tpot_ms"]["p50"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--requests", type=int, default=256)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cores = two_cores()  # the client on one core, the server on another
    pin(0, cores[0] if cores else None)
    rounds = []
    with calibrated_server("--ttft-ms", "20", "--gap-ms", "2", cpu=cores[1] if cores else None) as url:
        for _ in range(args.rounds):
            for bar in (True, False):
                rounds.append(_one(url, args.requests, bar))
    if args.json:
        print(json.dumps(rounds, indent=2))
        return 0
    for entry in rounds:
        print(f"bar {'on ' if entry['bar'] else 'off'}: client CPU {entry['cpu_s']:.3f} s, "
              f"{entry['tok_s']:,.0f} tok/s, TPOT p50 {entry['tpot_p50_ms']:.3f} ms")
    for bar in (True, False):
        cpu = [e["cpu_s"] for e in rounds if e["bar"] is bar]
        tpot = [e["tpot_p50_ms"] for e in rounds if e["bar"] is bar]
        print(f"median, bar {'on ' if bar else 'off'}: CPU {stats.percentile(sorted(cpu), 50):.3f} s, "
              f"TPOT p50 {stats.percentile(sorted(tpot), 50):.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
