"""Another vendor's GPUs in the user's words (facts/gpus.stated_vendor_gpus): an issue form's or a list's GPU key
answered with AMD, Intel or Apple alone leaves no NVIDIA GPU, so the NVIDIA checks do not apply
(facts/applicability.shown_absent over GpuInventory.others); importers/prose_machine joins ollama's `### GPU` heading
with its answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpus import stated_vendor_gpus
from stackaudit.importers.prose_machine import form_gpu_answer

CHECKS = ("DRV-CUDA-COMPAT", "DRV-PERSISTENCE")


def test_the_forms_amd_answer_leaves_no_nvidia_gpu_1012() -> None:
    """Real (corpus 1012, ollama/ollama#8716): ollama's form answered `### GPU` / `AMD`, and nvidia-smi's failure to
    reach a driver: no NVIDIA GPU, so the NVIDIA driver checks do not apply."""
    results = capture_checks("1012", *CHECKS)
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(CHECKS, "not-applicable")
    assert "GPU: AMD" in results["DRV-PERSISTENCE"].message


def test_the_form_answer_is_joined_from_its_heading() -> None:
    lines = ["### GPU", "", "AMD", "", "### CPU", "", "AMD"]
    assert form_gpu_answer(lines, 0) == ("GPU: AMD", 2)
    assert form_gpu_answer(lines, 4) == ("", 4)  # the CPU's heading is no GPU's
    assert form_gpu_answer(["### GPU", "", "### CPU"], 0) == ("", 0)  # an empty answer


@pytest.mark.parametrize(("line", "named"), [
    ("GPU: AMD", "AMD"), ("- **GPU**: Intel", "Intel"), ("GPU: Apple", "Apple"),
    ("GPU: Nvidia", ""), ("GPU: Nvidia, AMD", ""),  # NVIDIA's, or another choice beside it
])
def test_only_another_vendors_name_alone_is_read(line: str, named: str) -> None:
    words = stated_vendor_gpus(line)
    assert (words.startswith(f"{named} GPUs") if named else words == ""), words


@pytest.mark.parametrize(("line", "named"), [
    ("- GPUs: 2 AMD Radeon Pro VII", "AMD Radeon Pro VII"), ("GPU: AMD Radeon RX 7900 XTX", "AMD Radeon RX 7900 XTX"),
    ("GPU: 8x AMD Instinct MI300X", "AMD Instinct MI300X"), ("GPU: AMD 9070 XT", "AMD 9070 XT"),
    ("GPU: AMD Radeon RX 6800 + NVIDIA RTX 3090", ""),  # an NVIDIA card beside it
    ("GPU: RTX 4090", ""), ("GPUs: 2x NVIDIA A100", ""),  # NVIDIA's
    ("GPU: AMD Radeon RX 6800, RTX 3090", ""),  # a list of several
])
def test_a_gpu_key_answered_with_another_vendors_cards(line: str, named: str) -> None:
    words = stated_vendor_gpus(line)
    assert (words.startswith(f"{named} (the user's words") if named else words == ""), words


@pytest.mark.parametrize("capture", ["2694", "2697"])
def test_amd_cards_in_the_users_list_leave_no_nvidia_gpu(capture: str) -> None:
    """Real (corpus 2694, ROCm/rocm_smi_lib#110: `- GPUs: 2 AMD Radeon Pro VII`; corpus 2697, ROCm/ROCm issue form:
    `### GPU` answered `AMD 9070 XT`): no NVIDIA GPU, so no NVLink and no CUDA driver to judge."""
    results = capture_checks(capture, "DRV-CUDA-COMPAT", "DRV-NVLINK-HEALTH")
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(results, "not-applicable")
    assert "the user's words" in results["DRV-NVLINK-HEALTH"].message


def test_amd_cards_in_the_list_beside_nvidia_smi_keep_the_checks_open(tmp_path: Path) -> None:
    """Counter-example (modelled): the list names AMD cards, and nvidia-smi's table shows a loaded NVIDIA driver."""
    text = ("### hardware setup\n- GPUs: 2 AMD Radeon Pro VII\n\n"
            "+-----------------------------------------------------------------------------------------+\n"
            "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n")
    results = paste_checks(tmp_path, text, *CHECKS)
    assert "not-applicable" not in {r.status for r in results.values()}, results


def test_an_nvidia_smi_table_beside_the_answer_keeps_the_checks_open(tmp_path: Path) -> None:
    """Counter-example (modelled): the form says AMD, but the paste shows nvidia-smi's table from a loaded driver."""
    text = ("### GPU\n\nAMD\n\nFri Jan  3 10:00:00 2025\n"
            "+-----------------------------------------------------------------------------------------+\n"
            "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n")
    results = paste_checks(tmp_path, text, *CHECKS)
    assert "not-applicable" not in {r.status for r in results.values()}, results
