"""docs/inputs.md lists every kind `audit --help` lists (the importer table), with a real sample line."""

from __future__ import annotations

from pathlib import Path

from inputs_doc import render, samples
from stackaudit.importers.registry import recognised_kinds

DOC = Path(__file__).resolve().parent.parent / "docs" / "inputs.md"


def test_docs_inputs_md_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), "docs/inputs.md is stale: run `make docs`"


def test_the_new_kinds_of_issue_27_each_have_a_real_sample() -> None:
    found = samples()
    for kind in ("systemctl (NVIDIA units)", "NVIDIA daemon journal", "driver container log", "dcgmi discovery",
                 "dcgmi nvlink", "dcgmi diag", "nvidia-smi -q", "nvidia-smi -q -x"):
        assert kind in recognised_kinds() and kind in found, kind
