"""How often two experts agree on a blind paste, and how often the tool agrees with them (issue 28).

tests/data/second_readings.toml holds a second reviewer's statuses for checks that a blind paste's first reader judged
from the capture. This script compares, for each of those checks, the first reader (the `# expect:` line), the second
reader and the tool (`audit --from FILE`), and prints the figures by expectation and by file.

    python perf/corpus_agreement.py [--from N] [--to N] [--pairs] [--misses]

A file counts as agreed when every check compared agrees. `--pairs` lists the checks where the two readers differ;
`--misses` lists the checks where they agree and the tool does not.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from corpus import audit_capture, load_corpus, second_readings  # noqa: E402


def _pct(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part // whole if whole else 0} %)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="lo", type=int, default=0, help="first corpus number")
    ap.add_argument("--to", dest="hi", type=int, default=10**9, help="last corpus number")
    ap.add_argument("--pairs", action="store_true", help="list the checks where the two readers differ")
    ap.add_argument("--misses", action="store_true", help="list the checks both readers agree on that the tool misses")
    args = ap.parse_args()
    second = second_readings()
    counts: Counter[str] = Counter()
    files: Counter[str] = Counter()
    pairs: Counter[tuple[str, str, str]] = Counter()
    misses: list[str] = []
    for entry in load_corpus():
        number = int(entry.name.split("-")[0])
        if entry.name not in second or not args.lo <= number <= args.hi:
            continue
        report = audit_capture(entry.path)
        tool = {r.id: r.status for r in report.results} if report is not None else {}
        agreed = {"readers": True, "first": True, "second": True, "consensus": True, "either": True}
        for cid, (status2, _) in second[entry.name].items():
            status1, got = entry.expect[cid][0], tool.get(cid, "refused")
            counts["compared"] += 1
            for key, same in (("readers", status1 == status2), ("first", got == status1),
                              ("second", got == status2), ("either", got in (status1, status2))):
                counts[key] += same
                agreed[key] &= same
            if status1 == status2:
                counts["consensus"] += 1
                counts["consensus met"] += got == status1
                agreed["consensus"] &= got == status1
                if got != status1:
                    misses.append(f"  {entry.name} {cid}: readers {status1}, tool {got}")
            else:
                pairs[(cid, status1, status2)] += 1
        files["files"] += 1
        for key, same in agreed.items():
            files[key] += same
    n, f = counts["compared"], files["files"]
    print(f"files {f}, checks compared {n}")
    print(f"the two readers agree: {_pct(counts['readers'], n)} checks, {_pct(files['readers'], f)} files")
    print(f"the tool agrees with the first reader: {_pct(counts['first'], n)} checks, {_pct(files['first'], f)} files")
    print(f"the tool agrees with the second reader: {_pct(counts['second'], n)} checks, {_pct(files['second'], f)} files")
    print(f"the tool agrees with one reader or the other: {_pct(counts['either'], n)} checks, "
          f"{_pct(files['either'], f)} files")
    print(f"the tool meets the checks both readers agree on: {_pct(counts['consensus met'], counts['consensus'])}; "
          f"files with no such check missed: {_pct(files['consensus'], f)}")
    if args.pairs:
        for (cid, status1, status2), count in pairs.most_common():
            print(f"  {count:3d}  {cid}: first {status1}, second {status2}")
    if args.misses:
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
