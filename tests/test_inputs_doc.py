"""docs/inputs.md lists every kind `audit --help` lists (the importer table), with a real sample line."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import report_spans
from inputs_doc import render, samples
from stackaudit.engine.runner import Report
from stackaudit.importers.registry import recognised_kinds

DOC = Path(__file__).resolve().parent.parent / "docs" / "inputs.md"


@pytest.fixture(scope="module")
def found(corpus_reports: dict[str, Report | None]) -> dict[str, tuple[str, str]]:
    """The samples, from the spans each corpus file's shared audit read (conftest.py): the corpus is not read a
    second time. A refused file has no report; samples() recognises it itself."""
    return samples({name: report_spans(rep) for name, rep in corpus_reports.items() if rep is not None})


def test_docs_inputs_md_is_current(found: dict[str, tuple[str, str]]) -> None:
    assert DOC.read_text(encoding="utf-8") == render(found), "docs/inputs.md is stale: run `make docs`"


def test_the_spans_of_an_audit_are_those_recognise_gives() -> None:
    # The samples above rest on it: a report's `recognised` lines are recognise()'s spans of the file's body.
    from corpus import audit_capture, corpus_path, parse_header
    from stackaudit.importers.recognition import recognise

    for prefix in ("72", "130", "1407"):
        entry = parse_header(corpus_path(prefix))
        report = audit_capture(entry.path)
        assert report is not None and report_spans(report) == recognise(entry.body, entry.name).recognised != []


def test_the_new_kinds_of_issue_27_each_have_a_real_sample(found: dict[str, tuple[str, str]]) -> None:
    for kind in ("systemctl status", "NVIDIA daemon journal", "driver container log", "dcgmi discovery",
                 "dcgmi nvlink", "dcgmi diag", "nvidia-smi -q", "nvidia-smi -q -x"):
        assert kind in recognised_kinds() and kind in found, kind


def test_the_table_order_does_not_follow_which_module_was_imported_first() -> None:
    # CI failed when a pytest worker had imported `importers.evidence` before the rest: the table took that order.
    import subprocess
    import sys

    src = str(Path(__file__).resolve().parents[1] / "src")
    code = "{}from stackaudit.importers.registry import recognised_kinds; print(recognised_kinds())"
    orders = [subprocess.run([sys.executable, "-c", code.format(first)], capture_output=True, text=True, check=True,
                             env={"PYTHONPATH": src}).stdout
              for first in ("", "import stackaudit.importers.evidence; import stackaudit.importers.lspci; ")]
    assert orders[0] == orders[1] and "evidence line" in orders[0]
