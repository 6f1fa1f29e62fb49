"""The GPU's capability inside torch's arch list, however the report shows the GPU (issue 28, blind DS-DX; RT-TORCH-ARCH).

- A model whose minor nothing settles (no GPU-table row with a capability, model words of an architecture that mixes
  minors), of an architecture of one major (gputable.SINGLE_MAJOR), is judged by that major: a cubin of its minor 0
  runs on each of its GPUs (binary compatibility within a major). The GTX TITAN X (Maxwell, 5.0 or 5.2 by the words)
  beside sm_50 (corpus 2795); the A30 (Ampere's words: 8.0, 8.6 or 8.7) beside sm_80 (corpus 2802).
- vLLM's newer collect_env pasted without its headings' indent: `Python Environment` is the report's own line, so the
  report runs on to its GPU list (importers/collect_env.py _LINE; corpus 2800).
- A report rewritten as `key : value` lines names its GPU under `GPU` (`GPU : NVIDIA RTX PRO 5000 72GB Blackwell
  (SM120), 73,415 MiB`), and the RTX PRO 5000's 72 GB variant is a Blackwell GB20x card (corpus 2854).

Real pastes are corpus captures (their public threads in their headers); the rest is modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.checks.rt import torch_supports
from stackaudit.facts.collect_env import parse_collect_env
from stackaudit.gputable import capability_of

TORCH = "RT-TORCH-ARCH"


@pytest.mark.parametrize(("prefix", "gpu"), [
    ("2795", "GTX TITAN X (compute 5.x)"),
    ("2802", "A30 (compute 8.x)"),
    ("2800", "RTX 4090 (compute 8.9)"),
    ("2854", "Blackwell (SM120) (compute 12.0)"),
])
def test_torch_arch_is_ok_where_the_list_covers_the_gpu(prefix: str, gpu: str) -> None:
    result = capture_checks(prefix, TORCH)[TORCH]
    assert result.status == "ok", (prefix, result.message)
    assert gpu in result.message, (prefix, result.message)


@pytest.mark.parametrize(("capability", "arch_list", "verdict"), [
    ("5.x", ("sm_50", "sm_60"), True),  # minor 0 runs on every minor
    ("8.x", ("compute_80",), True),  # so does its PTX
    ("5.x", ("sm_52", "sm_60"), None),  # a 5.2 runs it, a 5.0 does not
    ("5.x", ("sm_60", "sm_70"), False),  # no code of the major, no older PTX
    ("5.x", ("compute_35", "sm_60"), None),  # older PTX JIT-compiles: not a sure no
])
def test_a_major_against_an_arch_list(capability: str, arch_list: tuple[str, ...], verdict: bool | None) -> None:
    assert torch_supports(capability, "2.5.1+cu124", "12.4", arch_list) is verdict


# Modelled: torch's collect_env of one GPU the table holds no capability for.
REPORT = """\
PyTorch version: {torch}
Is debug build: False
CUDA used to build PyTorch: {cuda}
Is CUDA available: True
GPU models and configuration: GPU 0: {gpu}
Nvidia driver version: 550.120
"""


@pytest.mark.parametrize(("torch", "cuda", "gpu", "status"), [
    ("2.5.1+cu124", "12.4", "NVIDIA GeForce GTX TITAN X", "ok"),  # Maxwell beside sm_50
    ("2.5.1+cu124", "12.4", "NVIDIA A30", "ok"),  # Ampere beside sm_80
    ("2.7.0+cu128", "12.8", "NVIDIA GeForce GTX TITAN X", "issue"),  # cu128 2.7 dropped Maxwell (sm_75 up)
    ("2.5.1+cu124", "12.4", "NVIDIA Tesla M40", "ok"),  # another Maxwell part, another wording
])
def test_a_gpu_by_its_major_in_a_report(tmp_path: Path, torch: str, cuda: str, gpu: str, status: str) -> None:
    result = paste_checks(tmp_path, REPORT.format(torch=torch, cuda=cuda, gpu=gpu), TORCH)[TORCH]
    assert result.status == status, (torch, gpu, result.message)


def test_an_architecture_of_several_majors_stays_unsettled(tmp_path: Path) -> None:
    # Modelled: a Blackwell name without its model words (10.x, 11.0 or 12.x): no major to judge by.
    result = paste_checks(tmp_path, REPORT.format(torch="2.7.0+cu128", cuda="12.8", gpu="NVIDIA GB300 Superchip X"),
                          TORCH)[TORCH]
    assert result.status != "ok", result.message


NEW_REPORT = """\
==============================
PyTorch Info
PyTorch version : 2.7.0+cu126
CUDA used to build PyTorch : 12.6

==============================
{heading}
Python version : 3.11.13 | packaged by conda-forge | (main, Jun 4 2025, 14:48:23) [GCC 13.3.0] (64-bit runtime)

==============================
CUDA / GPU Info
Is CUDA available : True
GPU models and configuration :
GPU 0: NVIDIA GeForce RTX 4090
GPU 1: NVIDIA GeForce RTX 4090

Nvidia driver version : 570.133.20
"""


@pytest.mark.parametrize("heading", ["Python Environment", "      Python Environment"])
def test_the_new_reports_python_heading_keeps_the_report_whole(tmp_path: Path, heading: str) -> None:
    # Modelled on corpus 2800: flush left as the paste lost the indent, and indented as vLLM prints it.
    result = paste_checks(tmp_path, NEW_REPORT.format(heading=heading), TORCH)[TORCH]
    assert result.status == "ok", result.message
    assert result.coverage is not None and result.coverage.text() == "2 of 2 GPUs shown"


@pytest.mark.parametrize(("line", "gpu"), [
    ("GPU                     : NVIDIA RTX PRO 5000 72GB Blackwell (SM120), 73,415 MiB, VBIOS 98.02.9F.00.01",
     "NVIDIA RTX PRO 5000 72GB Blackwell (SM120)"),  # corpus 2854
    ("GPU : NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"),  # modelled
    ("GPU : N/A", None),  # modelled: no name
])
def test_a_reports_gpu_key(line: str, gpu: str | None) -> None:
    report = parse_collect_env("PyTorch version : 2.13.0+cu130\nCUDA used to build PyTorch : 13.0\n" + line + "\n")
    assert (report.gpu_models[0] if report.gpu_models else None) == gpu


@pytest.mark.parametrize(("name", "capability"), [
    ("NVIDIA RTX PRO 5000 72GB Blackwell", "12.0"),
    ("NVIDIA RTX PRO 5000 Blackwell", "12.0"),
    ("NVIDIA RTX PRO 5000 72GB Ada", ""),  # modelled: not the Blackwell words
])
def test_the_72_gb_variant_is_blackwell(name: str, capability: str) -> None:
    assert capability_of(name) == capability
