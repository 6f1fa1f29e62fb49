"""Measured vs ceiling for every published single-stream run of src/stackaudit/data/ceiling_measurements.toml.

Run: PYTHONPATH=src .venv/bin/python perf/ceiling_validation.py [--markdown]
Prints, per run: the measured rate; the final ceiling (context 0) and the kv-loaded line at the run's
context, with ceiling / measured; bytes per token per GPU against a hand count from the published configs (plus any documented correction); stored bytes against the published size less embeddings.
Exit 1 when a ceiling is below its measurement, an efficient run is more than 2.5x below its
ceiling, or a byte count is off by more than its tolerance.
"""

from __future__ import annotations

import sys

from stackaudit.ceiling.validation import EFFICIENT_FACTOR, SIZE_TOLERANCE, validate


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:+.1f} %"


def main(argv: list[str]) -> int:
    markdown = "--markdown" in argv
    rows = validate()
    header = ["run", "setup", "measured", "ceiling", "x", "kv-loaded", "bytes/token GB", "vs hand count",
              "stored GB", "vs published size"]  # fmt: skip
    table: list[list[str]] = []
    failures: list[str] = []
    for row in rows:
        m = row.measurement
        ratio = row.ceiling / m.measured
        table.append([
            m.id, m.setup, f"{m.measured:g}", f"{row.ceiling:.0f}", f"{ratio:.2f}" + (" eff" if m.efficient else ""),
            f"{row.loaded_ceiling:.0f} @ {m.context}", f"{row.bytes_gb:.2f}", _pct(row.bytes_error),
            f"{row.stored_gb:.2f}", _pct(row.size_error),
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
    ratios = [row.ceiling / row.measurement.measured for row in rows]
    print(f"{len(rows)} runs; ceiling / measured {min(ratios):.2f}-{max(ratios):.2f}; {len(failures)} failures")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
