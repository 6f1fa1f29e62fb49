"""Start-up time of `stackaudit --help`: the median of N runs of a fresh interpreter (hyperfine-like).

Each run is a new `python -c 'from stackaudit.cli.main import main; main(["--help"])'` process, so
the figure is what a user waits for before the help appears: interpreter start, the CLI's imports
and the help's formatting. One warm-up run first (the page cache and .pyc files), then N measured.
`--src DIR` measures another checkout's source (e.g. the typer CLI before the move to click).

Run: .venv/bin/python perf/cli_startup.py [--runs 20] [--src src] [--args --help] [--json]
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


def one_run(python: str, src: str, args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds user + system) of one process. The CPU time is the process's own, so it
    changes little when other work shares the cores; the wall time is what a user waits."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = src
    start = time.perf_counter()
    proc = subprocess.Popen([python, "-c", CODE, *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = start + 60
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            raise SystemExit("cli_startup: a run took over 60 s")
        time.sleep(0.001)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"cli_startup: {' '.join(args)} exited {proc.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime


def measure(python: str, src: str, args: list[str], runs: int) -> dict[str, float]:
    one_run(python, src, args)  # warm-up: .pyc files written, files in the page cache
    samples = [one_run(python, src, args) for _ in range(runs)]
    walls = sorted(wall for wall, _ in samples)
    cpus = sorted(cpu for _, cpu in samples)
    return {"runs": runs, "median_ms": statistics.median(walls) * 1000, "min_ms": walls[0] * 1000,
            "max_ms": walls[-1] * 1000, "cpu_median_ms": statistics.median(cpus) * 1000}


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
    baseline = []
    for _ in range(opts.runs):
        start = time.perf_counter()
        subprocess.run([opts.python, "-c", "pass"], timeout=60, check=False)
        baseline.append(time.perf_counter() - start)
    figures["bare_python_ms"] = statistics.median(baseline) * 1000
    if opts.json:
        print(json.dumps(figures))
    else:
        print(f"stackaudit {opts.args} ({src}): median {figures['median_ms']:.0f} ms wall over "
              f"{opts.runs} runs (min {figures['min_ms']:.0f}, max {figures['max_ms']:.0f}), "
              f"{figures['cpu_median_ms']:.0f} ms CPU; bare python -c pass {figures['bare_python_ms']:.0f} ms wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
