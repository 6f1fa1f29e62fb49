"""A GPU name the nvidia-smi table cut (`NVIDIA GeForce ...`) and its memory and power cap resolved
(gputable.resolve_cut_name) is said as inferred wherever a report names it, each name once: a capped card of another
model with the same memory fits the same figures."""

from __future__ import annotations

import pytest

from corpus import capture_checks, corpus_path
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.importers.pasted import load_pasted
from stackaudit.report.header import finding_title
from stackaudit.report.sections import headline_lines


def _headline(prefix: str) -> str:
    return headline_lines(run_audit(load_pasted([str(corpus_path(prefix))]), AuditOptions()))[1]


@pytest.mark.parametrize(("prefix", "said"), [
    # Real: TGI thread, two `NVIDIA GeForce ...` rows of 24 GiB at 350 W.
    ("320", "(NVIDIA GeForce ... (likely RTX 3090 from 24 GiB/350 W))"),
    # Real: driver 396's table, three `GeForce GTX 108...` cut mid-word: the whole product is named.
    ("201", "(GeForce GTX 108... (likely GeForce GTX 1080 Ti from 11 GiB/250 W))"),
    # Real: ollama on a Tesla P100 whose name the table cut.
    ("319", "(Tesla P100-PCIE... (likely Tesla P100-PCIE-16GB from 16 GiB/250 W))"),
    # Real: two RTX 3080 rows, one resolved, one left as the table cut it.
    ("245", "(NVIDIA GeForce ..., NVIDIA GeForce ... (likely RTX 3080 from 10 GiB/320 W))"),
    # Real counter-example: a table that prints the whole name shows it as it is.
    ("155", "(NVIDIA GeForce RTX 3090)"),
])
def test_the_headline_says_a_resolved_cut_name_is_inferred(prefix: str, said: str) -> None:
    assert said in _headline(prefix)


def test_the_key_negative_title_and_the_power_reason_say_it_once_as_inferred() -> None:
    results = capture_checks("320", "IC-TOPO-READ", "PWR-GPU-POWER-LIMIT")
    assert finding_title(results["IC-TOPO-READ"]) == "NVIDIA GeForce ... (likely RTX 3090 from 24 GiB/350 W)"
    power = results["PWR-GPU-POWER-LIMIT"].message
    assert power.count("RTX 3090") == 1 and "inferred from this cap itself" in power, power


def test_the_ceiling_command_leaves_an_inferred_gpu_for_the_user_to_name() -> None:
    # Real: capture 319, one `Tesla P100-PCIE...`: the guess is not filled into `--gpu`.
    from stackaudit.report.header import ceiling_command

    report = run_audit(load_pasted([str(corpus_path("319"))]), AuditOptions())
    assert report.host["gpus"]["names"] == ["Tesla P100-PCIE-16GB"]
    assert " --gpu GPU " in ceiling_command(report)
