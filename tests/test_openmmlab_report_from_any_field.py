"""mmengine's collect_env (`lmdeploy check_env`, mmdeploy's check_env.py) pasted from any of its fields on.

A reader often copies the report from its `Python:` line, or from a later field, leaving `sys.platform` out.
The report is recognised where it starts at one of its own field lines and `PyTorch` with enough of its fields
follow (facts/collect_env.OPENMMLAB_FIELDS, OPENMMLAB_ENOUGH); prose naming a field or two is not a report.
Real reports are corpus captures (their headers name the public threads), cut at the top here; the prose is
modelled.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks, fact, pasted


def _from(prefix: str, field: str) -> str:
    text = body(prefix)
    return text[text.index(field):]


@pytest.mark.parametrize(("prefix", "field", "torch"), [
    ("159", "Python: ", "2.6.0+cu124"),  # InternLM/lmdeploy#3996, four RTX 3090s
    ("161", "CUDA available: ", "2.0.0+cu117"),  # an A100-SXM4-80GB
    ("333", "numpy_random_seed: ", "2.5.1+cu124"),  # an A100-PCIE-40GB
    ("333", "CUDA_HOME: ", "2.5.1+cu124"),
])
def test_a_report_cut_at_the_top_is_recognised(prefix: str, field: str, torch: str) -> None:
    report = fact(pasted(_from(prefix, field)), "collect_env")
    assert (report.tool, report.torch_version) == ("openmmlab", torch)


def test_corpus_339_pasted_from_its_python_line_is_read() -> None:
    # InternLM/lmdeploy#2414: prose, then the report from `Python: 3.8.20` on (no sys.platform line).
    results = capture_checks("339", "RT-TORCH-ARCH", "DRV-CUDA-COMPAT")
    assert all(r.status != "not-recognised" for r in results.values())
    assert "2.3.1+cu121" in results["RT-TORCH-ARCH"].message


def test_prose_naming_two_fields_is_no_report() -> None:
    # Modelled: a reader's sentence and two field lines quoted from memory.
    text = ("I checked the environment again and everything looks right to me.\n"
            "CUDA available: True\n"
            "PyTorch: 2.3.1+cu121\n"
            "but the server still fails with the same error after a restart.\n")
    assert type(fact(pasted(text), "collect_env")).__name__ != "CollectEnv"
