"""Measured vs ceiling for every published single-stream run of src/stackaudit/data/ceiling_measurements.toml.

Run: PYTHONPATH=src .venv/bin/python perf/ceiling_validation.py [--markdown]
Prints, per run: the measured rate; the final ceiling (context 0) and the kv-loaded line at the run's
context, with measured / ceiling for that line (the ceiling of the run's own workload); bytes per token per GPU
against a hand count from the published configs (plus any documented correction); stored bytes against the
published size less embeddings. Then the distribution of measured / ceiling (min, quartiles, median, max).
Exit 1 when a ceiling is below its measurement, an efficient run is more than 2.5x below its
kv-loaded ceiling, or a byte count is off by more than its tolerance.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ceiling_published import EFFICIENT_FACTOR, KV_LOADED_CONTEXT, SIZE_TOLERANCE, validate


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:+.1f} %"


def main(argv: list[str]) -> int:
    markdown = "--markdown" in argv
    rows = validate()
    header = ["run", "setup", "measured", "ceiling", "kv-loaded", "measured/ceiling", "bytes/token GB",
              "vs hand count", "stored GB", "vs published size"]  # fmt: skip
    table: list[list[str]] = []
    failures: list[str] = []
    for row in rows:
        m = row.measurement
        ratio = row.loaded_ceiling / m.measured
        table.append([
            m.id, m.setup, f"{m.measured:g}", f"{row.ceiling:.0f}", f"{row.loaded_ceiling:.0f} @ {m.context}",
            f"{m.measured / row.loaded_ceiling:.2f}" + (" eff" if m.efficient else ""), f"{row.bytes_gb:.2f}",
            _pct(row.bytes_error), f"{row.stored_gb:.2f}", _pct(row.size_error),
        ])  # fmt: skip
        if row.ceiling < m.measured or row.loaded_ceiling < m.measured:
            failures.append(f"{m.id}: ceiling below the measurement")
        if m.efficient and ratio > EFFICIENT_FACTOR:
            failures.append(f"{m.id}: ceiling {ratio:.2f} x an efficient stack's measurement")
        if row.bytes_error is not None and abs(row.bytes_error) > 0.10:
            failures.append(f"{m.id}: bytes {_pct(row.bytes_error)} from the hand count")
        if row.size_error is not None and abs(row.size_error) > SIZE_TOLERANCE:
            failures.append(f"{m.id}: stored bytes {_pct(row.size_error)} from the published size")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for line in table:
            print("| " + " | ".join(cell.replace("|", "\\|") for cell in line) + " |")
    else:
        widths = [max(len(r[i]) for r in [header, *table]) for i in range(len(header))]
        widths[1] = min(widths[1], 56)
        for line in [header, *table]:
            print("  ".join(cell[: widths[i]].ljust(widths[i]) if i < 2 else cell.rjust(widths[i])
                            for i, cell in enumerate(line)))  # fmt: skip
    for row in rows:
        if row.measurement.correction_gb:
            m = row.measurement
            print(f"{m.id}: hand count corrected by {m.correction_gb:+.2f} GB: {m.correction_reason}")
    shares = sorted(row.measurement.measured / row.loaded_ceiling for row in rows)
    q1, median, q3 = statistics.quantiles(shares, n=4)
    sources = len({row.measurement.source for row in rows})
    loaded = sum(1 for row in rows if row.measurement.context >= KV_LOADED_CONTEXT)
    print(f"{len(rows)} runs from {sources} sources, {loaded} KV-loaded (context >= {KV_LOADED_CONTEXT}); "
          f"measured / ceiling at the run's context: min {shares[0]:.2f}, quartiles {q1:.2f} / {median:.2f} / "
          f"{q3:.2f}, max {shares[-1]:.2f}; {len(failures)} failures")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
