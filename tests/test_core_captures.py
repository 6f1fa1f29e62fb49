"""The first real captures (tests/data/captures 01-33) through `audit --from`: recognised, no crash, valid JSON.

The rest of the corpus (40 on) holds kinds the recognisers learn in step 2 (docker run lines, compose
files, journal lines...); its own test (tests/test_corpus_headers.py) checks its headers.

The findings each capture's header names are asserted in the domain tests (tests/test_<domain>_*.py);
here every capture must at least be recognised and give a schema-valid report without errors.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[1]
CAPTURES = REPO / "tests" / "data" / "captures"
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())
FILES = [p for p in sorted(CAPTURES.glob("*.txt")) if int(p.name.split("-", 1)[0]) < 40]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_capture_audits_cleanly(cli, path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("audit", "--from", str(path), "--format", "json")
    assert run.rc == 0, run.err
    data = json.loads(run.out)
    jsonschema.validate(data, SCHEMA)
    assert data["source"]["kind"] == "pasted" and data["source"]["recognised"]
    errors = [(r["id"], r["message"]) for r in data["results"] if r["status"] == "error"]
    assert not errors
    # A paste tells only part of the story: most checks stay unknown, and nothing pretends to be ok
    # without evidence, so at least one check must have a definite answer from the text.
    assert any(r["status"] not in ("unknown",) for r in data["results"])
