"""Scale of `stackaudit fleet --from DIR`: N real-size 8-GPU snapshots analysed with 2 worker processes.

Target (issue 19): 1000 snapshots in under 60 s on 2 cores with 2 workers, peak RSS (the parent and every
process it started, together) under 500 MB. Prints, per fleet size, the wall time, the parent's peak RSS,
the peak of all processes together (sampled every 50 ms from /proc: the workers are the fork server's
children, which getrusage(RUSAGE_CHILDREN) does not see before they are reaped), the CPU seconds all of
them used (what the wall time would be on idle cores: CPU s / workers), and the load average before and
after (the machine may be shared).

The snapshots are tests/fleet_support.py's 8× RTX PRO 6000 node captured as `stackaudit capture` writes
them (full `lspci -vvv`, `nvidia-smi -q -x`, a ~4,500-line kernel log from boot: 360 KB of dmesg, ~600
members), in a few distinct captures: most differ only in their samples; four carry planted drift (driver,
one GPU's link width, a sysctl, a kernel command-line option) and sit on a few nodes. Each fleet entry is a
hard link to one of those captures (the analysis reads and audits every entry in full; only disk is saved).
The analysis must find exactly the planted nodes as odd ones, or the run fails.

    python perf/fleet_scale.py [--nodes 100,1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

# Planted drift: (variant name, node parameters), placed on a few nodes of every fleet.
DRIFT = {
    "driver": {"driver": "570.86.15"},
    "narrow": {"narrow_gpu": 3},
    "sysctl": {"sysctl": {"kernel__numa_balancing": 1}},
    "cmdline": {"cmdline_extra": " pci=noaer"},
}
SAMPLE_VARIANTS = 4  # captures that differ in CPU pressure and uptime only


def make_variants(out: Path) -> dict[str, Path]:
    from fleet_support import Node, write_node

    variants: dict[str, Path] = {}
    for i in range(SAMPLE_VARIANTS):
        path = out / f"base-{i}.tar.gz"
        write_node(Node(f"base-{i}", cpu_pressure=0.1 + 0.3 * i, uptime_s=86_400.0 * (i + 1), big_dmesg=True), str(path))
        variants[f"base-{i}"] = path
    for name, params in DRIFT.items():
        path = out / f"{name}.tar.gz"
        write_node(Node(name, big_dmesg=True, **params), str(path))  # type: ignore[arg-type]
        variants[name] = path
    return variants


def drift_nodes(n: int) -> dict[str, str]:
    """Node name -> planted variant: four nodes spread over the fleet."""
    spots = [max(1, n * k // 5) for k in range(1, 5)]
    return {f"node-{spot:04d}": name for spot, name in zip(spots, DRIFT, strict=True)}


def make_fleet(variants: dict[str, Path], n: int, out: Path) -> None:
    planted = drift_nodes(n)
    out.mkdir()
    for i in range(1, n + 1):
        name = f"node-{i:04d}"
        source = variants[planted.get(name, f"base-{i % SAMPLE_VARIANTS}")]
        os.link(source, out / f"{name}.tar.gz")


def _descendants(pid: int) -> list[int]:
    """Every process below `pid`, from /proc/PID/task/*/children (Linux)."""
    out, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as fh:
                    kids = [int(k) for k in fh.read().split()]
            except OSError:
                continue
            out.extend(kids)
            todo.extend(kids)
    return out


def _rss_and_cpu(pid: int) -> tuple[int, float] | None:
    """(resident bytes, CPU seconds) of one process from /proc/PID/statm and /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            rss = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return rss, (int(fields[11]) + int(fields[12])) / ticks  # utime, stime (fields 14, 15 of stat)
    except (OSError, IndexError, ValueError):
        return None


def _tree_sample(cpu: dict[int, float]) -> int:
    """RSS of this process and all its descendants together; records each descendant's CPU seconds."""
    mine = _rss_and_cpu(os.getpid())
    total = mine[0] if mine else 0
    for child in _descendants(os.getpid()):
        read = _rss_and_cpu(child)
        if read is not None:
            total += read[0]
            cpu[child] = read[1]
    return total


def measure(fleet: str, workers: int) -> dict[str, object]:
    """Run in a fresh process: analyse the fleet, render the JSON report, report time and memory."""
    from stackaudit.fleet.analysis import analyse
    from stackaudit.fleet.directory import directory_gatherer
    from stackaudit.fleet.render import document, render

    peak = [0]
    cpu: dict[int, float] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _tree_sample(cpu))
            stop.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    load_before = os.getloadavg()
    started = time.perf_counter()
    sampler.start()
    gather, total, _ = directory_gatherer(fleet)
    summaries = analyse(gather(fleet), workers=workers)
    doc = document(summaries, "directory")
    text = render(doc, "json")
    wall = time.perf_counter() - started
    stop.set()
    sampler.join()
    odd = sorted({n for d in doc["drift"] for o in d["odd"] for n in o["nodes"]})
    own = resource.getrusage(resource.RUSAGE_SELF)
    cpu_s = own.ru_utime + own.ru_stime + sum(cpu.values())
    return {
        "nodes": total, "audited": doc["summary"]["audited"], "failed": doc["summary"]["failed"],
        "wall_s": round(wall, 1), "per_node_ms": round(1000 * wall / max(1, total), 1),
        "parent_maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "cpu_s": round(cpu_s, 1), "cpu_ms_per_node": round(1000 * cpu_s / max(1, total), 1),
        "peak_tree_rss_mb": round(peak[0] / 2**20, 1),
        "drift": doc["summary"]["drift"], "odd_nodes": odd, "report_kb": round(len(text) / 1024, 1),
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
        "cpu_count": os.cpu_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="100,1000", help="fleet sizes, comma-separated")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # internal: the fresh process that measures
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.workers)))
        return
    sizes = [int(s) for s in args.nodes.split(",") if s.strip()]
    with tempfile.TemporaryDirectory(prefix="fleet-scale-") as tmp:
        started = time.perf_counter()
        variants = make_variants(Path(tmp))
        size_kb = round(sum(p.stat().st_size for p in variants.values()) / len(variants) / 1024, 1)
        print(f"{len(variants)} distinct captures, {size_kb} KB each (gzip), made in "
              f"{time.perf_counter() - started:.1f} s")
        print(f"{'nodes':>6} {'wall s':>7} {'ms/node':>8} {'CPU s':>7} {'CPU ms/node':>12} {'parent MB':>10} "
              f"{'all procs MB':>13} {'drift':>6}  load before → after")
        failed = False
        for n in sizes:
            fleet = Path(tmp) / f"fleet-{n}"
            make_fleet(variants, n, fleet)
            proc = subprocess.run([sys.executable, __file__, "--measure", str(fleet), "--workers", str(args.workers)],
                                  capture_output=True, text=True, timeout=3600)
            if proc.returncode != 0:
                raise SystemExit(f"measuring {n} nodes failed: {proc.stderr.strip()[-2000:]}")
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            expected = sorted(drift_nodes(n))
            ok = r["odd_nodes"] == expected and r["failed"] == 0
            failed |= not ok
            print(f"{r['nodes']:>6} {r['wall_s']:>7} {r['per_node_ms']:>8} {r['cpu_s']:>7} {r['cpu_ms_per_node']:>12} "
                  f"{r['parent_maxrss_mb']:>10} {r['peak_tree_rss_mb']:>13} {r['drift']:>6}  "
                  f"{r['load_before']} → {r['load_after']}" + ("" if ok else f"  WRONG drift: {r['odd_nodes']}"))
            for entry in fleet.iterdir():
                entry.unlink()
        print(f"target: 1000 nodes < 60 s, all processes < 500 MB (2 workers, {os.cpu_count()} CPUs); "
              "CPU s: the parent's and every descendant's user + system seconds (on 2 idle cores, wall ≈ CPU s / 2)")
        if failed:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
