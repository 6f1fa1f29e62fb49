"""Start-up time of `stackaudit --help`: the median of N runs of a fresh interpreter (hyperfine-like).

Each run is a new `python -c 'from stackaudit.cli.main import main; main(["--help"])'` process, so
the figure is what a user waits for before the help appears: interpreter start, the CLI's imports
and the help's formatting. One warm-up run first (the page cache and .pyc files), then N measured.
`--src DIR` measures another checkout's source (e.g. the typer CLI before the move to click).

Run: .venv/bin/python bench/cli_startup.py [--runs 20] [--src src] [--args --help] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CODE = "import sys; from stackaudit.cli.main import main; sys.exit(main(sys.argv[1:]))"


def one_run(python: str, src: str, args: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = src
    start = time.perf_counter()
    done = subprocess.run([python, "-c", CODE, *args], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=60, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"cli_startup: {' '.join(args)} exited {done.returncode}: {done.stderr[-500:]!r}")
    return elapsed


def measure(python: str, src: str, args: list[str], runs: int) -> dict[str, float]:
    one_run(python, src, args)  # warm-up: .pyc files written, files in the page cache
    times = sorted(one_run(python, src, args) for _ in range(runs))
    return {"runs": runs, "median_ms": statistics.median(times) * 1000, "min_ms": times[0] * 1000,
            "max_ms": times[-1] * 1000}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--src", default=os.path.join(HERE, "..", "src"), help="the source folder to import")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--args", default="--help", help="the CLI's arguments, space-separated")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    src = os.path.abspath(opts.src)
    figures = measure(opts.python, src, opts.args.split(), opts.runs)
    # A bare interpreter, for what the CLI itself adds.
    bare = []
    for _ in range(opts.runs):
        start = time.perf_counter()
        subprocess.run([opts.python, "-c", "pass"], timeout=60, check=False)
        bare.append(time.perf_counter() - start)
    figures["bare_python_ms"] = statistics.median(bare) * 1000
    if opts.json:
        print(json.dumps(figures))
    else:
        print(f"stackaudit {opts.args} ({os.path.relpath(src)}): median {figures['median_ms']:.0f} ms over "
              f"{opts.runs} runs (min {figures['min_ms']:.0f}, max {figures['max_ms']:.0f}); "
              f"bare python -c pass {figures['bare_python_ms']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
