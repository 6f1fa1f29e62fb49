"""A 50 MB paste through `stackaudit audit --from`: wall time and the child's peak RSS.

The paste repeats real outputs of the corpus (tests/data/captures: kernel-log lines with AER and Xid
events, NCCL INFO lines, nvidia-smi tables, lspci blocks), each repeat in a markdown fence as threads
paste them, until it reaches the size asked. Targets on a 2-core machine: <= 30 s and <= 300 MB peak
RSS for 50 MB. The recognisers must be linear for this: a rescan per span would be quadratic.

    python perf/paste_size.py [--mb 50] [--keep PATH] [--corpus]

`--corpus` makes the paste of every corpus file's body instead, repeated to the size: every shape the readers
take (engine commands under shell variables included), one after another. `--one-line` joins the paste onto one
line (its line ends as spaces): a pattern that rescans the rest of a line from each match is quadratic there.

    python perf/paste_size.py --corpus --one-line --mb 0.5
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from corpus import CAPTURES_DIR, load_corpus, parse_header  # noqa: E402

# What a 50 MB paste is made of: a long kernel log and a long NCCL log (real lines repeated, one
# output each), one lspci of many devices, and nvidia-smi tables pasted again and again, each in
# its own markdown fence as threads do. (corpus file prefix, kind, share of the size)
LONG_OUTPUTS = (
    (("41", "dmesg"), ("42", "dmesg"), ("44", "dmesg"), ("40", "dmesg")),
    (("55", "nccl-log"), ("56", "nccl-log"), ("94", "nccl-log")),
    (("05", "lspci"), ("90", "lspci")),
)
SHARES = (0.4, 0.4, 0.1)
# One GPU model only: tables of two models would be two hosts, and the second set aside.
FENCED = ("92", "nvidia-smi")
TARGET_S = 30.0
TARGET_RSS_MB = 300.0
# The paste read alone: its wall and CPU seconds (its own and its forked helper's), and whether the needle gate
# (importers/recognition.py) is on ("0" as a third argument turns it off, to compare).
_READ_ONLY = ("import resource, sys, time\nfrom stackaudit.importers import pasted, recognition\n"
              "recognition.GATED = sys.argv[2] != '0'\n"
              "t = time.perf_counter(); pasted.load_pasted([sys.argv[1]]); wall = time.perf_counter() - t\n"
              "cpu = sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, "
              "(resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))\n"
              "print(wall, cpu)")


def _fragment(prefix: str, kind: str) -> str:
    [path] = CAPTURES_DIR.glob(f"{prefix}-*.txt")
    return "\n".join(line for line in parse_header(path).lines_of(kind) if line.strip()) + "\n"


def build_paste(size: int) -> str:
    parts: list[str] = []
    for fragments, share in zip(LONG_OUTPUTS, SHARES, strict=True):
        joiner = "\n" if fragments[0][1] == "lspci" else ""  # lspci devices are separated by a blank line
        unit = joiner.join(_fragment(p, k) for p, k in fragments) + joiner
        parts.append("```\n" + unit * max(1, int(size * share) // len(unit)) + "```\n\n")
    table = f"again:\n```\n{_fragment(*FENCED)}```\n\n"
    rest = size - sum(len(p) for p in parts)
    parts.append(table * max(1, rest // len(table)))
    return "".join(parts)


def corpus_paste(size: int) -> str:
    """Every corpus file's body, each in a markdown fence, repeated until the paste reaches `size`."""
    unit = "".join(f"```\n{e.body}\n```\n\n" for e in load_corpus())
    return unit * max(1, size // len(unit))


def _read_alone(path: Path, env: dict[str, str], gated: bool) -> tuple[float, float]:
    """(wall, CPU seconds) of `load_pasted` alone on the paste."""
    reading = subprocess.run([sys.executable, "-c", _READ_ONLY, str(path), "1" if gated else "0"],
                             capture_output=True, text=True, timeout=600, env=env)
    wall, cpu = [*reading.stdout.split(), "nan", "nan"][:2]
    return float(wall), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="paste size in MB (default 50)")
    parser.add_argument("--keep", help="also write the paste to this path")
    parser.add_argument("--ungated", action="store_true",
                        help="read the paste without the needle gate too, and print both reading figures")
    parser.add_argument("--corpus", action="store_true", help="make the paste of the whole corpus's bodies")
    parser.add_argument("--one-line", action="store_true", help="join the paste onto one line")
    args = parser.parse_args()
    text = (corpus_paste if args.corpus else build_paste)(int(args.mb * 1_000_000))
    if args.one_line:
        text = " ".join(text.split("\n"))[:int(args.mb * 1_000_000)] + "\n"
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.keep) if args.keep else Path(tmp) / "paste.txt"
        path.write_text(text, encoding="utf-8")
        # This tree's src first; what the caller's PYTHONPATH holds after it (a dependency kept outside the venv).
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH"))
                                                          if p))
        argv = [sys.executable, "-m", "stackaudit", "audit", "--from", str(path), "--format", "json"]
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, timeout=600, env=env)
        wall = time.perf_counter() - start
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        rss_mb = usage.ru_maxrss / 1024  # KiB on Linux
        # CPU seconds of the audit: what the wall time would be on an idle machine (the work is one
        # Python process; its threads share the interpreter lock), whatever else the machine runs.
        cpu_s = usage.ru_utime + usage.ru_stime
        # The same paste read alone (no checks): how the wall time splits between the paste reader
        # (importers/) and the audit after it (facts, checks, report).
        read_s, read_cpu = _read_alone(path, env, gated=True)
        plain = _read_alone(path, env, gated=False) if args.ungated else None
    if proc.returncode not in (0, 1):
        raise SystemExit(f"audit failed ({proc.returncode}): {proc.stderr.decode(errors='replace')[-2000:]}")
    size_mb = len(text.encode()) / 1_000_000
    lines = text.count("\n")
    # A fast audit that ran out of time proves nothing: no fact may have timed out, no check be cut off.
    report = json.loads(proc.stdout)
    cut_off = list(report.get("timed_out") or []) + [
        r["id"] for r in report["results"] if r["status"] == "error" and "did not finish" in r["message"]]
    ok = wall <= TARGET_S * args.mb / 50 and rss_mb <= TARGET_RSS_MB and not cut_off
    made = "the corpus's bodies, fenced" if args.corpus else "a kernel log, an NCCL log, an lspci, fenced nvidia-smi tables"
    made += ", on one line" if args.one_line else ""
    print(f"paste: {size_mb:.1f} MB, {lines} lines: {made}")
    print(f"wall: {wall:.1f} s (target <= {TARGET_S * args.mb / 50:g} s); CPU: {cpu_s:.1f} s")
    print(f"  of which reading the paste (load_pasted): {read_s:.1f} s, CPU {read_cpu:.1f} s; "
          f"facts, checks and report: {wall - read_s:.1f} s")
    if plain is not None:
        print(f"  reading without the needle gate: {plain[0]:.1f} s, CPU {plain[1]:.1f} s")
    print(f"peak RSS of the audit: {rss_mb:.0f} MB (target <= {TARGET_RSS_MB:g} MB)")
    print(f"machine: {os.cpu_count()} CPUs, load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"timed out or cut off: {', '.join(map(str, cut_off)) or 'nothing'}")
    print(f"report: {len(proc.stdout)} bytes of JSON, exit {proc.returncode}; {'ok' if ok else 'MISSED'}")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
