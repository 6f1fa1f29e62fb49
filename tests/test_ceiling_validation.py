"""The ceiling against the published single-stream measurements of research section 4."""

from __future__ import annotations

import pytest

from stackaudit.ceiling.validation import MEASUREMENTS, validate

ROWS = {row.measurement.row: row for row in validate()}
KNOWN = [m for m in MEASUREMENTS if m.gpu is not None]


def test_every_row_with_known_hardware_is_validated() -> None:
    assert len(MEASUREMENTS) == 23
    assert sorted(ROWS) == sorted(m.row for m in KNOWN)
    assert len(ROWS) == 22  # row 21 (NIM) does not show its hardware


@pytest.mark.parametrize("measurement", KNOWN, ids=lambda m: f"row{m.row}")
def test_bandwidth_ceiling_is_at_or_above_the_measurement(measurement) -> None:  # type: ignore[no-untyped-def]
    row = ROWS[measurement.row]
    assert row.bandwidth_ceiling >= measurement.measured
    # The ladder only adds time: every lower rung is a lower ceiling.
    assert row.bandwidth_ceiling >= row.allreduce_ceiling >= row.overhead_ceiling


@pytest.mark.parametrize("measurement", KNOWN, ids=lambda m: f"row{m.row}")
def test_bytes_per_token_agree_with_the_research_within_10_percent(measurement) -> None:  # type: ignore[no-untyped-def]
    row = ROWS[measurement.row]
    assert abs(row.bytes_error) <= 0.10, (row.bytes_gb, measurement.expected_bytes_gb)


def test_corrections_to_the_research_are_explained() -> None:
    for m in MEASUREMENTS:
        assert bool(m.correction_gb) == bool(m.correction_reason)
        assert abs(m.correction_gb) < 0.25 * m.research_bytes_gb
