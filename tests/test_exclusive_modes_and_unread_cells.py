"""Compute modes and the table cells old and laptop drivers leave unread (h70f), as rules for the class.

- nvidia-smi's second row still reads where the power cap is `ERR!` (`N/A / ERR!`, a GeForce MX350 on R535) or the
  utilisation a bare `N/A` before the compute mode (`N/A    E. Thread`, a GTX TITAN on 340.29).
- DRV-COMPUTE-MODE: Exclusive_Thread is an issue whatever runs (NVML: support removed; one thread of one process);
  an exclusive mode beside a program that failed with `no CUDA-capable device is detected` (error 100) and never
  with `busy or unavailable` (46) is not an issue: the program was handed no GPU.
- PWR-GPU-POWER-LIMIT: a laptop's only GPU (a GeForce MX part too) whose cap NVML does not read is not an issue.
- MEM-GPU-SHARED: the MX350's 9 MiB, its process box cut, is ok over the one GPU shown.

The pastes are real corpus files (tests/data/captures names each one's public thread in its header); modelled
variants are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.nvidia_smi import parse_table
from stackaudit.gputable import LAPTOP_PART


def test_a_cap_read_as_err_keeps_the_memory_and_compute_mode() -> None:
    # Corpus 1571 (mlc-ai/mlc-llm#1462): `| N/A   42C    P8              N/A / ERR! |      9MiB /  2048MiB |`.
    gpu = parse_table(body("1571")).gpus[0]
    assert (gpu.memory_used_mib, gpu.memory_total_mib, gpu.compute_mode) == (9, 2048, "Default")
    assert gpu.power_limit_w is None and gpu.unreadable == ("power-limit",)


def test_a_bare_na_utilisation_keeps_the_compute_mode() -> None:
    # Corpus 1577 (cBio/cbio-cluster#144): `| 57%   79C    P0    N/A /  N/A |    362MiB /  6143MiB |     N/A    E. Thread |`.
    gpu = parse_table(body("1577")).gpus[0]
    assert (gpu.compute_mode, gpu.memory_used_mib, gpu.utilization_gpu) == ("Exclusive_Thread", 362, None)


def test_exclusive_thread_is_an_issue_without_a_workload_shown() -> None:
    result = capture_checks("1577", "DRV-COMPUTE-MODE")["DRV-COMPUTE-MODE"]
    assert result.status == "issue", result.message
    assert result.coverage is not None and result.coverage.text() == "1 of 2 GPUs shown"


def test_exclusive_process_without_a_workload_stays_unknown(tmp_path: Path) -> None:
    # Modelled on corpus 1577: the same rows in E. Process (the h68d count: no majority, unknown).
    text = body("1577").replace("E. Thread", "E. Process")
    result = paste_checks(tmp_path, text, "DRV-COMPUTE-MODE")["DRV-COMPUTE-MODE"]
    assert result.status == "unknown", result.message


def test_no_device_beside_an_exclusive_gpu_is_not_the_modes_fault() -> None:
    # Corpus 1576 (NVIDIA/AMGX#106): jsrun ranks fail with `no CUDA-capable device is detected`, GPU 0 E. Process.
    result = capture_checks("1576", "DRV-COMPUTE-MODE")["DRV-COMPUTE-MODE"]
    assert result.status == "not-an-issue", result.message
    assert "cudaErrorNoDevice" in result.message


def test_busy_or_unavailable_beside_no_device_keeps_the_mode_open(tmp_path: Path) -> None:
    # Modelled on corpus 1576: one rank also reports error 46, which an exclusive GPU in use gives.
    lines = body("1576").splitlines()
    lines.insert(2, "Cuda error in file 'luo/AMGX/examples/amgx_mpi_capi.c' in line 149 : all CUDA-capable devices "
                    "are busy or unavailable.")
    result = paste_checks(tmp_path, "\n".join(lines) + "\n", "DRV-COMPUTE-MODE")["DRV-COMPUTE-MODE"]
    assert result.status == "unknown", result.message


def test_geforce_mx_parts_are_a_laptops_one_gpu() -> None:
    assert LAPTOP_PART.search("NVIDIA GeForce MX350") and LAPTOP_PART.search("GeForce MX250")
    assert not LAPTOP_PART.search("NVIDIA GeForce GTX 1080")


def test_a_laptop_gpus_unread_cap_is_not_an_issue() -> None:
    results = capture_checks("1571", "PWR-GPU-POWER-LIMIT", "MEM-GPU-SHARED")
    power, shared = results["PWR-GPU-POWER-LIMIT"], results["MEM-GPU-SHARED"]
    assert power.status == "not-an-issue" and "ERR!" in power.message, power.message
    assert shared.status == "ok", shared.message
    assert shared.coverage is not None and shared.coverage.text() == "1 GPU shown"


def test_a_desktop_gpus_unread_cap_stays_unknown(tmp_path: Path) -> None:
    # Modelled on corpus 1571: the same rows naming a desktop card, whose cap is a setting NVML failed to read.
    text = body("1571").replace("NVIDIA GeForce MX350      ", "NVIDIA GeForce GTX 1650   ")
    result = paste_checks(tmp_path, text, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert result.status == "unknown", result.message


def test_a_posters_markdown_bold_on_a_cell_keeps_the_row() -> None:
    # Corpus 2095 (ggml-org/llama.cpp#5456, two V100 SXM2 on 535.54.03): `|      **0%**      Default |`.
    gpus = parse_table(body("2095")).gpus
    assert [(g.compute_mode, g.utilization_gpu) for g in gpus] == [("Default", 0), ("Default", 0)]


def test_modelled_bold_on_an_exclusive_mode_still_reads_it() -> None:
    # Modelled on 2095's rows: the bold put on the compute mode itself, which must still read as the mode shown.
    text = body("2095").replace("**0%**      Default", "0%  **E. Process**", 1)
    assert [g.compute_mode for g in parse_table(text).gpus] == ["Exclusive_Process", "Default"]
