"""Rules of the IC-CUSTOM-ALLREDUCE and IC-TOPO-READ classes (issue 28, helper h68m).

- IC-CUSTOM-ALLREDUCE over PCIe-only GPUs that are not GeForce, with no TP size in the source: unknown. A group of
  more than two has custom all-reduce off by design, but a TP=2 pair runs it where P2P works, so the verdict turns on
  the TP size (corpus 460, 887, 1450). GeForce cards keep not-an-issue: no P2P from the stock driver at any size.
- The engine in a sentence the machine reader takes (`With 2XL40 I get shard-manager error for docker image
  text-generation-inference:1.0.2`, corpus 893) names the engine of a log that names none: TGI has no custom
  all-reduce, not applicable.
- The user's `What I use is A100 80GB + fully NVlink` (corpus 891) names the model, read as its NVLink part.
- IC-TOPO-READ over a matrix without NV# between GPUs the source names GeForce: not an issue, the family's design
  (corpus 913), as with no matrix; a glued `2080Ti` (corpus 626) names the model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpus import owned_model, stated_gpus

_AR = "IC-CUSTOM-ALLREDUCE"
_TOPO = "IC-TOPO-READ"


@pytest.mark.parametrize("number", ["460", "887", "1450"])
def test_pcie_only_without_tp_size_is_unknown(number: str) -> None:
    result = capture_checks(number, _AR)[_AR]
    assert result.status == "unknown" and "TP size not shown" in result.message


# Modelled: the same matrix, the GPUs named GeForce: not an issue at any TP size.
_MATRIX = ("\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
           "GPU0\t X \tPHB\tSYS\tSYS\t0-15\t0\n"
           "GPU1\tPHB\t X \tSYS\tSYS\t0-15\t0\n"
           "GPU2\tSYS\tSYS\t X \tPHB\t16-31\t1\n"
           "GPU3\tSYS\tSYS\tPHB\t X \t16-31\t1\n")


def test_modelled_geforce_without_tp_size_stays_not_an_issue(tmp_path: Path) -> None:
    text = "I have 4x RTX 4090 in this server and run vLLM on them.\n\n" + _MATRIX
    result = paste_checks(tmp_path, text, _AR)[_AR]
    assert result.status == "not-an-issue"


def test_modelled_pcie_tp4_stays_not_an_issue(tmp_path: Path) -> None:
    text = _MATRIX + "\n`vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 4`\n"
    assert paste_checks(tmp_path, text, _AR)[_AR].status == "not-an-issue"


def test_tgi_named_in_the_machine_sentence_is_not_applicable() -> None:
    result = capture_checks("893", _AR)[_AR]
    assert result.status == "not-applicable" and "TGI" in result.message


def test_nvlinked_a100_in_the_users_words() -> None:
    assert owned_model("> What I use is A100 80GB + fully NVlink. This is my command:") == "A100 SXM4 80GB"
    assert owned_model("I use vllm 0.5 on it") == ""
    assert capture_checks("891", _AR)[_AR].status == "ok"


def test_geforce_matrix_is_not_an_issue() -> None:
    result = capture_checks("913", _TOPO)[_TOPO]
    assert result.status == "not-an-issue" and "GeForce" in result.message


def test_modelled_unnamed_matrix_stays_ok(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, _MATRIX, _TOPO)[_TOPO].status == "ok"


def test_glued_ti_names_the_model() -> None:
    assert stated_gpus("when I use 2 x 2080Ti GPUs, but how") == [(2, "RTX 2080 Ti")]
    assert capture_checks("626", _TOPO)[_TOPO].status == "not-an-issue"
