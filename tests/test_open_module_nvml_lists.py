"""Issue 28, DRV-OPEN-MODULE from NVML's own lists (h72d): NVML enumerates only the GPUs the loaded kernel module
initialised, so a GPU in `nvidia-smi -L`'s rows or `nvidia-smi topo -m`'s columns ran under it, whatever source names
its model. A Blackwell GPU there shows the open module (the proprietary one leaves nvidia-smi at `No devices were
found`); the proprietary module beside them is judged over them."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.gputable import architecture_of, capability_of

# Real: https://github.com/noonghunna/club-3090/issues/1229 (`nvidia-smi topo -m` of a 2x RTX 5090 bench); the hardware
# line above it is modelled on the same report's title ("[bench] 2x 5090").
TOPO_5090 = """\
- 2x NVIDIA GeForce RTX 5090

\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tPHB\t0-63\t0\t\tN/A
GPU1\tPHB\t X \t0-63\t0\t\tN/A
"""
# Real: corpus 1231 (https://github.com/NVIDIA/gpu-operator/issues/442), `nvidia-smi -L` in the driver container and
# the syslog's module line.
A30_PROPRIETARY = """\
$ kubectl exec nvidia-driver-daemonset-8mp6n -n gpu-operator -- nvidia-smi -L
GPU 0: NVIDIA A30 (UUID: GPU-0898a861-78ae-cdaf-4f1a-68992223505a)

$ sudo grep -i nvrm /var/log/syslog
Nov 14 13:05:59 wngpu-1 kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  515.65.01  Wed Jul 20 14:00:58 UTC 2022
"""


def test_a_blackwell_gpu_in_topo_m_shows_the_open_module(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, TOPO_5090, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "ok", result.message
    assert "NVML listed it: `nvidia-smi topo -m`" in result.message


def test_the_proprietary_module_is_judged_over_the_gpus_nvidia_smi_lists(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, A30_PROPRIETARY, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "ok", result.message
    assert "proprietary kernel module 515.65.01 driving Ampere" in result.message


def test_the_proprietary_module_with_a_blackwell_gpu_listed_is_an_issue(tmp_path: Path) -> None:
    # Modelled: the same listing with a Blackwell GPU, which the proprietary module cannot have initialised.
    text = A30_PROPRIETARY.replace("GPU 0: NVIDIA A30", "GPU 0: NVIDIA RTX PRO 6000 Blackwell Server Edition")
    result = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "issue", result.message


def test_a_pre_turing_gpu_listed_under_the_proprietary_module_is_not_an_issue(tmp_path: Path) -> None:
    # Modelled: a Tesla P40 (Pascal), which only the proprietary module drives.
    text = A30_PROPRIETARY.replace("GPU 0: NVIDIA A30", "GPU 0: Tesla P40")
    result = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "not-an-issue", result.message


@pytest.mark.parametrize(("capture", "status"), [("1045", "ok"), ("1231", "ok")])
def test_corpus_readings(capture: str, status: str) -> None:
    assert capture_checks(capture, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"].status == status


def test_the_ampere_boards_without_a_table_row_name_their_architecture() -> None:
    assert architecture_of("NVIDIA A30") == architecture_of("NVIDIA A2") == architecture_of("NVIDIA A16") == "Ampere"
    assert capability_of("NVIDIA A30") == ""  # A30 is 8.0, A16 and A2 8.6: no one capability
    assert architecture_of("NVIDIA RTX A2000") == "Ampere"
