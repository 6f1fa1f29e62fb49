"""Measured vs ceiling for every published measurement of research/ceiling-model.md section 4.

Run: .venv/bin/python bench/ceiling_validation.py [--markdown]
Prints, per row: the measured single-stream rate, the tool's bytes per token per GPU against the
research's figure (plus any documented correction), and the ceilings of the ladder.
"""

from __future__ import annotations

import sys

from stackaudit.ceiling.validation import MEASUREMENTS, validate


def main(argv: list[str]) -> int:
    markdown = "--markdown" in argv
    rows = validate()
    header = [
        "row", "model / setup", "measured", "bytes GB (tool)", "bytes GB (research)", "diff",
        "BW ceiling", "% of BW", "BW+AR", "% of BW+AR", "overhead", "% of overhead",
    ]  # fmt: skip
    table: list[list[str]] = []
    for row in rows:
        m = row.measurement
        expected = f"{m.research_bytes_gb:.2f}" + (f" + {m.correction_gb:.2f}" if m.correction_gb else "")
        table.append(
            [
                str(m.row),
                f"{m.model}: {m.setup}",
                f"{m.measured:g}",
                f"{row.bytes_gb:.2f}",
                expected,
                f"{100 * row.bytes_error:+.1f} %",
                f"{row.bandwidth_ceiling:.0f}",
                f"{row.percent_of_bandwidth:.1f} %",
                f"{row.allreduce_ceiling:.0f}",
                f"{100 * m.measured / row.allreduce_ceiling:.1f} %",
                f"{row.overhead_ceiling:.0f}",
                f"{100 * m.measured / row.overhead_ceiling:.1f} %",
            ]
        )
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for line in table:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(r[i]) for r in [header, *table]) for i in range(len(header))]
        widths[1] = min(widths[1], 48)
        for line in [header, *table]:
            cells = [
                cell[: widths[i]].ljust(widths[i]) if i == 1 else cell.rjust(widths[i])
                for i, cell in enumerate(line)
            ]
            print("  ".join(cells))
    skipped = [m for m in MEASUREMENTS if m.gpu is None]
    for m in skipped:
        print(f"row {m.row} ({m.model}, {m.setup}) skipped: hardware not known")
    for m in MEASUREMENTS:
        if m.correction_gb:
            print(
                f"row {m.row}: research figure corrected by {m.correction_gb:+.2f} GB: {m.correction_reason}"
            )
    failures = [r for r in rows if r.bandwidth_ceiling < r.measurement.measured or abs(r.bytes_error) > 0.10]
    print(f"{len(rows)} rows: {len(rows) - len(failures)} with ceiling >= measured and bytes within 10 %")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
