"""The corpus (tests/data/captures): every real paste's expected statuses, written from its public
thread before the tool ran, hold — except the gaps listed in tests/data/corpus_gaps.toml, each with
the reason and the issue that closes it.

A gap that starts matching fails this test too: remove it from the list, so that the list only
shrinks and a fixed behaviour cannot silently break again.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from corpus import CorpusEntry, load_corpus
from stackaudit.engine.testing import run_checks
from stackaudit.errors import InputError
from stackaudit.importers.registry import load_pasted

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

GAPS_FILE = Path(__file__).parent / "data" / "corpus_gaps.toml"
GAPS: dict[str, dict[str, str]] = tomllib.loads(GAPS_FILE.read_text())["gap"] if GAPS_FILE.exists() else {}
NOT_RECOGNISED = "not-recognised"
ENTRIES = load_corpus()


def _statuses(entry: CorpusEntry) -> dict[str, str]:
    try:
        host = load_pasted([str(entry.path)])
    except InputError:
        return {cid: NOT_RECOGNISED for cid in entry.expect}
    results = run_checks(host, list(entry.expect))
    return {cid: results[cid].status for cid in entry.expect}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path.name[:48])
def test_expected_statuses_hold(entry: CorpusEntry) -> None:
    got = _statuses(entry)
    gaps = GAPS.get(entry.path.name, {})
    wrong = {cid: (want, got[cid]) for cid, (want, _) in entry.expect.items() if got[cid] != want and cid not in gaps}
    assert not wrong, f"{entry.path.name}: expected vs got {wrong}"
    fixed = [cid for cid, (want, _) in entry.expect.items() if cid in gaps and got[cid] == want]
    assert not fixed, f"{entry.path.name}: {fixed} now match their expectation: remove them from {GAPS_FILE.name}"


def test_every_gap_names_a_check_the_file_expects_and_a_reason() -> None:
    by_name = {e.path.name: e for e in ENTRIES}
    for name, gaps in GAPS.items():
        assert name in by_name, f"{GAPS_FILE.name}: no corpus file {name}"
        for cid, reason in gaps.items():
            assert cid in by_name[name].expect, f"{name}: {cid} is not among its expectations"
            assert reason.strip(), f"{name}: {cid} has no reason"
