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
