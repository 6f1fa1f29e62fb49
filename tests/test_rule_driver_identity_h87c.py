"""Issue 28 (h87c), driver and GPU identity: two rules.

MEM-MIG on a Windows host: MIG is supported only on Linux (NVIDIA's MIG user guide), so where the sources show the
host runs Windows itself and no container is shown, the check is not applicable (facts/applicability.LINUX_ONLY).

DRV-OPEN-MODULE on a driver before R515: the proprietary module is its only flavour. Where GPUs are shown running
under it (a list NVML or CUDA wrote, or a collect_env whose torch initialised CUDA), they are judged as on a later
driver: Turing to Hopper run under the proprietary module, ok (corpus 1673, both readers). With no GPU shown running,
it stays not an issue."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks


@pytest.mark.parametrize("prefix", [
    "1724",  # ollama/ollama#10553: ollama ps at a C:\ prompt, nvidia-smi cut inside GPU 0's name
    "1929",  # LostRuins/koboldcpp#170: koboldcpp's Windows build, no GPU named
    "926",   # ollama/ollama#17841: `OS: Windows 11`, an RTX A6000 whose MIG the table does not settle
    "928",   # ollama/ollama#6348: ollama's Windows runner in its log
    "1497",  # ollama/ollama#9311: ollama on Windows
])
def test_mig_is_not_applicable_on_a_windows_host(prefix: str) -> None:
    result = capture_checks(prefix, "MEM-MIG")["MEM-MIG"]
    assert result.status == "not-applicable"
    assert "Windows host" in result.message and "only on Linux" in result.message


def test_mig_on_windows_stays_open_beside_a_container(tmp_path: Path) -> None:
    """Modelled: corpus 1724 with a docker run beside it: the container may run in WSL 2's Linux VM."""
    text = body("1724") + "\nC:\\Users\\wardm> docker run -d --gpus=all -p 11434:11434 ollama/ollama\n"
    assert paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"].status == "unknown"


def test_mig_on_linux_is_not_ruled_out(tmp_path: Path) -> None:
    """Modelled: corpus 1724's nvidia-smi header at a Linux prompt: no Windows host, the check stays open."""
    text = body("1724").replace("C:\\Users\\wardm> ", "$ ")
    assert "C:\\" not in text
    assert paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"].status == "unknown"


@pytest.mark.parametrize(("prefix", "kinds"), [
    ("1673", "Ampere"),  # vllm-project/vllm#15607: 8x A800-SXM4, driver 470.161.03, CUDA available
    ("263", "Ampere"),   # vllm-project/vllm#6201: 2x A100, driver 470, collect_env
    ("294", "Ampere"),   # vllm-project/vllm#7943: 4x A10, driver 470, CUDA available
    ("619", "Ampere"),   # pytorch/pytorch#105287: 8x A800-SXM4, driver 470
])
def test_a_pre_r515_proprietary_module_shown_driving_gpus_is_ok(prefix: str, kinds: str) -> None:
    result = capture_checks(prefix, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "ok"
    assert kinds in result.message and "start with R515" in result.message


def test_a_pre_r515_report_whose_cuda_did_not_initialise_stays_not_an_issue(tmp_path: Path) -> None:
    """Modelled: corpus 1673 with torch unable to initialise CUDA: no GPU is shown running under the module."""
    text = body("1673").replace("Is CUDA available: True", "Is CUDA available: False")
    assert "Is CUDA available: False" in text
    result = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "not-an-issue"
    assert "start with R515" in result.message


def test_a_pre_r515_report_of_pascal_gpus_has_no_flavour_to_choose(tmp_path: Path) -> None:
    """Modelled: corpus 1673's report with its A800s swapped for Tesla P100s (Pascal): neither the pre-R515 driver
    nor the GPUs have an open module, so there is no flavour to choose (h92b's rule, as both readers of 2051, 2052)."""
    text = body("1673").replace("NVIDIA A800-SXM4-80GB", "Tesla P100-PCIE-16GB")
    result = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "not-applicable"
    assert "Pascal" in result.message
