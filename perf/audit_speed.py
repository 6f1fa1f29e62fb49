"""Wall time of the audit as a user runs it, interpreter start included, and the audit itself.

Targets on a 2-core machine without a GPU: `stackaudit --help` < 0.3 s, `stackaudit audit`
< 1 s, `stackaudit audit --from SNAPSHOT` < 1 s; with `--snapshot` (an 8-GPU capture, see
perf/hgx_snapshot.py) also the audit's own time inside the process (collection, checks,
combining sources; the JSON's `summary.duration_s`) < 0.5 s. Prints medians (and min/max) of N runs.

Each case runs once untimed first, with Python writing bytecode, as an installed copy has it:
PYTHONDONTWRITEBYTECODE=1 in the environment would make every run compile stackaudit's sources again
(about 50k lines), which is a property of the environment, not of the command.

    python perf/audit_speed.py [--runs 9]
    python perf/audit_speed.py --corpus

`--corpus` times, in process, reading and auditing each corpus file (tests/data/captures) as `audit --from FILE`
does: what the corpus tests pay per file, and what a user's paste costs past the interpreter's start.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

STACKAUDIT = [sys.executable, "-m", "stackaudit"]
# Bytecode written and read, as an installed copy has it (the module docstring).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _time(argv: list[str], runs: int) -> list[float]:
    times = []
    subprocess.run(argv, capture_output=True, timeout=120, env=ENV)  # writes the bytecode; not timed
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=ENV)
        times.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--snapshot", help="also time `audit --from` on this snapshot (e.g. an 8-GPU capture)")
    parser.add_argument("--corpus", action="store_true", help="only time reading and auditing each corpus file")
    args = parser.parse_args()
    if args.corpus:
        _corpus_times()
        return
    with tempfile.TemporaryDirectory() as tmp:
        snap = os.path.join(tmp, "host.tar.gz")
        subprocess.run([*STACKAUDIT, "capture", "-o", snap], check=True, capture_output=True, timeout=120, env=ENV)
        cases = {
            "stackaudit --help": ([*STACKAUDIT, "--help"], 0.3),
            "stackaudit audit (live)": ([*STACKAUDIT, "audit"], 1.0),
            "stackaudit audit --format json (live)": ([*STACKAUDIT, "audit", "--format", "json"], 1.0),
            "stackaudit audit --from snapshot": ([*STACKAUDIT, "audit", "--from", snap], 1.0),
        }
        if args.snapshot:
            cases[f"stackaudit audit --from {os.path.basename(args.snapshot)}"] = (
                [*STACKAUDIT, "audit", "--from", args.snapshot], 1.0)
        print(f"{'case':<48} {'median':>8} {'min':>8} {'max':>8}  target")
        failed = False
        for name, (argv, target) in cases.items():
            times = _time(argv, args.runs)
            median = statistics.median(times)
            ok = median < target
            failed |= not ok
            print(f"{name:<48} {median:8.3f} {min(times):8.3f} {max(times):8.3f}  <{target:g} s {'ok' if ok else 'MISSED'}")
        if args.snapshot:
            inner = _audit_duration([*STACKAUDIT, "audit", "--from", args.snapshot, "--format", "json"], args.runs)
            median = statistics.median(inner)
            failed |= median >= 0.5
            print(f"{'  the audit itself (in process, first run)':<48} {median:8.3f} {min(inner):8.3f} {max(inner):8.3f}"
                  f"  <0.5 s {'ok' if median < 0.5 else 'MISSED'}")
            warm = _warm_audits(args.snapshot, args.runs)
            print(f"{'  the audit itself (in process, modules loaded)':<48} {statistics.median(warm):8.3f} "
                  f"{min(warm):8.3f} {max(warm):8.3f}")
    sys.exit(1 if failed else 0)


def _corpus_times() -> None:
    """Each corpus file read (recognise) and audited (run_audit on what the reader made), in process."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
    from corpus import audit_capture, load_corpus
    from stackaudit.importers.recognition import recognise

    entries = load_corpus()
    audit_capture(entries[0].path)  # imports every fact and check module
    for name, run in (("read (recognise)", lambda e: recognise(e.body, e.name)),
                      ("audit --from FILE (in process)", lambda e: audit_capture(e.path))):
        times = []
        for entry in entries:
            start = time.perf_counter()
            run(entry)
            times.append(time.perf_counter() - start)
        print(f"{name:<32} {len(times)} files: {sum(times):7.2f} s in all, median {statistics.median(times) * 1000:6.2f} "
              f"ms, max {max(times) * 1000:7.1f} ms")


def _warm_audits(snapshot: str, runs: int) -> list[float]:
    """run_audit on a freshly loaded snapshot as `audit` runs it (with the headline ceiling), the fact and
    check modules already imported."""
    from stackaudit.cli.audit import headline_ceiling
    from stackaudit.engine.runner import AuditOptions, run_audit
    from stackaudit.host.snapshot_reader import load_snapshot

    options = AuditOptions(ceiling=headline_ceiling())
    run_audit(load_snapshot(snapshot), options)  # imports every fact and check module
    out = []
    for _ in range(runs):
        host = load_snapshot(snapshot)
        start = time.perf_counter()
        run_audit(host, options)
        out.append(time.perf_counter() - start)
    return out


def _audit_duration(argv: list[str], runs: int) -> list[float]:
    """The audit's own time as the JSON report states it (interpreter start and imports excluded)."""
    out = []
    for _ in range(runs):
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=ENV)
        out.append(float(json.loads(proc.stdout)["summary"]["duration_s"]))
    return out


if __name__ == "__main__":
    main()
